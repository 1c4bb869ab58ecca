"""The search index on disk, so that a warm ``hurikaeri search`` parses nothing.

Two files under the workspace's ``.hurikaeri/``:

- ``search-cache-v3.bin`` — the segment: a JSON header, then arrays and blobs, each
  section with its CRC-32 or, for the large ones, checks of each piece as it is read. It
  is memory-mapped: arrays are read in place, a record is decoded only when it is shown.
  The records and titles (read only for the hits shown) are raw deflate blocks of a few
  each, with a preset dictionary sampled from the whole and a CRC-32 per block. The
  texts, which the engine scans, are compressed one by one the same way (about 2 µs to
  read one; a block of several cost the whole block for each text read apart, and a CJK
  term reads thousands) and checked against a CRC-32 each; the CJK runs of each text are
  kept as they are beside them, so CJK terms are looked for without decompressing. The
  postings, the precomputed id sets and the facets' ids are zlib blocks of
  :data:`ID_BLOCK` ids, a byte plane at a time (:func:`_pack_ids`). Rewritten only by a
  full build or a compaction. ``benchmarks/search_store_bench.py`` measures the options,
  SQLite FTS5 beside them.
- ``search-cache-v3.json`` — what changed since: file identities (path, size, mtime_ns),
  tombstones and the delta's records. Small; rewritten after each update.

Nothing in them is executed or trusted: no pickle; a file with the wrong magic, version,
byte order, workspace root or locations, a section out of bounds or failing its CRC, or
arrays of inconsistent lengths is ignored and the index rebuilt. Files are written
atomically (temp file, fsync, rename).
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import itertools
import json
import mmap
import operator
import os
import re
import secrets
import sys
import tempfile
import zlib
from array import array
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from store.index.heads import first_line
from store.index.parallel import chunk_by_size, map_chunks
from store.read.kinds import YAML_SUFFIXES, Kind, ignored_name, kind_from_path
from store.read.takt_layout import piece_dirs
from store.search.engine import DeltaRecord, SearchIndex, _delta
from store.search.model import SearchRecord, Stamp
from store.search.segment import Segment
from store.search.text import CJK, is_cjk
from store.workspace import Workspace
from store.write.atomic import replace_file

VERSION = 3
#: What the tokens and records mean (tokenisation, record extraction): a cache made under
#: another scheme is rebuilt even though its layout is the same (4: a record without an
#: id is named by its place, the path shown and the line).
SCHEME = 4
BIN_NAME = f"search-cache-v{VERSION}.bin"
SIDE_NAME = f"search-cache-v{VERSION}.json"
MAGIC = b"HURIKAERI-SEARCH"
_ALIGN = 8
#: Records and titles per deflate block (a record is about half a kilobyte, a title a
#: line): small blocks, each decompressed in microseconds, compressed as well as large
#: ones with a dictionary of samples of the whole (zlib's preset dictionary). The texts
#: are compressed one by one the same way.
RECORD_BLOCK = 4
TITLE_BLOCK = 16
#: The dictionary's size (zlib's window).
ZDICT_BYTES = 32 * 1024
#: Strings kept once read, per section.
KEEP_ITEMS = 20_000
#: Decompressed blocks kept per section (the hits of a query are mostly near each other).
KEEP_BLOCKS = 64
#: Ids per block of the postings, the precomputed id sets and the facets' ids.
ID_BLOCK = 1 << 14


class CacheError(Exception):
    """The cache cannot be used (absent, foreign, corrupt); the index is rebuilt."""


def locations_fingerprint(ws: Workspace) -> str:
    data = json.dumps(
        {
            "root": str(ws.root),
            "locations": {k: [str(p) for p in v] for k, v in ws.locations.items()},
        },
        sort_keys=True,
    )
    return hashlib.sha256(data.encode()).hexdigest()[:32]


# -- scanning the workspace fast ------------------------------------------------------------


def scan_workspace(ws: Workspace) -> dict[str, tuple[Kind | None, Stamp]]:
    """Every document of ``ws`` with its kind and identity: :meth:`Workspace.discover`'s
    rules, on strings and ``DirEntry`` stats (several times faster than with ``Path``)."""
    out: dict[str, tuple[Kind | None, Stamp]] = {}

    def add(path: str, kind: Kind | None, st: os.stat_result) -> None:
        if path not in out:
            out[path] = (kind, (st.st_size, st.st_mtime_ns))

    for d in ws.locations["kpt"]:
        for p, st in _walk(str(d), YAML_SUFFIXES, recursive=False):
            add(p, Kind.KPT, st)
    for d in ws.locations["feedback"]:
        for p, st in _walk(str(d), YAML_SUFFIXES, recursive=False):
            add(p, Kind.FEEDBACK, st)
    for d in ws.locations["summaries"]:
        for p, st in _walk(str(d), (".jsonl",)):
            add(p, Kind.SUMMARIES, st)
    for key in ("lessons_user", "lessons_ai"):
        for f in ws.locations[key]:
            try:
                st = os.stat(f)
            except OSError:
                continue
            if os.path.isdir(f):
                for p, st2 in _walk(str(f), (".jsonl",)):
                    add(p, Kind.LESSONS, st2)
            elif os.path.isfile(f):
                add(str(f), Kind.LESSONS, st)
    for d in ws.locations["knowledge_base"]:
        base = str(d)
        for p, st in _walk(base, YAML_SUFFIXES):
            rel = os.path.relpath(p, base)
            add(p, kind_from_path(Path("knowledge_base") / rel), st)
    for d in ws.locations["memory"]:
        for p, st in _walk(str(d), YAML_SUFFIXES):
            add(p, Kind.MEMORY, st)
    for d in ws.locations["discussions"]:
        for p, st in _walk(str(d), (".md", ".markdown")):
            add(p, Kind.DISCUSSION, st)
    for top in ws.locations["pieces"]:
        for d in piece_dirs(top):  # a TAKT directory: only its piece directories
            for p, st in _walk(str(d), YAML_SUFFIXES):
                add(p, Kind.PIECE, st)
    return out


def _walk(
    top: str, suffixes: tuple[str, ...], recursive: bool = True
) -> Iterator[tuple[str, os.stat_result]]:
    try:
        entries = list(os.scandir(top))
    except (FileNotFoundError, NotADirectoryError, PermissionError):
        return
    dirs = []
    for entry in entries:
        name = entry.name
        try:
            if name.lower().endswith(suffixes) and entry.is_file() and not ignored_name(name):
                yield entry.path, entry.stat()
            elif recursive and entry.is_dir(follow_symlinks=False) and not ignored_name(name):
                dirs.append(entry.path)
        except OSError:
            continue
    for d in dirs:
        yield from _walk(d, suffixes)


# -- writing ---------------------------------------------------------------------------------


def _blob(strings: Sequence[str]) -> bytes:
    return "\0".join(strings).encode("utf-8", "surrogatepass")


def _fit(values: Any) -> array[int]:
    """Offsets as 4-byte integers when they fit, else 8-byte ones (the type is stored)."""
    a = values if isinstance(values, array) else array("Q", values)
    if not a or max(a) < 1 << 32:
        return array("I", a)
    return array("Q", a)


#: Where the three low bytes of a 4-byte id are (the cache is read on machines of the byte
#: order it was written on: the header says which).
_LOW_BYTES = (0, 1, 2) if sys.byteorder == "little" else (1, 2, 3)


def _pack_ids(
    ids: Any, *, delta: bool = False, out: Spool | None = None
) -> tuple[bytes | Spool, array[int]]:
    """Sorted runs of ids as zlib blocks of :data:`ID_BLOCK`, and each block's offset
    among them. Without ``delta`` a block holds the ids' bytes a plane at a time (every
    lowest byte, then every second one, ...; three planes while the ids fit in 24 bits):
    the high planes of sorted ids are long runs, so a block is half the size of the ids
    zlib'ed as they are, and is put back together by slice assignments at C speed. With
    ``delta`` a block holds the first id, then differences (negative where a run ends):
    smaller still, but three times slower to decode (a Python int per id). ``out``: the
    blocks are written there instead of joined (a build in bounded memory)."""
    per = ID_BLOCK
    blocks: list[bytes] = []
    block_off = array("Q", [0])
    pos = 0
    planes = _LOW_BYTES if max(ids, default=0) < 1 << 24 else (0, 1, 2, 3)
    for i in range(0, len(ids), per):
        part = array("q", ids[i : i + per])
        if delta:
            diffs = array("i", [part[0]])
            diffs.extend(map(operator.sub, part[1:], part[:-1]))
            data = diffs.tobytes()
        else:
            raw = array("I", part).tobytes()
            data = b"".join(raw[k::4] for k in planes)
        z = zlib.compress(data, 6)
        if out is None:
            blocks.append(z)
        else:
            out.write(z)
        pos += len(z)
        block_off.append(pos)
    return (b"".join(blocks) if out is None else out), block_off


def _zdict(items: Sequence[bytes]) -> bytes:
    """A preset dictionary for ``items`` compressed apart: items spread evenly over all of
    them, as many as fill :data:`ZDICT_BYTES` (what recurs in most of them is in it)."""
    if not items:
        return b""
    fill = max(1, ZDICT_BYTES * len(items) // max(1, sum(map(len, items))))
    step = max(1, len(items) // fill)
    return b"".join(items[::step])[-ZDICT_BYTES:]


def _deflater(zdict: bytes, level: int = 9) -> Any:
    """A raw deflate compressor primed with ``zdict``, to be copied for each stream (priming
    one costs a few hundred microseconds, a copy ten)."""
    if zdict:
        return zlib.compressobj(level, zlib.DEFLATED, -15, 9, zdict=zdict)
    return zlib.compressobj(level, zlib.DEFLATED, -15, 9)


#: Where the compressed parts of a segment go before they are written into its file: an
#: in-memory buffer, or an unnamed temporary file (gone with the process whatever happens).
Spool = BinaryIO


def spool(where: Path | None = None) -> Spool:
    """A new spool: in memory, or (``where``, a directory) in a temporary file there."""
    return io.BytesIO() if where is None else tempfile.TemporaryFile(dir=where)


class _BlockSink:
    """Items in raw deflate blocks of ``per`` (primed with ``zdict``), written to a spool:
    each item's offset in the items joined (uncompressed), each block's offset among the
    blocks and each block's CRC-32 (uncompressed)."""

    def __init__(self, zdict: bytes, per: int, out: Spool) -> None:
        self.zdict, self.per, self.out = zdict, per, out
        self._primed = _deflater(zdict, 6)
        self.item_off = array("Q", [0])
        self.block_off = array("Q", [0])
        self.crcs = array("I")
        self._total = 0
        self._pending: list[bytes] = []

    def add(self, item: bytes) -> None:
        self._total += len(item)
        self.item_off.append(self._total)
        self._pending.append(item)
        if len(self._pending) == self.per:
            self.flush()

    def flush(self) -> None:
        if not self._pending:
            return
        c = self._primed.copy()
        raw = b"".join(self._pending)
        self._pending = []
        z = c.compress(raw) + c.flush()
        self.out.write(z)
        self.crcs.append(zlib.crc32(raw))
        self.block_off.append(self.out.tell())


