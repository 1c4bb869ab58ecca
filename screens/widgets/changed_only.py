"""A screen whose frames draw only the widgets that changed.

Textual draws a frame by cropping the screen to the rectangle around every region that
changed, then asking *each widget that reaches into that rectangle* for all of its lines
(``Compositor._get_renders``), and finally writing out only the changed regions. On the
search screen a key changes the query box (top, full width), the status line (full width)
and the results table (left): the rectangle around them is the whole screen below the
header, so the preview pane, its scroll bars, the header and the footer are drawn at every
key and then thrown away — about a sixth of a key's frame.

``ChangedOnlyCompositor`` asks only the widgets whose visible part overlaps a changed
region: what it writes is the same (a region that changed is drawn by every widget that
shows in it, front to back as before), but a widget nowhere near a change is not drawn.
A widget that needs drawing always has its changed region in the list (Textual adds the
region of every widget refreshed), so nothing changed is left out.

This relies on Textual's internals: the compositor's ``_dirty_regions``, its
``visible_widgets`` map (narrowed while a partial update is drawn; its ``cuts``, made
from that map and kept, are made before) and the screen's ``_compositor``; ``tests/tui/test_changed_only.py`` checks against Textual's own
compositor, byte for byte, that the frames written are the same.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual._compositor import ChopsUpdate, Compositor

if TYPE_CHECKING:
    from textual.geometry import Region
    from textual.widget import Widget

__all__ = ["ChangedOnlyCompositor", "draw_changed_only"]


class ChangedOnlyCompositor(Compositor):
    """Textual's compositor, but a partial update draws only the widgets it touches."""

    def __init__(self) -> None:
        super().__init__()
        #: the regions of the partial update being drawn (empty otherwise: every widget)
        self._changed: tuple[Region, ...] = ()

    def render_partial_update(self) -> ChopsUpdate | None:
        # the cuts (where each line's widgets begin and end) are made from every widget,
        # and kept: made now, before the widgets are narrowed down
        self.cuts  # noqa: B018
        self._changed = tuple(self._dirty_regions)
        try:
            return super().render_partial_update()
        finally:
            self._changed = ()

    @property
    def visible_widgets(self) -> dict[Widget, tuple[Region, Region]]:
        widgets = super().visible_widgets
        changed = self._changed
        if not changed:
            return widgets
        touched: dict[Widget, tuple[Region, Region]] = {}
        for widget, (region, clip) in widgets.items():
            shown = region.intersection(clip)
            if any(shown.overlaps(area) for area in changed):
                touched[widget] = (region, clip)
        return touched


def draw_changed_only(screen: object) -> None:
    """Give ``screen`` (a Textual ``Screen``, before it is mounted) the compositor above."""
    screen._compositor = ChangedOnlyCompositor()  # type: ignore[attr-defined]
