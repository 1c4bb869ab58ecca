"""A full build of the search index in bounded memory, straight into the cache file.

Building in memory (:meth:`SearchIndex.build`) holds every record of the workspace at
once, then its texts, then its postings: 2.8 GB at 30,000 reports and 300,000 lessons.
Here the records never are all in memory:

1. As each file's records arrive (from the parsing workers, in any order, a big JSONL
   file in parts), they are written to an unnamed temporary file (by :mod:`marshal`: the
   file is this process's own, read back by it alone and gone with it), and only what
   ranking needs is kept: kind, day, line, the order of the id, a digest of the gist,
   and the gist's opening (in another temporary file) for near duplicates.
2. The static rank (:func:`rank_order`) is worked out from those columns alone.
3. The records are read back one at a time in rank order: their texts go to the postings
   and the facets, and are compressed into temporary files as the cache stores them
   (:class:`SegmentWriter`, with dictionaries sampled from the records beforehand).
4. The cache file is written from those parts (:func:`write_segment`), and the index
   returned is read from it, mapped, as a warm start reads it.

The file is the same as one written from memory: the same records in the same order, the
same arrays (``tests/store/test_search_build.py`` compares the two). Only the preset
dictionaries differ when there are more records than :data:`SAMPLES`.
"""

from __future__ import annotations

import contextlib
import hashlib
import marshal
import os
import sys
from array import array
from collections.abc import Hashable, Iterable
from pathlib import Path

from store.search.cache import (
    SegmentWriter,
    _record_json,
    load_index,
    save_side,
    spool,
    write_segment,
)
from store.search.engine import SearchIndex, join_session_rows, session_facets, session_row
from store.search.model import SearchRecord, Stamp
from store.search.segment import (
    KIND_CODE,
    NEAR_CHARS,
    NEAR_MIN,
    Segment,
    _heavy_prefixes,
    add_facets,
    add_postings,
    content_hash,
    date_number,
    date_order,
    flatten,
    group_hash,
    index_text,
    rank_order,
)
from store.search.text import gist_key, normalize
from store.workspace import Workspace

#: Records read to sample the preset dictionaries (all of them below this many: then the
#: file is byte for byte the one written from memory).
SAMPLES = 2048


class NoRoom(Exception):
    """The workspace's state folder cannot take the build's temporary files: nothing of
    the input was read (build in memory instead)."""


class _Spill:
    """The records as they arrived, in a temporary file, and the columns ranking needs:
    each record's kind, day, line, the order of its id among its part's, a digest of its
    gist and, for near duplicates, its gist's opening in another temporary file."""

    def __init__(self, where: Path) -> None:
        try:
            where.mkdir(parents=True, exist_ok=True)
            self.file = spool(where)
        except OSError as exc:
            raise NoRoom(str(exc)) from exc
        try:
            self.near_file = spool(where)
        except OSError as exc:
            self.file.close()
            raise NoRoom(str(exc)) from exc
        self.offsets = array("Q", [0])
        self.paths: list[str] = []
        """Files in the order their first part arrived."""
        self._number: dict[str, int] = {}
        self.spans: list[tuple[int, int, int, int]] = []
        """(file, part, first record, count) of each part, as they arrived."""
        self.stamps: dict[str, Stamp] = {}
        self.kinds: list[str] = []
        self.days = array("I")
        self.lines = array("q")
        self.id_order = array("I")
        self.digests = bytearray()
        """16 bytes a record: its kind and gist's digest, zeros when it has no gist."""
        self.near_keys = array("Q")
        self.near_lengths = array("I")
        self.near_offsets = array("Q", [0])
        self._near_size = 0
        self.sessions: list[dict[str, tuple[str, str]]] = []
        """What each part tells of its sessions (:func:`join_session_rows`)."""

    def add(self, path: str, part: int, stamp: Stamp, records: list[SearchRecord]) -> None:
        a = self._number.get(path)
        if a is None:
            a = self._number[path] = len(self.paths)
            self.paths.append(path)
        self.stamps[path] = stamp
        self.spans.append((a, part, len(self.kinds), len(records)))
        # records of one file and line are all in one part: their ids ordered within it
        ids = {rid: k for k, rid in enumerate(sorted({r.id for r in records}))}
        intern = sys.intern
        near = bytearray()
        for r in records:
            data = marshal.dumps((*r[:2], a, *r[3:]))  # the file's number for its path
            self.file.write(data)
            self.offsets.append(self.offsets[-1] + len(data))
            kind = intern(r.kind)
            self.kinds.append(kind)
            self.days.append(date_number(r.date))
            self.lines.append(r.line)
            self.id_order.append(ids[r.id])
            g = gist_key(r.gist) if r.gist else ""
            self.digests += _digest(f"{kind}\x1f{g}", 16) if g else _NO_GIST
            opening = g[:NEAR_CHARS]
            if len(opening) >= NEAR_MIN:
                self.near_keys.append(int.from_bytes(_digest(f"{kind}\x1f{opening[:3]}", 8)) or 1)
                near += opening.encode("utf-8", "surrogatepass")
            else:
                self.near_keys.append(0)
            self.near_lengths.append(len(opening))
            self.near_offsets.append(self._near_size + len(near))
        self.near_file.write(near)
        self._near_size += len(near)
        self.sessions.append(
            join_session_rows(
                (intern(sid), p, o) for sid, p, o in (session_row(r) for r in records)
            )
        )

    def record(self, j: int) -> SearchRecord:
        lo, hi = self.offsets[j], self.offsets[j + 1]
        kind, rid, a, *rest = marshal.loads(os.pread(self.file.fileno(), hi - lo, lo))
        return SearchRecord(kind, rid, self.paths[a], *rest)


