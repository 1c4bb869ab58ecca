"""Search over huge agent text: each pass that once was quadratic, on an input that showed it.

The properties are in ``tests/property/test_search_linear.py``; these are the regressions
one by one, and ``hurikaeri search`` as a separate process over a one-megabyte word.
"""

from __future__ import annotations

import json
import random
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

import store.search.segment as search_segment
from store.search.engine import SearchIndex
from store.search.facade import resolve_line
from store.search.match import MIDWORD_WORDS, Term, _midword, superset
from store.search.model import SearchRecord
from store.search.segment import HEAVY_DEPTH, NEAR_CHARS
from tests.conftest import REPO

MB = 1_000_000


@contextmanager
def within(seconds: float) -> Iterator[None]:
    """Fail when the block runs longer than ``seconds`` (generous: a sanity limit)."""

    def expired(_signum: int, _frame: Any) -> None:
        raise TimeoutError(f"took more than {seconds} s: quadratic again?")

    old = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def rec(rid: str, title: str, body: str = "", gist: str | None = None) -> SearchRecord:
    return SearchRecord(
        "lesson",
        rid,
        "/ws/lessons.jsonl",
        1,
        "",
        title,
        ("title", title, "summary", body),
        "2026-01-01",
        "",
        "",
        (),
        title if gist is None else gist,
    )


def build(*records: SearchRecord) -> SearchIndex:
    return SearchIndex.build({"/ws/lessons.jsonl": ((1, 1), list(records))})


# -- the command line ---------------------------------------------------------------------------


def lessons_workspace(root: Path, word: str) -> Path:
    lessons = [
        {
            "id": "ll-ai-20260101-001",
            "date": "2026-01-01T10:00:00",
            "title": "one huge word",
            "summary": word,
            "type": "ai_trial_error",
            "category": "testing",
        },
        {
            "id": "ll-ai-20260101-002",
            "date": "2026-01-02T10:00:00",
            "title": "rate limit middleware",
            "summary": "the rate limit middleware drops bursts",
            "type": "ai_trial_error",
            "category": "testing",
        },
    ]
    path = root / "lessons" / "ai" / "lessons.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text("".join(json.dumps(x) + "\n" for x in lessons), encoding="utf-8")
    return root


