"""The Discussions screen: metadata at a glance, and follow-ups only through the review."""

from __future__ import annotations

import shutil
from pathlib import Path

from textual.widgets import Markdown, OptionList, Static, TextArea

from screens.dialogs.confirm import ConfirmScreen
from screens.dialogs.person_report import PersonReportDialog
from screens.dialogs.propose import ProposeScreen
from screens.discussions import DiscussionsScreen
from screens.widgets.virtual_table import VirtualTable
from store.check.files import lint_file
from store.models import KptReport, Proposal
from store.read.loader import load_file
from tests.conftest import DEMO
from tests.tui.helpers import make_app, ready, settled, until

RATE = "discussions/rate-limit-review/2026-11-07-codex-review.md"
ROUND2 = "discussions/auth-token-strategy/2026-11-03-codex-round2.md"


def _text(screen: DiscussionsScreen, selector: str) -> str:
    return str(screen.query_one(selector, Static).render())


def _options(screen: DiscussionsScreen) -> list[tuple[str | None, str]]:
    items = screen.query_one("#disc-items", OptionList)
    return [
        (items.get_option_at_index(i).id, str(items.get_option_at_index(i).prompt))
        for i in range(items.option_count)
    ]


async def _open(pilot, root: Path, rel: str | None = None) -> DiscussionsScreen:  # type: ignore[no-untyped-def]
    await ready(pilot)
    app = pilot.app
    app.push_screen(DiscussionsScreen(app.index))
    await until(pilot, lambda: isinstance(app.screen, DiscussionsScreen) and app.screen.discussions)
    screen = app.screen
    assert isinstance(screen, DiscussionsScreen)
    if rel is not None:
        assert screen.query_one("#disc-list", VirtualTable).move_to_key(str(root / rel))
        await until(pilot, lambda: screen.current == str(root / rel))
    return screen


def _kpt_files(root: Path) -> set[str]:
    return {p.name for p in (root / "hurikaeri").glob("kpt-*.yaml")}


async def test_lists_every_discussion_with_its_metadata(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await _open(pilot, demo_root)
        table = screen.query_one("#disc-list", VirtualTable)
        assert len(table.rows) == 4
        rows = {Path(k).name: [str(c) for c in cells] for k, cells in table.rows}
        assert rows["2026-11-07-codex-review.md"][:3] == ["stop", "cond.", "1H 2M 1L"]
        assert rows["2026-10-30-codex-review.md"][:2] == ["stop*", "pass*"]  # fallbacks
        assert rows["2026-11-02-claude-round1.md"][0] == "continue"
        assert rows["2026-11-02-claude-round1.md"][4] == "3"  # open questions
        assert rows["2026-11-03-codex-round2.md"][6] == "3"  # next steps

        table.move_to_key(str(demo_root / RATE))
        await until(pilot, lambda: screen.current == str(demo_root / RATE))
        head = _text(screen, "#disc-head")
        assert "review · status stop · verdict conditional" in head
        assert "metadata block at line 21" in head
        ids = [i for i, _ in _options(screen) if i]
        assert ids == ["finding:0", "finding:1", "finding:2", "finding:3"]
        prompts = dict(_options(screen))
        assert "HIGH" in prompts["finding:0"] and "redis.call('TIME')" in prompts["finding:0"]
        body = screen.query_one("#disc-body", Markdown).source
        assert body.startswith("I reviewed the diff") and "status: stop" not in body

        table.move_to_key(
            str(demo_root / "discussions/etl-dedup-review/2026-10-30-codex-review.md")
        )
        await until(pilot, lambda: "fallbacks apply" in _text(screen, "#disc-head"))
        assert "verdict from PASS in the text" in _text(screen, "#disc-head")


async def test_finding_becomes_a_kpt_problem_after_confirmation(demo_root: Path) -> None:
    before = (demo_root / RATE).read_bytes()
    existing = _kpt_files(demo_root)
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await _open(pilot, demo_root, RATE)
        await pilot.press("enter")  # into the entries: the HIGH finding is highlighted
        assert screen.focused is screen.query_one("#disc-items", OptionList)
        await pilot.press("p")
        await until(pilot, lambda: isinstance(app.screen, PersonReportDialog))
        dialog = app.screen
        assert isinstance(dialog, PersonReportDialog)
        text = dialog.query_one("#disc-kpt-yaml", TextArea).text
        assert "Lua script uses the app server clock" in text and "impact: high" in text
        assert "addresses:\n      - prob-001" in text  # the suggestion as a try-item
        assert _kpt_files(demo_root) == existing  # nothing written yet
        await pilot.press("ctrl+s")
        await until(pilot, lambda: not isinstance(app.screen, PersonReportDialog))
        new = _kpt_files(demo_root) - existing
        assert len(new) == 1
        path = demo_root / "hurikaeri" / new.pop()
        assert path.read_text() == text  # exactly what was shown
        await until(pilot, lambda: path in app.index.files)
        # its items wait for review like any agent's
        assert any(
            s.report is not None and s.report.path == path for s in app.index.sessions.values()
        )
    assert (demo_root / RATE).read_bytes() == before  # the agent's file is untouched
    doc = load_file(path).doc
    assert isinstance(doc, KptReport) and [p.impact for p in doc.problem or []] == ["high"]
    assert [d for d in lint_file(path, None, path.name) if d.severity == "error"] == []


async def test_cancel_and_errors_write_nothing(demo_root: Path) -> None:
    existing = _kpt_files(demo_root)
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await _open(pilot, demo_root, RATE)
        await pilot.press("enter", "p")
        await until(pilot, lambda: isinstance(app.screen, PersonReportDialog))
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, DiscussionsScreen))
        await pilot.press("p")
        await until(pilot, lambda: isinstance(app.screen, PersonReportDialog))
        dialog = app.screen
        area = dialog.query_one("#disc-kpt-yaml", TextArea)
        area.load_text(area.text.replace("outcome: partial\n", ""))
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, PersonReportDialog)
        errors = str(dialog.query_one("#disc-kpt-errors", Static).render())
        assert "Not written" in errors and "outcome" in errors
        await pilot.press("escape")
    assert _kpt_files(demo_root) == existing