class _TextSink:
    """Texts compressed one by one (raw deflate primed with ``zdict``) into a spool: each
    stream's offset and each text's CRC-32 (UTF-8)."""

    def __init__(self, zdict: bytes, out: Spool) -> None:
        self.zdict, self.out = zdict, out
        self._primed = _deflater(zdict)
        self.offsets = array("Q", [0])
        self.crcs = array("I")

    def add(self, raw: bytes) -> None:
        c = self._primed.copy()
        self.out.write(c.compress(raw) + c.flush())
        self.offsets.append(self.out.tell())
        self.crcs.append(zlib.crc32(raw))


class _ChunkSink:
    """Strings joined into one blob, with each one's offset and a CRC-32 of each
    :data:`CHUNK` bytes of the blob (checked the first time a chunk is read)."""

    def __init__(self, out: Spool) -> None:
        self.out = out
        self.offsets = array("Q", [0])
        self.crcs = array("I")
        self._crc = 0
        self._fill = 0

    def add(self, data: bytes) -> None:
        self.out.write(data)
        self.offsets.append(self.out.tell())
        while data:
            take = data[: CHUNK - self._fill]
            data = data[len(take) :]
            self._crc = zlib.crc32(take, self._crc)
            self._fill += len(take)
            if self._fill == CHUNK:
                self.crcs.append(self._crc)
                self._crc, self._fill = 0, 0

    def close(self) -> None:
        if self._fill:
            self.crcs.append(self._crc)
            self._crc, self._fill = 0, 0


_CJK_RUNS = re.compile(f"[{CJK}]+")


def cjk_runs(text: str) -> str:
    """The runs of CJK characters of a text, one a line: a CJK term (made of CJK characters
    only) occurs in the text exactly when it occurs in one of them."""
    return "\n".join(_CJK_RUNS.findall(text)) if not text.isascii() else ""


def _record_json(r: SearchRecord, file_index: int) -> bytes:
    """A record without what the segment already knows: its path is the file's index, a
    title that is the first line of a field is that field's number, so is the gist."""
    values = r.fields[1::2]
    title: str | int = r.title
    for k, v in enumerate(values):
        if first_line(v) == r.title:
            title = k
            break
    gist: str | int | list[int] = r.gist
    if r.gist in values:
        gist = values.index(r.gist)
    elif r.kind == "lesson" and len(values) >= 2 and r.gist == f"{values[0]}\n{values[1]}":
        gist = [0, 1]
    row = [
        r.kind,
        r.id,
        file_index,
        r.line,
        r.anchor,
        title,
        list(r.fields),
        r.date,
        r.project,
        r.session_id,
        list(r.facets),
        gist,
    ]
    return json.dumps(row, ensure_ascii=False, separators=(",", ":")).encode(
        "utf-8", "surrogatepass"
    )


