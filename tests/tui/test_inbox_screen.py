"""The inbox screen: decisions from the keyboard, a stale proposal asks first."""

from __future__ import annotations

import shutil
from pathlib import Path

from textual.widgets import Input, TextArea

from screens.dialogs.confirm import ConfirmScreen
from screens.dialogs.note_prompt import NotePrompt
from screens.dialogs.propose import ProposeScreen
from screens.inbox import InboxScreen
from screens.session import SessionScreen
from screens.widgets.diff_view import DiffView
from screens.widgets.virtual_table import VirtualTable
from store.models import Proposal
from store.read.loader import load_file
from tests.conftest import DEMO
from tests.tui.helpers import make_app, ready, until


def _status(path: Path) -> str | None:
    doc = load_file(path).doc
    assert isinstance(doc, Proposal)
    return doc.status


async def _inbox(pilot, app) -> InboxScreen:  # type: ignore[no-untyped-def]
    await ready(pilot)
    await pilot.press("I")
    await until(pilot, lambda: isinstance(app.screen, InboxScreen) and app.screen.proposals != {})
    return app.screen


async def test_approve_and_reject_from_the_inbox(demo_root: Path) -> None:
    inbox = demo_root / "knowledge_base" / "inbox"
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await _inbox(pilot, app)
        table = screen.query_one("#inbox-list", VirtualTable)
        assert len(table.rows) == 3  # pending only
        table.move_to_key("prop-20261118-001")
        await until(pilot, lambda: "version: 3" in screen.query_one("#inbox-diff", DiffView).text)
        await pilot.press("a")
        await until(pilot, lambda: isinstance(app.screen, NotePrompt))
        app.screen.query_one(Input).value = "merged as is"
        await pilot.press("enter")
        await until(pilot, lambda: _status(inbox / "prop-20261118-001.yaml") == "approved")
        assert "merged as is" in (inbox / "prop-20261118-001.yaml").read_text(encoding="utf-8")
        await until(pilot, lambda: len(table.rows) == 2)
        table.move_to_key("prop-20261119-001")
        await pilot.press("x")
        await until(pilot, lambda: isinstance(app.screen, NotePrompt))
        app.screen.query_one(Input).value = "not yet"
        await pilot.press("enter")
        await until(pilot, lambda: _status(inbox / "prop-20261119-001.yaml") == "rejected")
        await pilot.press("f", "f")  # all
        await until(pilot, lambda: len(table.rows) == 5)
        await pilot.press("u")
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        assert "Undo: reject prop-20261119-001" in str(
            app.screen.query_one(".dialog-text").render()
        )
        await pilot.press("y")
        await until(pilot, lambda: _status(inbox / "prop-20261119-001.yaml") == "pending")


async def test_stale_proposal_asks_first(demo_root: Path) -> None:
    target = demo_root / "knowledge_base/global/skills/jwt_auth_middleware.yaml"
    target.write_text(
        target.read_text(encoding="utf-8").replace("version: 2", "version: 4"), encoding="utf-8"
    )
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await _inbox(pilot, app)
        screen.query_one("#inbox-list", VirtualTable).move_to_key("prop-20261118-001")
        await until(pilot, lambda: "STALE" in screen.query_one("#inbox-diff", DiffView).text)
        await pilot.press("a")
        await until(pilot, lambda: isinstance(app.screen, NotePrompt))
        assert "Stale" in app.screen.question.plain
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, InboxScreen))
    assert "version: 4" in target.read_text(encoding="utf-8")


async def test_batch_approve(demo_root: Path) -> None:
    inbox = demo_root / "knowledge_base" / "inbox"
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await _inbox(pilot, app)
        table = screen.query_one("#inbox-list", VirtualTable)
        table.move_to_key("prop-20261119-001")
        await pilot.press("space")
        table.move_to_key("prop-20261116-001")
        await pilot.press("space", "a")
        await until(pilot, lambda: isinstance(app.screen, NotePrompt))
        await pilot.press("enter")
        await until(pilot, lambda: _status(inbox / "prop-20261116-001.yaml") == "approved")
        assert _status(inbox / "prop-20261119-001.yaml") == "approved"
        assert _status(inbox / "prop-20261118-001.yaml") == "pending"


async def test_propose_from_a_review(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        app.push_screen(
            SessionScreen(
                app.index,
                "sid:3f9c2a1e-8b4d-4c6f-9a2e-51d7c0b8e4a3",
                item_key="kpt-20261028-001/prob-001",
            )
        )
        await pilot.pause()
        await pilot.press("R")
        await until(pilot, lambda: isinstance(app.screen, ProposeScreen))
        form = app.screen
        assert "bad_approach" in form.query_one("#pr-payload", TextArea).text
        assert (
            "既存のpackage.jsonを事前確認しなかった" in form.query_one("#pr-payload", TextArea).text
        )
        await pilot.press("ctrl+s")
        await until(pilot, lambda: not isinstance(app.screen, ProposeScreen))
    new = [
        p
        for p in (demo_root / "knowledge_base" / "inbox").glob("prop-*.yaml")
        if "person" in p.read_text(encoding="utf-8")
    ]
    assert len(new) == 1
    doc = load_file(new[0]).doc
    assert isinstance(doc, Proposal) and doc.kind == "anti_pattern" and doc.status == "pending"


SNAP = Path("/tmp/hurikaeri-snapshot-inbox/demo")


def test_inbox_snapshot(snap_compare, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    if SNAP.exists():
        shutil.rmtree(SNAP)
    shutil.copytree(DEMO, SNAP)

    async def run_before(pilot) -> None:  # type: ignore[no-untyped-def]
        app = pilot.app
        screen = await _inbox(pilot, app)
        screen.query_one("#inbox-list", VirtualTable).move_to_key("prop-20261116-001")
        await until(
            pilot,
            lambda: (
                "learned_behaviors" in screen.query_one("#inbox-diff", DiffView).text
                or "trigger" in screen.query_one("#inbox-diff", DiffView).text
            ),
        )

    import store.review.inbox as inbox_mod

    monkeypatch.setattr(inbox_mod, "now_iso", lambda: "2026-11-22T10:00:00+09:00")
    assert snap_compare(make_app(SNAP), terminal_size=(120, 40), run_before=run_before)
