"""The tantivy index on disk: updates answer as a fresh build does, a killed writer leaves the
last commit, a second process waits for the writer, the old cache files go."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import tantivy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from store.search.engine import Engine
from store.search.facade import open_index, sync_workspace
from store.search.index import (
    DIR_NAME,
    SCHEMA_OBJ,
    SearchIndex,
    open_workspace_index,
    pack_record,
    unpack_record,
)
from store.search.model import SearchRecord
from store.search.scan import scan_workspace
from store.workspace import Workspace
from tests.conftest import REPO
from tests.search_build import build_engine

WORDS = ["rate", "limit", "ratelimiter", "token", "rotation", "jwt", "認証", "실데이터", "kpt-2026"]
QUERIES = [
    "rate",
    "limit",
    "lim",
    "rotaton",
    "認",
    "認証",
    "데이터",
    "kpt-20",
    "-rate token",
    '"rate limit"',
]


def record(path: str, n: int, words: list[str], day: int) -> SearchRecord:
    title = " ".join(words)
    return SearchRecord(
        "lesson", f"l-{Path(path).stem}-{n}", path, n + 1, "", title, ("title", title),
        f"2026-01-{day:02}", "", "", (), title,
    )  # fmt: skip


files_st = st.dictionaries(
    st.sampled_from([f"/ws/f{i}.jsonl" for i in range(5)]),
    st.lists(
        st.tuples(st.lists(st.sampled_from(WORDS), min_size=1, max_size=4), st.integers(1, 28)),
        max_size=4,
    ),
    max_size=5,
)


def answers(engine: Engine) -> dict[str, tuple[int, list[tuple[int, int, str]]]]:
    """Per query: the count, and each hit's tier, group count and text (records of equal
    rank, the same text and day, come in either order: sorted)."""
    out = {}
    for q in QUERIES:
        r = engine.search(q, 50)
        out[q] = (r.total, sorted((h.tier, h.count, h.title) for h in r.hits))
    return out


def as_records(files: dict[str, list[tuple[list[str], int]]]) -> dict[str, list[SearchRecord]]:
    return {p: [record(p, n, w, d) for n, (w, d) in enumerate(rows)] for p, rows in files.items()}


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(first=files_st, steps=st.lists(files_st, min_size=1, max_size=3))
def test_updates_answer_key_by_key_as_a_fresh_index(first, steps) -> None:  # type: ignore[no-untyped-def]
    index = SearchIndex.open(None)
    index.rebuild({}, ((p, (1, 1), recs) for p, recs in as_records(first).items()))
    now = as_records(first)
    for step in steps:
        # each step changes some files (empty list: the file is gone) and keeps the rest
        changes = [
            (p, (2, 2), recs) if recs else (p, None, None) for p, recs in as_records(step).items()
        ]
        index.update_files(changes)
        for p, stamp, recs in changes:
            if stamp is None:
                now.pop(p, None)
            else:
                now[p] = recs or []
        fresh = build_engine({p: ((1, 1), recs) for p, recs in now.items()})
        assert answers(Engine(index)) == answers(fresh)
        assert set(index.stamps) == set(now)


def write_ws(root: Path, n: int) -> Workspace:
    lessons = root / "lessons" / "user"
    lessons.mkdir(parents=True, exist_ok=True)
    rows = [
        f'{{"id": "ll-user-20260101-{i:03}", "date": "2026-01-01", "category": "debugging", '
        f'"scope": "immediate", "learning": "rotate the jwt key {i}", "context": "c{i}"}}'
        for i in range(n)
    ]
    (lessons / "lessons.jsonl").write_text("\n".join(rows) + "\n", encoding="utf-8")
    return Workspace(root)


text_st = st.text(st.sampled_from(["a", " ", "\n", "\x1f", "[", "認", "\udcff", "-"]), max_size=6)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(text_st, max_size=6).map(
        lambda v: tuple(x for k, t in enumerate(v) for x in (f"l{k}", t))
    ),
    st.tuples(
        text_st,
        text_st,
        text_st,
        text_st | st.uuids().map(str) | st.uuids().map(lambda u: str(u).upper()),
    ),
    st.lists(text_st, max_size=3),
    st.integers(0, 3),
)
def test_a_stored_record_reads_back_the_same(fields, strings, facets, which) -> None:  # type: ignore[no-untyped-def]
    """Agent text holding the separator, brackets, CJK or lone surrogates; a title or gist
    that is a field's first line, a field, the first two, or text of its own; a session id
    that is a UUID (kept as its bytes), or one in capitals."""
    values = fields[1::2]
    own, anchor, date, sid = strings
    title = [own, *(v.split("\n")[0] for v in values)][min(which, len(values))]
    gist = [own, "\n".join(values[:2]), *values][min(which, len(values) + 1)]
    rec = SearchRecord("lesson", own, "/ws/a b.jsonl", which, anchor, title, fields, date,
                       own, sid, tuple(facets), gist)  # fmt: skip
    assert unpack_record(pack_record(rec)) == rec


def test_old_cache_files_are_removed_on_first_open(tmp_path: Path) -> None:
    ws = write_ws(tmp_path, 3)
    ws.state_dir.mkdir(parents=True, exist_ok=True)
    for name in ("search-cache-v3.bin", "search-cache-v3.json", "search-cache-v2.bin"):
        (ws.state_dir / name).write_bytes(b"HURIKAERI-SEARCH old")
    kept = ["search-cache-v3.txt", "search-v", "search-vx", "search-v\u0663"]  # (not ASCII)
    for name in kept:
        (ws.state_dir / name).write_bytes(b"other")
    engine, stats = open_index(ws)
    assert stats["rebuilt"] == 1 and engine.search("jwt", 10).total == 3
    found = sorted(p.name for p in ws.state_dir.iterdir() if "search" in p.name)
    assert found == sorted([DIR_NAME, *kept])


def test_a_file_given_in_parts_ranks_as_given_whole() -> None:
    """A big file's parts come as the workers finish them, between other files' records:
    records of one rank still come a file at a time, each file's in its order."""
    a = [record("/ws/a.jsonl", n, ["limit"], 1)._replace(gist="") for n in range(4)]
    b = [record("/ws/b.jsonl", n, ["limit"], 1)._replace(gist="") for n in range(4)]
    whole, parts = SearchIndex.open(None), SearchIndex.open(None)
    whole.rebuild({}, [("/ws/a.jsonl", (1, 1), a), ("/ws/b.jsonl", (1, 1), b)])
    files = [("/ws/a.jsonl", a[:2]), ("/ws/b.jsonl", b), ("/ws/a.jsonl", a[2:])]
    parts.rebuild({}, [(p, (1, 1), recs) for p, recs in files])
    ids = [[h.id for h in Engine(i).search("limit", 10).hits] for i in (whole, parts)]
    assert ids[0] == ids[1] and len(ids[0]) == 8


