"""A KPT report's head as the index cache holds it: its problems and tries are decoded when
first read, equal to the head made from the report, and a cache entry that holds them
wrongly is parsed again or read as none, never a crash later."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from store.index.heads import ProblemHead, ReportHead, TryHead, _t
from store.models import KptReport
from store.read.loader import load_file
from tests.conftest import DEMO


def _heads() -> list[ReportHead]:
    out = []
    for path in sorted((DEMO / "hurikaeri").glob("kpt-*.yaml")):
        doc = load_file(Path(path)).doc
        assert isinstance(doc, KptReport)
        out.append(ReportHead.of(doc))
    return out


def test_a_head_read_back_decodes_its_problems_and_tries_when_asked() -> None:
    heads = _heads()
    assert sum(len(h.problems) for h in heads) > 5 and sum(len(h.tries) for h in heads) > 5
    for made in heads:
        raw, rest = made.dump(), made.rest_json()
        for where in (rest, (b"xx" + rest + b"yy", 2, 2 + len(rest))):  # or in a mapping
            back = ReportHead.load(raw, where)
            assert back.dump() == raw and back.rest_json() == rest
            assert back.problems == made.problems and back.tries == made.tries
            assert all(isinstance(p, ProblemHead) for p in back.problems)
            assert all(isinstance(t, TryHead) for t in back.tries)
            assert back == made


@pytest.mark.parametrize(
    "rest",
    [
        b'[[["p-1", "x"]], []]',
        b'[[[1, 2, 3, 4]], [["t", 5]]]',
        b'[[null], [["t"]]]',
        b"not json",
        b'{"problems": []}',
        b"[[], [], []]",
    ],
)
def test_problems_or_tries_not_as_written_read_as_none(rest: bytes) -> None:
    head = ReportHead.load(_heads()[0].dump(), rest)
    assert head.problems == () or head.tries == ()
    assert isinstance(head.problems, tuple) and isinstance(head.tries, tuple)


def test_a_head_entry_not_as_written_is_invalid() -> None:
    raw = _heads()[0].dump()
    with pytest.raises(ValueError):
        ReportHead.load(raw, {"not": "bytes"})  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        ReportHead.load([*raw, "one too many"], None)


def test_heads_read_from_the_cache_leave_problems_in_the_mapped_file(demo_root: Path) -> None:
    from store.index.workspace_index import WorkspaceIndex
    from store.workspace import Workspace

    WorkspaceIndex(Workspace(demo_root)).load_all(parallel=False)  # writes the cache
    ix = WorkspaceIndex(Workspace(demo_root))
    ix.load_all(parallel=False)
    heads = [f.head for f in ix.files.values() if f.head is not None]
    assert heads and all(isinstance(h.rest, tuple) for h in heads)
    fresh = {h.id: h for h in _heads()}
    for h in heads:
        if h.id in fresh:
            assert h.problems == fresh[h.id].problems and h.tries == fresh[h.id].tries


def _mapping_rss_kb(path: Path) -> int | None:
    """The resident size of this process's mapping of ``path`` (Linux), ``None`` elsewhere."""
    try:
        text = Path("/proc/self/smaps").read_text()
    except OSError:
        return None
    inside, total = False, 0
    for line in text.splitlines():
        first = line.split(" ", 1)[0]
        if "-" in first and not first.endswith(":"):
            inside = line.endswith(str(path))
        elif inside and first == "Rss:":
            total += int(line.split()[1])
    return total


def _assert_mapping_given_back(path: Path) -> None:
    """At most the last :data:`READ_BACK` (set to 1 MB) and a page or so still held."""
    held = _mapping_rss_kb(path)
    if held is None:
        pytest.skip("no /proc/self/smaps here")
    assert held <= 2 * 1024 + 64, f"{held} kB of the mapping still held"


