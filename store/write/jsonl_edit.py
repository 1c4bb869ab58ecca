"""Rewriting one JSONL record in place while other programs keep appending.

The rest of the file stays byte for byte. Growth at the end since our read is not a
conflict (agents append all the time); a change anywhere before it is. Lines appended
while we write are carried over to the new file, including those that land on the old
file in the instant before the rename.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
import tempfile
import time
from pathlib import Path

from store.read.textio import FileStamp
from store.write.atomic import (
    TEMP_PREFIX,
    ConflictError,
    Guard,
    WriteError,
    _friendly,
    fsync_dir,
    resolve_target,
)

#: How long the replaced file must stay unchanged before its late appends are all carried over.
QUIET_SECONDS = 0.05


def prefix_digest(data: bytes, length: int) -> str:
    return hashlib.sha256(data[:length]).hexdigest()


def replace_span(
    path: Path,
    start: int,
    end: int,
    new: bytes,
    *,
    prefix_len: int,
    prefix_sha256: str,
    guard: Guard,
) -> None:
    """Replace bytes ``[start, end)`` if the first ``prefix_len`` bytes are still as read
    and ``guard`` lets the action write there."""
    target = resolve_target(path)
    guard(target)
    try:
        old = open(target, "rb")  # noqa: SIM115 - held across the rename on purpose
    except FileNotFoundError:
        raise ConflictError(target, FileStamp(prefix_len, 0, prefix_sha256), None) from None
    except OSError as exc:
        raise _friendly(exc, target) from exc
    tmp_name = ""
    try:
        data = old.read()
        if len(data) < prefix_len or prefix_digest(data, prefix_len) != prefix_sha256:
            st = os.fstat(old.fileno())
            raise ConflictError(
                target,
                FileStamp(prefix_len, 0, prefix_sha256),
                FileStamp.of_bytes(data, st),
            )
        mode = stat.S_IMODE(os.fstat(old.fileno()).st_mode)
        fd, tmp_name = tempfile.mkstemp(prefix=TEMP_PREFIX, dir=target.parent)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data[:start] + new + data[end:])
            seen = len(data)
            while True:  # carry over lines appended meanwhile
                extra = os.pread(old.fileno(), 1 << 20, seen)
                if not extra:
                    break
                fh.write(extra)
                seen += len(extra)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp_name, mode)
        os.replace(tmp_name, target)
        tmp_name = ""
        # Appends to the old inode in the instant around the rename (a writer that opened
        # the path just before it) are carried over: the old file is watched until it has
        # been quiet for QUIET_SECONDS.
        late = b""
        quiet_since = time.monotonic()
        while time.monotonic() - quiet_since < QUIET_SECONDS:
            chunk = os.pread(old.fileno(), 1 << 20, seen + len(late))
            if chunk:
                late += chunk
                quiet_since = time.monotonic()
            else:
                time.sleep(0.002)
        if late:
            with open(target, "ab") as fh:
                fh.write(late)
                fh.flush()
                os.fsync(fh.fileno())
    except OSError as exc:
        raise _friendly(exc, target) from exc
    finally:
        old.close()
        if tmp_name:
            with contextlib.suppress(OSError):
                os.unlink(tmp_name)
    fsync_dir(target.parent)


__all__ = ["ConflictError", "WriteError", "prefix_digest", "replace_span"]
