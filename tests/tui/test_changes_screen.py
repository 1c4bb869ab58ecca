"""The Changes screen (issue #45): ``W`` opens it; a change made while the app is open shows
in the list and in the header's count without any key; ``a`` keeps it, ``r`` reverts it;
``enter`` opens the session's transcript at the turn whose Edit made it; ``E`` edits it in
$EDITOR and keeps the edit (undone and redone byte for byte, refused when the file changed
during the edit)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.timer import Timer

from screens.changes import ChangesScreen
from screens.dialogs.confirm import ConfirmScreen
from screens.session import SessionScreen
from screens.widgets.transcript_view import TranscriptView
from screens.widgets.virtual_table import VirtualTable
from tests.transcript_lines import TranscriptWriter
from tests.tui.helpers import make_app, ready, until

TEXT = "# Rules\n- one\n"


def _root(tmp_path: Path) -> tuple[Path, Path, Path]:
    """A root holding CLAUDE.md: the root, the file, the reviewed state's index."""
    root = tmp_path / "claude"
    root.mkdir()
    (root / "CLAUDE.md").write_text(TEXT)
    return root, root / "CLAUDE.md", root / ".hurikaeri" / "reviewed" / "index.json"


async def _changed(pilot: Pilot[None], claude: Path, text: str) -> ChangesScreen:
    """Once the reviewed state is taken, ``claude`` written from outside, then ``W``."""
    app = pilot.app
    index = claude.parent / ".hurikaeri" / "reviewed" / "index.json"
    await ready(pilot)
    await until(pilot, index.exists)
    claude.write_text(text)
    await pilot.press("W")
    await until(pilot, lambda: isinstance(app.screen, ChangesScreen))
    screen = app.screen
    assert isinstance(screen, ChangesScreen)
    await until(pilot, lambda: list(screen.changes) == ["CLAUDE.md"])
    return screen


async def test_a_change_shows_live_and_is_kept_then_reverted(tmp_path: Path) -> None:
    root, claude, index = _root(tmp_path)
    app = make_app(root, watch=True)
    async with app.run_test(size=(140, 40)) as pilot:
        await ready(pilot)
        await until(pilot, index.exists)  # the first start, taken silently
        await pilot.press("W")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ChangesScreen)
        table = screen.query_one("#changes-list", VirtualTable)
        await until(pilot, lambda: "Changes since your last review: 0" in str(table.border_title))
        claude.write_text(TEXT + "- two\n")  # an agent writes while the app is open
        await until(pilot, lambda: list(screen.changes) == ["CLAUDE.md"])
        await until(pilot, lambda: "1 changed file ·" in app.sub_title)
        await pilot.press("a")
        await until(pilot, lambda: not screen.changes and app.changed_count == 0)
        assert "changed file" not in app.sub_title
        claude.write_text(TEXT + "- three\n")
        await until(pilot, lambda: list(screen.changes) == ["CLAUDE.md"])
        await pilot.press("r")
        await until(pilot, lambda: claude.read_text() == TEXT + "- two\n")
        await until(pilot, lambda: not screen.changes)


async def test_enter_opens_the_transcript_at_the_turn_that_made_the_change(
    demo_root: Path,
) -> None:
    sid = "7d4a9e2c-1b86-4f3d-a5e0-c8b2f6d9e413"  # the demo's kpt-20261120-001
    claude = demo_root / "CLAUDE.md"
    claude.write_text(TEXT)
    app = make_app(demo_root, watch=True)
    index = demo_root / ".hurikaeri" / "reviewed" / "index.json"
    async with app.run_test(size=(140, 40)) as pilot:
        await ready(pilot)
        await until(pilot, index.exists)
        w = TranscriptWriter(sid)
        w.user("read the rules").assistant(
            "Reading.", [("Read", {"file_path": "CLAUDE.md"}, "…", False)]
        )
        edit = {"file_path": "CLAUDE.md", "old_string": "- one\n", "new_string": "- one\n- two\n"}
        w.user("remember that").assistant("Editing.", [("Edit", edit, "ok", False)])
        w.lines = [line.replace("/home/me/app", str(demo_root)) for line in w.lines]
        w.write(demo_root, "-work-takt")
        claude.write_text(TEXT + "- two\n")
        await pilot.press("W")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ChangesScreen)
        await until(pilot, lambda: "CLAUDE.md" in screen.changes)
        source = screen.changes["CLAUDE.md"].source
        assert source is not None and (source.session, source.turn) == (sid, 4)
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, SessionScreen))
        session = app.screen
        await until(pilot, lambda: bool(session.query(TranscriptView)))
        view = session.query_one(TranscriptView)
        await until(pilot, lambda: view.current_turn() == 4)


