"""The footer, composed again only when the keys it would show change."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.widgets import Footer

if TYPE_CHECKING:
    from textual.app import ComposeResult
    from textual.screen import Screen


def _shown(screen: Screen[object]) -> list[object]:
    return [(b, enabled, tip) for _node, b, enabled, tip in screen.active_bindings.values()]


class KeysFooter(Footer):
    """Textual's footer recomposes at every change of focus or bindings, the same keys
    included: at a start, twice more after the first frame (~50 ms of the interpreter
    while the sessions are read, #47)."""

    #: the keys of the last compose that showed any (``None``: none shown yet)
    composed: list[object] | None = None

    def compose(self) -> ComposeResult:
        shown = None
        for widget in super().compose():
            if shown is None:
                shown = _shown(self.screen)
            yield widget
        self.composed = shown

    def bindings_changed(self, screen: Screen[object]) -> None:
        if self.composed is None or screen is not self.screen or _shown(screen) != self.composed:
            super().bindings_changed(screen)
