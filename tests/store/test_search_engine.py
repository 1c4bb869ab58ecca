"""The search engine on hand-made records: tiers, filters, CJK, groups, updates."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

import pytest

from store.search.engine import FUZZY, PHRASE, PREFIX, SUBSTRING
from store.search.engine import Engine as SearchIndex
from store.search.model import SearchRecord
from store.search.text import highlight_spans
from tests.search_build import build_engine


def rec(
    kind: str,
    rid: str,
    title: str,
    *,
    body: str = "",
    date: str = "2026-01-01",
    project: str = "",
    sid: str = "",
    facets: tuple[str, ...] = (),
    gist: str | None = None,
    path: str | None = None,
    line: int = 1,
) -> SearchRecord:
    fields = ("title", title, "body", body) if body else ("title", title)
    return SearchRecord(
        kind,
        rid,
        path or f"/ws/{kind}/{rid.replace('/', '_')}.yaml",
        line,
        "",
        title,
        fields,
        date,
        project,
        sid,
        facets,
        title if gist is None else gist,
    )


def build(*records: SearchRecord) -> SearchIndex:
    files: dict[str, tuple[tuple[int, int], list[SearchRecord]]] = {}
    for r in records:
        files.setdefault(r.path, ((1, 1), []))[1].append(r)
    return build_engine(files)


def ids(index: SearchIndex, query: str, limit: int = 50, **kw: Any) -> list[str]:
    result = index.search(query, limit, **kw)
    assert result.error is None, result.error
    return [h.id for h in result.hits]


# -- ranking -------------------------------------------------------------------------------


def test_exact_phrase_then_word_prefix_then_inside_a_word_then_fuzzy() -> None:
    index = build(
        rec("lesson", "inside", "nginx ratelimit settings", date="2026-05-01"),
        rec("lesson", "prefix", "rate of the limit", date="2026-04-01"),
        rec("lesson", "limiter", "a rate limiter for redis", date="2026-03-01"),
        rec("lesson", "phrase", "the rate limit middleware", date="2026-01-01"),
        rec("lesson", "none", "nothing to see", date="2026-06-01"),
    )
    result = index.search("rate limit", 10)
    assert [h.id for h in result.hits] == ["phrase", "prefix", "limiter", "inside"]
    assert [h.tier for h in result.hits] == [PHRASE, PREFIX, PREFIX, SUBSTRING]
    assert [h.score for h in result.hits] == sorted((h.score for h in result.hits), reverse=True)
    assert result.total == 4


def test_a_single_word_whole_before_prefix_and_title_before_body() -> None:
    index = build(
        rec("lesson", "body", "unrelated title", body="the migration failed", date="2026-09-01"),
        rec("lesson", "prefix", "migrations are hard", date="2026-08-01"),
        rec("lesson", "title", "write the migration first", date="2026-01-01"),
    )
    assert ids(index, "migration") == ["title", "body", "prefix"]


def test_fuzzy_matches_come_last_and_only_when_few() -> None:
    index = build(
        rec("lesson", "typo", "expand-only migartion notes"),
        rec("lesson", "good", "migration guide"),
        rec("lesson", "other", "unrelated"),
    )
    result = index.search("migration", 10)
    assert [h.id for h in result.hits] == ["good", "typo"]
    assert result.hits[1].tier == FUZZY
    assert result.hits[1].title_spans  # the typo'd word is highlighted
    # a swap of neighbours is one edit: one from "migration", two from "migartion"
    # (allowed in a long word)
    assert ids(index, "mgiration") == ["good", "typo"]
    assert ids(index, "gudie") == ["good"]  # one swap in a short word
    assert ids(index, "gidue") == []  # two edits away in a short word: no match


def test_a_typo_then_a_word_just_begun_lists_the_fuzzy_matches() -> None:
    # typed a key at a time: "s" is checked on the records shown only, and the fuzzy
    # tier, exact as it is, was dropped by that check (one match counted, none listed)
    index = build(
        rec("lesson", "m", "migration script for the orders table"),
        rec("lesson", "x", "unrelated notes"),
    )
    query = "migraton s"
    for n in range(1, len(query) + 1):
        result = index.search(query[:n], 10)
    assert [(h.id, h.tier) for h in result.hits] == [("m", FUZZY)]
    assert result.total == 1


@pytest.mark.parametrize("count", [False, True])
@pytest.mark.parametrize("query", ["migraton s", "migration s"])
def test_records_checked_and_dropped_are_not_counted(query: str, count: bool) -> None:
    """The word just begun is checked on the records walked while typing: when the walk
    reads every candidate and none has a word starting with ``s``, the count says so
    ("about 0", not "about 10 matches · 0 shown"), strict tiers and fuzzy alike; counted
    (after a pause), it is 0."""
    index = build(
        *(rec("lesson", f"only{i}", f"migration only {i}", gist=f"{i}" * 20) for i in range(10)),
        *(rec("lesson", f"other{i}", f"some seed sample {i}") for i in range(200)),
    )
    for n in range(1, len(query) + 1):
        result = index.search(query[:n], 50, count=count)
    assert result.hits == [] and result.total == 0


def test_short_words_do_not_match_inside_words() -> None:
    index = build(rec("lesson", "a", "the database"), rec("lesson", "b", "data flow"))
    assert ids(index, "ta") == []
    assert ids(index, "da") == ["a", "b"] or set(ids(index, "da")) == {"a", "b"}
    assert ids(index, "bas") == ["a"]  # three characters: inside a word counts


def test_empty_query_lists_the_most_recurring_first() -> None:
    index = build(
        rec("lesson", "once", "a fresh lesson", date="2026-12-01"),
        *(
            rec("lesson", f"dup{i}", "Read the manifest first", date=f"2026-0{i + 1}-01")
            for i in range(3)
        ),
    )
    result = index.search("", 10)
    assert [h.id for h in result.hits] == ["dup2", "once"]
    assert result.hits[0].count == 3


@pytest.mark.parametrize("count", [True, False])
def test_hits_alike_in_score_and_rank_are_listed_by_path_whatever_the_order_added(
    count: bool,
) -> None:
    """Records tied on score and static rank come by path, then line: a fresh index and
    one the same records were added to in another order, file by file, list them alike."""
    words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"]
    records = [
        rec("lesson", f"l{i}", f"retry {w} {i}", path=f"/ws/{w}.jsonl", line=1 + i // 8)
        for i, w in enumerate(words * 4)
    ]
    fresh = build(*records)
    for order in (records[::-1], records[1::2] + records[::2]):
        warm = build(*order[:3])
        for r in order[3:]:
            warm.index.update_files([(r.path, (1, 1), [x for x in records if x.path == r.path])])
            warm.index.close_writer()
        for query in ("retry", "retr", "retry al"):
            want = [(h.path, h.line, h.id) for h in fresh.search(query, 10, count=count).hits]
            assert [
                (h.path, h.line, h.id) for h in warm.search(query, 10, count=count).hits
            ] == want
    got = [h.path for h in fresh.search("retry", 4).hits]
    assert got == [f"/ws/{w}.jsonl" for w in words[:4]]


# -- grouping -------------------------------------------------------------------------------


def test_the_same_learning_in_many_sessions_is_one_hit_with_a_count() -> None:
    index = build(
        rec("lesson", "l1", "Read package.json before adding a dependency", date="2026-01-01"),
        rec("lesson", "l2", "read  package.json before adding a dependency.", date="2026-02-01"),
        rec("lesson", "l3", "Read package.json, before adding a dependency!", date="2026-03-01"),
        rec("lesson", "l4", "Read package.json before adding any dependency", date="2026-04-01"),
        rec("try", "kpt-1/try-001", "Read package.json before adding a dependency"),
        rec("lesson", "other", "Dependencies need review"),
    )
    result = index.search("package.json dependency", 10)
    by_id = {h.id: h for h in result.hits}
    assert len(result.hits) == 2
    lesson = by_id["l3"]  # the newest of the biggest group stands for them
    assert lesson.count == 4  # exact after normalising, and one near-identical (ratio ≥ 92)
    assert by_id["kpt-1/try-001"].count == 1  # a try-item is not grouped with lessons
    members = index.group_records(lesson)
    assert {r.id for r in members} == {"l1", "l2", "l3", "l4"}


def test_group_count_counts_only_members_that_match_the_filters() -> None:
    index = build(
        rec("lesson", "a", "Pin the node version", project="c:/work/api"),
        rec("lesson", "b", "Pin the node version", project="/srv/web"),
        rec("lesson", "c", "pin the Node version.", project="c:/work/api"),
    )
    result = index.search("pin node project:api", 10)
    assert [h.count for h in result.hits] == [2]


def test_records_in_no_group_count_one_each() -> None:
    """Records whose gist is empty once normalised are in no group: each is a hit of its
    own, counted once, beside a group counted by its members that match."""
    index = build(
        rec("lesson", "a", "rotate the signing key", gist=""),
        rec("lesson", "b", "rotate the signing key daily", gist="..."),
        rec("lesson", "c", "rotate keys", gist="Rotate keys"),
        rec("lesson", "d", "rotate keys!", gist="rotate keys."),
    )
    result = index.search("rotate", 10)
    assert result.total == 4
    counts = {h.id: h.count for h in result.hits}
    assert counts.pop("a") == counts.pop("b") == 1 and list(counts.values()) == [2]


def test_while_typing_a_groups_count_is_left_for_the_pause() -> None:
    """Typed (``count=False``), the members of a group that match are not counted: the
    result says so (the search screen counts them when the typing pauses), its total is
    exact; counted, the group's ×N is its members that match."""
    index = build(
        rec("lesson", "a", "Pin the node version", project="c:/work/api"),
        rec("lesson", "b", "Pin the node version", project="/srv/web"),
        rec("lesson", "c", "pin the Node version.", project="c:/work/api"),
    )
    typed = index.search("pin node project:api", 10, count=False)
    assert not typed.counted and typed.exact and typed.total == 2
    counted = index.search(typed.query or "", 10)
    assert counted.counted and [h.count for h in counted.hits] == [2]


