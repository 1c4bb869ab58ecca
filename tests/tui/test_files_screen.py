"""The workspace files screen, driven as a person would."""

from __future__ import annotations

import shutil
from pathlib import Path

from textual.widgets import OptionList, TextArea

from store.workspace import Workspace
from tests.conftest import DEMO
from tui.app import HurikaeriApp

SNAP_ROOT = Path("/tmp/hurikaeri-snapshot/demo")


async def _loaded(pilot) -> None:  # type: ignore[no-untyped-def]
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


async def test_lists_files_and_shows_diagnostics(demo_root: Path) -> None:
    app = HurikaeriApp(Workspace(demo_root), watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await _loaded(pilot)
        files = app.screen.query_one("#files", OptionList)
        ids = [files.get_option_at_index(i).id for i in range(files.option_count)]
        assert sum(1 for i in ids if i and "/hurikaeri/kpt-" in i) == 30
        await pilot.press("p")  # only files with problems
        ids = [files.get_option_at_index(i).id for i in range(files.option_count)]
        shown = sorted(Path(i).name for i in ids if i)
        assert shown == [
            "kpt-20261112-002.yaml",
            "kpt-20261114-001.yaml",
            "kpt-20261117-001.yaml",
            "summaries.jsonl",
        ]
        files.focus()
        files.highlighted = files.get_option_index(
            str(demo_root / "hurikaeri/kpt-20261112-002.yaml")
        )
        await pilot.pause()
        diags = app.screen.query_one("#diagnostics", OptionList)
        assert "should be written 'partial'" in str(diags.get_option_at_index(0).prompt)
        await pilot.press("enter")  # to the diagnostics
        assert diags.has_focus
        await pilot.press("enter")  # jump to the line
        area = app.screen.query_one("#file-text", TextArea)
        assert area.has_focus and area.cursor_location[0] == 7


async def test_broken_workspace_opens(tmp_path: Path) -> None:
    (tmp_path / "hurikaeri").mkdir()
    (tmp_path / "hurikaeri" / "kpt-20260101-001.yaml").write_bytes(b"\x00\x01binary")
    (tmp_path / "hurikaeri" / "kpt-20260101-002.yaml").write_text("keep: [\n")
    (tmp_path / "hurikaeri" / "kpt-20260101-003.yaml").write_text("id: '[bold red]x[/] \x1b[31m'\n")
    (tmp_path / "lessons" / "ai").mkdir(parents=True)
    (tmp_path / "lessons" / "ai" / "lessons.jsonl").write_text('{"id": 1}\nnot json\n')
    app = HurikaeriApp(Workspace(tmp_path), watch=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await _loaded(pilot)
        files = app.screen.query_one("#files", OptionList)
        assert files.option_count >= 5
        files.highlighted = files.get_option_index(
            str(tmp_path / "hurikaeri/kpt-20260101-003.yaml")
        )
        await pilot.pause()
        text = app.screen.query_one("#file-text", TextArea).text
        assert "[bold red]x[/]" in text and "\x1b" not in text and "␛" in text


def _snap_app() -> HurikaeriApp:
    if SNAP_ROOT.exists():
        shutil.rmtree(SNAP_ROOT)
    shutil.copytree(DEMO, SNAP_ROOT)
    return HurikaeriApp(Workspace(SNAP_ROOT), watch=False)


async def _select_report_in_japanese(pilot) -> None:  # type: ignore[no-untyped-def]
    await _loaded(pilot)
    files = pilot.app.screen.query_one("#files", OptionList)
    files.highlighted = files.get_option_index(str(SNAP_ROOT / "hurikaeri/kpt-20261117-001.yaml"))
    await pilot.pause()


def test_snapshot_120x40(snap_compare) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(_snap_app(), terminal_size=(120, 40), run_before=_select_report_in_japanese)


def test_snapshot_80x24(snap_compare) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(_snap_app(), terminal_size=(80, 24), run_before=_select_report_in_japanese)
