"""A promoted item's detail says how its rule fared since (issue #46), measured in a worker."""

from __future__ import annotations

from pathlib import Path

from screens.session import SessionScreen
from store.ledger import Ledger
from store.review.items import find_item
from store.review.promote import plan_promotion, promote_plans
from store.workspace import Workspace
from tests.tui.helpers import make_app, ready, until

SESSION = "sid:3f9c2a1e-8b4d-4c6f-9a2e-51d7c0b8e4a3"  # kpt-20261028-001
KEY = "kpt-20261028-001/try-001"


async def test_a_promoted_items_detail_shows_its_rules_usage(demo_root: Path) -> None:
    ws = Workspace(demo_root)
    plan = plan_promotion(ws, find_item(ws, KEY))
    promote_plans(ws, [plan], ledger=Ledger(ws.state_dir))
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        app.push_screen(SessionScreen(app.index, SESSION, item_key=KEY))
        await until(pilot, lambda: bool(app.screen.query("#item-detail")))
        screen = app.screen
        assert isinstance(screen, SessionScreen) and screen.current_key() == KEY

        def shown() -> str:
            return str(screen.query_one("#item-detail").render())

        await until(pilot, lambda: "in use" in shown())
        # promoted a moment ago: no session since; its problem is compared with 30 days before
        assert "in use: 0 sessions since written" in shown()
        assert "the problem came back 0 times in 0 reports" in shown()
        assert "of the 30 days before" in shown()
