"""A hit's title line, made as one ``Content`` for every key typed, shows what it showed
when it was assembled piece by piece: the text made printable, the matches highlighted
where the offsets still fit, the snippet after a muted dash."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from textual.content import Content

from screens.widgets.hits import HIGHLIGHT, hit_title
from store.read.textsafe import printable
from store.search.engine import Hit
from store.search.model import SearchRecord

PIECES = [*"ab é漢字\t\n\r\x1b\u202e—", "e\u0301", "😀"]
TEXTS = st.lists(st.sampled_from(PIECES), max_size=30).map("".join)


def spans_of(text_size: int) -> st.SearchStrategy[tuple[tuple[int, int], ...]]:
    bound = text_size + 3  # some past the end: never drawn
    return st.lists(st.tuples(st.integers(-2, bound), st.integers(-2, bound)), max_size=4).map(
        tuple
    )


def piece_by_piece(text: str, spans: tuple[tuple[int, int], ...]) -> Content:
    """How a highlighted text was made before: a ``Content``, then a span at a time."""
    shown = printable(text, keep_newlines=False)
    content = Content(shown)
    if shown != text:
        return content
    for a, b in spans:
        if 0 <= a < b <= len(shown):
            content = content.stylize(HIGHLIGHT, a, b)
    return content


def old_title(hit: Hit) -> Content:
    title = piece_by_piece(hit.title, hit.title_spans)
    if not hit.snippet:
        return title
    return Content.assemble(
        title, Content.styled("  — ", "$text-muted"), piece_by_piece(hit.snippet, hit.snippet_spans)
    )


def a_hit(title: str, spans: tuple, snippet: str, snippet_spans: tuple) -> Hit:
    record = SearchRecord("try", "try-001", "a.yaml", 1, "", title, (), "", "", "", (), "")
    return Hit("try", "try-001", "a.yaml", 1, 1.0, title, 1, 0, record,
               spans, snippet, snippet_spans)  # fmt: skip


@settings(max_examples=400, deadline=None)
@given(st.data(), TEXTS, TEXTS)
def test_a_title_made_at_once_is_the_title_made_piece_by_piece(
    data: st.DataObject, title: str, snippet: str
) -> None:
    hit = a_hit(
        title,
        data.draw(spans_of(len(title))),
        snippet,
        data.draw(spans_of(len(snippet))),
    )
    got, expected = hit_title(hit), old_title(hit)
    assert got.plain == expected.plain
    assert list(got.spans) == list(expected.spans)
    assert "\x1b" not in got.plain and "\u202e" not in got.plain


def test_the_matches_are_highlighted_and_the_dash_muted() -> None:
    hit = a_hit("Retry jwks", ((6, 10),), "the jwks cache", ((4, 8),))
    got = hit_title(hit)
    assert got.plain == "Retry jwks  — the jwks cache"
    marked = [(s.start, s.end, s.style) for s in got.spans]
    assert marked == [(6, 10, HIGHLIGHT), (10, 14, "$text-muted"), (18, 22, HIGHLIGHT)]
