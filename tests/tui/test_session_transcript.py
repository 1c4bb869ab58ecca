"""The session's transcript beside its report: the Transcript tab, ``v`` jumping to the
turns an item cites, and ``a`` asking once when the cited turns are not in the session."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import TabbedContent

from screens.dialogs.confirm import ConfirmScreen
from screens.session import SessionScreen
from screens.widgets.transcript_view import TranscriptView
from screens.widgets.virtual_table import VirtualTable
from tests.transcript_lines import TranscriptWriter
from tests.tui.helpers import make_app, ready, told, until

SID = "7d4a9e2c-1b86-4f3d-a5e0-c8b2f6d9e413"  # kpt-20261120-001
SESSION = f"sid:{SID}"
KEEP = "kpt-20261120-001/keep-001"  # "Turn 5: 17 references, all resolved under pieces/facets/"
PROB = "kpt-20261120-001/prob-001"  # "Turn 9: …", turn_range 8-9: past this session's end


def _transcript(root: Path) -> Path:
    """Six turns as the hurikaeri skill numbers them (a run of user lines, a prompt or tool
    results, starts one): the ``ls`` of the facets the keep item names answers in turn 5,
    eight messages in the transcript tab (the result in the sixth)."""
    w = TranscriptWriter(SID)
    w.user("facet の参照を全部確認して")
    w.assistant(
        "Reading the piece.", [("Read", {"file_path": "pieces/api-feature.yaml"}, "ok", False)]
    )
    w.assistant("Checking the references.")
    w.user("続けて")
    w.assistant("", [("Grep", {"pattern": "facet", "path": "pieces/"}, "17 matches", False)])
    w.assistant("", [("Bash", {"command": "ls pieces/facets/"}, "coder.md\nreviewer.md", False)])
    w.assistant("All 17 references resolve.")
    w.user("ありがとう")
    return w.write(root, "-work-takt")


async def _open(pilot, app) -> SessionScreen:  # type: ignore[no-untyped-def]
    await ready(pilot)
    app.push_screen(SessionScreen(app.index, SESSION, item_key=KEEP))
    await pilot.pause()
    screen = app.screen
    assert isinstance(screen, SessionScreen)
    await until(pilot, lambda: PROB in screen.pane.evidence)  # checked in a worker
    return screen


async def test_the_transcript_tab_and_the_jump_to_cited_turns(demo_root: Path) -> None:
    _transcript(demo_root)
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await _open(pilot, app)
        assert screen.pane.evidence[KEEP].state == "found"
        assert screen.pane.evidence[PROB].missing
        await pilot.press("5")
        await until(pilot, lambda: bool(screen.query(TranscriptView)))
        view = screen.query_one(TranscriptView)
        await until(pilot, lambda: view.done and view.turn_count == 8)
        await pilot.press("a")  # the item keys act only on the items tab
        assert app.index.ledger.state(KEEP).state == "pending"
        await pilot.press("1")
        screen.query_one("#items", VirtualTable).move_to_key(KEEP)
        await pilot.press("v")
        await until(pilot, lambda: screen.query_one("#tabs", TabbedContent).active == "transcript")
        # the skill's turn 5 is shown where its lines are: messages 6 (the ls) and 7
        await until(pilot, lambda: view.current_turn() == 6)
        assert view.cited == {6, 7}


async def test_approve_asks_once_when_the_evidence_was_not_found(demo_root: Path) -> None:
    _transcript(demo_root)
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await _open(pilot, app)
        screen.query_one("#items", VirtualTable).move_to_key(PROB)
        await pilot.press("a")
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        assert "Evidence not found" in str(app.screen.question)
        await pilot.press("n")
        await until(pilot, lambda: app.screen is screen)
        assert app.index.ledger.state(PROB).state == "pending"
        await pilot.press("a")
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
        await until(pilot, lambda: app.index.ledger.state(PROB).state == "approved")
        screen.query_one("#items", VirtualTable).move_to_key(PROB)
        await pilot.press("o")  # reopened: a second approval does not ask again
        await until(pilot, lambda: app.index.ledger.state(PROB).state == "pending")
        await pilot.press("a")
        await until(pilot, lambda: app.index.ledger.state(PROB).state == "approved")
        assert not isinstance(app.screen, ConfirmScreen)


async def test_a_session_without_transcript_says_so(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await _open(pilot, app)
        assert screen.pane.evidence[PROB].state == "no_transcript"
        await pilot.press("a")  # no transcript: nothing to contradict the item, no question
        await until(pilot, lambda: app.index.ledger.state(KEEP).state == "approved")
        await pilot.press("v")
        await until(pilot, lambda: any("No transcript" in n.message for n in told(app)))
