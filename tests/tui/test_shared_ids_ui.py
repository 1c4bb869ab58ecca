"""Two authors' reports with one id, in the app (issue 22): each session shows its own
items' states, a decision on one report's item leaves the other report's item as it was,
and a search hit opens the report it was found in."""

from __future__ import annotations

from pathlib import Path

from screens.session import SessionScreen
from screens.widgets.virtual_table import VirtualTable
from store.located import report_key
from tests.store.test_shared_report_ids import ALICE, BOB, RID, team_ws, write_report
from tests.tui.helpers import ready, until, watching
from tui.app import create_app
from tui.navigate import hit_target


async def test_deciding_one_report_leaves_the_other_with_the_same_id_alone(
    tmp_path: Path,
) -> None:
    root = tmp_path / "root"
    write_report(root, ALICE, "alice")
    write_report(root, BOB, "bob")
    app = create_app(team_ws(root), watch=False)
    bob_keep = f"{report_key(RID, BOB)}/keep-001"
    alice_keep = f"{report_key(RID, ALICE)}/keep-001"
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        app.push_screen(SessionScreen(app.index, "sid:s-bob"))
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, SessionScreen)
        items = screen.query_one("#items", VirtualTable)
        assert items.cursor_key == bob_keep
        await pilot.press("a")
        await until(pilot, lambda: app.index.ledger.state(bob_keep).state == "approved")
        await pilot.pause()
        assert app.index.ledger.state(alice_keep).state == "pending"
        s_alice = app.index.sessions["sid:s-alice"]
        s_bob = app.index.sessions["sid:s-bob"]
        assert app.index.review_progress(s_bob) == (1, 2)
        assert app.index.review_progress(s_alice) == (0, 2)

        # a search hit in alice's report opens alice's session, on that item
        from store.search.facade import search_for

        search = search_for(app.index)
        search.ensure()
        hits = search.search("pin the version").hits
        alice_hit = next(h for h in hits if h.path.endswith(ALICE) and h.kind == "try")
        target = hit_target(app.index, alice_hit)
        assert target is not None
        assert (target.key, target.item) == (  # type: ignore[union-attr]
            "sid:s-alice",
            f"{report_key(RID, ALICE)}/try-001",
        )


async def test_a_new_authors_reports_show_live(tmp_path: Path) -> None:
    """A pull brings a teammate's directory (``team/carol/hurikaeri``, matched by the
    location's glob only now): the open app lists carol's session, and her report's id,
    shared with alice's, makes both reports' items located."""
    root = tmp_path / "root"
    write_report(root, ALICE, "alice")
    app = create_app(team_ws(root), watch=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await watching(pilot)
        assert app.index.item_keys(app.index.sessions["sid:s-alice"])[0] == f"{RID}/keep-001"
        write_report(root, "team/carol/hurikaeri/kpt-20260208-001.yaml", "carol")
        await until(pilot, lambda: "sid:s-carol" in app.index.sessions)
        alice = app.index.sessions["sid:s-alice"]
        assert app.index.item_keys(alice)[0] == f"{report_key(RID, ALICE)}/keep-001"


async def test_the_item_detail_names_the_located_id(tmp_path: Path) -> None:
    from textual.widgets import Static

    root = tmp_path / "root"
    write_report(root, ALICE, "alice")
    write_report(root, BOB, "bob")
    app = create_app(team_ws(root), watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        app.push_screen(SessionScreen(app.index, "sid:s-bob"))
        await pilot.pause()
        detail = str(app.screen.query_one("#item-detail", Static).visual)
        assert f"{report_key(RID, BOB)}/keep-001" in detail