class SegmentWriter:
    """The sections of a segment file, its records added one at a time in rank order (the
    texts, titles and records compressed as they come, with dictionaries sampled
    beforehand), then its arrays given at the end. ``where``: a directory to keep the
    compressed parts in temporary files (a build in bounded memory), else memory."""

    def __init__(self, dicts: tuple[bytes, bytes, bytes], where: Path | None = None) -> None:
        self._where = where
        self._spools = [spool(where) for _ in range(7)]
        self.texts = _TextSink(dicts[0], self._spools[0])
        self.titles = _BlockSink(dicts[1], TITLE_BLOCK, self._spools[1])
        self.records = _BlockSink(dicts[2], RECORD_BLOCK, self._spools[2])
        self.cjk = _ChunkSink(self._spools[3])

    @staticmethod
    def dicts(
        texts: Sequence[str], titles: Sequence[str], records: Sequence[bytes]
    ) -> tuple[bytes, bytes, bytes]:
        """Preset dictionaries from these (all of a segment's, or a sample of them)."""
        return (
            _zdict([t.encode("utf-8", "surrogatepass") for t in texts]),
            _zdict([t.encode("utf-8", "surrogatepass") for t in titles]),
            _zdict(records),
        )

    def add(self, text: str, title: str, record: bytes) -> None:
        """The next record in rank order: its normalised text and title, its JSON."""
        self.texts.add(text.encode("utf-8", "surrogatepass"))
        self.cjk.add(cjk_runs(text).encode("utf-8", "surrogatepass"))
        self.titles.add(title.encode("utf-8", "surrogatepass"))
        self.records.add(record)

    def close(self) -> None:
        for part in self._spools:
            part.close()

    def sections(
        self,
        seg: Segment,
        stamps: dict[str, Stamp],
        sessions: dict[str, tuple[str, str]],
    ) -> dict[str, tuple[str, bytes | Spool]]:
        """Every section: name → (type code, or ``blob``; bytes or a spool). ``seg`` gives
        the arrays (its records, texts and titles are not read: they were added)."""
        self.titles.flush()
        self.records.flush()
        self.cjk.close()
        heavy_keys = sorted(seg.heavy)
        heavy_ranges = array("Q")
        heavy_ids = array("I")
        stored: dict[int, tuple[int, int]] = {}
        for k in heavy_keys:
            ids = seg.heavy[k]
            where = stored.get(id(ids))
            if where is None:
                where = stored[id(ids)] = (len(heavy_ids), len(heavy_ids) + len(ids))
                heavy_ids.extend(ids)
            heavy_ranges.extend(where)

        def arr(code: str, values: Any) -> tuple[str, bytes]:
            a = (
                values
                if isinstance(values, array) and values.typecode == code
                else array(code, values)
            )
            return code, a.tobytes()

        def fit(values: Any) -> tuple[str, bytes]:
            a = _fit(values)
            return a.typecode, a.tobytes()

        # byte planes, not differences: decoded three times faster (see _pack_ids)
        packed = self._spools[4:] if self._where is not None else [None] * 3
        postings, postings_blocks = _pack_ids(seg.postings, out=packed[0])
        heavy_packed, heavy_blocks = _pack_ids(heavy_ids, out=packed[1])
        del heavy_ids
        facet_packed, facet_blocks = _pack_ids(seg.facet_ids, out=packed[2])
        texts, titles, records, cjk = self.texts, self.titles, self.records, self.cjk
        paths = seg.file_paths
        return {
            "vocab": ("blob", _blob(seg.vocab)),
            "offsets": arr("I", seg.offsets),
            "postings": ("zraw", postings),
            "postings_blocks": fit(postings_blocks),
            "heavy_keys": ("blob", _blob(heavy_keys)),
            "heavy_ranges": fit(heavy_ranges),
            "heavy_ids": ("zraw", heavy_packed),
            "heavy_blocks": fit(heavy_blocks),
            "texts": ("ztexts", texts.out),
            "text_offsets": fit(texts.offsets),
            "text_crcs": arr("I", texts.crcs),
            "text_dict": ("blob", texts.zdict),
            "cjk": ("cjk", cjk.out),
            "cjk_offsets": fit(cjk.offsets),
            "cjk_crcs": arr("I", cjk.crcs),
            "titles": ("zblocks", titles.out),
            "title_blocks": fit(titles.block_off),
            "title_offsets": fit(titles.item_off),
            "title_crcs": arr("I", titles.crcs),
            "title_dict": ("blob", titles.zdict),
            "records": ("zblocks", records.out),
            "record_blocks": fit(records.block_off),
            "record_offsets": fit(records.item_off),
            "record_crcs": arr("I", records.crcs),
            "record_dict": ("blob", records.zdict),
            "kinds": ("B", bytes(seg.kinds)),
            "dates": arr("I", seg.dates),
            "groups": arr("I", seg.groups),
            "group_starts": arr("I", seg.group_starts),
            "files": arr("I", seg.files),
            "file_paths": ("blob", _blob(paths)),
            "file_sizes": arr("Q", (stamps[p][0] for p in paths)),
            "file_mtimes": arr("Q", (max(0, stamps[p][1]) for p in paths)),
            "hashes": arr("Q", seg.hashes),
            "gists": arr("Q", seg.gists),
            "facet_keys": ("blob", _blob(seg.facet_keys)),
            "facet_offsets": arr("I", seg.facet_offsets),
            "facet_ids": ("zraw", facet_packed),
            "facet_blocks": fit(facet_blocks),
            "by_date": arr("I", seg.by_date),
            "sessions": (
                "blob",
                json.dumps(sessions, ensure_ascii=False).encode("utf-8", "surrogatepass"),
            ),
        }


def segment_sections(
    seg: Segment, stamps: dict[str, Stamp], sessions: dict[str, tuple[str, str]]
) -> dict[str, tuple[str, bytes | Spool]]:
    """The sections of a segment held in memory."""
    records = [_record_json(seg.records[i], int(seg.files[i])) for i in range(len(seg))]
    w = SegmentWriter(SegmentWriter.dicts(seg.texts, seg.titles, records))
    for i, rec in enumerate(records):
        w.add(seg.texts[i], seg.titles[i], rec)
    return w.sections(seg, stamps, sessions)


SECTIONS = (
    "vocab", "offsets", "postings", "postings_blocks", "heavy_keys", "heavy_ranges",
    "heavy_ids", "heavy_blocks",
    "texts", "text_offsets", "text_crcs", "text_dict", "cjk", "cjk_offsets", "cjk_crcs",
    "titles", "title_blocks", "title_offsets", "title_crcs", "title_dict",
    "records", "record_blocks", "record_offsets", "record_crcs", "record_dict",
    "kinds", "dates", "groups", "group_starts",
    "files", "file_paths", "file_sizes", "file_mtimes", "hashes", "gists", "facet_keys",
    "facet_offsets", "facet_ids", "facet_blocks", "by_date", "sessions",
)  # fmt: skip
#: Sections checked piece by piece as they are read (a block, a text), not on open.
_LAZY = ("zblocks", "zids", "zraw", "ztexts", "cjk")
#: The CJK runs are checked in chunks of this size, each the first time it is read.
CHUNK = 1 << 16


def save_segment(
    ws: Workspace, seg: Segment, stamps: dict[str, Stamp], sessions: dict[str, tuple[str, str]]
) -> str:
    """Write the segment file; returns its token (the side file names it)."""
    return write_segment(ws, segment_sections(seg, stamps, sessions), len(seg))


