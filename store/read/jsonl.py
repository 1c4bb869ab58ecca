"""JSONL as the wrap-up skill writes it, scanned on bytes so every record knows its span (an
edit rewrites it alone). Blank lines, pretty-printed records and non-objects are read; an
unfinished last line is *pending* (a writer is appending), not an error."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, BinaryIO

from store.read.diagnostics import DiagnosticSink
from store.read.textio import MAX_RECORD_BYTES

UTF8_BOM = b"\xef\xbb\xbf"
#: A pretty-printed record may span at most this many lines.
MAX_RECORD_LINES = 2000


@dataclass(slots=True)
class JsonlRecord:
    """One record: its parsed object and where its bytes are (``end`` includes the newline)."""

    line: int
    start: int
    end: int
    data: dict[str, Any]


@dataclass(slots=True)
class JsonlScan:
    records: list[JsonlRecord] = field(default_factory=list)
    #: Byte offset where an unfinished last line begins (== len(data) when there is none).
    complete_until: int = 0
    pending: bytes = b""
    lines: int = 0


def _split_lines(data: bytes, base: int) -> list[tuple[int, int, bytes]]:
    """(start, end_including_newline, content_without_newline) for each line."""
    out: list[tuple[int, int, bytes]] = []
    pos = 0
    n = len(data)
    while pos < n:
        nl = data.find(b"\n", pos)
        end = n if nl < 0 else nl + 1
        content = data[pos : end - 1 if nl >= 0 else end]
        if content.endswith(b"\r"):
            content = content[:-1]
        out.append((base + pos, base + end, content))
        pos = end
    return out


def _loads(raw: bytes) -> tuple[Any, str | None]:
    try:
        return json.loads(raw), None
    except UnicodeDecodeError as exc:
        return None, f"the line is not valid UTF-8 ({exc.reason})"
    except (ValueError, RecursionError) as exc:
        return None, str(exc)


def _is_object_line(raw: bytes) -> bool:
    s = raw.strip()
    if not s.startswith(b"{"):
        return False
    obj, err = _loads(s)
    return err is None and isinstance(obj, dict)


def scan_jsonl(
    data: bytes,
    sink: DiagnosticSink,
    *,
    base_offset: int = 0,
    base_line: int = 1,
    growing: bool = True,
) -> JsonlScan:
    """Parse JSONL bytes (maybe mid-file at ``base_offset``/``base_line``); ``growing``: an
    unfinished last line is ``pending``, not reported."""
    scan = JsonlScan(complete_until=base_offset + len(data))
    lines = _split_lines(data, base_offset)
    if base_offset == 0 and lines and lines[0][2].startswith(UTF8_BOM):
        # The BOM belongs to the file, not to its first record: an edit or a removal of
        # that record keeps it.
        start, end, raw = lines[0]
        lines[0] = (start + len(UTF8_BOM), end, raw[len(UTF8_BOM) :])
    scan.lines = len(lines)
    unterminated_tail = bool(data) and not data.endswith(b"\n")
    i = 0
    while i < len(lines):
        start, end, raw = lines[i]
        lineno = base_line + i
        stripped = raw.strip()
        if not stripped:
            i += 1
            continue
        is_last = i == len(lines) - 1
        if len(raw) > MAX_RECORD_BYTES:
            sink.error("record-too-large", f"line is {len(raw):,} bytes; not read", lineno)
            i += 1
            continue
        obj, err = _loads(stripped)
        if err is None:
            if isinstance(obj, dict):
                scan.records.append(JsonlRecord(lineno, start, end, obj))
            else:
                sink.error(
                    "not-an-object",
                    f"expected a JSON object on this line, found {type(obj).__name__}",
                    lineno,
                )
            i += 1
            continue
        if is_last and unterminated_tail and growing:
            scan.pending = raw
            scan.complete_until = start
            break
        span = _multiline_record(lines, i) if stripped.startswith(b"{") else None
        if span is not None:
            j, obj = span
            scan.records.append(JsonlRecord(lineno, start, lines[j][1], obj))
            sink.warning(
                "multiline-record",
                f"record spans lines {lineno}-{base_line + j}; JSONL expects one record per line",
                lineno,
            )
            i = j + 1
            continue
        if growing and _unfinished_tail(lines, i, unterminated_tail):
            scan.pending = b"".join(
                data[s - base_offset : e - base_offset] for s, e, _ in lines[i:]
            )
            scan.complete_until = start
            break
        sink.error("invalid-json", f"not valid JSON: {err}", lineno)
        i += 1
    return scan


def _unfinished_tail(lines: list[tuple[int, int, bytes]], i: int, unterminated: bool) -> bool:
    """A record from line ``i`` to the end without closing (no final newline, or a
    pretty-printed record still being written)."""
    if not unterminated and lines[i][2].strip() != b"{":
        return False
    indent = _indent(lines[i][2])
    return not any(_indent(raw) <= indent and _is_object_line(raw) for _, _, raw in lines[i + 1 :])


def _indent(raw: bytes) -> int:
    return len(raw) - len(raw.lstrip())


def _multiline_record(
    lines: list[tuple[int, int, bytes]], i: int
) -> tuple[int, dict[str, Any]] | None:
    """A pretty-printed object starting at line ``i``: (index of its last line, object)."""
    total = 0
    indent = _indent(lines[i][2])
    for j in range(i + 1, min(len(lines), i + MAX_RECORD_LINES)):
        raw = lines[j][2]
        total += len(raw)
        if total > MAX_RECORD_BYTES or (_indent(raw) <= indent and _is_object_line(raw)):
            return None  # a new record begins: the first line was simply broken
        if raw.rstrip().endswith(b"}"):
            chunk = b"\n".join(line[2] for line in lines[i : j + 1])
            obj, err = _loads(chunk)
            if err is None:
                return (j, obj) if isinstance(obj, dict) else None
    return None


def check_duplicate_ids(
    records: list[JsonlRecord], sink: DiagnosticSink, seen: dict[str, int] | None = None
) -> None:
    """Warn of every record whose id an earlier one has (``seen``: ids of records before
    these, with their lines)."""
    seen = {} if seen is None else seen
    for rec in records:
        rid = rec.data.get("id")
        if not isinstance(rid, str):
            continue
        first = seen.setdefault(rid, rec.line)
        if first != rec.line:
            sink.warning("duplicate-id", f"id {rid!r} is also used on line {first}", rec.line)


def encode_record(obj: dict[str, Any], newline: bytes = b"\n") -> bytes:
    """One record as the wrap-up script writes it: UTF-8, non-ASCII kept, one line."""
    return json.dumps(obj, ensure_ascii=False, separators=(", ", ": ")).encode() + newline


def line_ending(data: bytes) -> bytes:
    """The line ending a file uses (CRLF when its first line ends so)."""
    nl = data.find(b"\n")
    return b"\r\n" if nl > 0 and data[nl - 1 : nl] == b"\r" else b"\n"


def _past_newline(fh: BinaryIO) -> bool:
    """Read on past the next newline (``False``: the file ended first)."""
    while chunk := fh.readline(1 << 16):
        if chunk.endswith(b"\n"):
            return True
    return False


def cut_points(fh: BinaryIO, size: int, every: int) -> list[tuple[int, int, int]]:
    """(start, end, first line) of parts of about ``every`` bytes of the file's first
    ``size``, each beginning at a line that is a whole object (a pretty-printed record is
    never cut). Read, not mapped: a file truncated meanwhile (an agent rewriting it) ends
    the parts early, where a mapping's next page would kill the process (SIGBUS)."""
    parts: list[tuple[int, int, int]] = []
    start, line = 0, 1
    pos = every
    while pos < size:
        fh.seek(pos - 1)
        cut = -1
        if _past_newline(fh):
            while (p := fh.tell()) < size:
                raw = fh.readline(MAX_RECORD_BYTES + 1)
                whole = raw.endswith(b"\n") or p + len(raw) >= size
                body = raw.removesuffix(b"\n").rstrip(b"\r")
                ok = whole and body[:1] == b"{" and len(body) <= MAX_RECORD_BYTES
                if ok and _is_object_line(body):
                    cut = p
                    break
                if not whole and not _past_newline(fh):
                    break
        if cut < 0:
            break
        parts.append((start, cut, line))
        fh.seek(start)
        while (left := cut - fh.tell()) > 0 and (chunk := fh.read(min(left, 1 << 22))):
            line += chunk.count(b"\n")
        start = cut
        pos = cut + every
    parts.append((start, size, line))
    return parts
