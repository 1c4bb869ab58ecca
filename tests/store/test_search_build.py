"""A full build of the search index in bounded memory (``store.search.build``): the cache
file it writes holds what a build in memory holds, whatever order the files arrive in, and
when the state folder or the disk cannot take it the index is built in memory instead."""

from __future__ import annotations

import json
import random
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import store.search.build as build
from store.index.workspace_index import WorkspaceIndex
from store.search.cache import (
    BIN_NAME,
    MAGIC,
    load_segment,
    open_index,
    parse_files,
    save_segment,
    scan_workspace,
)
from store.search.engine import SearchIndex
from store.search.facade import WorkspaceSearch
from store.search.segment import Segment
from store.workspace import Workspace

QUERIES = ["jwt", "kind:lesson jwt", "cycle_count", "confgi", "발급", "テスト", "outcome:success"]


def _parsed(ws: Workspace) -> list[tuple[str, int, Any, list[Any]]]:
    items = [(p, k) for p, (k, _s) in sorted(scan_workspace(ws).items())]
    return [(p, 0, st, recs) for p, st, recs in parse_files(ws, items, parallel=False) if st]


def _body(ws: Workspace) -> tuple[dict[str, Any], bytes]:
    data = (ws.state_dir / BIN_NAME).read_bytes()
    n = int.from_bytes(data[len(MAGIC) : len(MAGIC) + 8], "little")
    header = json.loads(data[len(MAGIC) + 8 : len(MAGIC) + 8 + n])
    for varying in ("token",):
        header.pop(varying)
    return header, data[len(MAGIC) + 8 + n :]


def _in_memory(ws: Workspace, parsed: list[tuple[str, int, Any, list[Any]]]) -> SearchIndex:
    index = SearchIndex.build({p: (st, recs) for p, _k, st, recs in parsed})
    save_segment(ws, index.main, index.main_stamps, index.sessions)
    return index


def _hits(index: SearchIndex, query: str) -> list[tuple[str, str, str]]:
    return [(h.kind, h.id, h.path) for h in index.search(query, 50).hits]


def test_the_file_is_the_one_a_build_in_memory_writes_in_any_order(demo_root: Path) -> None:
    ws = Workspace(demo_root)
    parsed = _parsed(ws)
    memory = _in_memory(ws, parsed)
    expected = _body(ws)
    shuffled = list(parsed)
    random.Random(7).shuffle(shuffled)
    for arrival in (parsed, shuffled, parsed[::-1]):
        (ws.state_dir / BIN_NAME).unlink()
        streamed = build.build_saved(ws, iter(arrival))
        assert _body(ws) == expected
        assert streamed.cache_token is not None  # read back from the file, mapped
        assert len(streamed) == len(memory) > 100
        for q in QUERIES:
            assert _hits(streamed, q) == _hits(memory, q), q


def _columns(seg: Segment) -> dict[str, Any]:
    names = [
        "vocab", "offsets", "postings", "kinds", "dates", "groups", "group_starts", "files",
        "file_paths", "hashes", "gists", "facet_keys", "facet_offsets", "facet_ids", "by_date",
    ]  # fmt: skip
    out = {name: list(getattr(seg, name)) for name in names}
    out["records"] = [tuple(seg.records[i]) for i in range(len(seg))]
    out["texts"] = [seg.texts[i] for i in range(len(seg))]
    out["titles"] = [seg.titles[i] for i in range(len(seg))]
    out["heavy"] = {k: list(v) for k, v in seg.heavy.items()}
    return out