async def test_picked_next_steps_become_try_items_and_undo_removes_the_report(
    demo_root: Path,
) -> None:
    existing = _kpt_files(demo_root)
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await _open(pilot, demo_root, ROUND2)
        await pilot.press("enter")
        items = screen.query_one("#disc-items", OptionList)
        ids = [i for i, _ in _options(screen)]
        for key in ("next_step:0", "next_step:2"):
            items.highlighted = ids.index(key)
            await pilot.press("space")
        assert [i for i, p in _options(screen) if i and "▸" in p] == ["next_step:0", "next_step:2"]
        items.highlighted = ids.index("decision:0")
        await pilot.press("space")  # a decision is not picked for a KPT report
        await pilot.press("p")
        await until(pilot, lambda: isinstance(app.screen, PersonReportDialog))
        text = app.screen.query_one("#disc-kpt-yaml", TextArea).text
        assert "Re-apply migration" in text and "Run pnpm test" in text
        assert "Implement the grace window" not in text and "problem: []" in text
        await pilot.press("ctrl+s")
        await until(pilot, lambda: len(_kpt_files(demo_root)) == len(existing) + 1)
        await until(pilot, lambda: isinstance(app.screen, DiscussionsScreen))
        assert not any("▸" in p for _i, p in _options(screen))  # picks are cleared
        await pilot.press("u")
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
        await until(pilot, lambda: _kpt_files(demo_root) == existing)


async def test_next_step_becomes_a_proposal_through_the_inbox_dialog(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await _open(pilot, demo_root, ROUND2)
        await pilot.press("enter")
        ids = [i for i, _ in _options(screen)]
        screen.query_one("#disc-items", OptionList).highlighted = ids.index("next_step:1")
        await pilot.press("R")
        await until(pilot, lambda: isinstance(app.screen, ProposeScreen))
        payload = app.screen.query_one("#pr-payload", TextArea).text
        assert "Implement the grace window" in payload and "skill_id" in payload
        await pilot.press("ctrl+s")
        await until(pilot, lambda: not isinstance(app.screen, ProposeScreen))
    new = [
        p
        for p in (demo_root / "knowledge_base" / "inbox").glob("prop-*.yaml")
        if "2026-11-03-codex-round2.md" in p.read_text(encoding="utf-8")
    ]
    assert len(new) == 1
    doc = load_file(new[0]).doc
    assert isinstance(doc, Proposal) and doc.kind == "skill" and doc.status == "pending"


async def test_agent_text_is_shown_literally(demo_root: Path) -> None:
    evil = demo_root / "discussions" / "evil" / "reply.md"
    evil.parent.mkdir()
    evil.write_text(
        "[bold red]not markup[/] [@click=app.quit]click[/]\n\n---\nstatus: stop\n"
        'findings:\n  - severity: high\n    message: "[red]x[/red] \\e[31mansi"\n---\n'
    )
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await _open(pilot, demo_root, "discussions/evil/reply.md")
        prompt = dict(_options(screen))["finding:0"]
        assert "[red]x[/red]" in prompt and "\x1b" not in prompt and "␛" in prompt
        assert "[bold red]not markup[/]" in screen.query_one("#disc-body", Markdown).source
        await pilot.press("enter", "p")
        await until(pilot, lambda: isinstance(app.screen, PersonReportDialog))


async def test_empty_workspace(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        app.push_screen(DiscussionsScreen(app.index))
        await until(pilot, lambda: isinstance(app.screen, DiscussionsScreen))
        await settled(pilot)
        screen = app.screen
        assert isinstance(screen, DiscussionsScreen)
        assert "No discussions here yet" in _text(screen, "#disc-head")
        await pilot.press("p")  # nothing to act on: no crash
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, DiscussionsScreen))


# -- snapshots ---------------------------------------------------------------------

SNAP = Path("/tmp/hurikaeri-snapshot-disc/demo")


def _snap_app():  # type: ignore[no-untyped-def]
    if SNAP.exists():
        shutil.rmtree(SNAP)
    shutil.copytree(DEMO, SNAP)
    return make_app(SNAP)


def _snap(rel: str, *keys: str):  # type: ignore[no-untyped-def]
    async def run_before(pilot) -> None:  # type: ignore[no-untyped-def]
        screen = await _open(pilot, SNAP, rel)
        await until(pilot, lambda: bool(screen.query_one("#disc-body", Markdown).source))
        for key in keys:
            await pilot.press(key)
        await settled(pilot)

    return run_before


def test_discussions_snapshot(snap_compare) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(_snap_app(), terminal_size=(120, 40), run_before=_snap(RATE))


def test_discussions_snapshot_small(snap_compare) -> None:  # type: ignore[no-untyped-def]
    rel = "discussions/etl-dedup-review/2026-10-30-codex-review.md"
    assert snap_compare(_snap_app(), terminal_size=(80, 24), run_before=_snap(rel))


def test_discussions_snapshot_picked_next_steps(snap_compare) -> None:  # type: ignore[no-untyped-def]
    keys = ("enter", "down", "down", "down", "down", "down", "space")
    assert snap_compare(_snap_app(), terminal_size=(120, 40), run_before=_snap(ROUND2, *keys))