# -- filters --------------------------------------------------------------------------------


@dataclass
class FakeState:
    state: str
    promoted: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class FakeLedger:
    states: dict[str, FakeState]
    entries: list[Any] = field(default_factory=lambda: [1])


@pytest.fixture
def corpus() -> SearchIndex:
    return build(
        rec(
            "report",
            "kpt-20260105-001",
            "Auth work",
            sid="s1",
            facets=("outcome=failure",),
            date="2026-01-05",
        ),
        rec(
            "problem",
            "kpt-20260105-001/prob-001",
            "token leaked into logs",
            sid="s1",
            facets=("outcome=failure", "category=oversight", "impact=high"),
            date="2026-01-05",
        ),
        rec(
            "try",
            "kpt-20260105-001/try-001",
            "redact the token in logs",
            sid="s1",
            facets=("outcome=failure", "scope=global"),
            date="2026-01-05",
        ),
        rec(
            "try",
            "kpt-20260105-001/try-002",
            "ask before rotating the token",
            sid="s1",
            facets=("outcome=failure", "scope=immediate"),
            date="2026-01-05",
        ),
        rec(
            "lesson",
            "ll-ai-20260105-001",
            "token logging lesson",
            sid="s1",
            project="c:/work/harbor-api",
            facets=("category=auth-security", "tag=jwt", "tag=logging"),
            date="2026-01-05",
        ),
        rec(
            "lesson",
            "ll-ai-20260301-001",
            "token cache lesson",
            sid="s2",
            project="/srv/web",
            facets=("category=performance", "tag=cache"),
            date="2026-03-01",
        ),
        rec(
            "proposal",
            "prop-1",
            "token skill proposal",
            facets=("status=pending",),
            date="2026-02-10",
        ),
        rec(
            "proposal",
            "prop-2",
            "token pattern proposal",
            facets=("status=rejected",),
            date="2026-02-11",
        ),
        rec("skill", "token_skill", "token handling skill", date="2025-12-01"),
    )


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("token kind:lesson", {"ll-ai-20260105-001", "ll-ai-20260301-001"}),
        ("token kind:try", {"kpt-20260105-001/try-001", "kpt-20260105-001/try-002"}),
        (
            "token kind:kpt -kind:report",
            {"kpt-20260105-001/prob-001", "kpt-20260105-001/try-001", "kpt-20260105-001/try-002"},
        ),
        (
            "token project:harbor",  # KPT items know their project through their session
            {
                "ll-ai-20260105-001",
                "kpt-20260105-001/prob-001",
                "kpt-20260105-001/try-001",
                "kpt-20260105-001/try-002",
            },
        ),
        ("token -project:harbor kind:lesson", {"ll-ai-20260301-001"}),
        ("token outcome:failure kind:lesson", {"ll-ai-20260105-001"}),
        ("token scope:global", {"kpt-20260105-001/try-001"}),
        ("token -scope:immediate kind:try", {"kpt-20260105-001/try-001"}),
        ("token category:auth", {"ll-ai-20260105-001"}),
        ("token category:oversight", {"kpt-20260105-001/prob-001"}),
        ("token tag:jwt", {"ll-ai-20260105-001"}),
        ("token -tag:jwt kind:lesson", {"ll-ai-20260301-001"}),
        ("token impact:high", {"kpt-20260105-001/prob-001"}),
        ("token after:2026-02", {"ll-ai-20260301-001", "prop-1", "prop-2"}),
        ("token after:2026-02-11", {"ll-ai-20260301-001", "prop-2"}),
        ("token before:2026-01", {"token_skill"}),
        (
            "token after:2026-01-05 before:2026-01-06 kind:try",
            {"kpt-20260105-001/try-001", "kpt-20260105-001/try-002"},
        ),
        ("kind:proposal status:pending", {"prop-1"}),
        ("kind:proposal -status:pending", {"prop-2"}),
    ],
)
def test_every_filter_and_its_negation(corpus: SearchIndex, query: str, expected: set[str]) -> None:
    assert set(ids(corpus, query)) == expected


