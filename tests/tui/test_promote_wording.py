"""The promote dialog writes what the person worded (#41) and says which key does what (#44).

The field starts from the rule the item's description carries; the diff follows what is
typed (planned again in a thread a moment after the last key); "y" writes that wording, the
report stays as it was, and the item's detail says "promoted as". A try-item without a target
shows no Write key and names the key that sets one."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Input

from screens.dialogs.promote import PromoteScreen
from screens.session import SessionScreen
from screens.widgets.diff_view import DiffView
from tests.tui.helpers import make_app, ready, until

SESSION = "sid:9e3c1a7b-6f52-4d8e-b094-3a7e5c2d1f86"  # kpt-20261118-001
KEY = "kpt-20261118-001/try-002"  # CLAUDE.md のセキュリティ規約に「…」を追記する
RULE = "リフレッシュトークンは不透明トークンで DB 管理"
NO_TARGET = "kpt-20261118-001/try-003"


async def _open(pilot, app, key: str) -> PromoteScreen:  # type: ignore[no-untyped-def]
    await ready(pilot)
    app.push_screen(SessionScreen(app.index, SESSION, item_key=key))
    await pilot.pause()
    await pilot.press("p")
    await until(pilot, lambda: isinstance(app.screen, PromoteScreen) and bool(app.screen.plans))
    return app.screen


def _diff(modal: PromoteScreen) -> str:
    return modal.query_one("#promote-diff", DiffView).text


async def test_an_edited_wording_is_diffed_written_and_shown(demo_root: Path) -> None:
    claude = demo_root / "CLAUDE.md"
    report = demo_root / "hurikaeri" / "kpt-20261118-001.yaml"
    report_bytes = report.read_bytes()
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        modal = await _open(pilot, app, KEY)
        field = modal.query_one("#pf-text-0", Input)
        assert field.value == RULE
        assert f"+- {RULE}" in _diff(modal) and "追記" not in _diff(modal)
        await pilot.press("e")
        assert app.focused is field
        await pilot.press(*" 失効も DB で")
        await until(pilot, lambda: f"+- {RULE} 失効も DB で" in _diff(modal))
        await pilot.press("enter")  # back to the dialog's keys
        assert not isinstance(app.focused, Input)
        await pilot.press("y")
        await until(pilot, lambda: not isinstance(app.screen, PromoteScreen))
        assert f"- {RULE} 失効も DB で\n" in claude.read_text("utf-8")
        assert report.read_bytes() == report_bytes
        detail = str(app.screen.query_one("#item-detail").render())
        assert f"promoted as: {RULE} 失効も DB で" in detail


async def test_writing_right_after_typing_shows_the_diff_first(demo_root: Path) -> None:
    """ctrl+s before the diff has followed the typing writes nothing yet (found by review:
    it wrote a diff the person never saw): the diff of what was typed is shown, and the
    next ctrl+s writes exactly that."""
    claude = demo_root / "CLAUDE.md"
    before = claude.read_bytes()
    app = make_app(demo_root)
    async with app.run_test(size=(80, 24)) as pilot:
        modal = await _open(pilot, app, KEY)
        modal.REPLAN_DELAY = 60.0  # the diff has not followed yet when ctrl+s comes
        await pilot.press("e", "ctrl+u", *"Refresh tokens are opaque", "ctrl+s")
        await until(pilot, lambda: "+- Refresh tokens are opaque" in _diff(modal))
        assert isinstance(app.screen, PromoteScreen) and claude.read_bytes() == before
        await pilot.press("ctrl+s")
        await until(pilot, lambda: not isinstance(app.screen, PromoteScreen))
        text = claude.read_text("utf-8")
        assert "- Refresh tokens are opaque\n" in text and RULE not in text


async def test_a_try_item_without_a_target_offers_no_write(demo_root: Path) -> None:
    claude = demo_root / "CLAUDE.md"
    original = claude.read_bytes()
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        modal = await _open(pilot, app, NO_TARGET)
        head = str(modal.query_one("#promote-head").render())
        assert "press Esc, then t on the item to set one" in head and "(retarget)" not in head
        keys = {k for k, b in modal.active_bindings.items() if b.binding.show and b.enabled}
        assert "y" not in keys
        assert not modal.query(Input)
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, PromoteScreen))
    assert claude.read_bytes() == original


async def test_a_memory_entry_has_three_fields_each_written(demo_root: Path) -> None:
    from ruamel.yaml import YAML

    memory = demo_root / "memory" / "harbor-api" / "project_memory.yaml"
    app = make_app(demo_root)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        app.push_screen(
            SessionScreen(app.index, "sid:sess-a91d04", item_key="kpt-20261030-002/try-002")
        )
        await pilot.pause()
        await pilot.press("p")
        await until(pilot, lambda: isinstance(app.screen, PromoteScreen) and bool(app.screen.plans))
        modal = app.screen
        fields = {
            n: modal.query_one(f"#pf-{n}-0", Input) for n in ("trigger", "behavior", "reason")
        }
        assert fields["behavior"].value.startswith("Redis 통합 테스트는")
        assert all(f.value for f in fields.values())
        await pilot.press("e")
        assert app.focused is fields["behavior"]
        for name, value in (("trigger", "Redis tests"), ("reason", "mock EVAL differs")):
            fields[name].value = value
        await until(pilot, lambda: "mock EVAL differs" in modal.query_one(DiffView).text)
        await pilot.press("ctrl+s")
        await until(pilot, lambda: not isinstance(app.screen, PromoteScreen))
    entry = YAML(typ="safe").load(memory.read_text("utf-8"))["learned_behaviors"][-1]
    assert entry["trigger"] == "Redis tests" and entry["reason"] == "mock EVAL differs"
    assert entry["behavior"].startswith("Redis 통합 테스트는")