def test_a_file_named_in_bytes_not_utf8_is_updated_alone() -> None:
    """A name not UTF-8 (``os.fsdecode`` gives lone surrogates) is its own ``path`` term: a
    change to it replaces its records, not those of one whose name differs only there."""
    a, b = os.fsdecode(b"/ws/caf\xe9.jsonl"), os.fsdecode(b"/ws/caf\xe8.jsonl")
    index = SearchIndex.open(None)
    index.rebuild({}, [(a, (1, 1), [record(a, 0, ["rate"], 1)])])
    index.update_files([(b, (1, 1), [record(b, 0, ["token"], 1)])])
    index.update_files([(a, (2, 2), [record(a, 0, ["limit"], 1)])])
    engine = Engine(index)
    assert [engine.search(q, 10).total for q in ("rate", "limit", "token")] == [0, 1, 1]


@pytest.mark.parametrize(
    "name", ["search-v2", "search-v3", "search-v4", "search-v5", "search-v6", "search-v7"]
)
def test_an_index_of_the_schema_before_is_removed_and_built_again(
    tmp_path: Path, name: str
) -> None:
    """search-v2 ranked a record's line in 16 bits (later lines tied, in the order the
    build read them), search-v3 hashed groups and sessions in 63 bits and indexed session
    ids as text, search-v4 stored records as JSON, search-v5 split words with tantivy's
    regex tokenizer, search-v6 indexed a compound's one-word tail, search-v7 named the
    workspace by a SHA-256 and had no digest of its files: their index is not read, and goes."""
    ws = write_ws(tmp_path, 3)
    old = ws.state_dir / name
    old.mkdir(parents=True)
    (old / "meta.json").write_text("{}", encoding="utf-8")
    engine, stats = open_index(ws)
    assert stats["rebuilt"] == 1 and engine.search("jwt", 10).total == 3
    assert not old.exists()


def test_a_changed_workspace_identity_rebuilds(tmp_path: Path) -> None:
    ws = write_ws(tmp_path / "a", 2)
    open_index(ws)
    moved = tmp_path / "b"
    (tmp_path / "a").rename(moved)
    engine, stats = open_index(Workspace(moved))
    assert stats["rebuilt"] == 1
    assert {h.path for h in engine.search("jwt", 10).hits} == {
        str(moved / "lessons" / "user" / "lessons.jsonl")
    }