async def test_edit_then_keep_writes_the_edit_as_reviewed_and_undo_redo_move_both(
    tmp_path: Path, fake_editor: Callable[[str, str], None]
) -> None:
    root, claude, index = _root(tmp_path)
    app = make_app(root, watch=True)
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await _changed(pilot, claude, TEXT + "- two\n- a typo hre\n")
        agents, before = claude.read_bytes(), index.read_bytes()
        fake_editor("- a typo hre\n", "- a typo here\n")
        await pilot.press("E")
        mine = (TEXT + "- two\n- a typo here\n").encode()
        await until(pilot, lambda: claude.read_bytes() == mine)
        await until(pilot, lambda: not screen.changes and app.changed_count == 0)
        after = index.read_bytes()
        assert after != before
        await pilot.press("u")
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
        # one transaction puts both back; wait for the pair, not for the first file of it
        await until(pilot, lambda: (claude.read_bytes(), index.read_bytes()) == (agents, before))
        await until(pilot, lambda: list(screen.changes) == ["CLAUDE.md"])
        app.action_redo()
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
        await until(pilot, lambda: (claude.read_bytes(), index.read_bytes()) == (mine, after))
        await until(pilot, lambda: not screen.changes)


async def test_edit_then_keep_is_refused_when_the_file_changed_during_the_edit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, claude, index = _root(tmp_path)
    script = tmp_path / "editor.py"  # edits its copy while an agent writes the file again
    script.write_text(
        "import sys, pathlib\n"
        f"pathlib.Path({str(claude)!r}).write_text('meanwhile\\n')\n"
        "pathlib.Path(sys.argv[1]).write_text('mine\\n')\n"
    )
    monkeypatch.setenv("EDITOR", f"{sys.executable} {script}")
    monkeypatch.delenv("VISUAL", raising=False)
    app = make_app(root, watch=True)
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await _changed(pilot, claude, TEXT + "- two\n")
        before = index.read_bytes()
        told: list[str] = []
        monkeypatch.setattr(app, "notify", lambda message, **kw: told.append(str(message)))
        await pilot.press("E")
        refused = f"Not done: Edited and kept CLAUDE.md — {claude}: "
        await until(pilot, lambda: any(m.startswith(refused) for m in told))
        assert claude.read_text() == "meanwhile\n" and index.read_bytes() == before
        await until(pilot, lambda: screen.changes["CLAUDE.md"].current == b"meanwhile\n")


async def test_a_reloaded_workspace_keeps_one_changes_poll(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each "Reload workspace" had started another 1 s timer polling the changes."""
    root, _claude, _index = _root(tmp_path)
    app = make_app(root, watch=True)
    polls: list[tuple[Any, ...]] = []
    set_interval = app.set_interval

    def counting(*args: Any, **kw: Any) -> Timer:
        if app.poll_changes in args:
            polls.append(args)
        return set_interval(*args, **kw)

    monkeypatch.setattr(app, "set_interval", counting)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await until(pilot, app.loaded.is_set)
        for _ in range(3):
            app.loaded.clear()
            await app.run_action("reload")
            await until(pilot, app.loaded.is_set)
        assert len(polls) == 1