def test_status_is_the_review_state_of_kpt_items(corpus: SearchIndex) -> None:
    ledger = FakeLedger(
        {
            "kpt-20260105-001/try-001": FakeState("approved", [{"path": "CLAUDE.md"}]),
            "kpt-20260105-001/prob-001": FakeState("rejected"),
        }
    )
    q = "token kind:kpt status:"
    assert set(ids(corpus, q + "approved", ledger=ledger)) == {"kpt-20260105-001/try-001"}
    assert set(ids(corpus, q + "rejected", ledger=ledger)) == {"kpt-20260105-001/prob-001"}
    assert set(ids(corpus, q + "promoted", ledger=ledger)) == {"kpt-20260105-001/try-001"}
    assert set(ids(corpus, q + "pending", ledger=ledger)) == {"kpt-20260105-001/try-002"}
    assert set(ids(corpus, "status:pending", ledger=lambda: ledger)) == {
        "kpt-20260105-001/try-002",
        "prop-1",
    }


def test_an_unknown_filter_is_an_error_not_an_empty_result(corpus: SearchIndex) -> None:
    result = corpus.search("token colour:red", 10)
    assert result.error is not None and "unknown filter 'colour:'" in result.error.message
    assert result.hits == []


def test_phrases_and_excluded_words(corpus: SearchIndex) -> None:
    assert ids(corpus, '"token leaked"') == ["kpt-20260105-001/prob-001"]
    assert ids(corpus, '"leaked token"') == []
    assert set(ids(corpus, "token -lesson -proposal -skill kind:lesson,skill,proposal")) == set()
    assert set(ids(corpus, "token -logs kind:kpt")) == {"kpt-20260105-001/try-002"}