def test_a_file_changed_between_two_opens_is_read_again(tmp_path: Path) -> None:
    """The second open re-reads only the changed file, its records as the workers pack them."""
    ws = write_ws(tmp_path, 2)
    assert open_index(ws)[0].search("jwt", 10).total == 2
    write_ws(tmp_path, 3)
    engine, stats = open_index(ws)
    assert (stats["rebuilt"], stats["parsed"]) == (0, 1)
    assert engine.search("jwt", 10).total == 3


@pytest.mark.parametrize("change", ["same size", "removed", "added"])
def test_each_change_of_a_file_is_found_at_the_next_open(tmp_path: Path, change: str) -> None:
    """A file's identity is its size and mtime (docs/search.md): one rewritten in place to the
    same size, one removed, one added are each read (or dropped) at the next open, and an
    open after that finds the index in step."""
    ws = write_ws(tmp_path, 2)
    other = tmp_path / "lessons" / "ai" / "lessons.jsonl"
    if change != "added":
        write_ws(tmp_path / "copy", 2)
        other.parent.mkdir(parents=True)
        other.write_bytes((tmp_path / "copy/lessons/user/lessons.jsonl").read_bytes())
    assert open_index(ws)[0].search("jwt", 10).total == (4 if change != "added" else 2)
    st = other.stat() if other.exists() else None
    if change == "same size":
        other.write_bytes(other.read_bytes().replace(b"rotate the jwt", b"rotate the JWS"))
        assert st is not None and other.stat().st_size == st.st_size
        os.utime(other, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))
    elif change == "removed":
        other.unlink()
    else:
        write_ws(tmp_path / "copy", 3)
        other.parent.mkdir(parents=True)
        other.write_bytes((tmp_path / "copy/lessons/user/lessons.jsonl").read_bytes())
    engine, stats = open_index(ws)
    assert (stats["rebuilt"], stats["parsed"], stats["removed"]) == (
        0,
        int(change != "removed"),
        int(change == "removed"),
    )
    assert engine.search("jwt", 10).total == (5 if change == "added" else 2)
    again, stats = open_index(ws)
    assert (stats["parsed"], stats["removed"]) == (0, 0)
    assert again.search("jwt", 10).total == (5 if change == "added" else 2)


def test_an_index_the_watcher_wrote_is_in_step_at_the_next_open(tmp_path: Path) -> None:
    """The watcher's changes (applied file by file, without a scan) are the index's: the
    next open reads nothing again, and finds a later change."""
    ws = write_ws(tmp_path, 2)
    engine, _stats = open_index(ws)
    added = tmp_path / "lessons" / "ai" / "lessons.jsonl"
    added.parent.mkdir(parents=True)
    added.write_bytes((tmp_path / "lessons/user/lessons.jsonl").read_bytes())
    st = added.stat()
    recs = engine.index.records_where(tantivy.Query.term_query(SCHEMA_OBJ, "kind", "lesson"))
    moved = [r._replace(path=str(added), id=f"{r.id}-ai") for r in recs]
    engine.index.update_files([(str(added), (st.st_size, st.st_mtime_ns), moved)])
    engine.index.close_writer()
    for total in (4, 5):
        engine, stats = open_index(ws)
        assert (stats["rebuilt"], stats["parsed"], stats["removed"]) == (0, total - 4, 0)
        assert engine.search("jwt", 10).total == total
        write_ws(tmp_path, 3)


def test_the_app_rereads_the_files_the_watcher_names(tmp_path: Path) -> None:
    """``WorkspaceSearch.sync``: a changed file is read again, a deleted one dropped, others
    left as they are; the next open finds the index in step."""
    from store.index.workspace_index import WorkspaceIndex
    from store.search.facade import WorkspaceSearch

    ws = write_ws(tmp_path, 2)
    other = tmp_path / "discussions" / "note.md"
    other.parent.mkdir()
    other.write_text("# ghostword\n\nghostword here\n", encoding="utf-8")
    wi = WorkspaceIndex(ws)
    wi.load_all()
    search = WorkspaceSearch(wi)
    search.ensure()
    lessons = tmp_path / "lessons/user/lessons.jsonl"
    write_ws(tmp_path, 3)
    other.unlink()
    wi.update([lessons, other])
    search.sync([lessons, other])
    assert search.search("jwt", 10).total == 3
    assert search.search("ghostword", 10).total == 0
    _engine, stats = open_index(ws)
    assert (stats["rebuilt"], stats["parsed"], stats["removed"]) == (0, 0, 0)


