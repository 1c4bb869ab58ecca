"""One file as the index holds it (:class:`IndexedFile`), and as the cache and workers carry
it: ``[identity, kind, diagnostics, payload, unfinished_line]`` in plain JSON, ``identity``
packed in one hex string (``<qqQq`` + SHA-256), and a blob beside it."""

from __future__ import annotations

import json
import os
import struct
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from store.gc_pause import paused_gc
from store.index.heads import HeadTable, RecordSpan, ReportHead, head_of, read_mapped
from store.index.parallel import chunk_by_size, map_chunks
from store.read.diagnostics import Diagnosed, Diagnostic
from store.read.kinds import Kind
from store.read.textio import FileStamp
from store.workspace import Found, Workspace

if TYPE_CHECKING:  # the models are imported when a file is parsed
    from pydantic import BaseModel

    from store.index.cache import Blob

Entry = list[Any]
Parsed = tuple[Entry, bytes]

_IDENT = struct.Struct("<qqQq")
_PACKED = _IDENT.size + 32  # and the SHA-256
#: One shared empty list (diagnostics are replaced whole, never changed in place).
NO_DIAGNOSTICS: list[Diagnostic] = []
_validating = threading.Lock()


class IndexedFile(Diagnosed):
    """One file of the index, kept small (tens of thousands): its identity packed in one
    ``bytes``, its shown path cut from its path, a small document as JSON until asked for."""

    __slots__ = (
        "_display",
        "_doc",
        "_ident",
        "diagnostics",
        "head",
        "kind",
        "path",
        "records",
        "unfinished_line",
    )

    def __init__(
        self,
        path: Path,
        display: str | int,
        kind: Kind | None,
        stamp: FileStamp | None,
        *,
        doc: BaseModel | bytes | Blob | None = None,
        head: ReportHead | None = None,
        records: HeadTable | None = None,
        diagnostics: list[Diagnostic] | None = None,
        unfinished_line: int | None = None,
        ident: tuple[int, int] = (0, 0),
    ) -> None:
        self.path = path
        self.kind = kind
        #: the characters of ``str(path)`` to leave out to show it, or the text shown
        self._display: int | str = display
        if isinstance(display, str):
            text = str(path)
            cut = len(text) - len(display)
            if cut >= 0 and text[cut:] == display:
                self._display = cut
        self._ident = _pack(stamp, ident) if stamp is not None else None
        self._doc = doc
        self.head = head
        self.records = records
        self.diagnostics = diagnostics or NO_DIAGNOSTICS
        self.unfinished_line = unfinished_line

    def __repr__(self) -> str:
        return f"IndexedFile({self.display!r}, {self.kind})"

    @property
    def display(self) -> str:
        cut = self._display
        return str(self.path)[cut:] if isinstance(cut, int) else cut

    @property
    def stamp(self) -> FileStamp | None:
        ident = self.identity()
        return None if ident is None else FileStamp(ident[0], ident[1], ident[4])

    def identity(self) -> tuple[int, int, int, int, str] | None:
        packed = self._ident
        if packed is None:
            return None
        size, mtime_ns, ino, ctime_ns = _IDENT.unpack_from(packed)
        return size, mtime_ns, ino, ctime_ns, packed[_IDENT.size :].hex()

    @property
    def doc(self) -> BaseModel | None:
        """Validated from its JSON when first asked for (reading the file again when the
        JSON no longer validates)."""
        doc = self._doc
        if not isinstance(doc, bytes | tuple):
            return doc
        with _validating:
            doc = self._doc
            if isinstance(doc, bytes | tuple):
                doc = self._doc = _validated(self, doc)
        return doc

    def doc_json(self) -> bytes | None:
        doc = self._doc
        if isinstance(doc, bytes):
            return doc
        if isinstance(doc, tuple):
            return read_mapped(*doc)
        if doc is None:
            return None
        return _dumped(doc)

    def grown(
        self,
        stamp: FileStamp,
        ident: tuple[int, int],
        diagnostics: list[Diagnostic],
        unfinished_line: int | None,
    ) -> IndexedFile:
        """This JSONL file after an append (its head table grown in place, shared)."""
        return IndexedFile(
            self.path,
            self.display,
            self.kind,
            stamp,
            records=self.records,
            diagnostics=diagnostics,
            unfinished_line=unfinished_line,
            ident=ident,
        )


def _pack(stamp: FileStamp, ident: tuple[int, int]) -> bytes:
    try:
        sha = bytes.fromhex(stamp.sha256)
        packed = _IDENT.pack(stamp.size, stamp.mtime_ns, *ident) + sha
    except (struct.error, TypeError) as exc:
        raise ValueError(f"not a file's identity: {exc}") from exc
    if len(sha) != 32 or sha.hex() != stamp.sha256:  # what FileStamp.sha256 gives back
        raise ValueError("not a SHA-256")
    return packed


def _dumped(doc: BaseModel) -> bytes:
    data = doc.model_dump(mode="json", by_alias=True, exclude_unset=True)
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return text.encode("utf-8", "surrogatepass")  # (a lone one does not decode: read again)


