"""While typing, words are expanded over the index's vocabulary (``store.search.vocab``)
instead of regexes over tantivy's term dictionary: under the cap the answers must be those
of the full, counted query, before and after records are added incrementally."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from store.search.engine import Engine
from store.search.model import SearchRecord
from tests.search_build import build_engine

WORDS = ["rate", "limit", "ratelimiter", "kpt-2026-001", "kpt-2026-002", "jwks.ts", "re",
         "rotate", "token_cache", "migration", "limiter", "ll-ai-20250601", "a:b", "タイム"]  # fmt: skip

texts = st.lists(st.sampled_from(WORDS), min_size=1, max_size=4).map(" ".join)


def record(i: int, text: str) -> SearchRecord:
    return SearchRecord(
        "lesson", f"ll-{i}", f"/ws/l{i % 3}.yaml", i + 1, "", text, ("title", text),
        "2026-01-01", "", "", (), text,
    )  # fmt: skip


def answer(engine: Engine, query: str, count: bool) -> tuple[object, ...]:
    r = engine.search(query, 1000, count=count, spans=False)
    # (not ``counted``: typed, a group's ×N is its size, counted at the pause to be sure)
    return r.total, r.exact, [(h.id, h.tier, h.count) for h in r.hits]


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    first=st.lists(texts, min_size=1, max_size=8),
    later=st.lists(texts, max_size=4),
    word=st.sampled_from(WORDS),
    cut=st.integers(1, 14),
    inner=st.integers(0, 3),
)
def test_typed_answers_are_the_counted_ones_under_the_cap(
    first: list[str], later: list[str], word: str, cut: int, inner: int
) -> None:
    recs = [record(i, t) for i, t in enumerate(first)]
    files: dict[str, tuple[tuple[int, int], list[SearchRecord]]] = {}
    for r in recs:
        files.setdefault(r.path, ((1, 1), []))[1].append(r)
    engine = build_engine(files)
    queries = [word[:cut], word[inner : inner + cut], f"rate {word[:cut]}"]
    for q in queries:
        assert answer(engine, q, False) == answer(engine, q, True), q
    # records added since the index was built: their terms are expanded too
    added = [record(100 + i, t) for i, t in enumerate(later)]
    engine.index.update_files([("/ws/new.yaml", (2, 2), added)])
    for q in queries:
        assert answer(engine, q, False) == answer(engine, q, True), q
