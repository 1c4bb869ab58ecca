"""Search does work linear in what agents write: huge words, huge records, odd punctuation.

An unbroken word of n characters once cost O(n²): the compound-token pattern was tried from
every character of it and ran to the word's end each time (80,000 characters: a minute; a
megabyte: never), and the word-boundary checks called ``str.find`` once per occurrence of a
term inside a word, each call costing the term's length. These properties count the work
instead of timing it — what the text passes produce and how much text they are handed — and
keep one generous limit of CPU time (an alarm: the regex engine checks for signals) so
that a return to quadratic fails at once instead of hanging.
"""

from __future__ import annotations

import re
import signal
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from functools import wraps
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

import store.search.engine as search_index
import store.search.index as search_segment
import store.search.query as search_query
import store.search.text as search_text
from store.search.engine import Engine as SearchIndex
from store.search.model import SearchRecord
from store.search.text import (
    WORD_CHAR,
    is_cjk,
    is_word_char,
    normalize,
    word_parts,
    word_starts,
)
from tests.search_build import build_engine

#: Huge examples: few, and not shrunk (a slow one would be rerun again and again).
HEAVY = settings(
    max_examples=6,
    deadline=None,
    suppress_health_check=list(HealthCheck),
    phases=[Phase.explicit, Phase.reuse, Phase.generate],
)
LIGHT = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])

#: What agents paste: letters, digits, id punctuation, CJK, full- and half-width forms,
#: characters that grow when normalised (ß, ﬁ, İ, ㍻), combining and zero-width marks,
#: other scripts, emoji — and the characters the boundary check may use as marks.
PIECES = [
    "a", "b", "z", "Q", "0", "7", "-", ".", "_", ":", "/", "-.", "_:",
    "漢", "字", "か", "カ", "ー", "々", "ｶﾞ", "Ａ", "１", "ß", "ﬁ", "İ", "㍻",
    "é", "\u0301", "\u200b", "\u200d", "\ufeff", "한", "ж", "😀", "א", "٣",
    "\x00", "\x01", "\ufdd0",
]  # fmt: skip
units = st.lists(st.sampled_from(PIECES), min_size=1, max_size=10).map("".join)


class Huge(str):
    """A huge generated string that shows itself (in a failing example) by its recipe."""

    recipe: str

    def __repr__(self) -> str:
        return f"<{len(self):,} characters: {self.recipe}>"


