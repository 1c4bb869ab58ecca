"""The workspace index: sessions joined by session_id, review progress, live updates."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from store.index.heads import HeadTable
from store.index.order import SessionFilter, next_unreviewed, ordered
from store.index.workspace_index import WorkspaceIndex
from store.read.kinds import Kind
from store.workspace import Workspace
from tests.ledger_lines import decide


def _index(root: Path) -> WorkspaceIndex:
    ix = WorkspaceIndex(Workspace(root))
    ix.load_all()
    return ix


def test_demo_sessions_join_every_part(demo_root: Path) -> None:
    ix = _index(demo_root)
    s = ix.sessions["sid:9e3c1a7b-6f52-4d8e-b094-3a7e5c2d1f86"]
    assert s.report is not None and s.summary is not None
    assert len(s.lessons) >= 3 and len(s.proposals) == 1
    assert s.project and s.outcome == "partial"
    assert sum(1 for x in ix.sessions.values() if x.report) == 30
    assert any(x.report is None and x.summary is not None for x in ix.sessions.values())


def test_demo_covers_every_review_state(demo_root: Path) -> None:
    ix = _index(demo_root)
    states = {ix.ledger.state(k).state for s in ix.sessions.values() for k in ix.item_keys(s)}
    assert states == {"pending", "approved", "rejected"}
    done = [ix.review_progress(s) for s in ix.sessions.values() if s.report]
    assert any(d == t for d, t in done) and any(0 < d < t for d, t in done)
    assert any(d == 0 for d, t in done)


def test_order_puts_unreviewed_first_then_newest(demo_root: Path) -> None:
    ix = _index(demo_root)
    order = ordered(ix)
    flags = [ix.review_progress(s)[0] < ix.review_progress(s)[1] for s in order]
    assert flags == sorted(flags, reverse=True)
    pending = [s for s, f in zip(order, flags, strict=True) if f]
    assert [s.sort_time for s in pending] == sorted((s.sort_time for s in pending), reverse=True)


def test_filters(demo_root: Path) -> None:
    ix = _index(demo_root)
    failures = ordered(ix, SessionFilter(outcome="failure"))
    assert failures and all(s.outcome == "failure" for s in failures)
    assert all(
        s.outcome.lower() == "partial" for s in ordered(ix, SessionFilter(outcome="partial"))
    )
    from datetime import date

    nov = ordered(ix, SessionFilter(since=date(2026, 11, 10), until=date(2026, 11, 12)))
    assert nov and all(date(2026, 11, 9) <= s.sort_time.date() <= date(2026, 11, 12) for s in nov)
    reviewed = ordered(ix, SessionFilter(review="reviewed"))
    assert reviewed and all(ix.review_progress(s)[0] == ix.review_progress(s)[1] for s in reviewed)


def test_the_unfiltered_list_works_out_no_sessions_project(demo_root: Path) -> None:
    """A session's project (its summary's, else a lesson's) is worked out when a filter
    asks for it; the unfiltered list, at every start, does not (or the project filter)."""
    ix = _index(demo_root)
    assert len(ordered(ix)) == len(ix.sessions)
    some = next(s.project for s in ix.sessions.values() if s.project)
    assert ordered(ix, SessionFilter(project=some))
    assert all(s.project == some for s in ordered(ix, SessionFilter(project=some)))


def test_next_unreviewed_walks_items_then_sessions(demo_root: Path) -> None:
    ix = _index(demo_root)
    order = ordered(ix)
    first = next_unreviewed(ix, order, None, None)
    assert first is not None
    s, key = first
    assert ix.ledger.state(key).state == "pending"
    decide(ix.ledger, ix.item_keys(s), "approve")
    nxt = next_unreviewed(ix, order, s.key, key)
    assert nxt is not None and nxt[0].key != s.key


def test_next_unreviewed_wraps_inside_the_session_before_the_next_one(demo_root: Path) -> None:
    ix = _index(demo_root)
    order = ordered(ix)
    s = next(x for x in order if len(ix.item_keys(x)) >= 3)
    items = ix.item_keys(s)
    decide(ix.ledger, items, "approve")
    decide(ix.ledger, [items[0]], "reopen")  # one pending item above the cursor
    found = next_unreviewed(ix, order, s.key, items[-1])
    assert found is not None and (found[0].key, found[1]) == (s.key, items[0])


def test_update_one_file(demo_root: Path) -> None:
    ix = _index(demo_root)
    n = len(ix.sessions)
    new = demo_root / "hurikaeri" / "kpt-20261121-001.yaml"
    new.write_text(
        "id: kpt-20261121-001\ncreated_at: 2026-11-21T09:00:00+09:00\nsession_id: new-sess\n"
        "session_summary: 새 세션\ntask_goals: [x]\noutcome: success\nkeep: []\nproblem: []\n"
        "try: []\nomission: []\n"
    )
    changed, removed = ix.update([new])
    assert changed == {new} and not removed
    assert len(ix.sessions) == n + 1 and ix.find_report("kpt-20261121-001") is not None
    new.unlink()
    changed, removed = ix.update([new])
    assert removed == {new} and len(ix.sessions) == n


def test_a_file_found_but_not_yet_read_then_removed_is_forgotten(demo_root: Path) -> None:
    """A load stopped after the walk knows each file's kind before it is read (the inbox
    lists proposals from it): a file removed then leaves it, read or not."""

    class Stopped(Exception):
        pass

    def stop(_done: int, _total: int) -> None:
        raise Stopped

    ix = WorkspaceIndex(Workspace(demo_root), use_cache=False)
    with pytest.raises(Stopped):
        ix.load_all(stop, parallel=False)
    proposal = next(p for p, kind in ix.kinds.items() if kind is Kind.PROPOSAL)
    assert proposal not in ix.files
    proposal.unlink()
    assert ix.update([proposal]) == (set(), set())
    assert proposal not in ix.kinds


def test_a_sessions_lessons_are_read_as_references(demo_root: Path) -> None:
    ix = WorkspaceIndex(Workspace(demo_root))
    ix.load_all(parallel=False)
    s = max(ix.sessions.values(), key=lambda s: len(s.lessons))
    assert len(s.lessons) >= 2
    refs = list(s.lessons)
    assert [r.head.id for r in refs] == [s.lessons[i].head.id for i in range(len(s.lessons))]
    assert s.lessons[-1].head == refs[-1].head and s.lessons[1:][0].head == refs[1].head
    assert all(r.doc.id == r.head.id for r in refs)  # the full record behind each
    assert all(s.lessons.holds(str(r.path), r.line) for r in refs)
    assert not s.lessons.holds(str(refs[0].path), -1)
    assert not s.lessons.holds("elsewhere.jsonl", refs[0].line)
    with pytest.raises(IndexError):
        s.lessons[len(s.lessons)]


def test_summary_projects_are_decoded_with_their_sessions_and_heads_when_asked(
    demo_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A summaries file's projects are decoded in passes as its sessions are joined (the
    list shows every session's project) and kept; a summary's head is decoded when asked
    for, not kept: each is the head the table gives for its line."""
    import store.index.heads as heads

    monkeypatch.setattr(heads, "DECODE_BATCH", 2)  # several passes even in the demo
    WorkspaceIndex(Workspace(demo_root)).load_all(parallel=False)  # the cache, then from it
    for use_cache in (False, True):
        ix = WorkspaceIndex(Workspace(demo_root), use_cache=use_cache)
        ix.load_all(parallel=False)
        sessions = [s for s in ix.sessions.values() if s.summary is not None]
        assert len(sessions) > 5
        for s in sessions:
            ref = s.summary
            assert ref is not None and ref.table is not None
            assert ref.head == ref.table[ref.index]
            assert ref.project == ref.head.project
            assert s.project == ref.head.project or not ref.head.project


