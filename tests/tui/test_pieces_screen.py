"""The Pieces screen: graph with lint inline, facets resolved and shown, ~/.takt/pieces."""

from __future__ import annotations

import shutil
from pathlib import Path

from textual.widgets import Markdown, OptionList, Static, TextArea

from screens.pieces import PiecesScreen
from screens.widgets.virtual_table import VirtualTable
from tests.conftest import DEMO, FIXTURES, TAKT
from tests.tui.helpers import make_app, ready, settled, until
from tests.tui.test_team_live import row_text

API = "pieces/builtin/api-feature.yaml"


def _text(screen: PiecesScreen, selector: str) -> str:
    return str(screen.query_one(selector, Static).render())


async def _open(pilot, root: Path, rel: str | None = None, **kw) -> PiecesScreen:  # type: ignore[no-untyped-def]
    await ready(pilot)
    app = pilot.app
    app.push_screen(PiecesScreen(app.index, **kw))
    await until(pilot, lambda: isinstance(app.screen, PiecesScreen) and bool(app.screen.files))
    screen = app.screen
    assert isinstance(screen, PiecesScreen)
    if rel is not None:
        key = str(root / rel)
        screen.query_one("#piece-list", VirtualTable).move_to_key(key)
    await until(pilot, lambda: screen.view is not None and str(screen.view.path) == screen.current)
    await pilot.pause()
    return screen