def write_segment(ws: Workspace, sections: dict[str, tuple[str, bytes | Spool]], n: int) -> str:
    """Write a segment file of ``n`` records from its sections; returns its token."""
    token = secrets.token_hex(8)
    layout: dict[str, list[Any]] = {}
    body: list[bytes | Spool] = []
    pos = 0
    for name in SECTIONS:
        code, data = sections[name]
        if not isinstance(data, bytes) and code not in _LAZY:
            raise ValueError(f"section {name} is checked whole: it must be bytes")
        crc = 0 if code in _LAZY else zlib.crc32(data)  # type: ignore[arg-type]
        size = len(data) if isinstance(data, bytes) else data.tell()
        layout[name] = [pos, size, code, crc]
        body.append(data)
        pad = (-size) % _ALIGN
        body.append(b"\0" * pad)
        pos += size + pad
    header = json.dumps(
        {
            "version": VERSION,
            "scheme": SCHEME,
            "byteorder": sys.byteorder,
            "token": token,
            "root": str(ws.root),
            "locations": locations_fingerprint(ws),
            "n": n,
            "sections": layout,
        },
        ensure_ascii=False,
    ).encode("utf-8", "surrogatepass")
    head = MAGIC + len(header).to_bytes(8, "little") + header
    head += b"\0" * ((-len(head)) % _ALIGN)

    def chunks() -> Iterator[bytes]:
        yield head
        for part in body:
            if isinstance(part, bytes):
                yield part
            else:  # a spool, written to its end: read back from its start
                size = part.tell()
                part.seek(0)
                while size > 0 and (data := part.read(min(size, 1 << 20))):
                    size -= len(data)
                    yield data
                if size:
                    raise OSError("a temporary part of the search cache ended early")

    replace_file(ws.state_dir / BIN_NAME, chunks())
    for old in ws.state_dir.glob("search-cache-v*"):  # other versions' caches
        if old.name not in (BIN_NAME, SIDE_NAME) and not old.name.startswith("."):
            with contextlib.suppress(OSError):
                old.unlink()
    return token


def save_side(ws: Workspace, index: SearchIndex, token: str) -> None:
    """What changed since the segment was written: file identities, tombstones, delta."""
    base = index.main_stamps
    changed = [[p, st[0], st[1]] for p, st in sorted(index.stamps.items()) if base.get(p) != st]
    removed = sorted(p for p in base if p not in index.stamps)
    data = {
        "version": VERSION,
        "token": token,
        "root": str(ws.root),
        "locations": locations_fingerprint(ws),
        "changed": changed,
        "removed": removed,
        "tomb": sorted(index.tomb),
        "delta": [list(d.record) for d in index.delta],
    }
    replace_file(
        ws.state_dir / SIDE_NAME,
        [
            json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode(
                "utf-8", "surrogatepass"
            )
        ],
    )


def save_index(ws: Workspace, index: SearchIndex, *, full: bool | None = None) -> None:
    """Write what changed: the segment when it is new (or ``full``), the side file always."""
    token = index.cache_token
    if full or token is None:
        token = save_segment(ws, index.main, index.main_stamps, index.sessions)
        index.cache_token = token
    save_side(ws, index, token)


# -- reading ---------------------------------------------------------------------------------


def _from_planes(raw: bytes, count: int) -> array[int]:
    """``count`` ids from their byte planes (:func:`_pack_ids`): three or four of them."""
    if count == 0 or len(raw) not in (3 * count, 4 * count):
        raise ValueError("byte planes of the wrong size")
    where = _LOW_BYTES if len(raw) == 3 * count else (0, 1, 2, 3)
    out = bytearray(4 * count)
    for k, pos in enumerate(where):
        out[pos::4] = raw[k * count : (k + 1) * count]
    got = array("I")
    got.frombytes(out)
    return got


