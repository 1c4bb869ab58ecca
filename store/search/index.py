"""The search index: tantivy under ``.hurikaeri/search-v<N>/``, a document per record
(docs/search.md, "The index"). A manifest document, committed with the records, names the
schema, the workspace and every file's identity: after a crash the two agree."""

from __future__ import annotations

import contextlib
import json
import marshal
import os
import re
import shutil
import threading
import time
import zlib
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import tantivy

from store.read.isotime import day_number as parse_day
from store.read.textsafe import first_line
from store.search.model import SearchRecord, Stamp, group_hash
from store.search.query import KINDS
from store.search.text import MAX_TEXT, TOKEN_MAX, cjk_runs, index_terms, normalize, word_run
from store.workspace import Workspace

#: What the documents mean (fields, tokens, records): another number is another directory.
SCHEMA = 8
DIR_NAME = f"search-v{SCHEMA}"
MANIFEST = "\x00manifest"
#: How long a second process waits for the writer before reading what is there.
WRITER_WAIT = 30.0
WRITER_HEAP = 48_000_000


def _schema() -> tantivy.Schema:
    b = tantivy.SchemaBuilder()
    # text is split into words and CJK characters here (as queries are): a regex tokenizer
    # cost tantivy a fresh regex cache per document and field
    b.add_text_field("w", tokenizer_name="hk", index_option="position")
    b.add_text_field("c", tokenizer_name="whitespace", index_option="basic")
    b.add_text_field("u", tokenizer_name="whitespace", index_option="basic")
    b.add_text_field("g", tokenizer_name="whitespace", index_option="position")
    b.add_text_field("tw", tokenizer_name="hk", index_option="basic")
    b.add_text_field("tu", tokenizer_name="whitespace", index_option="basic")
    for name in ("kind", "id", "path", "project", "facet"):
        b.add_text_field(name, tokenizer_name="raw", index_option="basic")
    b.add_unsigned_field("day", indexed=True, fast=True)
    b.add_unsigned_field("gist", indexed=True, fast=True)
    b.add_unsigned_field("rank", fast=True)
    b.add_unsigned_field("sidh", indexed=True, fast=True)
    b.add_bytes_field("rec", stored=True)
    return b.build()


SCHEMA_OBJ = _schema()
LONG = tantivy.Filter.remove_long(4 * TOKEN_MAX + 1)  # bytes: 4 per character
Q_MANIFEST = tantivy.Query.term_query(SCHEMA_OBJ, "kind", MANIFEST)
#: The query of a word no term stands for (this object: what holds it is not searched).
NOTHING = tantivy.Query.empty_query()
KIND_CODE = {k: i for i, k in enumerate(KINDS)}
#: Documents in static rank order within each segment: records a query scores alike come
#: best first (tantivy breaks ties of score by the document's address).
SORTED: dict[str, Any] = {"sort_by_field": "rank", "sort_order": tantivy.Order.Desc}


class IndexBusy(Exception):
    """Another process holds the writer."""


def cjk_terms(norm: str) -> tuple[str, str]:
    """The distinct CJK characters of ``norm``, and each run's pairs (runs apart by ``|``)."""
    runs = cjk_runs().findall(norm)
    pairs = (" ".join(map(str.__add__, run, run[1:])) for run in runs if len(run) > 1)
    return " ".join(set("".join(runs))), " | ".join(pairs)


_SEP = "\x1f"

