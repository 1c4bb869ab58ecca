"""The search screen's frames draw only the widgets a change touches, and write what
Textual's own compositor would have written, byte for byte."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from textual._compositor import Compositor
from textual.widget import Widget

from screens import search
from screens.widgets.changed_only import ChangedOnlyCompositor
from tests.tui.helpers import make_app, until
from tests.tui.test_search_screen import open_search, typed

#: typed into the search box: words, a phrase, a filter, CJK, a query that finds nothing,
#: and the box emptied (the rows change in number, the status line in length)
QUERIES = ["jwks", "rate limit", '"rate limit"', "kind:try cache", "タイムゾーン", "zzzqqq", ""]


async def test_a_frame_writes_what_textuals_compositor_writes(
    demo_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every partial update of the search screen, drawn both ways on the same screen state:
    Textual's (every widget in the rectangle around the changes asked for its lines) and
    ours (only the widgets that overlap a change). The bytes written are the same."""
    frames: list[tuple[str, str]] = []
    ours = ChangedOnlyCompositor.render_partial_update

    def both(self: ChangedOnlyCompositor) -> object:
        changed = set(self._dirty_regions)
        stock = Compositor.render_partial_update(self)  # not narrowed: every widget
        self._dirty_regions.update(changed)
        update = ours(self)
        if stock is not None and update is not None:
            console = app.console
            frames.append((stock.render_segments(console), update.render_segments(console)))
        else:
            assert stock is update is None
        return update

    monkeypatch.setattr(ChangedOnlyCompositor, "render_partial_update", both)
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_search(pilot)
        assert isinstance(screen._compositor, ChangedOnlyCompositor)
        for query in QUERIES:
            await typed(pilot, screen, query)
            await pilot.press("down", "down")  # the cursor moved, the preview drawn later
            await pilot.pause(0.4)
    assert len(frames) >= 2 * len(QUERIES)
    for stock, update in frames:
        assert update == stock


async def test_a_key_does_not_draw_the_preview_again(
    demo_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A typed key changes the box, the status line and the rows: the preview pane, the
    header and the footer are not asked for their lines (Textual asked each of them, for
    every line, at every key)."""
    drawn: Counter[str] = Counter()
    render_lines = Widget.render_lines

    def counting(self: Widget, crop: object) -> object:
        drawn[self.id or type(self).__name__] += 1
        return render_lines(self, crop)  # type: ignore[arg-type]

    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_search(pilot)
        await pilot.pause(0.5)  # the preview drawn once typing paused
        monkeypatch.setattr(search, "PREVIEW_PAUSE", 600)  # still typing, however slowly
        monkeypatch.setattr(Widget, "render_lines", counting)
        for end in range(1, 5):
            await pilot.press("jwks"[end - 1])
            shown = "jwks"[:end]
            await until(
                pilot, lambda s=shown: screen.result is not None and screen.result.text == s
            )
            await pilot.pause()
    assert drawn["search-input"] and drawn["search-status"]
    assert drawn["search-preview"] == 0
    assert drawn["search-preview-scroll"] == 0
    assert drawn["Footer"] == drawn["Header"] == 0
