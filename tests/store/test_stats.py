"""Statistics and the clustering of recurring problems (Japanese and English)."""

from __future__ import annotations

from pathlib import Path

from store.index.workspace_index import WorkspaceIndex
from store.insight.stats import cluster_texts, workspace_counts, workspace_stats
from store.workspace import Workspace

TEXTS = [
    "package.json を確認せずに新しい依存を追加した",
    "package.json を確認しないまま依存パッケージを追加した",
    "Added a new dependency without checking package.json",
    "Ran pnpm add dayjs without checking package.json first",
    "ログにトークンを出力してしまった",
    "Forgot to run the migrations before the tests",
    "Did not run database migrations before running the test suite",
    "Rate limiter used a non-atomic INCR and EXPIRE",
    "Ｐａｃｋａｇｅ．ｊｓｏｎ を確認せずに新しい依存を追加した",  # full-width: normalised
]


def test_clusters_by_language_and_meaning() -> None:
    groups = cluster_texts(TEXTS)
    assert [0, 1, 8] in groups
    assert [2, 3] in groups
    assert [5, 6] in groups
    assert [4] in groups and [7] in groups


def test_demo_statistics(demo_root: Path) -> None:
    ix = WorkspaceIndex(Workspace(demo_root))
    ix.load_all()
    st = workspace_stats(ix)
    assert sum(sum(w.values()) for w in st["outcomes_per_week"].values()) == 30
    assert st["problem_categories"]["oversight"] >= 1
    assert st["try_items"]["promoted"] == 1
    # a promoted item is approved as well, as on the items line and for status:approved
    counts = workspace_counts(ix).items
    tries = sum(len(s.report.head.tries) for s in ix.sessions.values() if s.report)
    assert sum(n for k, n in st["try_items"].items() if k != "promoted") == tries
    assert list(st["try_items"]) == [k for k in counts if k in st["try_items"]]
    (cluster,) = st["recurring_problems"]
    assert cluster["count"] == 2 and cluster["promoted_items"] == ["kpt-20261110-002/try-001"]
    assert cluster["recurred_after_promotion"] is True
    assert st["evaluation"] and all(1 <= (e["user"] or 1) <= 5 for e in st["evaluation"])


def test_clustering_matches_the_plain_greedy_definition() -> None:
    """The C-accelerated search picks the same leader as comparing with every leader."""
    import random

    from rapidfuzz import fuzz

    from store.insight.stats import SIMILAR, cluster_texts, normalise

    def similarity(a: str, b: str) -> float:
        return max(fuzz.ratio(a, b), fuzz.token_set_ratio(a, b))

    def plain(texts: list[str]) -> list[list[int]]:
        leaders: list[str] = []
        groups: list[list[int]] = []
        for i, t in enumerate(texts):
            n = normalise(t)
            best, best_score = -1, 0.0
            for g, leader in enumerate(leaders):
                score = similarity(n, leader)
                if score > best_score:
                    best, best_score = g, score
            if best >= 0 and best_score >= SIMILAR:
                groups[best].append(i)
            else:
                leaders.append(n)
                groups.append([i])
        return groups

    words = [
        "timeout",
        "retry",
        "cache",
        "jwt",
        "token",
        "失敗",
        "テスト",
        "재시도",
        "the",
        "fails",
    ]
    rnd = random.Random(7)
    for _ in range(300):
        texts = [
            " ".join(rnd.choice(words) for _ in range(rnd.randint(1, 6)))
            for _ in range(rnd.randint(1, 40))
        ]
        assert cluster_texts(texts) == plain(texts), texts
