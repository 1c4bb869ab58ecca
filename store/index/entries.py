"""One file as the index holds it, and as the index cache and worker processes carry it.

An *entry* is the plain-data form (lists, strings, numbers: JSON as it is, cheap to send
between processes):

    [[size, mtime_ns, ino, ctime_ns, sha256], kind, diagnostics, payload, unfinished_line]

``diagnostics`` are ``[line, severity, code, message]``; ``payload`` is ``["R", report
head]`` (its problems and tries, as JSON, are the blob beside the entry), ``["T", session
ids, kinds]`` (the record heads' lines are the blob), ``["D", document]`` (a small model,
as dumped) or ``None``. :class:`IndexedFile` is the in-memory form. One function makes an entry from a
file on disk (in a worker), two convert between the forms.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from store.gc_pause import paused_gc
from store.index.heads import HeadTable, RecordSpan, ReportHead, head_of
from store.index.parallel import chunk_by_size, map_chunks
from store.read.diagnostics import Diagnosed, Diagnostic
from store.read.kinds import Kind
from store.read.textio import FileStamp
from store.workspace import Found, Workspace

if TYPE_CHECKING:  # the models are imported when a file is parsed
    from pydantic import BaseModel

    from store.index.cache import Blob

Entry = list[Any]
#: An entry and, for a JSONL file, the JSON lines of its record heads (else ``b""``).
Parsed = tuple[Entry, bytes]


@dataclass(slots=True)
class IndexedFile(Diagnosed):
    path: Path
    display: str
    kind: Kind | None
    stamp: FileStamp | None
    #: the validated document, for the small kinds only (not reports, not JSONL)
    doc: BaseModel | None = None
    #: a KPT report's head
    head: ReportHead | None = None
    #: a JSONL file's records, as heads
    records: HeadTable | None = None
    diagnostics: list[Diagnostic] = field(default_factory=list)
    #: the line of an unfinished last JSONL record (kept for later; lint reports it)
    unfinished_line: int | None = None
    #: inode and ctime as indexed (``(0, 0)`` when unknown): the cache's file identity
    ident: tuple[int, int] = (0, 0)


def entry_of_path(path: Path, kind: Kind | None, display: str) -> Parsed:
    """Parse and check ``path``: its entry."""
    from store.check.files import check_loaded, unfinished_line
    from store.models import KptReport
    from store.read.loader import load_file

    loaded = load_file(path, kind, display)
    diags = check_loaded(loaded, finished=False)
    stamp = loaded.stamp
    ident = [-1, -1, 0, 0, ""]
    if stamp is not None:
        ident = [stamp.size, stamp.mtime_ns, 0, 0, stamp.sha256]
        try:
            st = os.stat(path)
        except OSError:
            pass
        else:  # inode and ctime only when the file is still the one that was read
            if (st.st_size, st.st_mtime_ns) == (stamp.size, stamp.mtime_ns):
                ident[2:4] = [st.st_ino, st.st_ctime_ns]
    payload: list[Any] | None = None
    blob = b""
    doc = loaded.doc
    if isinstance(doc, KptReport):
        head = ReportHead.of(doc)
        payload = ["R", head.dump()]
        blob = head.rest_json()
    elif loaded.entries or loaded.kind in (Kind.LESSONS, Kind.SUMMARIES):
        spans = ((RecordSpan.of(e.record), e.model) for e in loaded.entries)
        table = HeadTable.of([h for span, m in spans if (h := head_of(span, m)) is not None])
        meta, blob = table.snapshot()
        payload = ["T", *meta]
    elif doc is not None:
        payload = ["D", doc.model_dump(mode="json", by_alias=True, exclude_unset=True)]
    kind_value = loaded.kind.value if loaded.kind else None
    diag_rows = [[d.line, d.severity, d.code, d.message] for d in diags]
    return [ident, kind_value, diag_rows, payload, unfinished_line(loaded)], blob


_KINDS = {k.value: k for k in Kind}


def file_of_entry(
    ws: Workspace, path: Path, entry: Entry, blob: bytes | Blob | None = b""
) -> IndexedFile:
    """The in-memory form of ``entry`` (``ValueError``/``TypeError``/``KeyError`` when it is
    malformed: the caller parses the file again); ``blob`` is the head lines, or where they
    lie in the mapped index cache."""
    (size, mtime_ns, ino, ctime_ns, sha), kind_value, diag_rows, payload, unfinished = entry
    display = ws.display(path)
    kind = _KINDS[kind_value] if kind_value is not None else None
    stamp = FileStamp(size, mtime_ns, sha) if size >= 0 else None
    diags = [Diagnostic(display, line, sev, code, msg) for line, sev, code, msg in diag_rows]
    f = IndexedFile(path, display, kind, stamp, diagnostics=diags, unfinished_line=unfinished)
    f.ident = (ino, ctime_ns)
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
    elif tag == "D" and kind is not None:
        from store.read.loader import MODELS  # the models: imported only for documents kept whole

        f.doc = MODELS[kind].model_validate(body[0])
    else:
        raise ValueError(f"unexpected payload {tag!r}")
    return f


def entry_of_file(f: IndexedFile) -> Parsed:
    st = f.stamp
    ident = [st.size, st.mtime_ns, *f.ident, st.sha256] if st else [-1, -1, 0, 0, ""]
    payload: list[Any] | None = None
    blob = b""
    if f.head is not None:
        payload = ["R", f.head.dump()]
        blob = f.head.rest_json()
    elif f.records is not None:
        meta, blob = f.records.snapshot()
        payload = ["T", *meta]
    elif f.doc is not None:
        payload = ["D", f.doc.model_dump(mode="json", by_alias=True, exclude_unset=True)]
    diag_rows = [[d.line, d.severity, d.code, d.message] for d in f.diagnostics]
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
