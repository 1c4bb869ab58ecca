"""The search screen's query box and results table: widgets whose size the CSS fixes, so a
new virtual size (every key) need not lay out and repaint the whole screen."""

from __future__ import annotations

from typing import Self

from textual import events
from textual.geometry import Region
from textual.timer import Timer
from textual.widgets import Input

from .virtual_table import VirtualTable

HOLD = 0.06
"""At most this long the query box's echo of a key waits for the key's results, so that
the key and its results are drawn in one frame (a slower search lets the echo through)."""
EDITING_KEYS = frozenset({"backspace", "delete", "ctrl+w", "ctrl+u", "ctrl+k", "ctrl+d"})
"""Keys that change the query besides printable ones (Textual's Input bindings)."""


class FixedSize:
    """A widget whose layout is never asked for by what it holds (a mixin)."""

    def refresh(
        self,
        *regions: Region,
        repaint: bool = True,
        layout: bool = False,
        recompose: bool = False,
    ) -> Self:
        return super().refresh(  # type: ignore[misc, no-any-return]
            *regions, repaint=repaint, layout=False, recompose=recompose
        )


class QueryInput(FixedSize, Input):
    """The query box (one line, its width fixed by the screen).

    Its repaint for a key that edits the query waits for that key's results (the screen
    calls :meth:`let_go`, or ``HOLD`` runs out): Textual draws a screen at most once a
    frame period, so the key's echo drawn alone first would put its results a frame
    period later. Only this box waits; the rest of the screen draws as usual."""

    _held = False
    _missed = False
    _hold_timer: Timer | None = None

    def on_key(self, event: events.Key) -> None:
        # (before Input's own handling of the key, which repaints the box)
        if event.is_printable or event.key in EDITING_KEYS:
            self._held = True
            if self._hold_timer is not None:
                self._hold_timer.stop()
            self._hold_timer = self.set_timer(HOLD, self.let_go, name="search-hold")

    def let_go(self) -> None:
        """Repaint the box now if it was asked meanwhile."""
        if self._hold_timer is not None:
            self._hold_timer.stop()
            self._hold_timer = None
        if self._held:
            self._held = False
            if self._missed:
                self._missed = False
                self.refresh()

    def refresh(
        self,
        *regions: Region,
        repaint: bool = True,
        layout: bool = False,
        recompose: bool = False,
    ) -> Self:
        if self._held and not recompose:
            self._missed = True
            return self
        return super().refresh(*regions, repaint=repaint, layout=layout, recompose=recompose)


class ResultsTable(FixedSize, VirtualTable):
    """The hits: a new answer repaints the rows in place. The scrollbar's gutter is always
    there, so the width of the rows does not depend on their number."""

    DEFAULT_CSS = """
    ResultsTable { overflow-y: scroll; }
    """