def test_a_grown_tables_projects_decode_only_the_records_appended(
    demo_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Records appended to a summaries file (the watcher's usual change) have their projects
    decoded alone, not the whole file's again."""
    ix = WorkspaceIndex(Workspace(demo_root), use_cache=False)
    ix.load_all(parallel=False)
    ref = next(s.summary for s in ix.sessions.values() if s.summary is not None)
    table = ref.table
    assert table is not None
    n, blob = len(table), table.blob
    first_line = blob[: blob.index(b"\n") + 1]
    table.extend(HeadTable(first_line, [table.sids[0]], table.kinds[0]))
    assert table.project(n) == table.project(0)


def test_opening_the_index_rolls_back_what_a_killed_process_left(demo_root: Path) -> None:
    """A transaction begun and never ended (its process killed after writing a file) is
    rolled back by the next reading of the workspace; a reading with none open leaves the
    files as they are."""
    from tests.ledger_forge import ours, replace_tx, write_lines

    ws = Workspace(demo_root)
    target = demo_root / "CLAUDE.md"
    old = target.read_bytes()
    new = old + b"- half done\n"
    begin = replace_tx(ws.state_dir, "deadbeef0047", "CLAUDE.md", old, new, sig=None)
    begin["effects"] = [{"op": "approve", "target": "k/t"}]
    write_lines(ws.state_dir / "ledger.jsonl", ours(ws.state_dir, begin))
    target.write_bytes(new)
    _index(demo_root)
    assert target.read_bytes() == old
    target.write_bytes(new)  # written by the person: nothing open, nothing rolled back
    _index(demo_root)
    assert target.read_bytes() == new


def test_a_lesson_appended_with_a_lone_surrogate_id_is_read(demo_root: Path) -> None:
    """JSON lets an agent escape half a surrogate pair: a lesson appended with one in its id
    is read alone like any other, and a command asking for it by id finds nothing else."""
    from store.index.cache import report_path_hint

    ws = Workspace(demo_root)
    ix = WorkspaceIndex(ws, use_cache=False)
    ix.load_all(parallel=False)
    path = demo_root / "lessons" / "ai" / "lessons.jsonl"
    rec = {"id": "ll-ai-20990101-\ud800", "type": "ai_trial_error", "date": "2099-01-01"}
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(json.dumps(rec | {"title": "zap"}) + "\n")
    changed, removed = ix.update([path])
    assert path in changed and not removed
    table = ix.files[path].records
    assert table is not None and "ll-ai-20990101-\ud800" in {h.id for h in table}
    assert report_path_hint(ws, "kpt-\ud800") is None
