"""Search hits drawn literally, the matched characters highlighted: the search screen's and
the command palette's one rendering of a hit."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.content import Content, Span

from store.read.textsafe import printable

if TYPE_CHECKING:
    from store.search.facade import Hit

HIGHLIGHT = "bold underline $accent"
SNIPPET_DASH = "  — "
KIND_LABELS = {
    "anti_pattern": "anti-pattern",
    "omission": "omission",
    "movement": "movement",
}


def _marks(
    text: str, spans: tuple[tuple[int, int], ...] | list[tuple[int, int]], at: int = 0
) -> tuple[str, list[Span]]:
    """``text`` made printable on one line, and ``spans`` (offsets into it) as highlight
    spans moved by ``at``; none when a control character had to be made visible (the
    offsets no longer fit)."""
    shown = printable(text, keep_newlines=False)
    if shown != text:
        return shown, []
    size = len(shown)
    return shown, [Span(at + a, at + b, HIGHLIGHT) for a, b in spans if 0 <= a < b <= size]


def highlighted(text: str, spans: tuple[tuple[int, int], ...] | list[tuple[int, int]]) -> Content:
    """``text`` on one line, literally, with ``spans`` (offsets into it) highlighted."""
    shown, marks = _marks(text, spans)
    # printable text holds no control code left to strip
    return Content(shown, marks, strip_control_codes=False)


def hit_title(hit: Hit) -> Content:
    """A hit's title, and its best snippet after a dash, with the matches highlighted:
    one ``Content`` made at once (a line of the results, for every key typed)."""
    title, marks = _marks(hit.title, hit.title_spans)
    if not hit.snippet:
        return Content(title, marks, strip_control_codes=False)
    at = len(title) + len(SNIPPET_DASH)
    snippet, snippet_marks = _marks(hit.snippet, hit.snippet_spans, at)
    marks.append(Span(len(title), at, "$text-muted"))
    marks += snippet_marks
    return Content(title + SNIPPET_DASH + snippet, marks, strip_control_codes=False)
