"""The search screen's frames draw only the widgets a change touches, and write what
Textual's own compositor would have written, byte for byte."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from rich.cells import cell_len
from rich.segment import ControlType
from rich.style import Style
from textual._compositor import Compositor
from textual.widget import Widget

from screens import search
from screens.widgets.changed_only import ChangedOnlyCompositor
from tests.tui.helpers import make_app, until
from tests.tui.test_search_screen import open_search, table, typed

#: typed into the search box: words, a phrase, a filter, CJK, a query that finds nothing,
#: and the box emptied (the rows change in number, the status line in length)
QUERIES = ["jwks", "rate limit", '"rate limit"', "kind:try cache", "タイムゾーン", "zzzqqq", ""]


def counting_draws(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """From now on, how many times each widget (by id, else by class) is asked for lines
    (Textual's widgets; the results table draws its own)."""
    drawn: Counter[str] = Counter()
    render_lines = Widget.render_lines

    def counting(self: Widget, crop: object) -> object:
        drawn[self.id or type(self).__name__] += 1
        return render_lines(self, crop)  # type: ignore[arg-type]

    monkeypatch.setattr(Widget, "render_lines", counting)
    return drawn


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
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_search(pilot)
        await pilot.pause(0.5)  # the preview drawn once typing paused
        monkeypatch.setattr(search, "PREVIEW_PAUSE", 600)  # still typing, however slowly
        drawn = counting_draws(monkeypatch)
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


async def test_a_key_that_keeps_the_rows_number_does_not_draw_their_scroll_bar(
    demo_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``tes`` and ``test`` list as many rows, scrolled alike: the rows' scroll bar stays
    as it was and is not drawn again (it was, at every key). The terminal test below
    checks that it is whenever what it shows changes."""
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_search(pilot)
        rows = table(screen)
        before = await typed(pilot, screen, "tes")
        await pilot.pause(0.5)
        scrolled = (rows.scroll_y, rows.virtual_size)
        drawn = counting_draws(monkeypatch)
        await pilot.press("t")
        await until(pilot, lambda: screen.result is not None and screen.result.text == "test")
        await pilot.pause()
        assert screen.result is not None
        assert len(screen.result.hits) == len(before.hits) == 50
        assert (rows.scroll_y, rows.virtual_size) == scrolled
    assert drawn["search-input"]  # a frame was drawn
    assert drawn["ScrollBar"] == 0


class Terminal:
    """The cells a terminal shows after the updates written to it: each character with its
    style, where the updates' cursor moves put it."""

    def __init__(self) -> None:
        self.cells: dict[tuple[int, int], tuple[str, Style | None]] = {}

    def write(self, update: Any, console: Any) -> None:
        x = y = 0
        for segment in update.__rich_console__(console, console.options):
            if segment.control:
                for code in segment.control:
                    if code[0] == ControlType.CURSOR_MOVE_TO:
                        x, y = code[1], code[2]
                continue
            if segment.text == "\n":
                continue
            for char in segment.text:
                width = cell_len(char)
                if width == 0 and (x - 1, y) in self.cells:
                    before, style = self.cells[(x - 1, y)]
                    self.cells[(x - 1, y)] = (before + char, style)
                    continue
                self.cells[(x, y)] = (char, segment.style)
                for right in range(1, width):
                    self.cells[(x + right, y)] = ("", segment.style)
                x += width


async def test_what_the_terminal_shows_after_every_frame_is_the_whole_screen_drawn_again(
    demo_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After every frame of the search screen, the cells a terminal shows (every frame
    written since the screen's first, whole one) are those of the whole screen drawn anew:
    a widget left undrawn at a change (the rows' scroll bar, a background) would show
    there, stale. Queries change the rows' number (none, a few, many), the cursor moves
    past a page, the box is emptied."""
    shown = Terminal()
    checked: list[int] = []
    render_update = ChangedOnlyCompositor.render_update

    def written(self: ChangedOnlyCompositor, *args: Any, **kwargs: Any) -> Any:
        update = render_update(self, *args, **kwargs)
        if update is not None:
            console = app.console
            shown.write(update, console)
            whole = Terminal()
            whole.write(Compositor.render_full_update(self), console)
            assert shown.cells == whole.cells, f"frame {len(checked)}"
            checked.append(1)
        return update

    monkeypatch.setattr(ChangedOnlyCompositor, "render_update", written)
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_search(pilot)
        for query in [*QUERIES, "t", "te", "tes", "test", "zzzqqq", "j"]:
            await typed(pilot, screen, query)
            await pilot.pause()
        await pilot.press("tab", *["pagedown"] * 3, "down", "pageup", "end", "home")
        await pilot.pause(0.4)
    assert len(checked) >= len(QUERIES) + 8