class _PackedIds:
    """Ids packed by :func:`_pack_ids`, indexed and sliced like an array (a slice is an
    ``array('I')``): the blocks a slice covers are decompressed and put back together at
    C speed, the last :data:`KEEP_BLOCKS` kept. zlib's checksum and each block's length
    are checked as it is decoded."""

    def __init__(self, packed: tuple[memoryview, bool], blocks: Any, count: int) -> None:
        self.data, self.delta = packed
        self.blocks = blocks
        self.count = count
        self.per = per = ID_BLOCK
        self.kept: dict[int, array[int]] = {}
        if len(blocks) != -(-count // per) + 1 or blocks[-1] != len(self.data):
            raise CacheError("block table of the wrong size")

    def __len__(self) -> int:
        return self.count

    def _block(self, b: int) -> array[int]:
        got = self.kept.get(b)
        if got is None:
            start, end = self.blocks[b], self.blocks[b + 1]
            if not 0 <= start <= end <= len(self.data):
                raise CacheError("offset out of bounds")
            want = min(self.per, self.count - b * self.per)
            try:
                raw = zlib.decompress(self.data[start:end])
                if self.delta:
                    diffs = array("i")
                    diffs.frombytes(raw)
                    got = array("I", itertools.accumulate(diffs))
                else:
                    got = _from_planes(raw, want)
            except (zlib.error, ValueError, OverflowError) as exc:
                raise CacheError("a corrupt block of ids") from exc
            if len(got) != want:
                raise CacheError("a block of ids of the wrong length")
            if len(self.kept) >= KEEP_BLOCKS:
                self.kept.clear()
            self.kept[b] = got
        return got

    def __getitem__(self, i: Any) -> Any:
        per = self.per
        if isinstance(i, slice):
            start, stop, step = i.indices(self.count)
            if step != 1:
                raise ValueError("only plain slices of ids")
            if start >= stop:
                return array("I")
            first, last = start // per, (stop - 1) // per
            if first == last:
                return self._block(first)[start - first * per : stop - first * per]
            out = array("I")
            for b in range(first, last + 1):
                base = b * per
                out += self._block(b)[max(start, base) - base : min(stop, base + per) - base]
            return out
        if i < 0:
            i += self.count
        if not 0 <= i < self.count:
            raise IndexError(i)
        return self._block(i // per)[i % per]

    def __iter__(self) -> Iterator[int]:
        for b in range(len(self.blocks) - 1):
            yield from self._block(b)


class _Heavy(Mapping[str, Any]):
    """The precomputed id sets, each decoded from the packed ids when asked for (and
    :meth:`size` without decoding)."""

    def __init__(self, keys: list[str], ranges: Any, ids: _PackedIds) -> None:
        self.where = {k: (int(ranges[2 * i]), int(ranges[2 * i + 1])) for i, k in enumerate(keys)}
        self.ids = ids

    def __getitem__(self, key: str) -> Any:
        start, end = self.where[key]
        return self.ids[start:end]

    def __iter__(self) -> Iterator[str]:
        return iter(self.where)

    def __len__(self) -> int:
        return len(self.where)

    def size(self, key: str) -> int | None:
        got = self.where.get(key)
        return None if got is None else got[1] - got[0]


def _inflater(zdict: bytes) -> Any:
    """A raw deflate decompressor primed with ``zdict``, copied for each stream."""
    return zlib.decompressobj(-15, zdict=zdict) if zdict else zlib.decompressobj(-15)


_COPY = type(zlib.decompressobj()).copy
_INFLATE = type(zlib.decompressobj()).decompress
_DECODE = operator.methodcaller("decode", "utf-8", "surrogatepass")


class _ZStrings(Sequence[str]):
    """UTF-8 strings in raw deflate blocks of ``per`` (:class:`_BlockSink`), decoded one at a
    time: reading one decompresses its block (the last :data:`KEEP_BLOCKS` are kept),
    checked against the block's CRC-32 and length. (Raw deflate: zlib's own stream format
    would check the 32 KB dictionary's checksum at every block, most of the time spent.)"""

    def __init__(
        self, data: memoryview, offsets: Any, blocks: Any, crcs: Any, per: int, zdict: bytes
    ) -> None:
        self.data = data
        self.offsets = offsets
        self.blocks = blocks
        self.crcs = crcs
        self.per = per
        self.primed = _inflater(zdict)
        #: strings read lately (the best candidates of one key are mostly those of the
        #: key before)
        self.items: dict[int, str] = {}
        self.kept: dict[int, bytes] = {}
        if len(blocks) != -(-(len(offsets) - 1) // per) + 1 or blocks[-1] != len(data):
            raise CacheError("block table of the wrong size")
        if len(crcs) != len(blocks) - 1:
            raise CacheError("block checksums of the wrong size")

    def __len__(self) -> int:
        return len(self.offsets) - 1

    def _block(self, b: int) -> bytes:
        got = self.kept.get(b)
        if got is None:
            start, end = self.blocks[b], self.blocks[b + 1]
            if not 0 <= start <= end <= len(self.data):
                raise CacheError("offset out of bounds")
            try:
                d = self.primed.copy()
                got = d.decompress(self.data[start:end])
                if not d.eof or d.unused_data:
                    raise CacheError("a block cut short")
            except zlib.error as exc:
                raise CacheError("a corrupt block") from exc
            first, last = b * self.per, min((b + 1) * self.per, len(self))
            if len(got) != self.offsets[last] - self.offsets[first]:
                raise CacheError("a block of the wrong length")
            if zlib.crc32(got) != self.crcs[b]:
                raise CacheError("a corrupt block")
            if len(self.kept) >= KEEP_BLOCKS:
                self.kept.clear()
            self.kept[b] = got
        return got

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        if i < 0:
            i += len(self)
        if not 0 <= i < len(self):
            raise IndexError(i)
        got = self.items.get(i)
        if got is None:
            b = i // self.per
            base = self.offsets[b * self.per]
            raw = self._block(b)
            got = raw[self.offsets[i] - base : self.offsets[i + 1] - base].decode(
                "utf-8", "surrogatepass"
            )
            if len(self.items) >= KEEP_ITEMS:
                self.items.clear()
            self.items[i] = got
        return got

    def __iter__(self) -> Any:
        for i in range(len(self)):
            yield self[i]


class _ZTexts(Sequence[str]):
    """The searchable texts: each compressed on its own (:class:`_TextSink`) and checked
    against its CRC-32 as it is decompressed; beside them the CJK runs of each text
    (:func:`cjk_runs`) as they are, checked a chunk at a time the first time it is read,
    so that a CJK term — the searches that read the most texts — is looked for in the
    mapped file without decompressing anything.

    :meth:`holding` and :meth:`holding_texts` answer for many ids at once with no Python
    code per id (``map`` over C functions: slicing, copying a primed decompressor,
    inflating, CRC-32, ``in`` on the UTF-8 bytes, which for valid UTF-8 is ``in`` on the
    text; ``mmap.find`` on the CJK runs). Nothing is kept: a text costs about 2 µs to
    read again.
    """

    def __init__(
        self,
        data: memoryview,
        offsets: Any,
        crcs: Any,
        zdict: bytes,
        cjk: tuple[memoryview, mmap.mmap, int],
        cjk_offsets: Any,
        cjk_crcs: Any,
    ) -> None:
        n = len(crcs)
        if len(offsets) != n + 1 or (n and offsets[-1] != len(data)):
            raise CacheError("text table of the wrong size")
        self.cjk, self.mm, self.cjk_base = cjk
        if len(cjk_offsets) != n + 1 or (n and cjk_offsets[-1] != len(self.cjk)):
            raise CacheError("CJK table of the wrong size")
        if len(cjk_crcs) != -(-len(self.cjk) // CHUNK):
            raise CacheError("CJK chunk table of the wrong size")
        self.data = data
        self.offsets = offsets
        self.crcs = crcs
        self.primed = _inflater(zdict)
        self.cjk_offsets = cjk_offsets
        self.cjk_crcs = cjk_crcs
        self.cjk_ok = bytearray(len(cjk_crcs))

    def __len__(self) -> int:
        return len(self.crcs)

    def raw(self, ids: list[int]) -> list[bytes]:
        """The UTF-8 texts of ``ids``, checked."""
        off = self.offsets
        try:
            ends = map(off.__getitem__, map(operator.add, ids, itertools.repeat(1)))
            streams = map(self.data.__getitem__, map(slice, map(off.__getitem__, ids), ends))
            copies = map(_COPY, itertools.repeat(self.primed, len(ids)))
            got = list(map(_INFLATE, copies, streams))
            ok = all(map(operator.eq, map(zlib.crc32, got), map(self.crcs.__getitem__, ids)))
        except (zlib.error, IndexError, TypeError) as exc:
            raise CacheError("a corrupt text") from exc
        if not ok:
            raise CacheError("a corrupt text")
        return got

    def _check_chunks(self, chunks: Iterable[int]) -> None:
        """Check the CJK text's ``chunks`` against their checksums (each once)."""
        ok, crcs, cjk = self.cjk_ok, self.cjk_crcs, self.cjk
        for c in chunks:
            if c < len(ok) and not ok[c]:
                if zlib.crc32(cjk[c * CHUNK : (c + 1) * CHUNK]) != crcs[c]:
                    raise CacheError("a corrupt chunk of CJK text")
                ok[c] = 1

    def check_cjk(self) -> None:
        """Check all of the CJK text now (a few milliseconds at 10,000 reports), not at the
        first keystrokes that read it.

        The pages are let go once checked, 4 MB at a time: they stay in the system's file
        cache, but not in the process's memory (30 MB at 30,000 reports), so the check
        adds nothing to the app's footprint; a search that reads them maps them again."""
        drop = getattr(mmap, "MADV_DONTNEED", None)
        count, step = len(self.cjk_ok), 64  # 4 MB at a time
        for first in range(0, count, step):
            self._check_chunks(range(first, min(count, first + step)))
            if drop is not None:
                start = self.cjk_base + first * CHUNK
                start -= start % mmap.PAGESIZE
                end = self.cjk_base + min(len(self.cjk), (first + step) * CHUNK)
                with contextlib.suppress(OSError, ValueError):
                    self.mm.madvise(drop, start, end - start)

    def _cjk_holding(self, ids: list[int], key: bytes) -> list[int]:
        """The ids whose CJK runs hold ``key``, found in the mapped file itself."""
        off, base, repeat = self.cjk_offsets, self.cjk_base, itertools.repeat
        try:
            starts = list(map(off.__getitem__, ids))
            ends = list(map(off.__getitem__, map(operator.add, ids, repeat(1))))
        except (IndexError, TypeError) as exc:
            raise CacheError("a CJK text out of bounds") from exc
        chunks = set(map(operator.rshift, starts, repeat(CHUNK.bit_length() - 1)))
        chunks.update(map(operator.rshift, ends, repeat(CHUNK.bit_length() - 1)))
        if max(map(operator.sub, ends, starts), default=0) > CHUNK:  # a run over chunks
            for a, b in zip(starts, ends, strict=True):
                chunks.update(range(a // CHUNK, b // CHUNK + 1))
        self._check_chunks(chunks)
        found = map(
            self.mm.find,
            repeat(key),
            map(operator.add, starts, repeat(base)),
            map(operator.add, ends, repeat(base)),
        )
        return list(itertools.compress(ids, map(operator.ge, found, repeat(0))))

    def holds(self, i: int, needle: str) -> bool:
        """Whether text ``i`` holds ``needle`` (:meth:`holding` for many ids at once)."""
        if not is_cjk(needle):
            return needle.encode("utf-8", "surrogatepass") in self.raw([i])[0]
        off = self.cjk_offsets
        if not 0 <= i < len(off) - 1:
            raise CacheError("a CJK text out of bounds")
        start, end = off[i], off[i + 1]
        self._check_chunks(range(start // CHUNK, end // CHUNK + 1))
        key = needle.encode("utf-8", "surrogatepass")
        return self.mm.find(key, self.cjk_base + start, self.cjk_base + end) >= 0

    def holding(self, ids: list[int], needle: str) -> list[int]:
        """The ids whose text holds ``needle``."""
        key = needle.encode("utf-8", "surrogatepass")
        if is_cjk(needle):  # made of CJK characters only: in the text if in its CJK runs
            return self._cjk_holding(ids, key)
        got = self.raw(ids)
        return list(itertools.compress(ids, map(operator.contains, got, itertools.repeat(key))))

    def holding_texts(self, ids: list[int], needles: Sequence[str]) -> list[tuple[int, str]]:
        """(id, text) of the ids whose text holds every needle, each text read once (CJK
        needles first, on the CJK runs: only what passes them is decompressed)."""
        for needle in needles:
            if is_cjk(needle):
                ids = self.holding(ids, needle)
        got = self.raw(ids)
        for needle in needles:
            if not is_cjk(needle):
                key = needle.encode("utf-8", "surrogatepass")
                keep = list(map(operator.contains, got, itertools.repeat(key)))
                ids = list(itertools.compress(ids, keep))
                got = list(itertools.compress(got, keep))
        return list(zip(ids, map(_DECODE, got), strict=True))

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            return list(map(_DECODE, self.raw(list(range(*i.indices(len(self)))))))
        if i < 0:
            i += len(self)
        if not 0 <= i < len(self):
            raise IndexError(i)
        return _DECODE(self.raw([i])[0])

    def __iter__(self) -> Iterator[str]:
        for start in range(0, len(self), 4096):
            yield from map(_DECODE, self.raw(list(range(start, min(start + 4096, len(self))))))


class _Records(Sequence[SearchRecord]):
    def __init__(self, strings: Sequence[str], paths: list[str]) -> None:
        self.strings = strings
        self.paths = paths
        self.cache: dict[int, SearchRecord] = {}

    def __len__(self) -> int:
        return len(self.strings)

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        got = self.cache.get(i)
        if got is None:
            got = record_from_json(json.loads(self.strings[i]), self.paths)
            if len(self.cache) > 50_000:
                self.cache.clear()
            self.cache[i] = got
        return got


def _strs(values: Any) -> bool:
    return isinstance(values, list) and all(isinstance(x, str) for x in values)


def record_from_json(data: Any, paths: list[str] | None = None) -> SearchRecord:
    """A record as the cache holds it (see :func:`_record_json`), checked field by field."""
    if not isinstance(data, list) or len(data) != len(SearchRecord._fields):
        raise CacheError("a record of the wrong shape")
    kind, rid, path, line, anchor, title, fields, date, project, sid, facets, gist = data
    if not all(isinstance(x, str) for x in (kind, rid, anchor, date, project, sid)):
        raise CacheError("a record field of the wrong type")
    if not isinstance(line, int) or not _strs(fields) or not _strs(facets) or len(fields) % 2:
        raise CacheError("a record field of the wrong type")
    if isinstance(path, int) and paths is not None and 0 <= path < len(paths):
        path = paths[path]
    values = fields[1::2]
    if isinstance(title, int) and 0 <= title < len(values):
        title = first_line(values[title])
    if isinstance(gist, int) and 0 <= gist < len(values):
        gist = values[gist]
    elif gist == [0, 1] and len(values) >= 2:
        gist = f"{values[0]}\n{values[1]}"
    if not isinstance(path, str) or not isinstance(title, str) or not isinstance(gist, str):
        raise CacheError("a record field of the wrong type")
    return SearchRecord(
        kind, rid, path, line, anchor, title, tuple(fields), date, project, sid, tuple(facets), gist
    )


@dataclass
class _Mapped:
    mm: mmap.mmap
    view: memoryview
    header: dict[str, Any]


def _open_bin(path: Path, ws: Workspace) -> _Mapped:
    try:
        fh = open(path, "rb")  # noqa: SIM115 - closed below; the mapping outlives it
    except OSError as exc:
        raise CacheError(f"no cache: {exc}") from exc
    with fh:
        size = os.fstat(fh.fileno()).st_size
        if size < len(MAGIC) + 8:
            raise CacheError("too short")
        mm = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
    view = memoryview(mm)
    if bytes(view[: len(MAGIC)]) != MAGIC:
        raise CacheError("not a hurikaeri search cache")
    hlen = int.from_bytes(view[len(MAGIC) : len(MAGIC) + 8], "little")
    start = len(MAGIC) + 8
    if hlen <= 0 or start + hlen > size:
        raise CacheError("bad header length")
    try:
        header = json.loads(bytes(view[start : start + hlen]))
    except ValueError as exc:
        raise CacheError("unreadable header") from exc
    if not isinstance(header, dict) or header.get("version") != VERSION:
        raise CacheError("another version")
    if header.get("scheme") != SCHEME:
        raise CacheError("made by another version of hurikaeri")
    if header.get("byteorder") != sys.byteorder:
        raise CacheError("another byte order")
    if header.get("root") != str(ws.root) or header.get("locations") != locations_fingerprint(ws):
        raise CacheError("made for another workspace")
    base = start + hlen + ((-(start + hlen)) % _ALIGN)
    header["_base"] = base
    header["_size"] = size
    return _Mapped(mm, view, header)


def _section(m: _Mapped, name: str) -> Any:
    try:
        off, length, code, crc = m.header["sections"][name]
    except (KeyError, TypeError, ValueError) as exc:
        raise CacheError(f"section {name} missing") from exc
    if not (isinstance(off, int) and isinstance(length, int) and off >= 0 and length >= 0):
        raise CacheError(f"section {name} malformed")
    start = m.header["_base"] + off
    if start + length > m.header["_size"]:
        raise CacheError(f"section {name} out of bounds")
    data = m.view[start : start + length]
    if code in _LAZY:
        if code in ("zids", "zraw"):
            return data, code == "zids"
        return data  # checked block by block (text by text) as it is read
    if zlib.crc32(data) != crc:
        raise CacheError(f"section {name} is corrupt")
    if code == "blob":
        return data
    if code not in ("I", "Q", "B"):
        raise CacheError(f"section {name} of unknown type")
    if length % array(code).itemsize:
        raise CacheError(f"section {name} of odd length")
    return data.cast(code)


def load_segment(ws: Workspace) -> tuple[Segment, dict[str, Any]]:
    """The cached segment of ``ws`` (raises :class:`CacheError` when it cannot be trusted)."""
    try:
        return _load_segment(ws)
    except CacheError:
        raise
    except Exception as exc:  # whatever is wrong with it, it is not used
        raise CacheError(f"unreadable cache: {type(exc).__name__}: {exc}") from exc


def _load_segment(ws: Workspace) -> tuple[Segment, dict[str, Any]]:
    m = _open_bin(ws.state_dir / BIN_NAME, ws)
    h = m.header
    n = h.get("n")
    if not isinstance(n, int) or n < 0:
        raise CacheError("bad record count")
    if not isinstance(h.get("sections"), dict) or set(h["sections"]) != set(SECTIONS):
        raise CacheError("another layout")
    s = {name: _section(m, name) for name in SECTIONS}
    vocab_blob = bytes(s["vocab"])
    vocab = vocab_blob.decode("utf-8", "surrogatepass").split("\0") if vocab_blob else []
    heavy_keys = _split(s["heavy_keys"])
    facet_keys = _split(s["facet_keys"])
    file_paths = _split(s["file_paths"])
    hr = s["heavy_ranges"]
    checks = [
        len(s["offsets"]) == len(vocab) + 1,
        len(hr) == 2 * len(heavy_keys),
        len(s["facet_offsets"]) == len(facet_keys) + 1,
        len(s["text_offsets"]) == n + 1,
        len(s["title_offsets"]) == n + 1,
        len(s["record_offsets"]) == n + 1,
        len(s["file_sizes"]) == len(s["file_mtimes"]) == len(file_paths),
        all(
            len(s[k]) == n
            for k in ("kinds", "dates", "groups", "files", "hashes", "gists", "by_date")
        ),
        len(s["text_crcs"]) == n,
        n == 0 or s["title_blocks"][-1] == len(s["titles"]),
        n == 0 or s["record_blocks"][-1] == len(s["records"]),
        all(a <= b <= max(hr, default=0) for a, b in zip(hr[::2], hr[1::2], strict=True)),
        n == 0 or (len(s["group_starts"]) >= 2 and s["group_starts"][-1] == n),
    ]
    if not all(checks):
        raise CacheError("inconsistent sections")
    postings = _PackedIds(
        s["postings"], s["postings_blocks"], int(s["offsets"][-1]) if vocab else 0
    )
    # every packed id set belongs to a key: the furthest end is how many ids there are
    heavy_ids = _PackedIds(s["heavy_ids"], s["heavy_blocks"], int(max(hr, default=0)))
    heavy = _Heavy(heavy_keys, hr, heavy_ids)
    facet_ids = _PackedIds(
        s["facet_ids"], s["facet_blocks"], int(s["facet_offsets"][-1]) if facet_keys else 0
    )
    texts = _ZTexts(
        s["texts"],
        s["text_offsets"],
        s["text_crcs"],
        bytes(s["text_dict"]),
        (s["cjk"], m.mm, h["_base"] + h["sections"]["cjk"][0]),
        s["cjk_offsets"],
        s["cjk_crcs"],
    )
    titles = _ZStrings(
        s["titles"],
        s["title_offsets"],
        s["title_blocks"],
        s["title_crcs"],
        TITLE_BLOCK,
        bytes(s["title_dict"]),
    )
    records = _Records(
        _ZStrings(
            s["records"],
            s["record_offsets"],
            s["record_blocks"],
            s["record_crcs"],
            RECORD_BLOCK,
            bytes(s["record_dict"]),
        ),
        file_paths,
    )
    seg = Segment(
        records=records,
        texts=texts,
        titles=titles,
        vocab=vocab,
        offsets=s["offsets"],
        postings=postings,
        heavy=heavy,
        kinds=s["kinds"],
        dates=s["dates"],
        groups=s["groups"],
        group_starts=s["group_starts"],
        files=s["files"],
        file_paths=file_paths,
        hashes=s["hashes"],
        gists=s["gists"],
        facet_keys=facet_keys,
        facet_offsets=s["facet_offsets"],
        facet_ids=facet_ids,
        by_date=s["by_date"],
        vocab_blob=vocab_blob,
    )
    seg._mapped = m  # type: ignore[attr-defined]  # keeps the mapping alive
    stamps = dict(zip(file_paths, zip(s["file_sizes"], s["file_mtimes"], strict=True), strict=True))
    h["_stamps"] = stamps
    h["_sessions"] = s["sessions"]
    return seg, h


def _split(data: memoryview) -> list[str]:
    text = bytes(data).decode("utf-8", "surrogatepass")
    return text.split("\0") if text else []


def _sessions(raw: Any) -> dict[str, tuple[str, str]]:
    try:
        data = json.loads(bytes(raw))
    except ValueError as exc:
        raise CacheError("bad session table") from exc
    if not isinstance(data, dict):
        raise CacheError("bad session table")
    out: dict[str, tuple[str, str]] = {}
    for k, v in data.items():
        if not (isinstance(v, list) and len(v) == 2 and all(isinstance(x, str) for x in v)):
            raise CacheError("bad session row")
        out[k] = (v[0], v[1])
    return out


def _stamp_rows(raw: Any) -> dict[str, Stamp]:
    if not isinstance(raw, list):
        raise CacheError("bad file table")
    out: dict[str, Stamp] = {}
    for row in raw:
        if not (
            isinstance(row, list)
            and len(row) == 3
            and isinstance(row[0], str)
            and isinstance(row[1], int)
            and isinstance(row[2], int)
        ):
            raise CacheError("bad file table row")
        out[row[0]] = (row[1], row[2])
    return out


def load_index(ws: Workspace) -> SearchIndex:
    """The cached index of ``ws`` as last saved (raises :class:`CacheError`)."""
    seg, header = load_segment(ws)
    main_stamps: dict[str, Stamp] = header["_stamps"]
    index = SearchIndex(seg, main_stamps, None)
    raw_sessions = header["_sessions"]
    index.sessions_loader = lambda: _sessions(raw_sessions)
    token = header.get("token")
    if not isinstance(token, str):
        raise CacheError("bad token")
    index.cache_token = token
    try:
        side = json.loads((ws.state_dir / SIDE_NAME).read_bytes())
    except (OSError, ValueError):
        return index
    if not isinstance(side, dict) or side.get("token") != token:
        return index
    if side.get("root") != str(ws.root) or side.get("locations") != locations_fingerprint(ws):
        return index
    tomb, delta, removed = side.get("tomb"), side.get("delta"), side.get("removed")
    if not isinstance(tomb, list) or not all(
        isinstance(t, int) and 0 <= t < len(seg) for t in tomb
    ):
        return index
    if not isinstance(delta, list) or not isinstance(removed, list) or not _strs(removed):
        return index
    try:
        records = [record_from_json(r) for r in delta]
        changed = _stamp_rows(side.get("changed"))
    except CacheError:
        return index
    stamps = dict(main_stamps)
    stamps.update(changed)
    for p in removed:
        stamps.pop(p, None)
    index.stamps = stamps
    index.tomb = set(tomb)
    deltas: dict[str, list[DeltaRecord]] = {}
    for r in records:
        deltas.setdefault(r.path, []).append(_delta(r))
    index.delta_of = deltas
    index.delta = [d for recs in deltas.values() for d in recs]
    if index.delta:
        index.join_delta_sessions()
    return index


# -- opening: cache, then only what changed ------------------------------------------------


#: A summaries or lessons file bigger than twice this is parsed in parts of about this size,
#: each on its own (a worker holds one part's records, not those of a 100 MB file).
PART_BYTES = 8 << 20

_Part = tuple[int, int, int, int, Stamp]
"""(part number, first byte, end, first line, the file's identity) of a part of a file."""
_Job = tuple[str, Kind | None, str, _Part | None]
Parsed = tuple[str, int, Stamp | None, list[SearchRecord]]
"""(path, part number, identity, records) of a file or a part of one."""


def _parse_chunk(items: list[_Job]) -> list[Parsed]:
    from store.search.records import load_record_part, load_records

    out: list[Parsed] = []
    for path, kind, display, part in items:
        if part is None or kind is None:
            stamp, recs = load_records(Path(path), kind, display)
            out.append((path, 0, stamp, recs))
        else:
            k, start, end, line, st = part
            recs = load_record_part(
                Path(path), kind, start, end, line, last=end >= st[0], display=display
            )
            out.append((path, k, st, recs))
    return out


def _parts(path: str, kind: Kind | None) -> list[_Part] | None:
    """The parts a big summaries or lessons file is parsed in (None: parse it whole)."""
    if kind not in (Kind.SUMMARIES, Kind.LESSONS):
        return None
    from store.read.jsonl import cut_points
    from store.read.textio import MAX_JSONL_BYTES, NotReadable, looks_binary, open_regular

    try:
        with open_regular(path, MAX_JSONL_BYTES) as (fh, st):
            if st.st_size <= 2 * PART_BYTES:
                return None
            with mmap.mmap(fh.fileno(), st.st_size, access=mmap.ACCESS_READ) as m:
                if looks_binary(m[:8192]):
                    return None  # the whole file's reader says why it is not read
                cuts = cut_points(m, PART_BYTES)
    except (OSError, ValueError, NotReadable):
        return None
    stamp = (st.st_size, st.st_mtime_ns)
    return (
        [(k, s, e, line, stamp) for k, (s, e, line) in enumerate(cuts)] if len(cuts) > 1 else None
    )


def parse_files(
    ws: Workspace,
    items: list[tuple[str, Kind | None]],
    progress: Callable[[int, int], None] | None = None,
    parallel: bool = True,
) -> list[tuple[str, Stamp | None, list[SearchRecord]]]:
    """Parse files into records, in worker processes when there are many."""
    return whole_files(iter_parsed(ws, items, progress, parallel))


def whole_files(
    parsed: Iterable[Parsed],
) -> list[tuple[str, Stamp | None, list[SearchRecord]]]:
    """Each file's parts put back together, in order: (path, identity, records)."""
    got: dict[str, list[tuple[int, Stamp | None, list[SearchRecord]]]] = {}
    for path, k, stamp, recs in parsed:
        got.setdefault(path, []).append((k, stamp, recs))
    out = []
    for path, parts in got.items():
        parts.sort(key=lambda p: p[0])
        out.append((path, parts[0][1], [r for _k, _s, recs in parts for r in recs]))
    return out


def iter_parsed(
    ws: Workspace,
    items: list[tuple[str, Kind | None]],
    progress: Callable[[int, int], None] | None = None,
    parallel: bool = True,
) -> Iterator[Parsed]:
    """:func:`parse_files`, each file's records (or each part's, for a big JSONL file)
    yielded as its chunk is done, in no particular order, so that they need not all be
    held at once."""
    total = len(items)
    jobs: list[_Job] = []
    sizes: list[int] = []
    for p, k in items:
        display = ws.display(Path(p))
        parts = _parts(p, k)
        if parts is not None:
            jobs.extend((p, k, display, part) for part in parts)
            sizes.extend(part[2] - part[1] for part in parts)
            continue
        jobs.append((p, k, display, None))
        try:
            sizes.append(os.stat(p).st_size)
        except OSError:
            sizes.append(0)
    chunks = chunk_by_size(jobs, sizes)
    preload = ["store.search.records"]
    left = Counter(job[0] for job in jobs)  # a file is done when all its parts are
    done = 0
    for chunk_result in map_chunks(_parse_chunk, chunks, sum(sizes) if parallel else 0, preload):
        yield from chunk_result
        for p, _k, _s, _r in chunk_result:
            left[p] -= 1
            done += not left[p]
        if progress is not None:
            progress(done, total)


def build_index(
    ws: Workspace,
    items: list[tuple[str, Kind | None]],
    stamps: Mapping[str, Stamp | None],
    *,
    progress: Callable[[int, int], None] | None = None,
    save: bool = True,
    parallel: bool = True,
) -> tuple[SearchIndex, bool]:
    """A full build of the index of ``items`` (``stamps``: each file's identity when
    parsing cannot tell it): in bounded memory straight into the cache file when ``save``
    and the state folder can take it (:mod:`store.search.build`), else in memory. Also
    returns whether the cache file was written."""
    from store.search.build import NoRoom, build_saved

    def parsed() -> Iterator[tuple[str, int, Stamp, list[SearchRecord]]]:
        for path, k, stamp, recs in iter_parsed(ws, items, progress, parallel):
            st = stamp or stamps.get(path)
            if st is not None:
                yield path, k, st, recs

    if save:
        try:
            return build_saved(ws, parsed()), True
        except NoRoom:
            pass
        except (OSError, CacheError):  # the disk filled up, say: build it again, in memory
            pass
    built = {path: (st or (0, 0), recs) for path, st, recs in whole_files(parsed())}
    return SearchIndex.build(built), False


def open_index(
    ws: Workspace,
    *,
    progress: Callable[[int, int], None] | None = None,
    save: bool = True,
    parallel: bool = True,
) -> tuple[SearchIndex, dict[str, int]]:
    """The index of ``ws``: the cache when it can be trusted, with the files changed since
    re-read (and only those); a full build otherwise. Returns it and what was done."""
    files = scan_workspace(ws)
    stats = {"files": len(files), "parsed": 0, "removed": 0, "rebuilt": 0}
    try:
        index = load_index(ws)
    except CacheError:
        index = None
    if index is None:
        items = [(p, k) for p, (k, _s) in sorted(files.items())]
        index, saved = build_index(
            ws,
            items,
            {p: st for p, (_k, st) in files.items()},
            progress=progress,
            save=save,
            parallel=parallel,
        )
        stats["parsed"] = len(items)
        stats["rebuilt"] = 1
        if save and not saved:
            _save_quietly(ws, index, full=True)
        return index, stats
    changed = [(p, k) for p, (k, st) in sorted(files.items()) if index.stamps.get(p) != st]
    removed = [p for p in index.stamps if p not in files]
    for p in removed:
        index.update_file(p, None, None)
    if changed:
        for path, stamp, recs in parse_files(ws, changed, progress, parallel):
            index.update_file(path, stamp or files[path][1], recs)
    stats["parsed"] = len(changed)
    stats["removed"] = len(removed)
    if index.needs_compaction:
        index = index.compacted()
        stats["rebuilt"] = 1
        if save:
            _save_quietly(ws, index, full=True)
    elif (changed or removed) and save:
        _save_quietly(ws, index)
    return index, stats


def _save_quietly(ws: Workspace, index: SearchIndex, full: bool | None = None) -> None:
    """Saving is an optimisation: a read-only workspace still searches."""
    with contextlib.suppress(OSError):
        save_index(ws, index, full=full)
