"""Redo that means redo, undo that asks about yesterday (issue 44, points 5 and 7): a new
action ends what can be redone (as in every editor), a redo is confirmed first, and ``u``
right after start asks before it takes back a decision made before this run."""

from __future__ import annotations

from pathlib import Path

import pytest

from screens.dialogs.confirm import ConfirmScreen
from screens.session import SessionScreen
from store.ledger import Ledger
from store.review.items import decide_keys
from store.tx.transactions import describe_turn, redo, undo_last
from store.workspace import Workspace
from tests.tui.helpers import make_app, ready, until

PENDING_SESSION = "sid:7d4a9e2c-1b86-4f3d-a5e0-c8b2f6d9e413"  # kpt-20261120-001
A = "kpt-20261120-001/keep-001"
B = "kpt-20261120-001/keep-002"


def _state(root: Path, key: str) -> str:
    return Ledger(root / ".hurikaeri").state(key).state


def test_a_new_action_ends_what_can_be_redone(demo_root: Path) -> None:
    ws = Workspace(demo_root)
    rejected = decide_keys(ws, [A], "reject")
    undo_last(ws)  # the reject undone
    assert describe_turn(ws, redo=True).startswith("Redo:")
    decide_keys(ws, [B], "approve")  # a new action
    assert describe_turn(ws, redo=True) == "Nothing to redo."
    assert redo(ws) is None
    assert _state(demo_root, A) == "pending"
    redo(ws, rejected.id)  # by its id it is still applied again
    assert _state(demo_root, A) == "rejected"


def test_after_undoing_the_new_action_only_it_is_redone(demo_root: Path) -> None:
    ws = Workspace(demo_root)
    decide_keys(ws, [A], "reject")
    undo_last(ws)
    decide_keys(ws, [B], "approve")
    undo_last(ws)  # the new action undone: redo gives it back, not the older reject
    redo(ws)
    assert (_state(demo_root, A), _state(demo_root, B)) == ("pending", "approved")
    assert redo(ws) is None


async def test_u_after_start_asks_before_undoing_a_decision_of_before(
    demo_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("sys.stdin.isatty", lambda: False)  # made by a script…
    from store.ledger import set_channel

    set_channel("app")  # …in an earlier run of the app
    try:
        decide_keys(Workspace(demo_root), [A], "approve")
    finally:
        set_channel(None)
    app = make_app(demo_root)
    app.index.opened += 2  # this run starts seconds after that decision (times are whole s)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        app.push_screen(SessionScreen(app.index, PENDING_SESSION, item_key=A))
        await until(pilot, lambda: isinstance(app.screen, SessionScreen))
        set_channel("app")
        try:
            await pilot.press("u")
            await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
            assert _state(demo_root, A) == "approved"  # nothing yet
            await pilot.press("escape")  # not meant: nothing undone
            await until(pilot, lambda: isinstance(app.screen, SessionScreen))
            assert _state(demo_root, A) == "approved"
        finally:
            set_channel(None)


async def test_redo_in_the_app_asks_first(demo_root: Path) -> None:
    from store.ledger import set_channel

    app = make_app(demo_root)
    set_channel("app")
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await ready(pilot)
            app.push_screen(SessionScreen(app.index, PENDING_SESSION, item_key=A))
            await until(pilot, lambda: isinstance(app.screen, SessionScreen))
            await ready(pilot)
            await pilot.press("a")  # approve, then take it back: no question (just made)
            await until(pilot, lambda: _state(demo_root, A) == "approved")
            await pilot.press("u")
            await until(pilot, lambda: _state(demo_root, A) == "pending")
            await app.run_action("redo")
            await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
            assert _state(demo_root, A) == "pending"
            await pilot.press("enter")
            await until(pilot, lambda: _state(demo_root, A) == "approved")
    finally:
        set_channel(None)
