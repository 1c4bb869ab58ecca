"""Undo as a person meets it: ``u`` says what it will do (and asks when files change), the
History screen lists, diffs, undoes and redoes any transaction, a write that fails in its
worker leaves the app running with one line saying what did not happen, and the header's
counts follow every action, undo and redo."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Input, OptionList

import store.tx.transactions as transactions
from screens.dialogs.confirm import ConfirmScreen
from screens.dialogs.note_prompt import NotePrompt
from screens.dialogs.promote import PromoteScreen
from screens.dialogs.text_view import TextView
from screens.history import HistoryScreen
from screens.inbox import InboxScreen
from screens.problems import ProblemsScreen
from screens.session import SessionScreen
from screens.widgets.virtual_table import VirtualTable
from store.review.inbox import propose
from tests.tui.helpers import make_app, ready, told, until

SESSION = "sid:3f9c2a1e-8b4d-4c6f-9a2e-51d7c0b8e4a3"  # kpt-20261028-001
KEY = "kpt-20261028-001/try-001"  # approved in the demo, promotable
PENDING_SESSION = "sid:7d4a9e2c-1b86-4f3d-a5e0-c8b2f6d9e413"  # kpt-20261120-001
PENDING = "kpt-20261120-001/keep-001"


def _told(app, text: str) -> bool:  # type: ignore[no-untyped-def]
    return any(text in n.message for n in told(app))


async def _at(pilot, app, session: str, key: str) -> SessionScreen:  # type: ignore[no-untyped-def]
    await ready(pilot)
    app.push_screen(SessionScreen(app.index, session, item_key=key))
    await pilot.pause()
    screen = app.screen
    assert isinstance(screen, SessionScreen) and screen.current_key() == key
    return screen


async def test_u_undoes_a_decision_at_once_and_says_what(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await _at(pilot, app, PENDING_SESSION, PENDING)
        await pilot.press("a")
        await until(pilot, lambda: app.index.ledger.state(PENDING).state == "approved")
        await pilot.press("u")  # no file changes: no question
        await until(pilot, lambda: app.index.ledger.state(PENDING).state == "pending")
        assert not isinstance(app.screen, ConfirmScreen)
        assert _told(app, f"Undone: approve {PENDING} — sets {PENDING} back to pending")


async def test_history_lists_diffs_undoes_an_older_one_past_a_blocked_one_and_redoes(
    demo_root: Path,
) -> None:
    claude = demo_root / "CLAUDE.md"
    original = claude.read_bytes()
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await _at(pilot, app, SESSION, KEY)
        await pilot.press("p")
        await until(pilot, lambda: isinstance(app.screen, PromoteScreen) and bool(app.screen.plans))
        await pilot.press("y")
        await until(pilot, lambda: claude.read_bytes() != original)
        promoted = claude.read_bytes()
        # a newer transaction (another process) whose file someone then changed: blocked
        path, _tx = propose(
            app.workspace,
            {"kind": "pattern", "title": "x", "target": "knowledge_base/global/patterns/x.yaml"},
        )
        path.write_text(path.read_text(encoding="utf-8") + "# changed by hand\n", encoding="utf-8")

        await pilot.press("H")
        await until(pilot, lambda: isinstance(app.screen, HistoryScreen))
        screen = app.screen
        table = screen.query_one("#history-list", VirtualTable)
        await until(pilot, lambda: len(table.rows) >= 2)
        newest, older = (screen.views[table.row_key_at(i) or ""] for i in (0, 1))
        assert newest.action == "propose" and newest.state == "blocked"
        assert older.action == "promote" and older.state == "done"

        await pilot.press("u")  # the blocked one: refused, with what changed since
        await until(pilot, lambda: isinstance(app.screen, TextView))
        assert (
            "changed since" in app.screen.question.plain and "# changed by hand" in app.screen.text
        )
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is screen)

        await pilot.press("down", "enter")  # the promotion's diff
        await until(pilot, lambda: isinstance(app.screen, TextView))
        assert "+- 新パッケージ追加前にpackage.jsonの既存依存を確認する" in app.screen.text
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is screen)

        await pilot.press("u")
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        question = str(app.screen.query_one(".dialog-text").render())
        assert question.startswith(f"Undo: promote {KEY} — restores CLAUDE.md")
        await pilot.press("y")
        await until(pilot, lambda: claude.read_bytes() == original)
        await until(pilot, lambda: screen.views.get(older.id, older).state == "undone")
        assert path.read_text(encoding="utf-8").endswith("# changed by hand\n")  # untouched

        table.move_to_key(older.id)
        await pilot.press("r")
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
        await until(pilot, lambda: claude.read_bytes() == promoted)
        # the file is written before the commit line: its state follows a moment later
        await until(pilot, lambda: bool(app.index.ledger.state(KEY).promoted))


async def test_a_write_that_fails_in_its_worker_is_told_and_changes_nothing(
    demo_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ledger = demo_root / ".hurikaeri" / "ledger.jsonl"
    before = ledger.read_bytes() if ledger.exists() else None

    def disk_full(*_a: object, **_k: object) -> object:
        raise OSError(28, "No space left on device")

    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await _at(pilot, app, PENDING_SESSION, PENDING)
        monkeypatch.setattr(transactions, "apply", disk_full)
        await pilot.press("a")
        await until(pilot, lambda: _told(app, f"Not done: approve {PENDING}"))
        assert _told(app, "No space left on device")
        assert app.is_running and isinstance(app.screen, SessionScreen)
        assert app.index.ledger.state(PENDING).state == "pending"
        await pilot.press("x")  # the app goes on working
        await until(pilot, lambda: isinstance(app.screen, NotePrompt))
        await pilot.press("escape")
    assert (ledger.read_bytes() if ledger.exists() else None) == before
    assert app.return_code in (None, 0)


def _header(app) -> str:  # type: ignore[no-untyped-def]
    return str(app.sub_title)


async def test_header_counts_follow_actions_undo_and_redo(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        pending = app.index.inbox_pending()
        assert f"{pending} in inbox" in _header(app)
        problems = len(app.index.problem_files())
        assert problems > 0 and f"{problems} problem file" in _header(app)
        await pilot.press("I")
        await until(pilot, lambda: isinstance(app.screen, InboxScreen))
        table = app.screen.query_one("#inbox-list", VirtualTable)
        await until(pilot, lambda: len(table.rows) == pending)
        table.move_to_key("prop-20261119-001")
        await pilot.press("x")
        await until(pilot, lambda: isinstance(app.screen, NotePrompt))
        app.screen.query_one(Input).value = "no"
        await pilot.press("enter")
        await until(pilot, lambda: f"{pending - 1} in inbox" in _header(app))
        await pilot.press("u")
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
        await until(pilot, lambda: f"{pending} in inbox" in _header(app))
        await until(pilot, lambda: len(table.rows) == pending)
        app.action_redo()
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
        await until(pilot, lambda: f"{pending - 1} in inbox" in _header(app))
        # the Problems view lists as many files as the header counts
        await pilot.press("escape")
        app.push_screen(ProblemsScreen(app.index))
        await until(pilot, lambda: isinstance(app.screen, ProblemsScreen))

        def listed() -> int:  # the files the list shows (a group's title has no id)
            files = app.screen.query("#files").results(OptionList)
            return sum(1 for f in files for o in f.options if o.id)

        await until(pilot, lambda: listed() == problems)


async def test_a_write_whose_worker_is_cancelled_is_still_told(
    demo_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Esc right after a key: the screen goes, the write goes on in its thread and its
    failure still reaches the one handler (the lock is held until it ends)."""
    import threading

    release = threading.Event()

    def slow_disk_full(*_a: object, **_k: object) -> object:
        release.wait(5)
        raise OSError(28, "No space left on device")

    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await _at(pilot, app, PENDING_SESSION, PENDING)
        monkeypatch.setattr(transactions, "apply", slow_disk_full)
        await pilot.press("a")
        await pilot.press("escape")  # the session screen (and its worker) goes
        await pilot.pause()
        release.set()
        await until(pilot, lambda: _told(app, f"Not done: approve {PENDING}"))
        assert app.is_running


