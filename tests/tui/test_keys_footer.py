"""The footer is composed again when the keys it shows change, and only then (#47)."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.widgets import Button

from screens.widgets.footer import KeysFooter
from tests.tui.helpers import until


class TwoButtons(App[None]):
    BINDINGS = [Binding("x", "go", "Go")]
    allowed = True

    def compose(self) -> ComposeResult:
        yield Button("one", id="one")
        yield Button("two", id="two")
        yield KeysFooter()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return None if action == "go" and not self.allowed else True

    def action_go(self) -> None:
        pass


async def test_a_focus_change_with_the_same_keys_keeps_the_footer_a_key_change_redraws() -> None:
    app = TwoButtons()
    async with app.run_test() as pilot:
        footer = app.query_one(KeysFooter)
        await until(pilot, lambda: bool(footer.query("FooterKey")))
        shown = list(footer.query("FooterKey"))
        await pilot.press("tab")  # the other button: the same keys
        await until(pilot, lambda: app.focused is app.query_one("#two"))
        for _ in range(4):  # (Textual's own footer is composed anew within these frames)
            await pilot.pause()
        assert list(footer.query("FooterKey")) == shown
        app.allowed = False  # "x" now shown disabled
        app.refresh_bindings()
        await until(
            pilot,
            lambda: any(
                getattr(k, "key", "") == "x" and k.has_class("-disabled")
                for k in footer.query("FooterKey")
            ),
            frames=50,
        )