async def test_graph_of_a_piece(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await _open(pilot, demo_root, API, takt_home=None)
        table = screen.query_one("#piece-list", VirtualTable)
        assert len(table.rows) == 2
        head = _text(screen, "#piece-head")
        assert "api-feature" in head and "5 movements" in head and "✓ lint: no problems" in head
        graph = _text(screen, "#piece-graph")
        assert "start → plan  (initial_movement)" in graph
        assert "⇉ reviewers  parallel ×2" in graph
        assert 'all of [arch-review, security-review]: "approved"  →  supervise' in graph
        assert "⟲ loop monitor 1: reviewers ↔ fix   after 2 cycles" in graph
        assert "✘ ABORT" in graph and "✔ COMPLETE" in graph


async def test_facets_are_resolved_and_shown(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await _open(pilot, demo_root, API, takt_home=None)
        await pilot.press("2")
        facets = screen.query_one("#piece-facets", OptionList)
        assert screen.focused is facets
        prompts = [str(facets.get_option_at_index(i).prompt) for i in range(facets.option_count)]
        assert "  persona planner  ✓" in prompts
        assert any("instruction (inline)  (in the piece)" in p for p in prompts)
        md = screen.query_one("#piece-facet-md", Markdown)
        await until(pilot, lambda: "Planner" in md.source or "plan" in md.source.lower())
        assert "personas map" in _text(screen, "#piece-facet-title")
        security = next(i for i, p in enumerate(prompts) if "knowledge security" in p)
        facets.highlighted = security  # where TAKT finds it: the project's facet directory
        await until(pilot, lambda: "(project)" in _text(screen, "#piece-facet-title"))
        # an instruction written in the piece is shown as is
        ids = [facets.get_option_at_index(i).id for i in range(facets.option_count)]
        inline = next(
            i for i, p in enumerate(prompts) if "(inline)" in p and facets.get_option_at_index(i).id
        )
        facets.highlighted = inline
        await until(pilot, lambda: "{report:architecture-review.md}" in md.source)
        assert ids[inline] is not None
        await pilot.press("3")
        assert "name: api-feature" in screen.query_one("#piece-yaml", TextArea).text


async def test_lint_shown_under_its_movement(demo_root: Path) -> None:
    bad = demo_root / "pieces" / "builtin" / "bad.yaml"
    bad.write_text(
        "name: '[red]bad[/red]'\nmax_movements: 4\ninitial_movement: a\nmovements:\n"
        "  - name: a\n    persona: nobody\n    instruction_template: 'Do {taks}'\n"
        "    rules:\n      - condition: done\n        next: COMPLETE\n"
        "  - name: lost\n    rules:\n      - condition: again\n        next: lost\n"
    )
    broken = demo_root / "pieces" / "builtin" / "broken.yaml"
    shutil.copy(TAKT / "e2e/fixtures/pieces/broken.yaml", broken)
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await _open(pilot, demo_root, "pieces/builtin/bad.yaml", takt_home=None)
        rows = {
            Path(k).name: [str(c) for c in cells]
            for k, cells in screen.query_one("#piece-list", VirtualTable).rows
        }
        assert rows["bad.yaml"][0].startswith("[red]bad[/red]")  # literal, not markup
        assert rows["bad.yaml"][2] == "⚠3"
        assert rows["broken.yaml"][2] == "✗1"
        graph = _text(screen, "#piece-graph").splitlines()
        lost = graph.index(next(x for x in graph if x.startswith("● lost")))
        assert "⚠ unreachable" in graph[lost]
        below = "\n".join(graph[lost:])
        assert "[unreachable-movement]" in below
        a_block = "\n".join(graph[:lost])
        assert "{taks} is not a TAKT template variable" in a_block
        assert "persona 'nobody'" in a_block and "[unresolved-facet]" in a_block
        screen.query_one("#piece-list", VirtualTable).move_to_key(str(broken))
        await until(pilot, lambda: screen.view is not None and screen.view.path == broken)
        await pilot.pause()
        assert "could not be read" in _text(screen, "#piece-graph")
        assert "[yaml-syntax]" in _text(screen, "#piece-graph")
        await pilot.press("3")
        assert "this is not valid YAML" in screen.query_one("#piece-yaml", TextArea).text


async def test_offers_takt_home(demo_root: Path, tmp_path: Path) -> None:
    home = tmp_path / "takt" / "pieces"
    home.mkdir(parents=True)
    shutil.copy(TAKT / "e2e/fixtures/pieces/mock-cycle-detect.yaml", home)
    shutil.copy(TAKT / "e2e/fixtures/pieces/mock-max-iter.yaml", home)
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await _open(pilot, demo_root, takt_home=home)
        table = screen.query_one("#piece-list", VirtualTable)
        assert len(table.rows) == 2 and "o: show" in str(table.border_subtitle)
        await pilot.press("o")
        await until(pilot, lambda: len(table.rows) == 4)
        assert "this session only" in str(table.border_subtitle)
        assert screen.check_action("add_takt_home", ()) is False
        table.move_to_key(str(home / "mock-max-iter.yaml"))
        await until(pilot, lambda: screen.view is not None and screen.view.path.parent == home)
        await pilot.pause()
        assert "⚠ no path to COMPLETE or ABORT" in _text(screen, "#piece-graph")
        assert "[no-exit]" in _text(screen, "#piece-graph")
    # nothing is offered when the directory is missing or already configured
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await _open(pilot, demo_root, takt_home=tmp_path / "nope")
        assert screen.offer is None and screen.check_action("add_takt_home", ()) is False


async def test_a_pieces_name_stays_in_sight_beside_its_folder(
    demo_root: Path, tmp_path: Path
) -> None:
    """Pieces of several folders show each name, then its folder as far as it fits: a
    middle cut kept the folder's last part (``kiro-…/workflows``) for each of takt-sdd's."""
    home = tmp_path / "takt-sdd" / "workflows"
    home.mkdir(parents=True)
    shutil.copy(FIXTURES / "takt-sdd/builtins/en/workflows/kiro-spec-init.yaml", home)
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await _open(pilot, demo_root, takt_home=home)
        await pilot.press("o")
        table = screen.query_one("#piece-list", VirtualTable)
        await until(pilot, lambda: len(table.rows) == 3)
        assert "kiro-spec-init" in row_text(table, str(home / "kiro-spec-init.yaml"))


async def test_no_pieces(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        app.push_screen(PiecesScreen(app.index, takt_home=None))
        await until(pilot, lambda: isinstance(app.screen, PiecesScreen))
        await settled(pilot)
        screen = app.screen
        assert isinstance(screen, PiecesScreen)
        assert "No pieces here" in _text(screen, "#piece-head")
        await pilot.press("2", "3", "1", "E")


# -- snapshots ---------------------------------------------------------------------

SNAP = Path("/tmp/hurikaeri-snapshot-pieces/demo")


def _snap_app():  # type: ignore[no-untyped-def]
    if SNAP.exists():
        shutil.rmtree(SNAP)
    shutil.copytree(DEMO, SNAP)
    return make_app(SNAP)


def _snap(rel: str, *keys: str):  # type: ignore[no-untyped-def]
    async def run_before(pilot) -> None:  # type: ignore[no-untyped-def]
        screen = await _open(pilot, SNAP, rel, takt_home=None)
        for key in keys:
            await pilot.press(key)
        if "2" in keys:
            md = screen.query_one("#piece-facet-md", Markdown)
            await until(pilot, lambda: bool(md.source))
        await settled(pilot)

    return run_before


def test_pieces_graph_snapshot(snap_compare) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(_snap_app(), terminal_size=(120, 40), run_before=_snap(API))


def test_pieces_graph_snapshot_small(snap_compare) -> None:  # type: ignore[no-untyped-def]
    rel = "pieces/builtin/quick-fix.yaml"
    assert snap_compare(_snap_app(), terminal_size=(80, 24), run_before=_snap(rel))


def test_pieces_facets_snapshot(snap_compare) -> None:  # type: ignore[no-untyped-def]
    keys = ("2", "down", "down")
    assert snap_compare(_snap_app(), terminal_size=(120, 40), run_before=_snap(API, *keys))