def test_a_search_from_an_older_view_never_writes_over_a_newer_manifest(tmp_path: Path) -> None:
    """Two processes: A opens the index (its manifest in another order than A's scan, as
    after the watcher's writes); B adds a file and commits; A, finding its files unchanged,
    writes the manifest in its scan's order. B's file stays in the manifest, so once it is
    deleted the next open removes it (before, A's older manifest hid it for good)."""
    ws = write_ws(tmp_path, 2)
    (tmp_path / "lessons" / "ai").mkdir()
    (tmp_path / "lessons/ai/lessons.jsonl").write_bytes(
        (tmp_path / "lessons/user/lessons.jsonl").read_bytes()
    )
    open_index(ws)
    reorder = open_workspace_index(ws)
    reorder.write_manifest(list(reversed(list(reorder.stamps))))
    reorder.close_writer()
    files_a = scan_workspace(ws)
    a = open_workspace_index(ws)
    ghost = tmp_path / "discussions" / "ghost.md"
    ghost.parent.mkdir()
    ghost.write_text("# ghostword\n\nghostword here\n", encoding="utf-8")
    b = open_workspace_index(ws)
    assert sync_workspace(b, ws, scan_workspace(ws))["parsed"] == 1
    b.close_writer()
    sync_workspace(a, ws, files_a)
    a.close_writer()
    ghost.unlink()
    engine, stats = open_index(ws)
    assert stats["removed"] == 1
    assert engine.search("ghostword", 10).total == 0


KILLED = """
import os, sys
from pathlib import Path
from store.search.index import SearchIndex, doc_fields, make_doc
from store.search.model import SearchRecord
index = SearchIndex.open(Path(sys.argv[1]))
def rec(i):
    t = f"second rotation {i}"
    return SearchRecord("lesson", f"n{i}", "/ws/new.jsonl", i, "", t, ("t", t), "2026-01-01",
                        "", "", (), t)
w = index.writer()
for i in range(200_000):
    w.add_document(make_doc(doc_fields(rec(i), 0), 1))
    if i == 150_000:
        print("committing", flush=True)
        index.update_files([("/ws/new.jsonl", (9, 9), [rec(i) for i in range(50_000)])])
"""


def test_a_writer_killed_mid_commit_leaves_the_old_or_the_new_index(tmp_path: Path) -> None:
    where = tmp_path / "idx"
    index = SearchIndex.open(where)
    t = "first rotation"
    old = SearchRecord("lesson", "o", "/ws/old.jsonl", 1, "", t, ("t", t), "", "", "", (), t)
    index.rebuild({"schema": 1}, [("/ws/old.jsonl", (1, 1), [old])])
    index.close_writer()
    del index
    proc = subprocess.Popen(
        [sys.executable, "-c", KILLED, str(where)], cwd=REPO, stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == "committing"
    os.kill(proc.pid, signal.SIGKILL)  # while the commit writes its segment
    proc.wait()
    reopened = Engine(SearchIndex.open(where))
    got = reopened.search("rotation", 5)
    # either the first commit alone (the kill came first) or with the second one whole
    assert got.total in (1, 50_001)
    assert reopened.index.ident == {"schema": 1}
    assert set(reopened.index.stamps) in ({"/ws/old.jsonl"}, {"/ws/old.jsonl", "/ws/new.jsonl"})


HOLDER = """
import sys, time
from pathlib import Path
from store.search.index import SearchIndex
index = SearchIndex.open(Path(sys.argv[1]))
index.writer()
print("holding", flush=True)
sys.stdin.readline()
"""


def test_a_second_process_waits_for_the_writer_then_reads(tmp_path: Path) -> None:
    ws = write_ws(tmp_path, 4)
    open_index(ws)  # built: the holder only holds the writer
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(ws.state_dir / DIR_NAME)],
        cwd=REPO,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout is not None and holder.stdin is not None
    try:
        assert holder.stdout.readline().strip() == "holding"
        write_ws(tmp_path, 6)  # two lessons more, while another process holds the writer
        import store.search.index as search_index

        search_index_wait = search_index.WRITER_WAIT
        search_index.WRITER_WAIT = 0.5
        try:
            engine, stats = open_index(ws)
        finally:
            search_index.WRITER_WAIT = search_index_wait
        assert stats.get("busy") == 1
        assert engine.search("jwt", 10).total == 4  # it read what is committed
    finally:
        holder.stdin.write("\n")
        holder.stdin.flush()
        holder.wait()
    engine, stats = open_index(ws)  # the writer is free: the changes are read in
    assert stats["parsed"] == 1 and engine.search("jwt", 10).total == 6