_NO_GIST = bytes(16)


def _digest(text: str, size: int) -> bytes:
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=size).digest()


class _SpilledGists:
    """:class:`~store.search.segment.Gists` of the records in build order (``order[i]``
    is record ``i``'s place in the spill)."""

    def __init__(self, spill: _Spill, order: array[int]) -> None:
        self.spill, self.order = spill, order
        spill.near_file.flush()

    def key(self, i: int) -> Hashable | None:
        j = self.order[i]
        digest = bytes(self.spill.digests[16 * j : 16 * j + 16])
        return digest if digest != _NO_GIST else None

    def near(self, i: int) -> tuple[Hashable, int] | None:
        j = self.order[i]
        key = self.spill.near_keys[j]
        return (key, self.spill.near_lengths[j]) if key else None

    def text(self, i: int) -> str:
        j = self.order[i]
        lo, hi = self.spill.near_offsets[j], self.spill.near_offsets[j + 1]
        data = os.pread(self.spill.near_file.fileno(), hi - lo, lo)
        return data.decode("utf-8", "surrogatepass")


def build_saved(
    ws: Workspace,
    parsed: Iterable[tuple[str, int, Stamp, list[SearchRecord]]],
    near_duplicates: bool = True,
) -> SearchIndex:
    """Index what ``parsed`` yields (path, part number, identity and records of each file
    or part of a file, in any order) into the workspace's cache file and return the index
    read from it. Raises :class:`NoRoom` before reading anything when the state folder
    cannot be written; ``OSError`` when the cache file cannot be."""
    spill = _Spill(ws.state_dir)
    try:
        for path, part, stamp, records in parsed:
            spill.add(path, part, stamp, records)
        spill.file.flush()
        token = _write(ws, spill, near_duplicates)
    finally:
        spill.file.close()
        spill.near_file.close()
    index = load_index(ws)
    if index.cache_token == token:  # else another process wrote its own build meanwhile
        with contextlib.suppress(OSError):  # an optimisation: the segment alone is read
            save_side(ws, index, token)
    return index


def _write(ws: Workspace, spill: _Spill, near_duplicates: bool) -> str:
    # the records in the order a build in memory takes them: by path, then as in the file
    by_path = sorted(range(len(spill.paths)), key=spill.paths.__getitem__)
    place = {a: f for f, a in enumerate(by_path)}
    spans = sorted(
        range(len(spill.spans)), key=lambda s: (place[spill.spans[s][0]], spill.spans[s][1])
    )
    order = array("I")
    file_of = array("I")
    for s in spans:
        a, _part, start, count = spill.spans[s]
        order.extend(range(start, start + count))
        file_of.extend([place[a]] * count)
    # the parts' joins joined in order: what one join of every record gives
    sessions = join_session_rows(
        (sid, project, outcome)
        for s in spans
        for sid, (project, outcome) in spill.sessions[s].items()
    )
    spill.sessions = []
    days = array("I", (spill.days[j] for j in order))
    rank, groups, group_starts = rank_order(
        [spill.kinds[j] for j in order],
        _SpilledGists(spill, order),
        days,
        file_of,
        array("q", (spill.lines[j] for j in order)),
        array("I", (spill.id_order[j] for j in order)),
        near_duplicates,
    )
    spill.kinds = []
    spill.digests = bytearray()
    n = len(rank)
    step = max(1, n // SAMPLES)
    sample = [spill.record(order[rank[rid]]) for rid in range(0, n, step)]
    writer = SegmentWriter(
        SegmentWriter.dicts(
            [index_text(r) for r in sample],
            [normalize(r.title) for r in sample],
            [_record_json(r, file_of[rank[rid * step]]) for rid, r in enumerate(sample)],
        ),
        ws.state_dir,
    )
    del sample
    try:
        post: dict[str, array[int]] = {}
        facets: dict[str, array[int]] = {}
        kinds = bytearray(n)
        hashes, gists = array("Q"), array("Q")

        def extra(r: SearchRecord) -> list[str]:
            return session_facets(r, sessions)

        for rid, i in enumerate(rank):
            r = spill.record(order[i])
            text = index_text(r)
            add_postings(post, rid, text)
            add_facets(facets, rid, r, extra)
            writer.add(text, normalize(r.title), _record_json(r, file_of[i]))
            kinds[rid] = KIND_CODE.get(r.kind, 255)
            hashes.append(content_hash(r))
            gists.append(group_hash(r))
        vocab, offsets, flat = flatten(post)
        facet_keys, facet_offsets, facet_ids = flatten(facets)
        dates = array("I", (days[i] for i in rank))
        seg = Segment(
            records=[],
            texts=[],
            titles=[],
            vocab=vocab,
            offsets=offsets,
            postings=flat,
            heavy=_heavy_prefixes(vocab, offsets, flat),
            kinds=bytes(kinds),
            dates=dates,
            groups=groups,
            group_starts=group_starts,
            files=array("I", (file_of[i] for i in rank)),
            file_paths=[spill.paths[a] for a in by_path],
            hashes=hashes,
            gists=gists,
            facet_keys=facet_keys,
            facet_offsets=facet_offsets,
            facet_ids=facet_ids,
            by_date=date_order(dates),
        )
        return write_segment(ws, writer.sections(seg, spill.stamps, sessions), n)
    finally:
        writer.close()
