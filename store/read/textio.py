"""Reading agent-written files defensively: size bounds, binary sniffing, UTF-8 with BOM."""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import os
import stat
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from store.read.diagnostics import DiagnosticSink

#: YAML and Markdown documents larger than this are not parsed (agents do not write such files).
MAX_DOCUMENT_BYTES = 8 * 1024 * 1024
#: JSONL files grow by appending; they are streamed, but a single record has a bound.
MAX_JSONL_BYTES = 1024 * 1024 * 1024
MAX_RECORD_BYTES = 4 * 1024 * 1024
#: The longest a reader or writer waits for the advisory lock hurikaeri's writers hold on a
#: file while they change it (a rewrite of a large JSONL file holds it for a moment).
LOCK_TIMEOUT = 10.0


def flock_within(fd: int, exclusive: bool, timeout: float | None = None) -> bool:
    """``flock`` an open file within ``timeout`` s (a filesystem without locks: held).
    Writers hold it exclusively, readers shared: no reader sees a rewrite half done."""
    op = (fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH) | fcntl.LOCK_NB
    deadline = time.monotonic() + (LOCK_TIMEOUT if timeout is None else timeout)
    pause = 0.001
    while True:
        try:
            fcntl.flock(fd, op)
            return True
        except BlockingIOError:
            if time.monotonic() >= deadline:
                return False
            time.sleep(pause)
            pause = min(pause * 2, 0.02)
        except OSError as exc:
            if exc.errno in (errno.ENOLCK, errno.EOPNOTSUPP, errno.ENOSYS, errno.EINVAL):
                return True
            raise


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


class NotReadable(Exception):
    """A file that is not read: not a regular file, or over the size limit (one line)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def file_type(mode: int) -> str:
    """What a file that is not a regular file is, for messages."""
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


def check_regular(st: os.stat_result, limit: int) -> None:
    """Raise :class:`NotReadable` unless ``st`` is a regular file of at most ``limit`` bytes."""
    if not stat.S_ISREG(st.st_mode):
        raise NotReadable("not-a-file", f"expected a file, found {file_type(st.st_mode)}")
    if st.st_size > limit:
        raise NotReadable(
            "file-too-large",
            f"file is {st.st_size:,} bytes; files over {limit:,} bytes are not read",
        )


@contextlib.contextmanager
def open_regular(path: Path | str, limit: int) -> Iterator[tuple[BinaryIO, os.stat_result]]:
    """A regular file of at most ``limit`` bytes, open under the shared lock, and its
    status; checked before opening (a FIFO would block) and after (it may be swapped).
    Raises :class:`NotReadable` or :class:`OSError`."""
    check_regular(os.stat(path), limit)
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    with open(fd, "rb") as fh:
        check_regular(os.fstat(fd), limit)
        # shared with other readers; waits (boundedly) for a writer of ours rewriting it in
        # place, then reads anyway; released when the file is closed
        flock_within(fd, exclusive=False)
        yield fh, os.fstat(fd)


def read_regular(path: Path, limit: int) -> tuple[bytes, os.stat_result]:
    """A regular file's bytes, at most ``limit`` of them (see :func:`open_regular`)."""
    with open_regular(path, limit) as (fh, st):
        data = fh.read(st.st_size + 1)  # not limit + 1: that much would be allocated
        if len(data) > st.st_size:  # it grew meanwhile
            data += fh.read(limit + 1 - len(data))
    if len(data) > limit:
        raise NotReadable("file-too-large", f"file grew past {limit:,} bytes while being read")
    return data, st


def read_bytes(path: Path, sink: DiagnosticSink, limit: int) -> tuple[bytes, FileStamp] | None:
    """Read a whole file, or report why it cannot be read."""
    try:
        data, st = read_regular(path, limit)
    except NotReadable as exc:
        sink.error(exc.code, str(exc))
        return None
    except IsADirectoryError:
        sink.error("not-a-file", "expected a file, found a directory")
        return None
    except PermissionError:
        sink.error("unreadable", "permission denied while reading the file")
        return None
    except (OSError, ValueError) as exc:  # ValueError: a NUL in the path
        sink.error("unreadable", f"cannot read the file: {getattr(exc, 'strerror', None) or exc}")
        return None
    return data, FileStamp.of_bytes(data, st)


def looks_binary(data: bytes) -> bool:
    return b"\x00" in data[:8192]


def as_text(data: bytes | str | None) -> str:
    """Text to compare or measure, never refused: bad UTF-8 replaced, a BOM dropped."""
    text = (data or b"").decode("utf-8", "replace") if not isinstance(data, str) else data
    return text.removeprefix("\ufeff")


def decode(data: bytes, sink: DiagnosticSink) -> str:
    """Decode UTF-8 (a BOM is accepted); invalid bytes are reported with their line."""
    data = data.removeprefix(b"\xef\xbb\xbf")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        sink.error(
            "invalid-utf8",
            f"byte 0x{data[exc.start]:02x} at offset {exc.start} is not valid UTF-8; "
            "the file is shown with replacement characters and is read-only",
            line,
        )
        return data.decode("utf-8", errors="replace")


def read_text(path: Path, sink: DiagnosticSink, limit: int = MAX_DOCUMENT_BYTES) -> RawText:
    got = read_bytes(path, sink, limit)
    if got is None:
        return RawText(b"", None, None)
    data, stamp = got
    if looks_binary(data):
        sink.error("binary-file", "file contains NUL bytes: it is binary, not text")
        return RawText(data, None, stamp)
    return RawText(data, decode(data, sink), stamp)
