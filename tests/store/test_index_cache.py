"""The index cache: used when it can be trusted, rebuilt when it cannot, never wrong.

Every test compares what a start from the cache yields with a start that parses everything
(``use_cache=False``): the cache may only make things faster.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import store.index.cache as index_cache
from store.index.entries import entry_of_file
from store.index.heads import LessonHead
from store.index.workspace_index import WorkspaceIndex, _path
from store.read.kinds import Kind
from store.workspace import Workspace


def _load(root: Path, *, use_cache: bool = True) -> WorkspaceIndex:
    ix = WorkspaceIndex(Workspace(root), use_cache=use_cache)
    ix.load_all(parallel=False)
    return ix


def _view(ix: WorkspaceIndex) -> dict[str, object]:
    """Everything the lists and checks show of an index, in comparable form."""
    return {
        "files": {
            str(p): (
                f.kind,
                f.stamp,
                f.head,
                f.records,
                f.doc,
                [d.format() for d in f.diagnostics],
                f.unfinished_line,
            )
            for p, f in sorted(ix.files.items())
        },
        "sessions": {
            k: (
                s.report_id,
                s.title,
                s.when,
                s.project,
                s.outcome,
                s.counts(),
                ix.item_keys(s),
                s.summary.head if s.summary else None,
                [les.head for les in s.lessons],
                [p.doc for p in s.proposals],
            )
            for k, s in sorted(ix.sessions.items())
        },
    }


def _same_as_fresh(root: Path) -> WorkspaceIndex:
    cached = _load(root)
    assert _view(cached) == _view(_load(root, use_cache=False))
    return cached


def _rewrite(
    path: Path, change: Callable[[str, str | None, Any, bytes], tuple[Any, bytes]]
) -> None:
    """Rewrite the cache with ``change(path, kind, entry, blob)`` giving each file's entry
    and blob, and checksums that match (anyone can compute them; lessons apart)."""
    head, _, rest = path.read_bytes().partition(b"\n")
    parts, pos = [b"", b""], 0
    while pos < len(rest):
        nl = rest.index(b"\n", pos)
        key, _, entry = rest[pos:nl].partition(b"\t")
        name, kind, size = json.loads(key)
        e, blob = change(name, kind, json.loads(entry), rest[nl + 1 : nl + 1 + size])
        enc = json.dumps(e, ensure_ascii=False, separators=(",", ":")).encode()
        parts[kind == "lessons"] += json.dumps([name, kind, len(blob)]).encode()
        parts[kind == "lessons"] += b"\t" + enc + b"\n" + blob
        pos = nl + 1 + size
    header = json.loads(head)
    header["sha256"] = [hashlib.sha256(part).hexdigest() for part in parts]
    header["later"] = len(parts[0])
    path.write_bytes(json.dumps(header).encode() + b"\n" + b"".join(parts))


def _a_report(root: Path) -> Path:
    return sorted((root / "hurikaeri").glob("kpt-*.yaml"))[0]


def test_second_start_reads_nothing_and_matches_a_fresh_parse(demo_root: Path) -> None:
    first = _load(demo_root)
    assert first.stats["parsed"] == first.stats["files"] > 50
    assert index_cache.cache_path(first.ws).is_file()
    # files older than the cache's coarseness margin are trusted on identity alone
    old = 1_600_000_000
    for p in first.files:
        os.utime(p, (old, old))
    _load(demo_root)
    second = _same_as_fresh(demo_root)
    assert second.stats["parsed"] == 0 and second.stats["cached"] == second.stats["files"]


def test_a_changed_file_is_parsed_again(demo_root: Path) -> None:
    _load(demo_root)
    report = _a_report(demo_root)
    text = report.read_text(encoding="utf-8")
    report.write_text(text.replace("outcome:", "outcome: failure\nx_old_outcome:", 1), "utf-8")
    ix = _same_as_fresh(demo_root)
    assert ix.stats["parsed"] == 1
    assert any(s.outcome == "failure" for s in ix.sessions.values() if s.report)


def test_a_deleted_file_leaves_the_index(demo_root: Path) -> None:
    first = _load(demo_root)
    report = _a_report(demo_root)
    rid = next(f.head.id for p, f in first.files.items() if p == report and f.head)
    report.unlink()
    ix = _same_as_fresh(demo_root)
    assert ix.stats["removed"] == 1 and report not in ix.files
    assert rid not in ix.by_report


def test_a_file_replaced_with_the_same_size_and_mtime_is_noticed(demo_root: Path) -> None:
    _load(demo_root)
    report = _a_report(demo_root)
    st = report.stat()
    data = report.read_bytes()
    i = data.index(b"session_summary:") + len(b"session_summary: ")
    swapped = data[:i] + bytes([data[i] ^ 0x01]) + data[i + 1 :]  # one letter, same size
    assert len(swapped) == len(data) and swapped != data
    report.write_bytes(swapped)
    os.utime(report, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert report.stat().st_size == st.st_size and report.stat().st_mtime_ns == st.st_mtime_ns
    ix = _same_as_fresh(demo_root)
    assert ix.stats["parsed"] == 1


def test_a_copied_workspace_checks_by_hash_and_keeps_what_is_unchanged(
    demo_root: Path, tmp_path: Path
) -> None:
    _load(demo_root)
    copy = tmp_path / "copy"
    shutil.copytree(demo_root, copy)  # same sizes and mtimes; new inodes and ctimes
    index_cache.clear(Workspace(copy))
    shutil.copy2(index_cache.cache_path(Workspace(demo_root)), copy / ".hurikaeri")
    # the cache names the old root: another workspace's cache is not used
    ix = _load(copy)
    assert ix.stats["cached"] == 0


@pytest.mark.parametrize(
    "damage",
    [
        lambda b: b[: len(b) // 2],  # truncated
        lambda b: b.replace(b"kpt-", b"kpx-", 1),  # edited: the checksum no longer matches
        lambda b: b"\x00\xff garbage" + b,  # not even a header
        lambda b: b"",  # empty
    ],
)
def test_a_corrupt_cache_is_rebuilt(demo_root: Path, damage: object) -> None:
    first = _load(demo_root)
    path = index_cache.cache_path(first.ws)
    path.write_bytes(damage(path.read_bytes()))  # type: ignore[operator]
    ix = _same_as_fresh(demo_root)
    assert ix.stats["cached"] == 0 and ix.stats["parsed"] == ix.stats["files"]
    index_cache.Reading(ix.ws).result()  # written anew, and sound


def test_a_cache_with_a_forged_checksum_but_bad_entries_is_not_trusted(demo_root: Path) -> None:
    """A body that passes the checksum yet holds nonsense: those files are parsed again."""
    first = _load(demo_root)
    nonsense = iter([["not", "an", "entry"]])
    _rewrite(index_cache.cache_path(first.ws), lambda _p, _k, e, b: (next(nonsense, e), b))
    ix = _same_as_fresh(demo_root)
    assert ix.stats["parsed"] == 1


@pytest.mark.parametrize("field", ["version", "app", "format"])
def test_a_cache_from_another_version_is_rebuilt(demo_root: Path, field: str) -> None:
    first = _load(demo_root)
    path = index_cache.cache_path(first.ws)
    head, _, body = path.read_bytes().partition(b"\n")
    header = json.loads(head)
    header[field] = 999 if field == "version" else "something else"
    path.write_bytes(json.dumps(header).encode() + b"\n" + body)
    with pytest.raises(index_cache.CacheError):
        index_cache.Reading(first.ws).result()
    ix = _same_as_fresh(demo_root)
    assert ix.stats["cached"] == 0


def test_appended_lessons_are_read_and_spans_still_find_full_records(demo_root: Path) -> None:
    first = _load(demo_root)
    lessons = next(
        p for p, f in first.files.items() if any(isinstance(r, LessonHead) for r in f.records)
    )
    record = {
        "id": "ll-ai-20261122-901",
        "date": "2026-11-22T08:00:00+09:00",
        "type": "ai_trial_error",
        "title": "Appended after the cache was written",
        "summary": "a long summary that only the full record holds",
    }
    with lessons.open("a", encoding="utf-8") as f:
        f.write(json.dumps(record, ensure_ascii=False) + "\n")
    ix = _same_as_fresh(demo_root)
    heads = [r for r in ix.files[lessons].records if isinstance(r, LessonHead)]
    new = next(h for h in heads if h.id == "ll-ai-20261122-901")
    from store.index.docs import lesson_ref

    assert lesson_ref(new, lessons).doc.summary == record["summary"]
    assert all(lesson_ref(h, lessons).doc.id == h.id for h in heads)


def test_a_read_only_workspace_still_loads(
    demo_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(*_a: object, **_k: object) -> None:
        raise PermissionError("read-only")

    index_cache.clear(Workspace(demo_root))
    monkeypatch.setattr(index_cache, "replace_file", refuse)
    ix = _load(demo_root)
    assert ix.sessions and not index_cache.cache_path(ix.ws).exists()


def test_lint_stats_and_search_share_the_cache(demo_root: Path) -> None:
    """The command line reads the same cache as the app (then parses nothing)."""
    from tui.cli.main import main

    ws = Workspace(demo_root)
    assert main(["lint", "--root", str(demo_root)]) == 0
    written = index_cache.cache_path(ws).stat().st_mtime_ns
    assert main(["stats", "--root", str(demo_root), "--json"]) == 0
    assert index_cache.cache_path(ws).stat().st_mtime_ns == written  # read, not rebuilt
    ix = _load(demo_root)
    assert ix.stats["cached"] == ix.stats["files"] - ix.stats["parsed"] > 0


def _lessons_file(ix: WorkspaceIndex) -> Path:
    return next(
        p for p, f in ix.files.items() if f.records is not None and f.kind is not None
        and f.kind.value == "lessons"
    )  # fmt: skip


def _same_files(a: WorkspaceIndex, b: WorkspaceIndex) -> None:
    """Equal, diagnostics compared as multisets (the append path reports new records'
    diagnostics after the earlier ones, a fresh parse by kind of check)."""
    assert set(a.files) == set(b.files)
    for p, fa in a.files.items():
        fb = b.files[p]
        assert (fa.kind, fa.stamp, fa.head, fa.doc, fa.unfinished_line) == (
            fb.kind,
            fb.stamp,
            fb.head,
            fb.doc,
            fb.unfinished_line,
        ), p
        assert (fa.records is None) == (fb.records is None)
        if fa.records is not None and fb.records is not None:
            assert list(fa.records) == list(fb.records)
            assert fa.records.sids == fb.records.sids and fa.records.kinds == fb.records.kinds
        assert sorted(d.format() for d in fa.diagnostics) == sorted(
            d.format() for d in fb.diagnostics
        )
    assert _view(a)["sessions"] == _view(b)["sessions"]


@pytest.mark.parametrize(
    "tail",
    [
        # a whole new lesson of an existing session, one of a new session, one without
        '{"id": "ll-ai-20261122-901", "date": "2026-11-22T08:00:00+09:00", '
        '"session_id": "9e3c1a7b-6f52-4d8e-b094-3a7e5c2d1f86", "type": "ai_trial_error", '
        '"title": "appended"}\n'
        '{"id": "ll-ai-20261122-902", "date": "2026-11-23T08:00:00+09:00", '
        '"session_id": "new-session", "type": "wrong_type", "title": "drifted"}\n'
        '{"id": "ll-ai-20261122-903", "date": "2026-11-22", "title": "no session"}\n',
        # a duplicate id of an earlier line, an id with the wrong date, a broken line
        '{"id": "ll-user-20261118-001", "date": "2026-11-18T10:00:00+09:00", "title": "dup"}\n'
        '{"id": "ll-ai-20260101-001", "date": "2026-11-22T10:00:00+09:00", "title": "date"}\n'
        "{not json}\n",
        # a pretty-printed record, then an unfinished last line (kept for later)
        '{\n  "id": "ll-ai-20261122-904",\n  "date": "2026-11-22",\n  "title": "pretty"\n}\n'
        '{"id": "ll-ai-20261122-905", "date": "2026-11',
    ],
)
def test_appended_lessons_read_alone_match_a_full_parse(demo_root: Path, tail: str) -> None:
    ix = _load(demo_root)
    path = _lessons_file(ix)
    old = ix.files[path].records
    before = len(old or ())
    with path.open("a", encoding="utf-8") as f:
        f.write(tail)
    changed, removed = ix.update([path])
    assert changed == {path} and not removed
    table = ix.files[path].records
    assert table is old, "read by the append path (the table grew in place)"
    assert table is not None and len(table) > before
    _same_files(ix, _load(demo_root, use_cache=False))


def test_a_rewritten_jsonl_file_is_parsed_whole(demo_root: Path) -> None:
    """Not an append (an earlier line changed): the whole file is read again."""
    ix = _load(demo_root)
    path = _lessons_file(ix)
    data = path.read_bytes()
    old = ix.files[path].records
    path.write_bytes(data.replace(b'"title": "', b'"title": "Edited: ', 1) + b"\n")
    ix.update([path])
    assert ix.files[path].records is not old
    _same_files(ix, _load(demo_root, use_cache=False))


def test_heads_from_the_cache_read_back_after_release_and_a_new_cache(
    demo_root: Path,
) -> None:
    _load(demo_root)
    ix = _load(demo_root)
    fresh = _load(demo_root, use_cache=False)
    tables = {p: f.records for p, f in ix.files.items() if f.records is not None and len(f.records)}
    assert tables
    for p, table in tables.items():
        want = fresh.files[p].records
        assert want is not None
        assert list(table) == list(want)
        table.release()  # the pages given back are read from the file again
        assert [table[i] for i in range(len(table))] == list(want)
        assert table.heads(1, 3) == want.heads(1, 3)
    # a change writes the cache anew (replaced, not rewritten in place): the tables still
    # mapped from the old one read as before
    report = _a_report(demo_root)
    report.write_text(report.read_text(encoding="utf-8") + "\n", "utf-8")
    ix.update([report])
    assert ix.save_cache()
    for p, table in tables.items():
        assert list(table) == list(fresh.files[p].records or [])


def test_a_repeated_id_appended_to_a_mapped_table_is_reported(demo_root: Path) -> None:
    _load(demo_root)
    ix = _load(demo_root)
    lessons, f = next(
        (p, f)
        for p, f in ix.files.items()
        if f.records is not None and any(isinstance(r, LessonHead) for r in f.records)
    )
    assert f.records is not None
    first = next(r for r in f.records if isinstance(r, LessonHead) and r.id)
    record = {
        "id": first.id,
        "date": "2026-11-22T08:00:00+09:00",
        "type": "ai_trial_error",
        "title": "The same id again",
    }
    with lessons.open("a", encoding="utf-8") as out:
        out.write(json.dumps(record, ensure_ascii=False) + "\n")
    ix.update([lessons])
    grown = ix.files[lessons]
    dup = [d for d in grown.diagnostics if "duplicate" in d.code]
    assert dup and str(first.span.line) in dup[-1].message
    assert (
        grown.records is not None
        and grown.records[len(grown.records) - 1].title == "The same id again"
    )


def _forge(path: Path, change: object) -> None:
    """Rewrite the cache with ``change`` applied to the first head table's entry."""
    done = []

    def first_table(_p: str, _k: str | None, e: Any, blob: bytes) -> tuple[Any, bytes]:
        if not done and e[3] and e[3][0] == "T" and len(e[3][2]) >= 2:
            change(e[3])  # type: ignore[operator]
            done.append(e)
        return e, blob

    _rewrite(path, first_table)
    assert done


