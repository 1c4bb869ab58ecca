"""A JSONL file that only grew (same SHA-256 over the indexed prefix): only the appended
records are parsed and checked (a whole 100k-lesson file takes seconds); else ``None``, and
the caller parses it whole (a test holds both ways to one result)."""

from __future__ import annotations

import hashlib
import json
import os
import re

from store.index.entries import IndexedFile
from store.index.heads import HeadTable, RecordHead, RecordSpan, head_of
from store.read.diagnostics import Diagnostic, DiagnosticSink
from store.read.jsonl import check_duplicate_ids, scan_jsonl
from store.read.kinds import Kind
from store.read.textio import MAX_JSONL_BYTES, FileStamp


def appended(f: IndexedFile) -> tuple[IndexedFile, int] | None:
    """``f`` with its appended records and the index of the first (the table grows in
    place); ``None`` when the file did not simply grow."""
    table, old = f.records, f.stamp
    if table is None or old is None or f.unfinished_line is not None:
        return None
    if f.kind not in (Kind.LESSONS, Kind.SUMMARIES):
        return None
    try:
        with open(f.path, "rb") as fh:
            st = os.fstat(fh.fileno())
            if not old.size < st.st_size <= MAX_JSONL_BYTES:
                return None
            data = fh.read(MAX_JSONL_BYTES + 1)
    except OSError:
        return None
    if len(data) <= old.size or (old.size and data[old.size - 1] != 0x0A):
        return None
    if hashlib.sha256(memoryview(data)[: old.size]).hexdigest() != old.sha256:
        return None
    tail = data[old.size :]
    try:
        tail.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if b"\x00" in tail:
        return None
    first = data.count(b"\n", 0, old.size) + 1
    new_heads, diags, pending = _read_tail(f, tail, old.size, first, table)
    start = len(table)
    if new_heads:
        table.extend(HeadTable.of(new_heads))
    unfinished = None
    if pending:  # as lint.unfinished_line counts it
        unfinished = data.count(b"\n") + 1 - pending.count(b"\n")
    stamp = FileStamp.of_bytes(data, st)
    ident = (st.st_ino, st.st_ctime_ns)
    return f.grown(stamp, ident, [*f.diagnostics, *diags], unfinished), start


def _read_tail(
    f: IndexedFile, tail: bytes, offset: int, first_line: int, table: HeadTable
) -> tuple[list[RecordHead], list[Diagnostic], bytes]:
    from store.check.files import check_id_date
    from store.models import Lesson, SessionSummary
    from store.read.loader import validate_records

    sink = DiagnosticSink(f.display)
    scan = scan_jsonl(tail, sink, base_offset=offset, base_line=first_line)
    new_ids = {r.data["id"] for r in scan.records if isinstance(r.data.get("id"), str)}
    check_duplicate_ids(scan.records, sink, _earlier_ids(table, new_ids))
    model = Lesson if f.kind is Kind.LESSONS else SessionSummary
    models = validate_records(model, scan.records, sink)
    heads = [
        head
        for rec, m in zip(scan.records, models, strict=True)
        if (head := head_of(RecordSpan.of(rec), m))
    ]
    for rec in scan.records:  # as lint.cross_check does for every record
        check_id_date(rec.data, rec.line, sink)
    return heads, sink.items, scan.pending


def _earlier_ids(table: HeadTable, ids: set[str]) -> dict[str, int]:
    """Of ``ids``, those an indexed record already has, with the first line it is on
    (found by searching the head lines for each: a few new ids, not every old one)."""
    seen: dict[str, int] = {}
    for rid in ids:
        quoted = re.escape(json.dumps(rid, ensure_ascii=False).encode("utf-8", "backslashreplace"))
        m = table.search(re.compile(rb'^\["[LS]",\[(\d+),\d+,\d+\],' + quoted + rb",", re.M))
        if m is not None:
            seen[rid] = int(m.group(1))
    return seen