# -- CJK ----------------------------------------------------------------------------------


@pytest.fixture
def cjk() -> SearchIndex:
    return build(
        rec("lesson", "ja1", "認証ミドルウェアを実装した"),
        rec("lesson", "ja2", "JWT認証の鍵ローテーション"),
        rec("lesson", "ja3", "ＪＷＴの有効期限"),
        rec("lesson", "ko1", "토큰을 갱신한다"),
        rec("lesson", "ko2", "새 토큰 발급"),
        rec("lesson", "en", "Authentication middleware"),
    )


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("認証", {"ja1", "ja2"}),
        ("証ミドル", {"ja1"}),
        ("ミドルウェア", {"ja1"}),
        ("jwt認証", {"ja2"}),
        ("jwt", {"ja2", "ja3"}),  # full-width ＪＷＴ is jwt
        ("ローテ", {"ja2"}),
        ("토큰", {"ko1", "ko2"}),  # a Korean word with its particle: a prefix match
        ("갱신", {"ko1"}),
        ("middle", {"en"}),
        ("認証 鍵", {"ja2"}),
    ],
)
def test_cjk_queries(cjk: SearchIndex, query: str, expected: set[str]) -> None:
    assert set(ids(cjk, query)) == expected


def test_cjk_highlight_spans() -> None:
    assert highlight_spans("JWT認証の鍵", ["認証"]) == [(3, 5)]
    assert highlight_spans("ＪＷＴの有効期限", ["jwt"]) == [(0, 3)]
    assert highlight_spans("Straße und Strasse", ["strasse"]) == [(11, 18)] or highlight_spans(
        "Straße und Strasse", ["strasse"]
    ) == [(0, 6), (11, 18)]