def _validated(f: IndexedFile, raw: bytes | Blob) -> BaseModel | None:
    from store.read.loader import MODEL_NAMES, load_file, model_of

    model = model_of(f.kind) if f.kind in MODEL_NAMES else None
    try:
        if model is not None:
            return model.model_validate(
                json.loads(raw if isinstance(raw, bytes) else read_mapped(*raw))
            )
    except (ValueError, TypeError):  # not as we write it (a ValidationError is a ValueError)
        pass
    return load_file(f.path, f.kind, f.display).doc  # what parsing the file again gives


def entry_of_path(path: Path, kind: Kind | None, display: str) -> Parsed:
    from store.check.files import check_loaded, unfinished_line
    from store.models import KptReport
    from store.read.loader import load_file

    loaded = load_file(path, kind, display)
    stamp = loaded.stamp
    inode = (0, 0)
    if stamp is not None:
        try:
            st = os.stat(path)
        except OSError:
            pass
        else:  # inode and ctime only when still the file that was read
            if (st.st_size, st.st_mtime_ns) == (stamp.size, stamp.mtime_ns):
                inode = (st.st_ino, st.st_ctime_ns)
    f = IndexedFile(
        path,
        loaded.display,
        loaded.kind,
        stamp,
        diagnostics=check_loaded(loaded, finished=False),
        unfinished_line=unfinished_line(loaded),
        ident=inode,
    )
    doc = loaded.doc
    if isinstance(doc, KptReport):
        f.head = ReportHead.of(doc)
    elif loaded.entries or loaded.kind in (Kind.LESSONS, Kind.SUMMARIES):
        spans = ((RecordSpan.of(e.record), e.model) for e in loaded.entries)
        f.records = HeadTable.of([h for span, m in spans if (h := head_of(span, m)) is not None])
    else:
        f._doc = doc
    return entry_of_file(f)


def _diag_row(d: Diagnostic, shown: str) -> list[object]:
    """``[line, severity, code, message]`` (and the path of another file's, a facet's)."""
    row: list[object] = [d.line, d.severity, d.code, d.message]
    return row if d.path == shown else [*row, d.path]


_KINDS = {k.value: k for k in Kind}


def file_of_entry(
    ws: Workspace,
    path: Path,
    entry: Entry,
    blob: bytes | Blob | None = b"",
    text: str | None = None,
) -> IndexedFile:
    """The in-memory form of ``entry`` (``ValueError``, ``TypeError``, ``KeyError`` when
    malformed); ``text``: ``str(path)`` when the caller has it."""
    ident, kind_value, diag_rows, payload, unfinished = entry
    display: str | int = ws.inside(text or str(path)) or ws.display(path)
    kind = _KINDS[kind_value] if kind_value is not None else None
    packed = bytes.fromhex(ident) if ident is not None else None
    if packed is not None and len(packed) != _PACKED:
        raise ValueError("not a file's identity")
    diags = NO_DIAGNOSTICS
    if diag_rows:
        shown = (text or str(path))[display:] if isinstance(display, int) else display
        diags = [Diagnostic(row[4] if len(row) > 4 else shown, *row[:4]) for row in diag_rows]
    f = IndexedFile(path, display, kind, None, diagnostics=diags, unfinished_line=unfinished)
    f._ident = packed
    if payload is None:
        return f
    tag, *body = payload
    if tag == "R":
        f.head = ReportHead.load(body[0], blob or None)
    elif tag == "T":
        if isinstance(blob, tuple):
            buf, lo, hi = blob
            f.records = HeadTable(buf, *body, lo=lo, hi=hi)
        else:
            f.records = HeadTable(blob or b"", *body)
    elif tag == "D" and kind is not None and blob and not body:
        f._doc = blob  # validated when first asked for
    else:
        raise ValueError(f"unexpected payload {tag!r}")
    return f


def entry_of_file(f: IndexedFile) -> Parsed:
    ident = f._ident.hex() if f._ident is not None else None
    payload: list[Any] | None = None
    blob = b""
    if f.head is not None:
        payload = ["R", f.head.dump()]
        blob = f.head.rest_json()
    elif f.records is not None:
        meta, blob = f.records.snapshot()
        payload = ["T", *meta]
    elif (doc := f.doc_json()) is not None:
        payload = ["D"]
        blob = doc
    shown = f.display
    diag_rows = [_diag_row(d, shown) for d in f.diagnostics]
    kind_value = f.kind.value if f.kind else None
    return [ident, kind_value, diag_rows, payload, f.unfinished_line], blob


def _parse_chunk(items: list[tuple[str, str | None, str]]) -> list[tuple[str, Parsed]]:
    with paused_gc():
        return [(p, entry_of_path(Path(p), Kind(k) if k else None, d)) for p, k, d in items]


def parse_entries(
    ws: Workspace,
    found: list[Found],
    progress: Callable[[int, int], None] | None = None,
    parallel: bool = True,
) -> Iterator[tuple[Path, Parsed]]:
    """Entries of ``found``, parsed on every core when there is enough to parse."""
    items = [(str(f.path), f.kind.value if f.kind else None, ws.display(f.path)) for f in found]
    sizes = []
    for f in found:
        try:
            sizes.append(os.stat(f.path).st_size)
        except OSError:
            sizes.append(0)
    chunks = chunk_by_size(items, sizes)
    total_bytes = sum(sizes) if parallel else 0
    done = 0
    for result in map_chunks(_parse_chunk, chunks, total_bytes, ["store.index.entries"]):
        for p, parsed in result:
            yield Path(p), parsed
        done += len(result)
        if progress is not None:
            progress(done, len(found))