def huge(text: str, size: int, recipe: object) -> Huge:
    out = Huge((text * (size // len(text) + 1))[:size])
    out.recipe = repr(recipe)
    return out


#: An unbroken word (no whitespace) of 200,000 characters or more, made of a few runs of
#: repeated units: ``aaaa…``, ``a.b-c_d…``, ``漢字漢字…`` and mixtures.
huge_words = st.builds(
    lambda runs, size: huge("".join(u * k for u, k in runs), size, runs),
    st.lists(st.tuples(units, st.integers(1, 50_000)), min_size=1, max_size=4),
    st.integers(200_000, 400_000),
)
#: Several megabytes of text: words of repeated units, with spaces and line breaks.
huge_texts = st.builds(
    lambda words, seps, size: huge(
        "".join(w + seps[i % len(seps)] for i, w in enumerate(words)), size, (words, seps)
    ),
    st.lists(units, min_size=1, max_size=8),
    st.lists(st.sampled_from([" ", "\n", " - ", ", ", "。", "\t"]), min_size=1, max_size=4),
    st.integers(2_000_000, 4_000_000),
)


def record(rid: str, title: str, body: str, kind: str = "lesson") -> SearchRecord:
    return SearchRecord(
        kind,
        rid,
        f"/ws/{rid}.jsonl",
        1,
        "",
        title,
        ("title", title, "summary", body),
        "2026-01-01",
        "",
        "",
        (),
        f"{title}\n{body}",
    )


def build(*records: SearchRecord) -> SearchIndex:
    return build_engine({"/ws/a.jsonl": ((1, 1), list(records))})


@contextmanager
def within(seconds: float) -> Iterator[None]:
    """Fail when the block takes more than ``seconds`` of this process's CPU time
    (generous: a sanity limit; CPU time, so a loaded machine does not trip it)."""

    def expired(_signum: int, _frame: Any) -> None:
        raise TimeoutError(f"took more than {seconds} s of CPU: is a text pass quadratic again?")

    old = signal.signal(signal.SIGVTALRM, expired)
    signal.setitimer(signal.ITIMER_VIRTUAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_VIRTUAL, 0)
        signal.signal(signal.SIGVTALRM, old)


@contextmanager
def patched(module: Any, name: str, value: Any) -> Iterator[None]:
    old = getattr(module, name)
    setattr(module, name, value)
    try:
        yield
    finally:
        setattr(module, name, old)


@contextmanager
def uncapped() -> Iterator[None]:
    """Index and highlight whole records, however long: the passes are linear without the cap."""
    with ExitStack() as stack:
        for module in (search_text, search_segment, search_index):
            stack.enter_context(patched(module, "MAX_TEXT", 10**12))
        yield


#: The text passes: every function that reads a record's text or a query term.
TEXT_PASSES = (
    "normalize",
    "gist_key",
    "split_terms",
    "word_starts",
    "highlight_spans",
    "fuzzy_spans",
    "snippet",
    "_char_map",
    "index_terms",
)
BOUNDARY = ("word_starts",)
MODULES = (search_text, search_segment, search_index, search_query)


class Work:
    """Counts what the text passes are handed: calls and characters, and the characters
    looked at one by one in Python (``is_word_char``)."""

    def __init__(self) -> None:
        self.calls = 0
        self.chars = 0
        self.boundary_calls = 0
        self.steps = 0

    @contextmanager
    def counting(self) -> Iterator[Work]:
        with ExitStack() as stack:
            for module in MODULES:
                for name in (*TEXT_PASSES, "is_word_char"):
                    fn = module.__dict__.get(name)
                    if fn is not None:
                        stack.enter_context(patched(module, name, self._wrap(name, fn)))
            yield self

    def _wrap(self, name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        @wraps(fn)
        def counted(*args: Any, **kwargs: Any) -> Any:
            if name == "is_word_char":
                self.steps += 1
            else:
                self.calls += 1
                self.chars += sum(len(a) for a in args if isinstance(a, str))
                self.boundary_calls += name in BOUNDARY
            return fn(*args, **kwargs)

        return counted


def assert_linear(work: Work, size: int, terms: int = 1) -> None:
    """The text handed to the passes is a constant times the input, per word of the query,
    and the characters looked at in Python are a constant per boundary check."""
    assert work.chars <= 40 * (terms + 1) * size + 10_000, (work.chars, size)
    assert work.steps <= 256 * work.boundary_calls + 1_000, (work.steps, work.boundary_calls)


# -- tokens ------------------------------------------------------------------------------------


def tokens(norm: str) -> list[str]:
    """What the index is handed of a text besides the text itself: compound tokens and
    their tails, CJK pairs, words."""
    pairs = [p for p in search_segment.cjk_terms(norm)[1].split() if p != "|"]
    return [*search_text.index_terms(norm)[1], *pairs, *word_parts(norm)]


@HEAVY
@given(huge_words)
def test_tokens_of_a_huge_word_are_bounded_by_its_length(word: str) -> None:
    with within(20):
        norm = normalize(word) + " x-y"  # compound tokens are looked for in the word too
        got = tokens(norm)
    n = len(norm)
    # words, compounds and at most TAILS_MAX tails of each, CJK runs: bounded by the text
    assert len(got) <= 12 * n + 1
    assert sum(map(len, got)) <= 12 * n + 1
    assert all(t in norm for t in got)


@pytest.mark.slow
@HEAVY
@given(huge_texts)
def test_tokens_of_megabytes_of_text_are_bounded_by_its_length(text: str) -> None:
    with within(30):
        norm = normalize(text)
        got = tokens(norm)
    assert len(got) <= 12 * len(norm) + 1
    assert sum(map(len, got)) <= 12 * len(norm) + 1


# -- indexing and searching -----------------------------------------------------------------


def queries_for(word: str, data: st.DataObject) -> list[str]:
    """Short and long queries: the word's start (3, 50, 5,000 and 100,000 characters), a
    slice from inside it, a quoted phrase, an exclusion, several words, the normal record."""
    cut = data.draw(st.integers(1, max(1, len(word) - 1)))
    unit = data.draw(units)
    return [
        word[:3],
        word[:50],
        word[:5_000],
        word[:100_000],
        word[cut : cut + 20_000],
        f'"{word[:3_000]}"',
        f"-{word[:2_000]} rate",
        f"{word[1:4_000]} {unit} {word[:3]}",
        " ".join([unit] * 500),
        "rate limit",
        "huge word",
    ]


def test_a_megabyte_word_indexes_and_searches_in_seconds() -> None:
    """The sanity limit: a one-megabyte word of each shape, indexed whole, in well under
    ten seconds (it was hours before: quadratic)."""
    shapes = ["a", "ab12", "a.b-c_d/e", "漢字かな", "a\u200b", "e\u0301", "aé漢-1_", "ｶﾞß-"]
    for unit in shapes:
        word = (unit * (1_000_000 // len(unit) + 1))[:1_000_000]
        with uncapped(), within(10):
            index = build(
                record("ll-ai-20260101-001", "huge word", word),
                record("ll-ai-20260101-002", "rate limit", "the rate limit middleware x-y"),
            )
            for query in [word[:3], word[:50], word[:100_000], "rate", "x-y", "huge"]:
                index.search(query, 20)


# -- the same answers as before, on small text ----------------------------------------------


def plain_word_starts(text: str, term: str) -> list[int]:
    """The boundary checks as they were: every occurrence, one by one."""
    anywhere = is_cjk(term[:1])
    out = []
    i = text.find(term)
    while i >= 0:
        if anywhere or i == 0 or not is_word_char(text[i - 1]):
            out.append(i)
        i = text.find(term, i + 1)
    return out


small = st.lists(st.sampled_from([*PIECES, " ", "\n", "aa", "ab"]), max_size=30).map("".join)
terms = st.lists(st.sampled_from([*PIECES, "aa", "ab"]), min_size=1, max_size=4).map("".join)


@LIGHT
@given(small, terms, st.sampled_from([0, 1, 64]))
def test_boundary_checks_agree_with_the_plain_scan(text: str, term: str, scan: int) -> None:
    """Whichever way is taken (the plain scan, the marked search, the pattern), the answer
    is the plain scan's."""
    with patched(search_text, "SCAN_MAX", scan):
        expected = plain_word_starts(text, term)
        assert word_starts(text, term, 64) == expected[:64]


UNANCHORED = re.compile(f"{WORD_CHAR}+(?:[-._:]+{WORD_CHAR}+)*")


@LIGHT
@given(small)
def test_word_chains_are_those_of_the_unanchored_pattern(text: str) -> None:
    norm = normalize(text)
    assert search_text.word_chain().findall(norm) == UNANCHORED.findall(norm)
    assert bool(search_text.word_chain().fullmatch(norm)) == bool(UNANCHORED.fullmatch(norm))


@LIGHT
@given(small)
def test_highlight_map_is_the_character_by_character_normal_form(text: str) -> None:
    import unicodedata

    norm, where = search_text._char_map(text)
    if where is None:
        assert norm == normalize(text) and len(norm) == len(text)
        return
    pieces = [
        c.lower() if c.isascii() else unicodedata.normalize("NFKC", c).casefold() for c in text
    ]
    assert norm == "".join(pieces)
    assert where == [i for i, p in enumerate(pieces) for _ in p]