# -- updates ------------------------------------------------------------------------------


def test_narrowing_gives_the_same_answers_as_a_fresh_search(cjk: SearchIndex) -> None:
    index = build(
        *(
            rec("lesson", f"l{i}", t)
            for i, t in enumerate(
                [
                    "rate limit middleware",
                    "rate limiter",
                    "a ratelimit",
                    "rate of the limit",
                    "migration script",
                    "migrations",
                    "migrate the script",
                    "scripted migration",
                ]
            )
        )
    )
    for query in ("rate limit", "migration script", "rate lim -x"):
        for n in range(1, len(query) + 1):
            typed = index.search(query[:n], 50)
            fresh = index.search(query[:n], 50)
            assert [(h.id, h.tier) for h in typed.hits] == [(h.id, h.tier) for h in fresh.hits], (
                query[:n]
            )
            assert typed.total == fresh.total


def test_typing_with_pauses_and_backspaces_counts_as_a_fresh_index() -> None:
    """Random queries typed a key at a time (the count left for later), with pauses
    (counted) and backspaces: every counted answer is a fresh index's."""
    rng = random.Random(7)
    words = [
        "migration", "sample", "seed", "select", "vessel", "tool", "table", "store", "rate",
        "limit", "ratelimit", "iterate", "script", "scripted", "subscribers", "config", "to",
        "so", "see", "set", "tomato", "session", "lesson",
    ]  # fmt: skip
    records = []
    for i in range(1200):
        title = " ".join(rng.choice(words) for _ in range(rng.randint(2, 5)))
        gist = f"g{i}" * 3 if rng.random() < 0.9 else f"group{i % 7}" * 4
        records.append(rec("lesson", f"r{i}", title, gist=gist))
    typed, fresh = build(*records), build(*records)
    for _ in range(120):
        target = " ".join(rng.choice(words)[: rng.randint(1, 9)] for _ in range(rng.randint(1, 3)))
        text = ""
        for ch in target:
            text += ch
            typed.search(text, 50, count=False)
            if rng.random() < 0.15 and len(text) > 2:
                text = text[: -rng.randint(1, 2)]
                typed.search(text, 50, count=False)
            if rng.random() < 0.3:
                got = typed.search(text, 50)
                want = fresh.search(text, 50)
                assert (got.total, got.exact) == (want.total, want.exact), text
                assert [(h.id, h.tier, h.count) for h in got.hits] == [
                    (h.id, h.tier, h.count) for h in want.hits
                ], text


