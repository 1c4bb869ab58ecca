"""A cell's text fitted to its column: a long text cut on its head alone comes out the same as
the whole text cut, whatever its characters (wide, of no width, joined, combining)."""

from __future__ import annotations

from unittest.mock import patch

from hypothesis import example, given, settings
from hypothesis import strategies as st
from textual.content import Content, Span

from screens.widgets import table_rows
from screens.widgets.table_rows import fit

PIECES = [
    "a", "Z", " ", "0", "-", "é", "e\u0301", "\u0301", "\u200b", "\u200d", "\ufeff",
    "漢", "字", "カ", "ｶﾞ", "한", "😀", "👨\u200d👩\u200d👧", "🇯🇵", "\u0300\u0301\u0302",
    "\u200b" * 30,
]  # fmt: skip


def whole(content: Content, width: int, align: str) -> Content:
    """``fit`` measuring the whole text, as it did before it cut long texts on their heads."""
    with patch.object(table_rows, "HEAD_SLACK", 1 << 30):
        return fit(content, width, align)


@st.composite
def contents(draw: st.DrawFn) -> Content:
    text = "".join(draw(st.lists(st.sampled_from(PIECES), max_size=120)))
    spans = []
    for _ in range(draw(st.integers(0, 4))):
        start = draw(st.integers(0, max(0, len(text) - 1)))
        end = draw(st.integers(start, len(text)))
        spans.append(Span(start, end, draw(st.sampled_from(["bold", "italic", "red"]))))
    return Content(text, spans)


@settings(max_examples=500, deadline=None)
@example(Content("\u200b" * 50 + "abcdef"), 3, "left")  # a head of no width: not cut there
@given(contents(), st.integers(1, 40), st.sampled_from(["left", "right"]))
def test_fitting_on_the_head_of_a_long_text_is_fitting_the_whole(
    content: Content, width: int, align: str
) -> None:
    got = fit(content, width, align)
    expected = whole(content, width, align)
    assert got.plain == expected.plain
    assert list(got.spans) == list(expected.spans)
    assert got.cell_length == width


def test_a_title_with_a_long_snippet_is_cut_with_an_ellipsis() -> None:
    title = Content("Retry the flaky test  — " + "snippet words " * 40, [Span(0, 5, "bold")])
    got = fit(title, 20, "left")
    assert got.plain == "Retry the flaky tes…"
    assert list(got.spans) == [Span(0, 5, "bold")]