def _one_more(payload: list) -> None:  # type: ignore[type-arg]
    payload[1].append(payload[1][-1])
    payload[2] += payload[2][-1]


def _one_less(payload: list) -> None:  # type: ignore[type-arg]
    payload[1].pop()
    payload[2] = payload[2][:-1]


@pytest.mark.parametrize("change", [_one_more, _one_less])
def test_a_head_table_whose_parts_disagree_is_parsed_again(demo_root: Path, change: object) -> None:
    """Kinds and session ids that do not match the head lines (a forged cache that passes
    its checksum) are found as the table is made, not when a head is first read."""
    first = _load(demo_root)
    _forge(index_cache.cache_path(first.ws), change)
    ix = _same_as_fresh(demo_root)
    assert ix.stats["parsed"] == 1
    for s in ix.sessions.values():  # every head reads
        assert isinstance(s.project, str)
        assert all(les.head.id is not None or les.head.title is not None for les in s.lessons)


def test_a_mapped_table_read_while_it_grows_reads_whole_lines(tmp_path: Path) -> None:
    """One thread reads a table taken from a mapped file while another appends to it (the
    watcher's update runs in a thread while the screens read): every read is a whole head,
    old or new, and the table is whole afterwards."""
    import mmap
    import sys
    import threading

    from store.index.heads import HeadTable, RecordSpan

    def head(i: int) -> LessonHead:
        return LessonHead(
            RecordSpan(i + 1, i * 100, 100), f"ll-{i}", "2026-01-01", "s1", "p", "t", "c",
            f"title {i}", ("a",),
        )  # fmt: skip

    n = 2000
    src = HeadTable.of([head(i) for i in range(n)])
    pad = b"x" * 5000 + b"\n"
    f = tmp_path / "mapped"
    f.write_bytes(pad + src.blob + pad)
    errors: list[str] = []
    switch = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        with f.open("rb") as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as mm:
            for _trial in range(40):
                t = HeadTable(mm, src.sids, src.kinds, lo=len(pad), hi=len(pad) + len(src.blob))
                stop = threading.Event()

                def read(t: HeadTable = t, stop: threading.Event = stop) -> None:
                    while not stop.is_set():
                        try:
                            for i in (0, n - 1, n // 2, len(t) - 1):
                                if t[i].id != f"ll-{i}":
                                    errors.append(f"head {i} read as another")
                            (sids, kinds, _p), lines = t.snapshot()  # what a cache write takes
                            if not len(sids) == len(kinds) == lines.count(b"\n"):
                                errors.append("a snapshot's parts disagree")
                        except Exception as exc:  # noqa: BLE001 - any failure is the finding
                            errors.append(repr(exc))

                th = threading.Thread(target=read)
                th.start()
                t.extend(HeadTable.of([head(n + k) for k in range(3)]))
                stop.set()
                th.join()
                assert [h.id for h in t.heads(n - 1, n + 3)] == [
                    f"ll-{k}" for k in range(n - 1, n + 3)
                ]
                del t
    finally:
        sys.setswitchinterval(switch)
    assert not errors, errors[:5]


@pytest.mark.parametrize("most", [1, 300, 1 << 20])
def test_entries_decoded_a_few_at_a_time_are_the_same(demo_root: Path, most: int) -> None:
    """Entries are decoded in batches of at most ``most`` bytes of JSON (a big lessons
    file's alone), their pages given back as they go: each entry as decoded alone."""
    _load(demo_root)
    cached = index_cache.Reading(Workspace(demo_root)).result()
    paths = list(cached.lines)
    alone = {p: cached.entries([p], per=1) for p in paths}
    expected = {p: next(got)[1] for p, got in alone.items()}
    batched = list(cached.entries(paths, most=most))
    assert [p for p, _e, _b in batched] == paths
    assert {p: e for p, e, _b in batched} == expected
    assert all(e is not None for e in expected.values())


def test_a_mapped_table_scanned_in_small_windows_finds_every_line(
    demo_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A mapped table's line ends are found a window at a time (its pages given back as it
    goes): lines that straddle windows come out whole."""
    import store.index.heads as heads

    _load(demo_root)
    expected = {p: list(f.records) for p, f in _load(demo_root).files.items() if f.records}
    monkeypatch.setattr(heads, "SCAN_WINDOW", 7)
    again = _load(demo_root)
    got = {p: list(f.records) for p, f in again.files.items() if f.records}
    assert got == expected and sum(map(len, got.values())) > 50


def test_documents_from_the_cache_stay_in_it_until_asked_for(demo_root: Path) -> None:
    """A start validates no skill, pattern, memory or feedback (only proposals: they join
    sessions): each stays JSON in the mapped cache, is written back from there, and is the
    fresh parse's model when asked for."""
    _load(demo_root)
    ix, fresh = _load(demo_root), _load(demo_root, use_cache=False)
    docs = [f for f in ix.files.values() if f.kind in (Kind.SKILL, Kind.FEEDBACK, Kind.MEMORY)]
    assert len(docs) > 3
    for f in docs:
        assert entry_of_file(f) == entry_of_file(fresh.files[f.path])
        assert f.doc is not None and f.doc == fresh.files[f.path].doc


@pytest.mark.parametrize("forged", [b"[1,2]", b"not json"])
def test_a_cached_document_that_does_not_validate_is_read_from_its_file(
    demo_root: Path, forged: bytes
) -> None:
    """A forged cache (its checksum matches) whose documents' JSON is not the model's:
    taken as it is, the documents then read from their files when asked for."""
    first = _load(demo_root)
    _rewrite(
        index_cache.cache_path(first.ws),
        lambda _p, kind, e, b: (e, forged if e[3] == ["D"] and kind != "proposal" else b),
    )
    ix = _same_as_fresh(demo_root)
    assert ix.stats["parsed"] == 0


def test_a_session_from_the_cache_takes_its_parts_in_the_workspaces_order(tmp_path: Path) -> None:
    """A session two summary files describe shows the first one's summary (in the
    workspace's order), whether the index is read from the cache or parsed: the cache keeps
    that order and the first merge relies on it."""
    root = tmp_path / "ws"
    for folder, title in (("a-first", "the first file's"), ("b-second", "the second file's")):
        d = root / "session-summaries" / folder
        d.mkdir(parents=True)
        for sid in ("shared-1", "shared-2", f"only-{folder}"):
            rec = {"id": f"ws-{folder}-{sid}", "date": "2026-11-01T10:00:00",
                   "session_id": sid, "session_name": f"{title} summary of {sid}"}  # fmt: skip
            with (d / "summaries.jsonl").open("a", encoding="utf-8") as fh:
                fh.write(json.dumps(rec) + "\n")
    _load(root)  # writes the cache
    ix = _same_as_fresh(root)
    assert ix.stats["cached"] == ix.stats["files"]
    for sid in ("shared-1", "shared-2"):
        assert ix.sessions[f"sid:{sid}"].title == f"the first file's summary of {sid}"
    assert len(ix.sessions) == 4


def _summaries(root: Path, folder: str, title: str) -> Path:
    """A summaries file in ``folder`` for the session ``shared``, titled ``title``."""
    d = root / "session-summaries" / folder
    d.mkdir(parents=True)
    rec = {"id": f"ws-{folder}", "date": "2026-11-01T10:00:00", "session_id": "shared",
           "session_name": f"{title} summary"}  # fmt: skip
    (d / "summaries.jsonl").write_text(json.dumps(rec) + "\n", encoding="utf-8")
    return d / "summaries.jsonl"


def test_a_file_added_while_running_takes_its_place_at_once(tmp_path: Path) -> None:
    """A summaries file added while the app runs is placed where a walk of the workspace
    would find it: the session two files describe shows the first file's summary at once,
    as a fresh parse does, and the cache is written in the workspace's order (the next
    start joins nothing again)."""
    root = tmp_path / "ws"
    _summaries(root, "b-second", "the second file's")
    _summaries(root, "d-fourth", "the fourth file's")
    running = _load(root)
    running.update([_summaries(root, "c-third", "the third file's")])
    running.update([_summaries(root, "a-first", "the first file's")])
    assert running.sessions["sid:shared"].title == "the first file's summary"
    assert running.save_cache()
    order = [Path(p).parent.name for p in index_cache.Reading(Workspace(root)).result().lines]
    assert order == ["a-first", "b-second", "c-third", "d-fourth"]
    again = _same_as_fresh(root)
    assert again.stats["cached"] == again.stats["files"] == 4


def test_a_cache_out_of_the_workspaces_order_is_mended_at_the_next_start(
    tmp_path: Path,
) -> None:
    """A cache an earlier version wrote kept a file added while an app ran after the
    others: the next start notices that the cache's order is not the workspace's, joins
    the sessions several files make again (the first file's summary, as a fresh parse
    shows) and writes the cache in order."""
    root = tmp_path / "ws"
    _summaries(root, "b-second", "the second file's")
    running = _load(root)
    running.update([_summaries(root, "a-first", "the first file's")])
    # written as the earlier version did: the new file last
    files = sorted(running.files.values(), key=lambda f: f.path.parent.name != "b-second")
    index_cache.write(
        running.ws,
        ((str(f.path), f.kind.value if f.kind else None, *entry_of_file(f)) for f in files),
    )
    order = [Path(p).parent.name for p in index_cache.Reading(Workspace(root)).result().lines]
    assert order == ["b-second", "a-first"]
    ix = _same_as_fresh(root)
    assert ix.stats["cached"] == ix.stats["files"] == 2
    assert ix.sessions["sid:shared"].title == "the first file's summary"
    _load(root)  # (a start writes the cache again)
    order = [Path(p).parent.name for p in index_cache.Reading(Workspace(root)).result().lines]
    assert order == ["a-first", "b-second"]  # written in order


def test_a_file_deleted_between_starts_is_taken_out(demo_root: Path) -> None:
    """The cache's order is checked on the files still there: one deleted since is taken
    out, and the rest read as a fresh parse reads them."""
    _load(demo_root)
    _a_report(demo_root).unlink()
    ix = _same_as_fresh(demo_root)
    assert ix.stats["removed"] == 1


def _later_at(data: bytes) -> int:
    """Where the part checked apart (the lessons) begins in the cache file ``data``."""
    head, _, body = data.partition(b"\n")
    return len(data) - len(body) + json.loads(head)["later"]


def _entry_end(data: bytes, before: int) -> int:
    """The last byte of the last entry that ends before ``before``."""
    return data.rindex(b"\n", 0, data.rindex(b"]\t", 0, before)) - 1


@pytest.mark.parametrize("chunk", [1, 7, 4096])
def test_the_checksum_read_a_chunk_at_a_time_covers_the_whole_body(
    demo_root: Path, chunk: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Read in chunks of any size, the checksums take every byte: an edit in the last
    byte of an entry is caught as one in the first, in either part."""
    monkeypatch.setattr(index_cache, "CHECKSUM_CHUNK", chunk)
    ws = _load(demo_root).ws
    path = index_cache.cache_path(ws)
    good = path.read_bytes()
    assert index_cache.Reading(ws).result().later_ok()  # (hashed to the end)
    later = _later_at(good)
    assert later < _entry_end(good, len(good))  # the demo has lessons
    for end, part in [(later, "first"), (len(good), "later")]:
        at = _entry_end(good, end)
        path.write_bytes(good[:at] + b"}" + good[at + 1 :])
        if part == "first":
            with pytest.raises(index_cache.CacheError, match="checksum"):
                index_cache.Reading(ws).result()
        else:
            assert not index_cache.Reading(ws).result().later_ok()


def test_a_damaged_lessons_part_costs_the_lessons_alone(demo_root: Path) -> None:
    """The lessons are checked apart, when they are read: damaged, they alone are parsed
    again (and the sessions were listed from the rest meanwhile)."""
    ws = _load(demo_root).ws
    path = index_cache.cache_path(ws)
    good = path.read_bytes()
    at = _entry_end(good, len(good))
    path.write_bytes(good[:at] + b"}" + good[at + 1 :])
    lessons = [
        p for p in _load(demo_root, use_cache=False).files.values() if p.kind is Kind.LESSONS
    ]
    ix = _same_as_fresh(demo_root)
    assert lessons and ix.stats["parsed"] == len(lessons)
    assert ix.stats["cached"] == ix.stats["files"] - len(lessons)


def test_a_cache_read_beside_other_work_gives_every_file_or_raises_in_the_caller(
    demo_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ix = _load(demo_root)
    ws = ix.ws
    cached = index_cache.Reading(ws).result()
    assert set(cached.lines) == {str(p) for p in ix.files} and cached.later_ok()
    path = index_cache.cache_path(ws)
    good = path.read_bytes()
    at = _later_at(good) - 1  # the first part's last byte
    path.write_bytes(good[:at] + b"!" + good[at + 1 :])  # the checksum is the thread's
    waiting = index_cache.Reading(ws)  # nothing raised yet: raised by the caller
    with pytest.raises(index_cache.CacheError, match="checksum"):
        waiting.result()
    path.unlink()
    waiting = index_cache.Reading(ws)
    with pytest.raises(index_cache.CacheError, match="no cache"):
        waiting.result()
    path.write_bytes(good)

    class Broken:
        def update(self, _data: object) -> None:
            raise RuntimeError("a bug in hashing")

    monkeypatch.setattr(index_cache.hashlib, "sha256", Broken)
    waiting = index_cache.Reading(ws)
    with pytest.raises(RuntimeError, match="a bug in hashing"):  # in the caller's thread
        waiting.result()


def test_a_cache_reading_let_go_of_untaken_closes_its_file_and_mapping(demo_root: Path) -> None:
    """A start that fails before it takes the cache (its ledger unreadable, say) leaves
    no file or mapping open behind it."""
    ws = _load(demo_root).ws
    fds = set(os.listdir("/proc/self/fd"))
    reading = index_cache.Reading(ws)
    assert set(os.listdir("/proc/self/fd")) - fds  # the cache and its mapping
    reading.close()
    assert set(os.listdir("/proc/self/fd")) == fds
    reading.close()  # again: nothing


def test_a_save_or_an_update_during_a_reload_waits_for_it(demo_root: Path) -> None:
    """A reload's first merge holds the reports and summaries alone until the lessons are
    read: the app's timed save, coming then, leaves the cache as it is (the load writes it
    at its end), and a change the watcher saw is applied after the load, not under it."""
    ix = _load(demo_root)
    seen = _a_report(demo_root)  # a change seen while running: the cache is to be written
    seen.write_text(seen.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    assert ix.update([seen])[0] == {seen}
    body = index_cache.cache_path(ix.ws).read_bytes()
    published, go_on = threading.Event(), threading.Event()

    def publish() -> None:
        if not published.is_set():
            published.set()
            assert go_on.wait(30)

    loader = threading.Thread(target=ix.load_all, kwargs={"publish": publish, "parallel": False})
    loader.start()
    try:
        assert published.wait(30)
        assert not any(f.kind is Kind.LESSONS for f in ix.files.values())  # half in
        assert not ix.save_cache()
        assert index_cache.cache_path(ix.ws).read_bytes() == body
        report = _a_report(demo_root)
        report.write_text(report.read_text(encoding="utf-8") + "\n", encoding="utf-8")
        got: list[tuple[set[Path], set[Path]]] = []
        updater = threading.Thread(target=lambda: got.append(ix.update([report])))
        updater.start()
        updater.join(0.3)
        assert updater.is_alive() and not got  # waits for the load
    finally:
        go_on.set()
        loader.join(30)
    updater.join(30)
    assert got and got[0][1] == set()
    assert any(f.kind is Kind.LESSONS for f in ix.files.values())
    assert _view(ix) == _view(_load(demo_root, use_cache=False))


@given(st.lists(st.sampled_from(["/", "//", ".", "..", "a", "b.yaml", " ", "é", "~"]), max_size=9))
def test_a_cached_name_becomes_the_path_it_names(parts: list[str]) -> None:
    """Each file's name in the cache made a path joined to its folder's: the same path as
    the name parsed whole, however the name is written."""
    name, parents = "".join(parts), {}  # type: ignore[var-annotated]
    for _ in range(2):  # the folder's made, then reused
        got, want = _path(name, parents), Path(name)
        assert (str(got), got.parts, hash(got)) == (str(want), want.parts, hash(want))