_UUID = re.compile("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def pack_record(rec: SearchRecord) -> bytes:
    """A record as stored: its strings joined by a unit separator (JSON if one holds it), a
    title or gist among the fields as its number, a UUID session id as 16 bytes and a 0xff
    (random hex is most of what the store's compression leaves)."""
    values = rec.fields[1::2]
    t = next((k for k, v in enumerate(values) if first_line(v) == rec.title), -1)
    g = values.index(rec.gist) if rec.gist in values else -1
    if g < 0 and len(values) >= 2 and rec.gist == f"{values[0]}\n{values[1]}":
        g = -2
    parts = [*rec[:3], str(rec.line), rec.anchor, *rec[7:10], f"{t} {g} {len(rec.facets)}"]
    parts += [*rec.facets, *([rec.title] if t < 0 else []), *([rec.gist] if g == -1 else [])]
    parts += rec.fields
    uuid = _UUID.fullmatch(rec.session_id)
    if uuid:
        parts[7] = ""
    text = _SEP.join(parts)
    if text.count(_SEP) >= len(parts):
        text = json.dumps(parts, ensure_ascii=False, separators=(",", ":"))
    tail = bytes.fromhex(rec.session_id.replace("-", "")) + b"\xff" if uuid else b""
    return text.encode("utf-8", "surrogatepass") + tail


def unpack_record(raw: bytes) -> SearchRecord:
    h = raw[-17:-1].hex() if raw[-1:] == b"\xff" else ""
    text = (raw[:-17] if h else raw).decode("utf-8", "surrogatepass")
    parts: list[str] = json.loads(text) if text[:1] == "[" else text.split(_SEP)
    kind, rid, path, line, anchor, date, project, sid, codes = parts[:9]
    sid = f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}" if h else sid
    t, g, n = map(int, codes.split())
    at = 9 + n + (t < 0) + (g == -1)
    fields = tuple(parts[at:])
    values = fields[1::2]
    title = first_line(values[t]) if t >= 0 else parts[9 + n]
    gist = values[g] if g >= 0 else f"{values[0]}\n{values[1]}" if g == -2 else parts[at - 1]
    facets = tuple(parts[9 : 9 + n])
    return SearchRecord(
        kind, rid, path, int(line), anchor, title, fields, date, project, sid, facets, gist
    )


def sid_hash(sid: str) -> int:
    """A session id in 40 bits (a fast field and a term)."""
    import hashlib  # (a build's: not for a warm search)

    return int.from_bytes(
        hashlib.blake2b(sid.encode("utf-8", "surrogatepass"), digest_size=5).digest()
    )


def doc_fields(rec: SearchRecord, gist: int) -> dict[str, Any]:
    """A record's document fields (``gist``: its :func:`group_hash`), in a parsing worker."""
    day = parse_day(rec.date.strip()[:10]) or 0  # (``YYYY-MM-DD…``)
    text = rec.search_text()  # its first MAX_TEXT characters, and when cut, its title
    norm = normalize(f"{text[:MAX_TEXT]}\n{rec.title[:1024]}" if len(text) > MAX_TEXT else text)
    words, compounds = index_terms(norm)
    title = normalize(rec.title[:1024])
    project = normalize(rec.project)
    fields: dict[str, Any] = {
        "w": words,
        "c": " ".join(compounds),
        "tw": " ".join(word_run().findall(title)),
        "kind": rec.kind,
        "id": rec.id,
        "path": rec.path,
        "day": day,
        "gist": gist,
        "rank": rank_of(rec, day),
        "facet": [normalize(f) for f in rec.facets],
        "rec": pack_record(rec),
    }
    if not norm.isascii():  # (an ASCII text holds no CJK: not tokenised for nothing)
        fields["u"], fields["g"] = cjk_terms(norm)
    if not title.isascii():
        fields["tu"] = cjk_terms(title)[0]
    if rec.session_id:
        fields["sidh"] = sid_hash(rec.session_id)
    if project:
        fields["project"] = project
    return fields


#: A parsing worker's records: the first one's line, their fields (marshal), each group's size.
Packed = tuple[int, bytes, Counter[int]]
#: A file's path, identity and records (for :meth:`SearchIndex.update_files`; ``None``: gone).
Change = tuple[str, Stamp | None, list[SearchRecord] | Packed | None]


def pack(recs: list[SearchRecord]) -> Packed:
    rows = [doc_fields(r, group_hash(r)) for r in recs]
    sizes = Counter(f["gist"] for f in rows if f["gist"])
    return (recs[0].line if recs else 0, marshal.dumps(rows), sizes)


def make_doc(fields: dict[str, Any], size: int) -> tantivy.Document:
    """The document of :func:`doc_fields` in a group of ``size`` (the bigger, the higher)."""
    fields["rank"] |= min(size, 0x7FFF) << 48
    try:
        return tantivy.Document.from_dict(fields, SCHEMA_OBJ)
    except ValueError:  # a lone surrogate (JSON's "\ud800"): U+FFFD in the index's UTF-8
        whole = {k: _whole(v) for k, v in fields.items()}
        whole["path"] = path_term(fields["path"])  # a file name not UTF-8: one term each still
        return tantivy.Document.from_dict(whole, SCHEMA_OBJ)