def _punctuated() -> list[SearchRecord]:
    return [
        rec("lesson", "a", "fix (rate limit) bug", gist="a1"),
        rec("lesson", "b", "see issue #12 for rate", gist="b1"),
        rec("lesson", "c", "the rate limit", gist="c1"),
    ]


def _ion_everywhere() -> list[SearchRecord]:
    """``ion`` inside more words than are looked into (MIDWORD_WORDS)."""
    return [
        *(rec("lesson", f"m{i}", f"q{i}ion", gist=f"m{i}g") for i in range(1001)),
        *(rec("lesson", f"p{i}", f"x iona{i} sea", gist=f"p{i}g") for i in range(3)),
        rec("lesson", "mid", "x fusiona sea", gist="midg"),
        *(
            rec("lesson", f"f{i}", f"s{i} so set see sun idle iota", gist=f"f{i}g")
            for i in range(600)
        ),
    ]


def _ate_everywhere() -> list[SearchRecord]:
    return [
        *(rec("lesson", f"u{i}", f"w{i}ate plan", gist=f"u{i}g") for i in range(1001)),
        rec("lesson", "rl", "ratelimit plan", gist="rlg"),
        rec("lesson", "wip", "ratelimit wip", gist="wipg"),
    ]


X_SE_IONA = [("x", False), ("x ", False), ("x s", True)] + [
    ("x se iona"[:n], False) for n in range(4, 10)
]


@pytest.mark.parametrize(
    ("records", "steps"),
    [
        # punctuation alone matches nothing, but a longer query may
        (_punctuated, [("#", False), ("#1", False), ("#1", True)]),
        (_punctuated, [("(", False), ("(r", False), ("(r", True)]),
        (_punctuated, [("-wip - ", True), ("-wip - ra", True)]),
        (_punctuated, [("-wip - ", False), ("-wip - rate limit", True)]),
        (_punctuated, [('"("', False), ('"(" rate', True)]),
        # a word too common to look for inside words, with a word just begun
        (_ion_everywhere, [("ion", False), ("ion ", False), ("ion s", False), ("ion s", True)]),
        (_ion_everywhere, [*X_SE_IONA, ("x se iona", True)]),
        # the same in a query with an exclusion
        (_ate_everywhere, [("-wip a", False), ("-wip at", False), ("-wip ate", False),
                           ("-wip atel", False), ("-wip ateli", True)]),
    ],
)  # fmt: skip
def test_what_was_not_looked_up_is_never_narrowed_from(
    records: Any, steps: list[tuple[str, bool]]
) -> None:
    """A query none of whose words was looked up (punctuation), or one with a word too
    common to look for inside words, keeps nothing for the next query to narrow from:
    the counted answer after typing is a fresh index's."""
    made = records()
    for limit in (3, 50):
        got = None
        typed = build(*made)
        for text, counted in steps:
            got = typed.search(text, limit, count=counted)
        assert got is not None
        fresh = build(*made).search(steps[-1][0], limit)
        assert (got.total, got.exact) == (fresh.total, fresh.exact), (steps[-1], limit)
        assert [(h.id, h.tier, h.count) for h in got.hits] == [
            (h.id, h.tier, h.count) for h in fresh.hits
        ], (steps[-1], limit)


