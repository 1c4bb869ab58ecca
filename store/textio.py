"""Reading agent-written files defensively: size bounds, binary sniffing, UTF-8 with BOM."""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

from .diagnostics import DiagnosticSink

#: YAML and Markdown documents larger than this are not parsed (agents do not write such files).
MAX_DOCUMENT_BYTES = 8 * 1024 * 1024
#: JSONL files grow by appending; they are streamed, but a single record has a bound.
MAX_JSONL_BYTES = 1024 * 1024 * 1024
MAX_RECORD_BYTES = 4 * 1024 * 1024
BOM = "\ufeff"


@dataclass(frozen=True, slots=True)
class FileStamp:
    """What a file was when we read it: used for conflict detection and cache keys."""

    size: int
    mtime_ns: int
    sha256: str

    @classmethod
    def of_bytes(cls, data: bytes, st: os.stat_result) -> FileStamp:
        return cls(len(data), st.st_mtime_ns, hashlib.sha256(data).hexdigest())


@dataclass(slots=True)
class RawText:
    """A file's bytes and their decoding; ``text`` is ``None`` when it cannot be parsed."""

    data: bytes
    text: str | None
    stamp: FileStamp | None
    has_bom: bool = False
    decode_errors: bool = False


def read_bytes(path: Path, sink: DiagnosticSink, limit: int) -> tuple[bytes, FileStamp] | None:
    """Read a whole file, or report why it cannot be read."""
    try:
        with open(path, "rb") as fh:
            st = os.fstat(fh.fileno())
            if st.st_size > limit:
                sink.error(
                    "file-too-large",
                    f"file is {st.st_size:,} bytes; files over {limit:,} bytes are not read",
                )
                return None
            data = fh.read(limit + 1)
    except IsADirectoryError:
        sink.error("not-a-file", "expected a file, found a directory")
        return None
    except PermissionError:
        sink.error("unreadable", "permission denied while reading the file")
        return None
    except OSError as exc:
        sink.error("unreadable", f"cannot read the file: {exc.strerror or exc}")
        return None
    if len(data) > limit:
        sink.error("file-too-large", f"file grew past {limit:,} bytes while being read")
        return None
    return data, FileStamp.of_bytes(data, st)


def looks_binary(data: bytes) -> bool:
    return b"\x00" in data[:8192]


def decode(data: bytes, sink: DiagnosticSink) -> tuple[str, bool, bool]:
    """Decode UTF-8 (a BOM is accepted); invalid bytes are reported with their line."""
    has_bom = data.startswith(b"\xef\xbb\xbf")
    if has_bom:
        data = data[3:]
    try:
        return data.decode("utf-8"), has_bom, False
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        sink.error(
            "invalid-utf8",
            f"byte 0x{data[exc.start]:02x} at offset {exc.start} is not valid UTF-8; "
            "the file is shown with replacement characters and is read-only",
            line,
        )
        return data.decode("utf-8", errors="replace"), has_bom, True


def read_text(path: Path, sink: DiagnosticSink, limit: int = MAX_DOCUMENT_BYTES) -> RawText:
    got = read_bytes(path, sink, limit)
    if got is None:
        return RawText(b"", None, None)
    data, stamp = got
    if looks_binary(data):
        sink.error("binary-file", "file contains NUL bytes: it is binary, not text")
        return RawText(data, None, stamp)
    text, bom, bad = decode(data, sink)
    return RawText(data, text, stamp, bom, bad)
