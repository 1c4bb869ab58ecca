"""Where the lines of each wrap-up input imported here are: a retried import (a hook run
again) checks those lines alone instead of searching every lesson and validating the input
again (#47).

One line per import in ``STATE/wrapups-imported.jsonl``: a key (the SHA-256 of this
version and the input's text), the summaries folder, and per file each record's offset,
length and SHA-256, signed with this machine's key (:mod:`store.machine_key`). It is a hint,
never trusted: each line must still be in its file, byte for byte, at its place; anything
else (a line removed or edited by hand, a file rewritten, another version, a copied
workspace, a forged line) and the input is imported as if it had never been seen.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import stat
from pathlib import Path
from typing import Any

from store import __version__, machine_key

NAME = "wrapups-imported.jsonl"
#: Past this size the file starts over (the oldest inputs are searched for again).
MAX_BYTES = 2 << 20
#: (offset, length with its line end, SHA-256) of one record's line in its file
Span = tuple[int, int, str]


def input_key(text: str) -> str:
    data = f"{__version__}\0{text}".encode("utf-8", "surrogatepass")
    return hashlib.sha256(data).hexdigest()


def recall(state_dir: Path, key: str) -> dict[str, Any] | None:
    """The last mark of ``key`` this machine signed here: ``{"slug": …, "at": {location:
    [span, …]}}``, or ``None``."""
    try:
        fd = os.open(state_dir / NAME, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
        with os.fdopen(fd, "rb") as f:
            data = f.read(MAX_BYTES * 2)
    except OSError:
        return None
    at = data.rfind(f'"key": "{key}"'.encode())
    if at < 0:
        return None
    line = data[data.rfind(b"\n", 0, at) + 1 : data.find(b"\n", at)]
    try:
        mark = json.loads(line)
        ok = mark.get("key") == key and machine_key.verify(state_dir, mark, mark.get("sig"))
    except (ValueError, AttributeError):
        return None
    return mark if ok else None


def remember(state_dir: Path, key: str, slug: str, at: dict[str, list[Span]]) -> None:
    """Keep where an input's lines are (nothing when the state directory or the machine's
    key is missing: the next import searches as before)."""
    mark: dict[str, Any] = {"key": key, "slug": slug, "at": at}
    mark["sig"] = machine_key.sign(state_dir, mark)
    if mark["sig"] is None or not state_dir.is_dir():
        return
    path = state_dir / NAME
    with contextlib.suppress(OSError):
        big = path.stat().st_size > MAX_BYTES if path.exists() else False
        flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW | os.O_NONBLOCK
        fd = os.open(path, flags | os.O_CLOEXEC | (os.O_TRUNC if big else 0), 0o600)
        try:
            if stat.S_ISREG(os.fstat(fd).st_mode):  # a FIFO there would hang or be fed
                os.write(fd, json.dumps(mark, separators=(", ", ": ")).encode() + b"\n")
        finally:
            os.close(fd)
