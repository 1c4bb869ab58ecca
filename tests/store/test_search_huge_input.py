"""Search over huge agent text: each pass that once was quadratic, on an input that showed it.

The properties are in ``tests/property/test_search_linear.py``; these are the regressions
one by one, and ``hurikaeri search`` as a separate process over a one-megabyte word.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from store.search.engine import Engine as SearchIndex
from store.search.facade import resolve_line
from store.search.model import SearchRecord
from tests.conftest import REPO
from tests.search_build import build_engine

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
    return build_engine({"/ws/lessons.jsonl": ((1, 1), list(records))})


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


@pytest.mark.slow
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


def test_resolve_line_follows_an_edit_of_the_file(tmp_path: Path) -> None:
    """The line of a YAML item is read from the file as it is now (a cache of lines kept the
    first answer after the file changed)."""
    path = tmp_path / "kpt-20260101-001.yaml"
    path.write_text("keep:\n- id: keep-001\n")
    item = SearchRecord(
        "keep", "k/keep-001", str(path), 0, "id: keep-001", "", (), "", "", "", (), ""
    )
    assert resolve_line(item) == 2
    path.write_text("session_summary: added\nkeep:\n- id: keep-001\n")
    assert resolve_line(item) == 3
