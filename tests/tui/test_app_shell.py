"""The app shell: key remapping from the config, the command palette, broken workspaces."""

from __future__ import annotations

import logging
import threading
from pathlib import Path

import pytest
from textual.command import CommandList
from textual.widgets import OptionList, TextArea

import tui.app
from screens.problems import ProblemsScreen
from screens.session import SessionScreen
from store.config import Config
from tests.tui.helpers import ready, settled, until
from tui.app import create_app


async def test_bindings_are_remapped_from_the_config(demo_root: Path) -> None:
    cfg = Config(keys={"review.approve": "y", "sessions.next": "g"})
    app = create_app(demo_root, cfg, watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await pilot.press("N")  # nothing bound
        await pilot.press("g")  # remapped "next to review"
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, SessionScreen)
        key = screen.current_key()
        await pilot.press("y")
        await pilot.pause()
        assert key is not None and app.index.ledger.state(key).state == "approved"


async def test_command_palette_runs_our_commands(demo_root: Path) -> None:
    app = create_app(demo_root, watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"problems")
        commands = app.screen.query_one(CommandList)
        await until(pilot, lambda: commands.highlighted is not None)
        await settled(pilot)  # every provider has answered
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, ProblemsScreen)


async def test_a_workspace_of_broken_files_opens(tmp_path: Path) -> None:
    (tmp_path / "hurikaeri").mkdir()
    (tmp_path / "hurikaeri" / "kpt-20260101-001.yaml").write_bytes(b"\x00\x01binary")
    (tmp_path / "hurikaeri" / "kpt-20260101-002.yaml").write_text("keep: [\n")
    (tmp_path / "hurikaeri" / "kpt-20260101-003.yaml").write_text(
        "id: kpt-20260101-003\nsession_summary: '[bold red]x[/] \x1b[31m'\nkeep: 5\n"
    )
    (tmp_path / "lessons" / "ai").mkdir(parents=True)
    (tmp_path / "lessons" / "ai" / "lessons.jsonl").write_text('{"id": 1}\nnot json\n')
    app = create_app(tmp_path, watch=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        assert "3 problem files" in app.sub_title or "4 problem files" in app.sub_title
        await pilot.press("enter")  # the one report that loads opens
        await pilot.pause()
        await pilot.press("escape")
        await pilot.press("P")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ProblemsScreen)
        files = screen.query_one("#files", OptionList)
        files.highlighted = files.get_option_index(
            str(tmp_path / "hurikaeri/kpt-20260101-003.yaml")
        )
        await pilot.pause()
        text = screen.query_one("#file-text", TextArea).text
        assert "[bold red]x[/]" in text and "\x1b" not in text and "␛" in text
        files.highlighted = files.get_option_index(
            str(tmp_path / "hurikaeri/kpt-20260101-002.yaml")
        )
        await pilot.pause()
        await pilot.press("enter", "enter")  # to the diagnostic, then to its line
        await pilot.pause()
        assert screen.query_one("#file-text", TextArea).cursor_location[0] == 0


async def test_the_app_loads_the_secret_rules_once_the_sessions_are_read(
    demo_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The secret scanner's rules load in the background as the app starts (#42: no
    prefilter; a promotion's text is scanned as it is typed, with the rules ready), once
    the workspace is read: their ~0.3 s of a core would otherwise be taken from the
    reading of a warm start (#47)."""
    started: list[bool] = []
    app = create_app(demo_root, watch=False)
    monkeypatch.setattr(tui.app, "warm_up", lambda: started.append(app.loaded.is_set()))
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        assert started == [True]


async def test_a_store_warning_from_a_thread_becomes_a_literal_notification(
    demo_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Inside the app nobody reads standard error: what the store logs (from any thread) is
    a notification, literal, an error as an error (tui.log_notices)."""
    app = create_app(demo_root, watch=False)
    told: list[tuple[str, dict[str, object]]] = []
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        monkeypatch.setattr(app, "notify", lambda text, **kw: told.append((text, kw)))
        log = logging.getLogger("store.test_shell")
        worker = threading.Thread(target=lambda: log.error("disk [red]full[/] %d", 1))
        worker.start()
        worker.join()
        log.info("not shown")
        await until(pilot, lambda: bool(told))
    assert told == [("disk [red]full[/] 1", {"severity": "error", "timeout": 30, "markup": False})]