def test_sampled_dictionaries_change_only_how_it_is_compressed(
    demo_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = Workspace(demo_root)
    parsed = _parsed(ws)
    monkeypatch.setattr(build, "SAMPLES", 7)  # a dictionary from 7 records, not all
    monkeypatch.setattr("store.search.segment.HEAVY", 20)  # precomputed prefixes too
    _in_memory(ws, parsed)
    from_memory = _columns(load_segment(ws)[0])
    build.build_saved(ws, iter(parsed[::-1]))
    streamed = _columns(load_segment(ws)[0])
    assert streamed["heavy"]
    for name, values in from_memory.items():
        assert streamed[name] == values, name


def test_no_state_folder_builds_in_memory(demo_root: Path) -> None:
    shutil.rmtree(demo_root / ".hurikaeri")
    (demo_root / ".hurikaeri").write_text("a file where the state folder would be\n")
    ws = Workspace(demo_root)
    with pytest.raises(build.NoRoom):
        build.build_saved(ws, iter(()))
    index, stats = open_index(ws, parallel=False)
    assert stats["rebuilt"] == 1 and index.cache_token is None
    assert _hits(index, "kind:lesson jwt")


def test_a_cache_that_cannot_be_written_leaves_an_index_in_memory_and_no_files(
    demo_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = Workspace(demo_root)
    expected = _hits(open_index(ws, parallel=False)[0], "kind:lesson jwt")
    for f in ws.state_dir.glob("search-cache-*"):
        f.unlink()
    before = sorted(p.name for p in ws.state_dir.iterdir())

    def full(*_a: Any, **_k: Any) -> str:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(build, "write_segment", full)
    index, _stats = open_index(ws, parallel=False, save=True)
    assert _hits(index, "kind:lesson jwt") == expected
    assert (ws.state_dir / BIN_NAME).exists()  # the index in memory saved as before
    # and the build's temporary files are gone
    after = sorted(p.name for p in ws.state_dir.iterdir())
    assert [n for n in after if n not in before and not n.startswith("search-cache")] == []


def test_the_app_builds_into_the_cache_and_has_nothing_left_to_save(demo_root: Path) -> None:
    ws = Workspace(demo_root)
    wi = WorkspaceIndex(ws)
    wi.load_all()
    search = WorkspaceSearch(wi)
    index = search.ensure(loaded=True)
    assert index is not None and index.cache_token is not None
    assert (ws.state_dir / BIN_NAME).exists()
    assert not search.save()  # written as it was built
    assert [(h.kind, h.id) for h in search.search("kind:lesson jwt").hits]


def _awkward_lessons(path: Path) -> None:
    """A lessons file with what agents write: a BOM, CRLF lines, blank and broken lines, a
    record pretty-printed over several lines, an unfinished last line."""
    lines = [b"\xef\xbb\xbf"]
    for i in range(400):
        rec = {
            "id": f"ll-ai-20261101-{i:03d}",
            "date": "2026-11-01T10:00:00",
            "session_id": f"s-{i % 37}",
            "project": "c:/work/p",
            "type": "ai_trial_error",
            "category": "testing",
            "title": f"lesson {i} 見出し",
            "summary": "word " * (i % 30),
        }
        if i % 50 == 7:
            lines.append(json.dumps(rec, ensure_ascii=False, indent=2).encode() + b"\n")
        elif i % 50 == 9:
            lines.append(b"{not json\n\n")
        else:
            end = b"\r\n" if i % 3 else b"\n"
            lines.append(json.dumps(rec, ensure_ascii=False).encode() + end)
    lines.append(b'{"id": "ll-ai-20261101-999", "title": "unfinish')
    path.write_bytes(b"".join(lines))


def test_a_big_lessons_file_read_in_parts_gives_the_same_records(
    demo_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = Workspace(demo_root)
    lessons = ws.loc("lessons_ai")
    _awkward_lessons(lessons)
    whole = {p: (st, recs) for p, _k, st, recs in _parsed(ws)}
    import store.search.cache as cache

    monkeypatch.setattr(cache, "PART_BYTES", 2048)
    items = [(p, k) for p, (k, _s) in sorted(scan_workspace(ws).items())]
    parts = list(cache.iter_parsed(ws, items, parallel=False))
    assert len([p for p in parts if p[0] == str(lessons)]) > 10
    in_parts = {p: (st, recs) for p, st, recs in cache.whole_files(parts)}
    assert in_parts == whole
    assert len(whole[str(lessons)][1]) == 392  # 400, less the 8 broken lines
    # and the file the build writes from parts is the one written from whole files
    _in_memory(ws, [(p, 0, st, recs) for p, (st, recs) in sorted(whole.items())])
    expected = _body(ws)
    random.Random(3).shuffle(parts)
    build.build_saved(ws, iter(parts))
    assert _body(ws) == expected


def _lesson(i: int) -> dict[str, Any]:
    return {
        "id": f"ll-ai-20261101-{i:03d}",
        "date": "2026-11-01T10:00:00",
        "session_id": f"s-{i % 3}",
        "project": "p",
        "type": "ai_trial_error",
        "category": "testing",
        "title": f"lesson {i}",
        "summary": "word " * (i % 7),
    }


_LINES = {
    "record": lambda i: json.dumps(_lesson(i)).encode() + b"\n",
    "crlf": lambda i: json.dumps(_lesson(i)).encode() + b"\r\n",
    "pretty": lambda i: json.dumps(_lesson(i), indent=2).encode() + b"\n",
    "flat": lambda i: json.dumps(_lesson(i), indent=0).encode() + b"\n",
    "brace": lambda i: b"{\n",  # a pretty-printed record its writer never finished
    "broken": lambda i: b'{"id": "x", "title": \n',
    "blank": lambda i: b"\n",
    "indented": lambda i: b"  " + json.dumps(_lesson(i)).encode() + b"\n",
}


@given(
    lines=st.lists(st.sampled_from(sorted(_LINES)), min_size=1, max_size=60),
    tail=st.sampled_from([b"", b'{"id": "unfinish', b"{\n"]),
    every=st.integers(min_value=1, max_value=3000),
)
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_a_jsonl_file_read_in_parts_gives_what_a_whole_read_gives(
    lines: list[str], tail: bytes, every: int
) -> None:
    import store.search.cache as cache
    from store.read.kinds import Kind
    from store.search.records import load_records

    data = b"".join(_LINES[kind](i) for i, kind in enumerate(lines)) + tail
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "lessons.jsonl"
        path.write_bytes(data)
        _st, whole = load_records(path, Kind.LESSONS, "lessons.jsonl")
        old = cache.PART_BYTES
        cache.PART_BYTES = every
        try:
            planned = cache._parts(str(path), Kind.LESSONS) or []
        finally:
            cache.PART_BYTES = old
        jobs = [(str(path), Kind.LESSONS, "lessons.jsonl", part) for part in planned]
        got = [r for _p, _k, _s, recs in cache._parse_chunk(jobs) for r in recs]
        if planned:
            assert got == whole


def test_a_cache_that_keeps_failing_while_searching_is_rebuilt_in_memory_once(
    demo_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from store.search.cache import CacheError

    wi = WorkspaceIndex(Workspace(demo_root))
    wi.load_all(parallel=False)
    search = WorkspaceSearch(wi)
    assert search.ensure(loaded=True) is not None and search.index is not None
    assert search.index.cache_token is not None  # built into the cache, read mapped
    real = SearchIndex.search
    builds: list[int] = []
    real_build = search._build

    def failing(self: SearchIndex, *a: Any, **k: Any) -> Any:
        if self.cache_token is not None:  # storage that fails each time it is read
            raise CacheError("a block failed its check")
        return real(self, *a, **k)

    def counted(**k: Any) -> SearchIndex:
        builds.append(1)
        return real_build(**k)

    monkeypatch.setattr(SearchIndex, "search", failing)
    monkeypatch.setattr(search, "_build", counted)
    hits = search.search("kind:lesson jwt").hits
    assert hits and len(builds) == 1 and search.index.cache_token is None