def test_a_sessions_project_follows_an_update_of_its_records() -> None:
    """A hit's project comes from its session's records (a KPT report names none): asked
    before and after a commit that changes that session's records, the answer follows."""
    index = SearchIndex.open(None)
    one = record("/ws/a.jsonl", 0, ["limit"], 1)._replace(project="api", session_id="s1")
    index.rebuild({}, [("/ws/a.jsonl", (1, 1), [one])])
    assert index.project("s1") == "api"
    index.update_files([("/ws/a.jsonl", (2, 2), [one._replace(project="etl")])])
    assert index.project("s1") == "etl"
    index.update_files([("/ws/a.jsonl", None, None)])
    assert index.project("s1") == ""


def test_bigger_groups_first_whatever_the_segment_they_were_added_in() -> None:
    """Each update is its own tantivy segment, and tantivy breaks a tie of scores by
    segment (the one of most documents first): within a tier, the groups still come
    biggest first."""
    index = SearchIndex.open(None)
    sizes = {"alpha": 2, "beta": 4, "gamma": 3, "delta": 5, "eps": 1, "zeta": 6}
    for k, (word, n) in enumerate(sizes.items()):
        path = f"/ws/{word}.jsonl"
        recs = [record(path, i, ["limit", word], 1)._replace(gist=word) for i in range(n)]
        # the bigger a file's group, the fewer its records (its segment comes later)
        recs += [record(path, n + i, ["other"], 1)._replace(gist="") for i in range(20 - 3 * n)]
        if k == 0:
            index.rebuild({}, [(path, (1, 1), recs)])
        else:
            index.update_files([(path, (1, 1), recs)])
    engine = Engine(index)
    assert [h.count for h in engine.search("limit", 10).hits] == [6, 5, 4, 3, 2, 1]
    assert [h.count for h in engine.search("", 10).hits][:5] == [6, 5, 4, 3, 2]


def test_a_record_with_lone_surrogates_is_indexed_and_found() -> None:
    """JSON lets an agent write ``"\\ud800"``: such a record is indexed (its text with U+FFFD
    in their place), found, and read back as written; the other records stay searchable."""
    title = "rate \ud800 limit"
    odd = record("/ws/a.jsonl", 0, ["limit"], 1)._replace(
        id="l-\ud800", title=title, fields=("title", title, "note", "認証\udcff"),
        session_id="s\udc80", project="p\ud83d",
    )  # fmt: skip
    index = SearchIndex.open(None)
    index.rebuild({}, [("/ws/a.jsonl", (1, 1), [odd, record("/ws/a.jsonl", 1, ["rate"], 2)])])
    engine = Engine(index)
    assert [h.id for h in engine.search("limit", 10).hits] == [odd.id]
    assert len(engine.search("rate", 10).hits) == 2 and engine.search("認証", 10).total == 1
    assert index.project("s\udc80") == "p\ud83d"
    assert index.records_where(tantivy.Query.term_query(SCHEMA_OBJ, "id", "l-\ufffd")) == [odd]


def test_a_word_too_long_to_index_is_found_by_its_head_and_cjk_by_any_character() -> None:
    """A word of more bytes than a token may hold is indexed by its first characters (the
    query's word is cut alike); each CJK character and string of a text is found, not the
    string across two runs."""
    long = "x" * 2000
    index = SearchIndex.open(None)
    index.rebuild(
        {}, [("/ws/a.jsonl", (1, 1), [record("/ws/a.jsonl", 0, [long, "認証トークン。設定"], 1)])]
    )
    engine = Engine(index)
    got = [engine.search(q, 10).total for q in (long, "x" * 300, "認", "ン", "証トー", "ン設")]
    assert got == [1, 1, 1, 1, 1, 0]


def test_a_decision_made_a_moment_ago_is_in_the_next_state_search(demo_root: Path) -> None:
    """The app's handle answers a state filter with the ledger as it is now (#43)."""
    from store.index.workspace_index import WorkspaceIndex
    from store.review.items import decide_keys
    from store.search.facade import WorkspaceSearch

    wi = WorkspaceIndex(Workspace(demo_root), use_cache=False)
    wi.load_all()
    search = WorkspaceSearch(wi)
    search.ensure()
    before = search.search("state:approved", 50, count=True).total
    pending = search.search("state:pending kind:keep", 50, count=True).hits[0]
    decide_keys(wi.ws, [pending.id], "approve", ledger=wi.ledger)
    assert search.search("state:approved", 50, count=True).total == before + 1
