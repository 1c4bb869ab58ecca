"""The words holding a string inside them: what the scan of the vocabulary finds, however
the query grew to it, equals a plain pass over every word.

The scan runs over the vocabulary's UTF-8 bytes and maps a match's byte offset back to its
word; a word of several-byte characters before the match would put every later word off by
one if the offsets were counted in characters. A longer needle is narrowed from the answer
for a shorter one plus a scan of the words that start with the shorter but not the longer,
so the typing order is part of the property.
"""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from store.search.cache import open_index
from store.search.engine import SearchIndex
from store.search.model import SearchRecord
from store.search.segment import Segment
from store.workspace import Workspace

#: Letters that make words share heads and insides, a compound mark, and characters of
#: two, three and four bytes in UTF-8.
PIECES = ["a", "b", "ab", "ba", "-", "é", "ß", "日本", "한", "😀", "0"]

words = st.lists(st.sampled_from(PIECES), min_size=1, max_size=6).map("".join)


def inside(seg: Segment, needle: str) -> list[int]:
    """Every word holding ``needle`` but not starting with it, in vocabulary order."""
    return [p for p, w in enumerate(seg.vocab) if needle in w and not w.startswith(needle)]


def build(titles: list[str]) -> SearchIndex:
    records = [
        SearchRecord(
            "lesson", f"r{i}", "/ws/l.jsonl", i + 1, "", t, ("title", t), "", "", "", (), f"g{i}"
        )
        for i, t in enumerate(titles)
    ]
    return SearchIndex.build({"/ws/l.jsonl": ((1, 1), records)})


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.lists(words, min_size=1, max_size=5).map(" ".join), min_size=1, max_size=30),
    st.lists(words, min_size=1, max_size=4),
    st.integers(min_value=1, max_value=8),
)
def test_words_holding_a_needle_inside_them_as_it_is_typed(
    titles: list[str], needles: list[str], limit: int
) -> None:
    seg = build(titles).main
    for needle in needles:
        needle = needle.casefold()
        for n in range(1, len(needle) + 1):  # a key at a time, the answers kept
            typed = needle[:n]
            assert seg.vocab_inside(typed) == inside(seg, typed), typed
            # a list cut to ``limit`` is the first ``limit`` words, and it is not narrowed
            # from: the next needle is looked for again
            assert seg.vocab_inside(typed, limit) == inside(seg, typed)[:limit], typed


def test_a_longer_needle_finds_the_words_that_start_with_the_shorter_one() -> None:
    """``abaabab`` and ``abazabab`` start with ``aba`` (so they are not among the words
    holding ``aba`` inside them) but hold ``abab`` inside them: they come from scanning the
    words before and after those starting with ``abab``."""
    seg = build(["abaabab ababa abazabab xabab zzz", "ab-abab abab"]).main
    for n in range(1, 5):
        seg.vocab_inside("abab"[:n])
    got = [seg.vocab[p] for p in seg.vocab_inside("abab")]
    assert got == ["ab-abab", "abaabab", "abazabab", "xabab"]
    assert got == [seg.vocab[p] for p in inside(seg, "abab")]


def test_the_cached_vocabulary_is_scanned_as_its_bytes(demo_root: Path) -> None:
    """A warm start's vocabulary is the cache file's UTF-8, not a joined string: the
    demo's Japanese and Korean words come before and among the ones looked for."""
    ws = Workspace(demo_root)
    open_index(ws, parallel=False)
    warm, stats = open_index(ws, parallel=False)
    assert stats["rebuilt"] == 0
    seg = warm.main
    assert isinstance(seg.vocab_blob, bytes)
    assert any(not w.isascii() for w in seg.vocab)
    checked = 0
    for needle in ("ing", "tion", "ation", "ache", "est", "ー", "キャッ", "시도", "-20"):
        expected = inside(seg, needle)
        assert seg.vocab_inside(needle) == expected, needle
        checked += len(expected)
    assert checked > 50
    warm.warm()  # the index of the vocabulary is made before the first keystroke
    blob, starts = seg.vocab_index()
    assert len(starts) == len(seg.vocab) + 1 and starts[-1] == len(blob) + 1