@pytest.mark.parametrize("unit", ["a", "a.b-c_d/e"])
def test_search_cli_over_a_one_megabyte_word_returns(tmp_path: Path, unit: str) -> None:
    """It hung: 40,000 characters took 14 s, 80,000 a minute, a megabyte never finished."""
    word = (unit * (MB // len(unit) + 1))[:MB]
    root = lessons_workspace(tmp_path / "ws", word)
    for query, expected in [
        ("rate limit", "ll-ai-20260101-002"),
        ("huge", "ll-ai-20260101-001"),
        (word[:50], "ll-ai-20260101-001"),
        (word[:100_000], "ll-ai-20260101-001"),
    ]:
        cmd = [sys.executable, "-m", "tui.cli.search", "--root", str(root), "--json", "--", query]
        done = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr[-2000:]
        assert [h["id"] for h in json.loads(done.stdout)][:1] == [expected]


# -- the passes ---------------------------------------------------------------------------------


def test_a_huge_record_is_found_by_its_title_and_the_start_of_its_text() -> None:
    body = "kubernetes rollout notes " + "zq" * (3 * MB)
    with within(10):
        index = build(rec("big", "helm chart drift", body), rec("small", "other", "nothing"))
        assert [h.id for h in index.search("helm drift", 5).hits] == ["big"]
        assert [h.id for h in index.search("kubernetes rollout", 5).hits] == ["big"]
        assert [h.id for h in index.search("zqzq", 5).hits] == ["big"]


def test_resolve_line_does_not_rescan_runs_of_blank_lines(tmp_path: Path) -> None:
    """``^\\s*`` ran over every following blank line from each blank line: quadratic."""
    path = tmp_path / "kpt-20260101-001.yaml"
    path.write_text("keep:\n" + "\n" * 200_000 + "- id: keep-001\n" + "   \n" * 100_000)
    item = SearchRecord(
        "keep", "k/keep-001", str(path), 0, "id: keep-001", "", (), "", "", "", (), ""
    )
    missing = item._replace(anchor="id: keep-999")
    with within(5):
        assert resolve_line(item) == 200_002  # the item's line, not the first blank one
        assert resolve_line(missing) == 1


def test_many_records_sharing_a_long_word_do_not_recurse_per_character(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Heavy prefixes went one level deeper per character of a word in more than HEAVY
    records: 30,001 lessons holding the same 1,500-character hash raised RecursionError."""
    monkeypatch.setattr(search_segment, "HEAVY", 10)
    word = "f" * 5_000
    index = build(*(rec(f"l{i}", f"hash {i}", word) for i in range(12)))
    assert index.main.heavy and max(map(len, index.main.heavy)) <= HEAVY_DEPTH
    assert index.search(word[:40], 20).total == 12
    assert index.search(word[:4_000], 20).total == 12


def test_near_duplicates_compare_the_opening_of_huge_learnings() -> None:
    """Comparing two learnings costs the product of their lengths: megabytes took minutes."""
    rng = random.Random(7)
    base = "".join(rng.choice("abcdefgh ") for _ in range(MB))
    gists = []
    for _ in range(4):
        chars = list(base)
        for _ in range(5):
            chars[rng.randrange(NEAR_CHARS, MB)] = "z"
        gists.append("".join(chars))
    with within(10):
        index = build(*(rec(f"l{i}", f"t{i}", gist=g) for i, g in enumerate(gists)))
    assert len(set(index.main.groups)) == 1


def test_a_long_needle_narrows_from_the_shorter_one_without_slicing_every_prefix(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each shorter needle was looked for by slicing the new one at every length."""
    monkeypatch.setattr(search_segment, "MAX_TEXT", 10 * MB)  # the word indexed whole
    word = "ab" * (MB // 2)
    index = build(rec("w", "word", f"x{word} y"), rec("o", "other", "abba"))
    seg = index.main
    first = seg.vocab_inside("bab")
    needle = word[1:]
    with within(5):
        got = seg.vocab_inside(needle)
    assert got and set(got) <= set(first)
    assert [seg.vocab[p] for p in got] == [f"x{word}"]


def test_a_pasted_word_is_looked_for_inside_words_without_compiling_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Short needles are found by a compiled regular expression; compiling a pasted
    megabyte took 0.6 s, so a long one is looked for with ``bytes.find``."""
    compiled: list[int] = []
    real = search_segment.re.compile

    def spy(pattern: Any, flags: int = 0) -> Any:
        if isinstance(pattern, bytes):  # the vocabulary's (a bytes pattern)
            compiled.append(len(pattern))
        return real(pattern, flags)

    monkeypatch.setattr(search_segment.re, "compile", spy)
    monkeypatch.setattr(search_segment, "MAX_TEXT", 10 * MB)  # the word indexed whole
    word = "ab" * (MB // 2)
    index = build(rec("w", "word", f"x{word} y"), rec("o", "other", "xabz abba"))
    seg = index.main
    with within(5):
        got = seg.vocab_inside(word[1:])
    assert [seg.vocab[p] for p in got] == [f"x{word}"]
    assert compiled == []  # nothing compiled for it
    assert [seg.vocab[p] for p in seg.vocab_inside("ab")] == [f"x{word}", "xabz"]
    assert compiled and max(compiled) <= search_segment.REGEX_NEEDLE


def test_a_long_cjk_query_slices_only_the_postings_it_intersects() -> None:
    text = "漢字仮名交じり文の検索を試す"
    index = build(
        *(rec(f"c{i}", f"記録{i}", text * (i + 1)) for i in range(50)),
        rec("other", "無関係", "まったく別の話"),
    )
    query = (text * 10_000)[:100_000]
    with within(10):
        result = index.search(query, 10)
    assert result.error is None and result.total == 0  # no record holds it whole
    assert index.search(text * 3, 100).total == 48


def test_superset_keeps_the_midword_budget() -> None:
    """Inside-word matches are gathered as in the tiers: not when the string is inside too
    many words (the earlier ``superset`` gathered every one of them)."""
    words = [f"q{i:05d}xyz" for i in range(MIDWORD_WORDS + 5)]
    common = build(*(rec(f"r{i}", w) for i, w in enumerate(words)), rec("p", "xyzzy"))
    seg = common.main
    assert _midword(seg, "xyz") is None
    assert set(superset(seg, Term("xyz", "word"))) == set(seg.prefix_ids("xyz"))
    few = build(rec("a", "the q1xyz thing"), rec("b", "xyzzy"), rec("c", "none"))
    seg = few.main
    assert set(superset(seg, Term("xyz", "word"))) == set(seg.prefix_ids("xyz")) | (
        _midword(seg, "xyz") or set()
    )
    assert len(set(superset(seg, Term("xyz", "word")))) == 2