def test_a_review_decision_is_not_narrowed_over() -> None:
    """``status:`` depends on the ledger: after a decision, the next key of the same
    filtered query does not narrow from the records the old ledger allowed."""
    records = [
        rec("problem", f"kpt-2026010{i}-001/prob-001", f"rate limit issue {i}", gist=str(i) * 20)
        for i in range(1, 6)
    ]
    index = build(*records)
    ledger = FakeLedger({})
    assert len(index.search("rate status:pending", 50, ledger=ledger).hits) == 5
    ledger.states["kpt-20260101-001/prob-001"] = FakeState("rejected")
    ledger.entries.append({"decided": True})
    got = index.search("rate l status:pending", 50, ledger=ledger)
    assert sorted(h.id for h in got.hits) == [f"kpt-2026010{i}-001/prob-001" for i in range(2, 6)]


TYPED_WORDS = [
    "migration script", "migrations", "migrate the script", "scripted migration",
    "description of the screen", "subscribers", "rate limit middleware", "a ratelimit",
    "generate the rate", "iterate", "configure", "config files", "reconfigured",
]  # fmt: skip


def test_answers_typed_a_key_at_a_time_are_those_of_a_fresh_index() -> None:
    """What the index keeps from one key to the next (the close words of a typo'd word, the
    records holding a string inside a word) changes no answer, in one query or the next."""
    records = [rec("lesson", f"l{i}", t) for i, t in enumerate(TYPED_WORDS * 3)]
    typed = build(*records)
    queries = [
        "migraton scrpit", "scr migraton", "rate limti", "confgi rate", "iterate scr",
        "rate  limit", "migration s", "rate kind:lesson l", "migr -x rate",
    ]  # fmt: skip
    for query in queries * 2:  # the second time, what was kept is used
        for n in range(1, len(query) + 1):
            got = typed.search(query[:n], 50)
            fresh = build(*records).search(query[:n], 50)
            assert [(h.id, h.tier, h.count) for h in got.hits] == [
                (h.id, h.tier, h.count) for h in fresh.hits
            ], query[:n]
            assert (got.total, got.exact) == (fresh.total, fresh.exact), query[:n]


def test_typed_words_no_term_holds_find_what_a_counted_search_finds() -> None:
    """While typing, a word no term of the index begins or holds (a typo) is not searched
    for by itself: the typo-tolerant tier answers as a counted search does, key by key."""
    index = build(*(rec("lesson", f"l{i}", t) for i, t in enumerate(TYPED_WORDS * 3)))
    for query in ("migraton scrpit", "rate limti", "confgi rate", "qzx rate", "-qzx rate"):
        for n in range(1, len(query) + 1):
            typed = index.search(query[:n], 50, count=False)
            counted = index.search(query[:n], 50)
            assert [(h.id, h.tier) for h in typed.hits] == [(h.id, h.tier) for h in counted.hits], (
                query[:n]
            )
            assert typed.total == counted.total, query[:n]


def test_a_typed_word_gathers_them_when_the_list_is_not_full() -> None:
    """When the records holding the word at a word start do not fill the list (here: they
    are all one group), the ones holding it inside words are gathered after all: the
    hits are a full search's."""
    records = [
        *(rec("lesson", f"g{i}", "rate limit note", gist="g" * 20) for i in range(60)),
        *(rec("lesson", f"i{i}", f"generate lint report{i}", gist=f"i{i}" * 5) for i in range(30)),
    ]
    typed = build(*records).search("rate", 50, count=False)
    full = build(*records).search("rate", 50)
    assert len(typed.hits) == len(full.hits) == 31
    assert [(h.id, h.tier) for h in typed.hits] == [(h.id, h.tier) for h in full.hits]
    assert any(h.tier == SUBSTRING for h in typed.hits)


def test_a_next_word_narrows_from_a_typed_word_as_from_a_counted_one() -> None:
    """The next word narrows from every record holding the typed word, those inside words
    included (gathered then): ``rate li`` finds ``generate lint`` as a fresh index does."""
    index = build(*_rate_records())
    fresh = build(*_rate_records())
    for query in ("r", "ra", "rat", "rate", "rate ", "rate l", "rate li", "rate lin"):
        typed = index.search(query, 50, count=False)
    counted = index.search("rate lin", 50)
    want = fresh.search("rate lin", 50)
    assert counted.total == want.total == 30
    assert [(h.id, h.tier, h.count) for h in counted.hits] == [
        (h.id, h.tier, h.count) for h in want.hits
    ]
    assert {h.id for h in typed.hits} == {h.id for h in want.hits}


