"""A team reviewing live (issue 22): when another reviewer's decisions reach the workspace
(their ledger appended to by a sync, or brought in whole), the open app says who decided
what, and the session screen shows the item's new state: contested when they disagree."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from textual.widgets import Static

from screens.session import SessionScreen
from screens.widgets.virtual_table import VirtualTable
from store import team
from store.config import Config
from store.ledger import Ledger
from store.review.items import decide_keys
from store.workspace import Workspace
from tests.tui.helpers import make_app, ready, settled, telling, told, until, watching
from tui.app import HurikaeriApp

REPORT = "kpt-20261120-001"
SESSION = "sid:7d4a9e2c-1b86-4f3d-a5e0-c8b2f6d9e413"
ME, BOB, CAROL = "me@example.com", "bob@example.com", "carol@example.com"
TITLE = "From your team"


@pytest.fixture
def team_root(demo_root: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The demo workspace reviewed by a team (a ``ledger/`` directory), the app's reviewer
    ``me@example.com``."""
    monkeypatch.setenv(team.REVIEWER_ENV, ME)
    (demo_root / ".hurikaeri" / "ledger").mkdir()
    return demo_root


def team_notices(app: HurikaeriApp) -> list[str]:
    return [n.message for n in told(app) if n.title == TITLE]


def row_text(table: VirtualTable, key: str) -> str:
    """The row of ``key`` as drawn (it must be on screen)."""
    index = next(i for i in range(len(table.rows)) if table.row_key_at(i) == key)
    return table.render_line(index - int(table.scroll_y) + 1).text


async def open_session(pilot, app: HurikaeriApp) -> SessionScreen:  # type: ignore[no-untyped-def]
    await ready(pilot)
    app.push_screen(SessionScreen(app.index, SESSION))
    await pilot.pause()
    assert isinstance(app.screen, SessionScreen)
    return app.screen


async def test_another_reviewers_decision_shows_live_with_who_decided(team_root: Path) -> None:
    app = make_app(team_root, watch=True)
    keep1, keep2 = f"{REPORT}/keep-001", f"{REPORT}/keep-002"
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_session(pilot, app)
        items = screen.query_one("#items", VirtualTable)
        detail = screen.query_one("#item-detail", Static)
        assert items.cursor_key == keep1
        await watching(pilot)
        await pilot.press("a")  # approved here, in my own ledger
        mine = team_root / ".hurikaeri" / "ledger" / f"{ME}.jsonl"
        await until(pilot, lambda: mine.is_file() and "approved" in row_text(items, keep1))
        await settled(pilot)
        assert team_notices(app) == []  # one's own decisions are no news (and Bob's below
        # is the only one: the watcher reports in order, so mine would come before it)

        # Bob rejects the same item on his machine; the sync appends it to his ledger here
        bob = Ledger(team_root / ".hurikaeri", who=BOB)
        decide_keys(Workspace(team_root, Config()), [keep1], "reject", "根拠が弱い", ledger=bob)
        await until(pilot, lambda: bool(team_notices(app)))
        assert team_notices(app) == [f"{BOB}: reject {keep1}"]
        # the state column (its width cuts the word at 120 columns)
        await until(pilot, lambda: row_text(items, keep1).startswith("≠ contest"))
        assert app.index.ledger.state(keep1).contested
        items.move_to_key(keep1)
        await pilot.pause()
        shown = str(detail.render())
        assert f"✓ approved by {ME}" in shown
        assert f"✗ rejected by {BOB}" in shown and "根拠が弱い" in shown
        assert "to review" in app.sub_title

        # Carol's ledger arrives whole (a pull writes the file anew): her approval is told too
        line = {
            "id": "c0ffee000001",
            "at": "2026-11-21T09:30:00+09:00",
            "op": "commit",
            "target": keep2,
            "tx": "c0ffee000001",
            "action": "approve",
            "who": CAROL,
            "subjects": [keep2],
            "effects": [{"op": "approve", "target": keep2}],
        }
        tmp = team_root / ".hurikaeri" / "ledger" / ".carol.tmp"
        tmp.write_text(json.dumps(line) + "\n", encoding="utf-8")
        os.replace(tmp, team_root / ".hurikaeri" / "ledger" / f"{CAROL}.jsonl")
        await until(pilot, lambda: len(team_notices(app)) == 2)
        assert team_notices(app)[1] == f"{CAROL}: approve {keep2}"
        await until(pilot, lambda: "approved" in row_text(items, keep2))
        assert app.index.ledger.state(keep2).who == CAROL
        assert app.index.ledger.state(keep1).contested  # still Bob's and mine


async def test_a_decision_read_first_by_another_refresh_is_still_told(team_root: Path) -> None:
    """The changes poll refreshes the same ledger in its thread: a teammate's line it reads
    before the watcher's batch comes is news all the same, and the open session shows it
    (the notice was lost about 1 run in 3)."""
    app = make_app(team_root, watch=True)
    keep1 = f"{REPORT}/keep-001"
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_session(pilot, app)
        items = screen.query_one("#items", VirtualTable)
        await watching(pilot)
        before = row_text(items, keep1)
        bob = Ledger(team_root / ".hurikaeri", who=BOB)
        decide_keys(Workspace(team_root, Config()), [keep1], "reject", "", ledger=bob)
        app.index.ledger.refresh()  # as the poll would, before the loop takes the batch
        await until(pilot, lambda: bool(team_notices(app)))
        assert team_notices(app) == [f"{BOB}: reject {keep1}"]
        await until(pilot, lambda: row_text(items, keep1) != before)
        assert "reject" in row_text(items, keep1)


async def test_a_form_stays_open_when_its_sessions_files_vanish(tmp_path: Path) -> None:
    """A pull removes the session's report while the person types in the item form: the
    form (and what was typed) stays; the session screen closes, saying why, once the form
    is closed."""
    from screens.dialogs.confirm import ConfirmScreen
    from screens.dialogs.conflict import ConflictScreen
    from screens.dialogs.item_form import ItemForm
    from screens.sessions import SessionsScreen
    from tests.store.test_shared_report_ids import ALICE, team_ws, write_report
    from tui.app import create_app

    root = tmp_path / "root"
    write_report(root, ALICE, "alice")
    app = telling(create_app(team_ws(root), watch=True))
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        app.push_screen(SessionScreen(app.index, "sid:s-alice"))
        await watching(pilot)
        screen = app.screen
        assert isinstance(screen, SessionScreen)
        await pilot.press("e")
        await until(pilot, lambda: isinstance(app.screen, ItemForm))
        form = app.screen
        await pilot.press("end", "x", "y", "z")
        (root / ALICE).unlink()
        await until(pilot, lambda: screen.session is None)
        # the form says its file was deleted (the person decides), and stays
        await until(pilot, lambda: isinstance(app.screen, ConflictScreen))
        await pilot.press("escape")  # back to editing
        await until(pilot, lambda: app.screen is form)
        await settled(pilot)
        assert app.screen is form and screen in app.screen_stack
        assert not any("files were removed" in n.message for n in told(app))
        await pilot.press("escape")  # asks before dropping what was typed
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
        await until(pilot, lambda: isinstance(app.screen, SessionsScreen))
        assert any("files were removed" in n.message for n in told(app))