def test_reading_every_problem_from_the_mapped_cache_gives_the_pages_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The statistics, or a cache written anew, read every report's problems from the mapped
    index cache: the pages read are given back as they go, not held (a team's fifty
    thousand reports held 70 MB of them)."""
    import mmap

    import store.index.heads as heads_mod

    monkeypatch.setattr(heads_mod, "READ_BACK", 1 << 20)
    made = _heads()[0]
    raw = made.dump()
    filler = "x" * 60_000
    rest = b'[[["p-1","' + filler.encode() + b'","process","high"]],[["t-1",["CLAUDE.md"]]]]'
    path = tmp_path / "cache.bin"
    count = 200  # 12 MB of problems
    path.write_bytes(rest * count)
    with open(path, "rb") as fh:
        mapped = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
    try:
        got = [
            ReportHead.load(raw, (mapped, i * len(rest), (i + 1) * len(rest))) for i in range(count)
        ]
        for head in got:
            assert head.problems[0].description == filler
            assert head.tries[0].addresses == ("CLAUDE.md",)
        _assert_mapping_given_back(path)
    finally:
        del got
        mapped.close()


def test_snapshotting_every_mapped_head_table_gives_the_pages_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A cache written anew takes every JSONL file's head lines from the mapped index cache
    (a team's lessons: a hundred megabytes): the pages read are given back as they go."""
    import mmap

    import store.index.heads as heads_mod
    from store.index.heads import HeadTable, LessonHead, RecordSpan

    monkeypatch.setattr(heads_mod, "READ_BACK", 1 << 20)
    filler = "y" * 500
    src = HeadTable.of(
        [
            LessonHead(
                RecordSpan(i + 1, i * 100, 100),
                f"ll-{i}",
                "2026-01-01",
                "s1",
                "p",
                "t",
                "c",
                f"{filler} {i}",
                ("a",),
            )
            for i in range(1000)
        ]
    )
    count = 20  # 20 tables of 0.5 MB or more each
    path = tmp_path / "cache.bin"
    path.write_bytes(src.blob * count)
    size = len(src.blob)
    assert size * count >= 10 << 20
    with open(path, "rb") as fh:
        mapped = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
    try:
        tables = [
            HeadTable(mapped, src.sids, src.kinds, lo=i * size, hi=(i + 1) * size)
            for i in range(count)
        ]
        for table in tables:
            (sids, kinds, _projects), lines = table.snapshot()
            assert lines == src.blob and kinds == src.kinds and sids == src.sids
        _assert_mapping_given_back(path)
    finally:
        del tables
        mapped.close()


_SECTIONS = st.sampled_from(["keep", "problem", "try", "omission"])


@pytest.mark.slow
@given(
    st.lists(
        st.tuples(st.one_of(_SECTIONS, _SECTIONS, st.text(max_size=4)), st.text(max_size=6)),
        max_size=12,
    )
)
@settings(max_examples=300, deadline=None)
def test_a_heads_items_read_back_through_json_are_the_same(items: list[tuple[str, str]]) -> None:
    """Any items (sections with a letter or not, ids of any text) come back from the
    cache's JSON as they were, in order."""
    made = dataclasses.replace(_heads()[0], items=tuple(items))
    raw = json.loads(json.dumps(made.dump(), ensure_ascii=False))
    back = ReportHead.load(raw, made.rest_json())
    assert back.items == tuple(items)
    assert back.dump() == made.dump()


def test_items_are_not_taken_for_a_tries_addresses_that_read_alike() -> None:
    """Shared tuples are kept by their contents; a try's addresses are texts an agent
    wrote, and may read exactly like a head's items as the cache keeps them."""
    head = _heads()[0]
    one = dataclasses.replace(head, items=(("keep", "keep-001"),))
    letters, ids = one.dump()[5]
    TryHead("try-9", _t((letters, ids)))  # an agent's addresses, shared first
    _t((letters, ids))
    back = ReportHead.load(json.loads(json.dumps(one.dump())), one.rest_json())
    assert back.items == (("keep", "keep-001"),)


@pytest.mark.parametrize(
    "items",
    [["kx", ["keep-001"]], ["kx", "keep-001"], ["kz", ["a", "b"]], ["k", 7], [["keep"]]],
    ids=[
        "more letters than ids",
        "more letters than joined ids",
        "no such section",
        "ids neither a list nor a text",
        "a pair of one",
    ],
)
def test_items_not_as_written_are_invalid(items: list[object]) -> None:
    raw = _heads()[0].dump()
    raw[5] = items
    with pytest.raises((ValueError, KeyError, TypeError)):
        ReportHead.load(raw, None)
