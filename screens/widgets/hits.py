"""Search hits drawn literally, the matched characters highlighted: the search screen's and
the command palette's one rendering of a hit."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.content import Content

from store.read.textsafe import printable

if TYPE_CHECKING:
    from store.search.facade import Hit

HIGHLIGHT = "bold underline $accent"
KIND_LABELS = {
    "anti_pattern": "anti-pattern",
    "omission": "omission",
    "movement": "movement",
}


def highlighted(text: str, spans: tuple[tuple[int, int], ...] | list[tuple[int, int]]) -> Content:
    """``text`` on one line, literally, with ``spans`` (offsets into it) highlighted."""
    shown = printable(text, keep_newlines=False)
    content = Content(shown)
    if shown != text:  # control characters were made visible: find the terms again
        return content
    for a, b in spans:
        if 0 <= a < b <= len(shown):
            content = content.stylize(HIGHLIGHT, a, b)
    return content


def hit_title(hit: Hit) -> Content:
    """A hit's title, and its best snippet after a dash, with the matches highlighted."""
    title = highlighted(hit.title, hit.title_spans)
    if not hit.snippet:
        return title
    return Content.assemble(
        title, Content.styled("  — ", "$text-muted"), highlighted(hit.snippet, hit.snippet_spans)
    )