def _rate_records() -> list[SearchRecord]:
    """60 records with ``rate`` at a word start, 30 with it only inside a word."""
    return [
        *(rec("lesson", f"p{i}", f"rate limit note{i}", gist=f"p{i}" * 5) for i in range(60)),
        *(rec("lesson", f"i{i}", f"generate lint report{i}", gist=f"i{i}" * 5) for i in range(30)),
    ]


def test_a_quoted_phrase_holds_as_written_and_its_last_word_may_go_on() -> None:
    """``"rate limit"`` is found in "rate limiter" as the text's substring would be (the
    10k workspace only says "rate limiter": a phrase of whole words found nothing)."""
    index = build(
        rec("lesson", "a", "the rate limiter middleware"),
        rec("lesson", "b", "rate of limit"),
        rec("lesson", "c", "rate limit x"),
    )
    assert sorted(ids(index, '"rate limit"')) == ["a", "c"]
    assert ids(index, '-"rate limit" rate') == ["b"]


def test_wordings_a_character_apart_are_one_hit_counted_twice_on_a_full_page() -> None:
    index = build(
        rec("lesson", "a1", "Retry the flaky upload with a backoff", path="/ws/a.yaml"),
        rec("lesson", "a2", "Retry the flaky upload with a backof", path="/ws/b.yaml"),
        rec("lesson", "b", "Upload the build artefacts once", path="/ws/c.yaml"),
        rec("lesson", "c", "Check the upload size before sending", path="/ws/d.yaml"),
    )
    for count in (True, False):
        hits = index.search("upload", 3, count=count).hits
        assert sorted(h.count for h in hits) == [1, 1, 2], count


class _CountingSearcher:
    """A searcher that counts the stored records read (``doc``)."""

    def __init__(self, searcher: Any, reads: list[int]) -> None:
        self._searcher, self._reads = searcher, reads

    def doc(self, addr: Any) -> Any:
        self._reads.append(1)
        return self._searcher.doc(addr)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._searcher, name)


def test_a_typed_letter_matching_more_than_a_page_reads_only_the_records_it_lists() -> None:
    """A letter typed over many records alike in rank (one kind, day and line) lists them
    without reading each tied record to order them by place: the count at the pause
    orders them, and the typed hits are as many as asked, of the first tier."""
    records = [rec("lesson", f"l{i}", f"widget note {i}", gist=f"g{i}" * 4) for i in range(3400)]
    index = build(*records)
    reads: list[int] = []
    searcher = index.index.searcher
    index.index.searcher = lambda: _CountingSearcher(searcher(), reads)  # type: ignore[method-assign]
    typed = index.search("w", 50, count=False)
    assert len(typed.hits) == 50 and {h.tier for h in typed.hits} == {PREFIX}
    assert len(reads) <= 2 * 50
    counted = index.search("w", 50)
    assert counted.total == 3400 and len(counted.hits) == 50


def test_a_record_date_is_read_as_a_query_date_is() -> None:
    """A record dated by month is that month's first day, as ``after:2026-03`` is; a date
    with no such month is no date (it was day 20261340, found after 2026-12)."""
    engine = build_engine(
        {
            "/ws/a.jsonl": ((1, 1), [rec("lesson", "by-month", "cache drift", date="2026-03")]),
            "/ws/b.jsonl": ((1, 1), [rec("lesson", "no-month", "cache drift", date="2026-13-40")]),
        }
    )
    assert [h.id for h in engine.search("cache after:2026-03", 10).hits] == ["by-month"]
    assert [h.id for h in engine.search("cache after:2026-12", 10).hits] == []
