"""Reading a ledger file: opened safely, its lines parsed, each line's place in the
fold."""

from __future__ import annotations

import errno
import hashlib
import math
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from store.ledger.entry import Entry, scan_once
from store.read.isotime import parse_time
from store.read.textio import MAX_RECORD_BYTES
from store.write.atomic import PathRefused


@dataclass(slots=True)
class Source:
    """One ledger file and how far it has been read."""

    path: Path
    #: whose it is: the file's name (``ledger.jsonl``: the local reviewer, see ``_files``)
    key: str
    #: 0 for ``ledger.jsonl``, 1 for a reviewer's own file (the order of lines of one time)
    rank: int
    offset: int = 0
    line: int = 1
    #: the file read (device, inode): another one in its place is read anew
    file: tuple[int, int] = (0, 0)
    #: lines taken in so far, and the latest time among them
    count: int = 0
    last: float = -math.inf
    #: the SHA-256 of the bytes read (``store.ledger.snapshot``)
    digest: Any = field(default_factory=hashlib.sha256)


#: Where a line lies in the fold: (time, reviewer, rank, place in its file).
OrderKey = tuple[float, str, int, int]
#: A line read, after its place: ``(*place, entry)``.
Placed = tuple[float, str, int, int, "Entry"]


def seconds_of(at: str) -> float | None:
    """The time ``at`` (ISO 8601; UTC when it names no zone) in seconds, ``None`` when it
    is not a time (the line then takes the place of the line before it)."""
    t = parse_time(at)
    return None if t is None else t.timestamp()


def open_ledger(path: Path) -> Any:
    """A ledger file opened for reading: never a FIFO or device (it would block every
    command and the app), never through a link: refused, naming it."""
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise
    except OSError as exc:
        what = "a link" if exc.errno == errno.ELOOP else exc.strerror or str(exc)
        raise PathRefused(f"refused: {path}: {what}; the ledger is not read") from exc
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise PathRefused(
                f"refused: {path} is not a regular file (a FIFO, device or directory); "
                "the ledger is not read"
            )
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


#: The longest line :func:`plain_pairs` takes in (in characters; longer: ``scan_jsonl``,
#: which tells records over ``MAX_RECORD_BYTES`` apart).
_PLAIN_LINE_MAX = MAX_RECORD_BYTES // 4


def plain_pairs(data: bytes) -> tuple[list[dict[str, Any]], list[str]] | None:
    """The objects of ``data`` and their lines when it is what the ledger's own appends make
    (UTF-8, whole lines, one JSON object each); ``None`` for anything else, which
    :func:`scan_jsonl` reads and reports on. Faster than ``json.loads`` per line."""
    if not data:
        return [], []
    if not data.endswith(b"\n"):
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    out: list[dict[str, Any]] = []
    append = out.append
    texts: list[str] = []
    append_text = texts.append
    lines = text.split("\n")
    lines.pop()  # after the last newline
    for line in lines:
        try:
            obj, end = scan_once(line, 0)
        except (StopIteration, ValueError, RecursionError):
            if line.strip(" \t\r"):
                return None
            continue  # a blank line
        if type(obj) is not dict or len(line) > _PLAIN_LINE_MAX:
            return None
        if end != len(line) and line[end:].strip(" \t\r"):
            return None
        append(obj)
        append_text(line)
    return out, texts