async def test_the_cursor_never_comes_back_to_an_item_being_written(
    demo_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Approving every pending item faster than they are written: the cursor moves on and
    the session is told reviewed, never back to an item whose decision is on its way."""
    import threading

    release = threading.Event()
    real_apply = transactions.apply

    def held(*a: object, **k: object) -> object:
        release.wait(5)
        return real_apply(*a, **k)  # type: ignore[arg-type]

    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await _at(pilot, app, PENDING_SESSION, PENDING)
        keys = [k for k in screen.items if app.index.ledger.state(k).state == "pending"]
        monkeypatch.setattr(transactions, "apply", held)
        for _ in keys:
            await pilot.press("a")
        await pilot.pause()
        assert _told(app, "Session reviewed")
        assert screen.current_key() == keys[-1]  # not wrapped back to one on its way
        release.set()
        await until(pilot, lambda: all(app.index.ledger.state(k).state == "approved" for k in keys))
        # the ledger is read in the worker; the items are let go on the UI thread after it
        await until(pilot, lambda: not screen.in_flight)
        assert not screen.in_flight


async def test_u_on_an_undo_row_applies_it_again(demo_root: Path) -> None:
    """The history's ``u`` on an undo undoes the undo (a redo), said first like any."""
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await _at(pilot, app, PENDING_SESSION, PENDING)
        await pilot.press("a")
        await until(pilot, lambda: app.index.ledger.state(PENDING).state == "approved")
        await pilot.press("u")
        await until(pilot, lambda: app.index.ledger.state(PENDING).state == "pending")
        await pilot.press("H")
        await until(pilot, lambda: isinstance(app.screen, HistoryScreen))
        screen = app.screen
        table = screen.query_one("#history-list", VirtualTable)
        await until(pilot, lambda: len(table.rows) >= 1)
        assert screen.views[table.row_key_at(0) or ""].action == "undo"
        await pilot.press("u")
        await until(pilot, lambda: app.index.ledger.state(PENDING).state == "approved")


async def test_u_in_the_app_takes_back_nothing_a_script_did(demo_root: Path) -> None:
    """Issue 40: an undo without an id takes back only its own channel's last change; the
    app names what a script did last and asks for its id."""
    from store.ledger import Ledger, set_channel
    from store.review.items import decide_keys
    from store.workspace import Workspace

    set_channel("script")
    try:
        done = decide_keys(Workspace(demo_root), [PENDING], "reject")
        set_channel("app")
        app = make_app(demo_root)
        async with app.run_test(size=(120, 40)) as pilot:
            await _at(pilot, app, PENDING_SESSION, PENDING)
            await pilot.press("u")
            await until(pilot, lambda: _told(app, "Cannot undo without an id"))
            assert _told(app, done.id)
            assert app.index.ledger.state(PENDING).state == "rejected"
    finally:
        set_channel(None)
    assert Ledger(demo_root / ".hurikaeri").state(PENDING).state == "rejected"