_SURROGATE = re.compile("[\ud800-\udfff]")


def path_term(path: str) -> str:
    """A file's ``path`` term: the path, or one not UTF-8 in hex after a NUL (no path has)."""
    return "\0" + path.encode("utf-8", "surrogatepass").hex() if _SURROGATE.search(path) else path


def _whole(value: Any) -> Any:
    if isinstance(value, str):
        return _SURROGATE.sub("\ufffd", value)
    return [_whole(v) for v in value] if isinstance(value, list) else value


def rank_of(rec: SearchRecord, d: int) -> int:
    """Static rank, below the group's size (:func:`make_doc`): newer (``d``: YYYYMMDD), the
    kind's place in :data:`KINDS`, an earlier line (of 2M)."""
    kind = KIND_CODE.get(rec.kind, 31)
    day = (d // 10000) * 372 + (d // 100 % 100) * 31 + d % 100  # in order, 22 bits
    line = 0x1FFFFF - min(rec.line, 0x1FFFFF)
    return (day << 26) | ((31 - kind) << 21) | line


def identity(ws: Workspace) -> dict[str, Any]:
    """This schema and the workspace's root and locations: what an index is good for."""
    locations = {k: [str(p) for p in v] for k, v in ws.locations.items()}
    data = json.dumps({"root": str(ws.root), "locations": locations}, sort_keys=True)
    return {"schema": SCHEMA, "workspace": data}


def digest(ident: dict[str, Any], stamps: dict[str, Stamp]) -> int:
    """Identity and files (in their order) in 64 bits: a warm search that scans the same
    as the manifest's reads nothing more."""
    text = "\0".join([json.dumps(ident, sort_keys=True), *stamps])
    data = text.encode("utf-8", "surrogatepass")
    # (a tuple of ints hashes alike in every process: only str and bytes hashes are salted)
    numbers = hash(tuple(stamps.values())) & 0xFFFF_FFFF_FFFF_FFFF
    return ((zlib.crc32(data) << 32) | zlib.adler32(data)) ^ numbers


class SearchIndex:
    """A workspace's tantivy index and what it was built from. Reads are safe from any
    thread; writes hold ``lock`` and tantivy's writer lock (a second process waits)."""

    def __init__(self, index: tantivy.Index) -> None:
        self.tindex = index
        self.lock = threading.RLock()
        self._stamps: dict[str, Stamp] | None = None
        self._ident: dict[str, Any] = {}
        self.builds = 0  # full builds by this process (each another ``vocab.Vocab``)
        # words and compound terms of the records added since the last build
        self.new_terms: dict[str, set[str]] = {"w": set(), "c": set()}
        self._writer: Any = None
        self._searcher: Any = None
        self._projects: dict[str, str] = {}  # :meth:`project`'s, since the last commit
        self.digest: list[int] = []  # the manifest's :func:`digest`, or none
        self._read_manifest()

    def _read_manifest(self) -> None:
        self._manifest = self.searcher().search(Q_MANIFEST, 1).hits
        self.digest = self.searcher().fast_field_values("rank", [a for _s, a in self._manifest])

    @classmethod
    def open(cls, where: Path | None) -> SearchIndex:
        """The index in ``where`` (made when absent or foreign; ``None``: in memory)."""
        if where is not None:
            where.mkdir(parents=True, exist_ok=True)
            try:
                index = tantivy.Index(SCHEMA_OBJ, str(where), reuse=True, **SORTED)
            except (OSError, ValueError):  # not an index of this schema: made again
                shutil.rmtree(where, ignore_errors=True)
                where.mkdir(parents=True, exist_ok=True)
                index = tantivy.Index(SCHEMA_OBJ, str(where), reuse=False, **SORTED)
        else:
            index = tantivy.Index(SCHEMA_OBJ, **SORTED)
        hk = tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.whitespace())
        index.register_tokenizer("hk", hk.filter(LONG).build())
        return cls(index)

    def searcher(self) -> Any:
        """A searcher of the last commit (typed ``Any``: tantivy's stubs lack ``count``)."""
        s = self._searcher
        if s is None:
            self.tindex.reload()
            s = self._searcher = self.tindex.searcher()
        return s

    @property
    def stamps(self) -> dict[str, Stamp]:
        """Path → (size, mtime_ns) of each file indexed, read when first asked for."""
        if self._stamps is None:
            self._stamps = {}
            with contextlib.suppress(ValueError, EOFError, TypeError, IndexError):
                # (marshal: a tenth of JSON's time for 10k files; anything else is rebuilt)
                raw = bytes(self.searcher().doc(self._manifest[0][1])["rec"][0])
                ident, stamps = marshal.loads(raw)
                # (the paths are used as terms; the values are only compared)
                ok = isinstance(ident, dict) and isinstance(stamps, dict)
                if ok and all(isinstance(p, str) for p in stamps):
                    self._ident, self._stamps = ident, stamps
        return self._stamps

    @property
    def ident(self) -> dict[str, Any]:
        """The :func:`identity` of the workspace the index reflects (empty: none)."""
        _ = self.stamps  # (read with them)
        return self._ident

    def __len__(self) -> int:
        s = self.searcher()
        return int(s.num_docs - s.search(Q_MANIFEST, 1).count)

    def writer(self) -> Any:
        """This process's writer; :class:`IndexBusy` after ``WRITER_WAIT`` s of another's."""
        if self._writer is not None:
            return self._writer
        deadline, delay = time.monotonic() + WRITER_WAIT, 0.02
        while self._writer is None:
            try:
                self._writer = self.tindex.writer(WRITER_HEAP, 1)
            except ValueError as exc:
                if time.monotonic() >= deadline:
                    raise IndexBusy(str(exc)) from exc
                time.sleep(delay)
                delay = min(delay * 2, 0.5)
        self._catch_up()
        return self._writer

    def _catch_up(self) -> bool:
        """Read the manifest again with the writer held: whether another process committed
        since (a write from the older view would undo what it did)."""
        seen = self.digest
        self._searcher = None
        self._read_manifest()
        if self.digest == seen:
            return False
        self._stamps = None
        self._projects = {}
        return True

    def close_writer(self) -> None:
        with self.lock:
            w, self._writer = self._writer, None
            if w is not None:
                with contextlib.suppress(ValueError):
                    w.wait_merging_threads()

    def _commit(self, w: Any, order: Iterable[str] = ()) -> None:
        """Commit with the manifest, its files in ``order`` (a scan's), those not in it after."""
        stamps = self._stamps = {p: self.stamps[p] for p in order if p in self.stamps} | self.stamps
        self.digest = [digest(self._ident, stamps)]
        manifest = marshal.dumps((self._ident, stamps))
        fields = {"kind": MANIFEST, "rec": manifest, "rank": self.digest[0]}
        w.delete_documents_by_term("kind", MANIFEST)
        w.add_document(tantivy.Document.from_dict(fields, SCHEMA_OBJ))
        w.commit()
        self._searcher = None
        self._projects = {}

    def write_manifest(self, order: Iterable[str]) -> None:
        """The manifest again, its files in ``order``, unless another process writes or wrote."""
        with self.lock, contextlib.suppress(ValueError, OSError):
            if self._writer is None:
                self._writer = self.tindex.writer(WRITER_HEAP, 1)
                if self._catch_up():
                    return
            self._commit(self._writer, order)

    def rebuild(
        self,
        ident: dict[str, Any],
        files: Iterable[tuple[str, Stamp, list[SearchRecord] | Packed]],
        order: Iterable[str] = (),
    ) -> None:
        """Everything anew from ``files`` (path, identity, records; a big file in parts), in
        one commit: until then readers see the index as it was."""
        import tempfile  # (a build's: not for a warm search)

        with self.lock, tempfile.TemporaryFile() as spool:
            w = self.writer()
            w.delete_all_documents()
            self._stamps = {}
            self.builds += 1
            self.new_terms = {"w": set(), "c": set()}
            # records go to a spool as parsed (bounded memory), groups counted for the rank
            sizes: Counter[int] = Counter()
            # path → (first line, spool offset, bytes) of each part
            parts: dict[str, list[tuple[int, int, int]]] = {}
            for path, stamp, recs in files:
                self._stamps[path] = stamp
                line, data, groups = recs if isinstance(recs, tuple) else pack(recs)
                sizes.update(groups)
                parts.setdefault(path, []).append((line, spool.tell(), len(data)))
                spool.write(data)
            # a file at a time, its parts in order: ties of rank keep the order (tantivy's)
            for _line, at, n in (p for file_parts in parts.values() for p in sorted(file_parts)):
                spool.seek(at)
                for fields in marshal.loads(spool.read(n)):  # (``load`` reads piecemeal)
                    w.add_document(make_doc(fields, max(1, sizes[fields["gist"]])))
            self._ident = dict(ident)
            self._commit(w, order)

    def records_where(self, query: Any, limit: int = 1_000_000, **order: str) -> list[SearchRecord]:
        s = self.searcher()
        got = s.search(query, limit, count=False, **order)
        return [unpack_record(bytes(s.doc(a)["rec"][0])) for _score, a in got.hits]

    def project(self, sid: str) -> str:
        """A session's project, from any of its records (a KPT report names none)."""
        got = self._projects.get(sid) if sid else ""
        if got is None:
            q = tantivy.Query.term_query(SCHEMA_OBJ, "sidh", sid_hash(sid))
            # (records of another session of the same 40-bit hash left out)
            ps = [r.project for r in self.records_where(q) if r.session_id == sid]
            got = self._projects[sid] = next(filter(None, ps), "")
        return got

    def update_files(self, changes: Iterable[Change], order: Iterable[str] = ()) -> bool:
        """Replace what the index holds of some files (``None``: gone), in one commit (files
        in ``order``: :meth:`_commit`); whether anything was written."""
        with self.lock:
            changes = list(changes)
            if not changes:
                return False
            w = self.writer()
            added: list[Packed] = []
            gists: set[int] = set()
            for path, stamp, recs in changes:
                if path in self.stamps:
                    q = tantivy.Query.term_query(SCHEMA_OBJ, "path", path_term(path))
                    gists.update(group_hash(r) for r in self.records_where(q))
                w.delete_documents_by_term("path", path_term(path))
                if stamp is None or recs is None:
                    self.stamps.pop(path, None)
                    continue
                self.stamps[path] = stamp
                added.append(recs if isinstance(recs, tuple) else pack(recs))
            for fields in (f for _line, data, _g in added for f in marshal.loads(data)):
                gists.add(fields["gist"])
                self.new_terms["w"].update(fields["w"][0].split())
                self.new_terms["c"].update(fields["c"].split())
                w.add_document(make_doc(fields, 1))
            gists.discard(0)
            self._commit(w, order)
            if gists:  # re-added with their group's size as rank, read from that commit
                q = tantivy.Query.term_set_query(SCHEMA_OBJ, "gist", sorted(gists))
                _line, data, sizes = pack(self.records_where(q))
                w.delete_documents_by_query(q)
                for fields in marshal.loads(data):
                    w.add_document(make_doc(fields, sizes[fields["gist"]]))
                self._commit(w)
            return True


def open_workspace_index(ws: Workspace) -> SearchIndex:
    """The index of ``ws`` as it is on disk (empty when new; foreign: ``ident`` differs).
    The custom container's ``search-cache-v*`` and other schemas' ``search-v<N>`` go (by
    name: glob's patterns cost a warm search 0.7 ms to compile)."""
    with contextlib.suppress(OSError):
        ws.state_dir.mkdir(parents=True, exist_ok=True)
        for name in os.listdir(ws.state_dir):
            cache = name.startswith("search-cache-v") and name.endswith((".bin", ".json"))
            schema = name[:8] == "search-v" and "0" <= name[8:9] <= "9"
            if (cache or schema) and name != DIR_NAME:
                with contextlib.suppress(OSError):
                    p = ws.state_dir / name
                    shutil.rmtree(p) if p.is_dir() else p.unlink()
    try:
        return SearchIndex.open(ws.state_dir / DIR_NAME)
    except (OSError, ValueError):
        return SearchIndex.open(None)
