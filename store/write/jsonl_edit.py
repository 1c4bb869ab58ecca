"""Rewriting one JSONL record of a file other programs keep appending to, in place (a rename
would lose their lines; docs/trust-boundary.md): the file never shrinks, the bytes go to a
signed redo file first, and the mtime is set precisely (a same-length edit is still seen)."""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import time
from collections.abc import Callable, Iterable
from pathlib import Path

from store import machine_key
from store.read.textio import FileStamp
from store.write.atomic import (
    ConflictError,
    Guard,
    WriteError,
    fsync_dir,
    open_locked,
    replace_file,
    resolve_target,
    write_error,
)

#: Prefix of the redo file that holds a rewrite's bytes until they are all in place.
REDO_PREFIX = ".hurikaeri-redo-"

#: Given the file as it is now (under the lock), where the record to replace lies now:
#: ``(start, end)``, or ``None`` when it is gone or changed (a conflict).
Relocate = Callable[[bytes], tuple[int, int] | None]


def prefix_digest(data: bytes, length: int) -> str:
    return hashlib.sha256(data[:length]).hexdigest()


def split_eol(line: bytes) -> tuple[bytes, bytes]:
    """``line`` as its bytes and its line ending (``\\r\\n``, ``\\n``, or none)."""
    nl = b"\r\n" if line.endswith(b"\r\n") else b"\n" if line.endswith(b"\n") else b""
    return line[: len(line) - len(nl)], nl


def pad_to(new: bytes, length: int, old: bytes) -> bytes:
    """``new`` made ``length`` bytes long with spaces before its line ending (the old
    record's line ending when ``new`` is empty: a removed record leaves a blank line)."""
    body, nl = split_eol(new) if new else (b"", split_eol(old)[1])
    fill = length - len(body) - len(nl)
    if fill < 0:
        raise ValueError("pad_to: the new bytes do not fit")
    return body + b" " * fill + nl


def replace_span(
    path: Path,
    start: int,
    end: int,
    new: bytes,
    *,
    prefix_len: int,
    prefix_sha256: str,
    guard: Guard,
    relocate: Relocate | None = None,
) -> None:
    """Replace bytes ``[start, end)`` in place if the prefix is as read (or ``relocate`` finds
    the record again), a shorter ``new`` padded; see the module docstring."""
    target = resolve_target(path)
    guard(target)
    if not os.path.lexists(target):
        raise ConflictError(target, FileStamp(prefix_len, 0, prefix_sha256), None)
    fd = open_locked(path, target, create=False, what="rewritten")
    try:
        _replay(target, fd)
        data = _read_all(fd)
        span: tuple[int, int] | None = None
        if len(data) >= prefix_len and prefix_digest(data, prefix_len) == prefix_sha256:
            span = (start, end)
        elif relocate is not None:
            span = relocate(data)
        if span is None:
            raise ConflictError(
                target,
                FileStamp(prefix_len, 0, prefix_sha256),
                FileStamp.of_bytes(data, os.fstat(fd)),
            )
        start, end = span
        old = data[start:end]
        mtime = os.fstat(fd).st_mtime_ns
        if len(new) <= len(old):
            _write_in_place(target, fd, start, pad_to(new, len(old), old))
        else:
            _write_in_place(target, fd, start, _shifted(fd, end, new, len(new) - len(old)))
        _touch(fd, mtime)
    except OSError as exc:
        raise write_error(exc, target) from exc
    finally:
        os.close(fd)  # also releases the lock


def _read_all(fd: int, start: int = 0, stop: int | None = None) -> bytes:
    chunks: list[bytes] = []
    at = start
    while stop is None or at < stop:
        want = 1 << 20 if stop is None else min(1 << 20, stop - at)
        chunk = os.pread(fd, want, at)
        if not chunk:
            break
        chunks.append(chunk)
        at += len(chunk)
    return b"".join(chunks)


def _shifted(fd: int, end: int, new: bytes, grow: int) -> bytes:
    """Claim ``grow`` bytes at the end with one ``O_APPEND`` write and return ``new`` followed by
    everything after the record up to that room."""
    size = os.fstat(fd).st_size
    # after a crash right here the room stays: spaces (a blank line when the file ended
    # with one), which every JSONL reader skips
    ends_line = size == 0 or os.pread(fd, 1, size - 1) == b"\n"
    room = b" " * (grow - 1) + b"\n" if ends_line else b" " * grow
    if os.write(fd, room) != len(room):  # the descriptor is O_APPEND: always at the end
        raise WriteError("the file could not grow (is the disk full?); nothing was changed")
    room_end = os.lseek(fd, 0, os.SEEK_CUR)  # our write's end, wherever the kernel put it
    tail = _read_all(fd, end, room_end - grow)
    if len(tail) != room_end - grow - end:
        raise WriteError("the file shrank while it was rewritten; nothing was changed")
    return new + tail


def _redo_path(target: Path) -> Path:
    return target.with_name(REDO_PREFIX + target.name)


def _redo_scope(target: Path) -> str:
    """What a redo file's signature is bound to: the file it finishes a rewrite of."""
    return "redo:" + os.path.realpath(target)


def _write_in_place(target: Path, fd: int, offset: int, payload: bytes) -> None:
    """Write ``payload`` at ``offset``: saved to the redo file first, so that a write cut
    short by a crash is finished later; the redo file is removed once it is all on disk."""
    st = os.fstat(fd)
    header = {
        "offset": offset,
        "length": len(payload),
        "sha256": hashlib.sha256(payload).hexdigest(),
        "dev": st.st_dev,
        "ino": st.st_ino,
    }
    sig = machine_key.sign_scoped(_redo_scope(target), header)
    if sig:  # only a redo file this machine wrote is ever replayed (issue 40)
        header["sig"] = sig
    redo = _redo_path(target)
    replace_file(redo, [json.dumps(header).encode() + b"\n", payload])
    fsync_dir(target.parent)
    _pwrite_all(fd, payload, offset)
    os.fsync(fd)
    redo.unlink()
    fsync_dir(target.parent)


def _pwrite_all(fd: int, payload: bytes, offset: int) -> None:
    flags = fcntl.fcntl(fd, fcntl.F_GETFL)
    fcntl.fcntl(fd, fcntl.F_SETFL, flags & ~os.O_APPEND)  # else pwrite appends (Linux)
    try:
        view = memoryview(payload)
        done = 0
        while done < len(view):
            done += os.pwrite(fd, view[done : done + (16 << 20)], offset + done)
    finally:
        fcntl.fcntl(fd, fcntl.F_SETFL, flags)


def _touch(fd: int, before_ns: int) -> None:
    """Set the mtime precisely, later than before (a same-length edit in one coarse tick)."""
    st = os.fstat(fd)
    with contextlib.suppress(OSError):
        os.utime(fd, ns=(st.st_atime_ns, max(time.time_ns(), before_ns + 1, st.st_mtime_ns)))


def _replay(target: Path, fd: int) -> bool:
    """Finish a rewrite a killed process left half done (``fd``: the target, locked); True when
    bytes were written."""
    redo = _redo_path(target)
    try:
        raw = redo.read_bytes()
    except FileNotFoundError:
        return False
    head, _, payload = raw.partition(b"\n")
    try:
        header = json.loads(head)
        offset, length = int(header["offset"]), int(header["length"])
        sha, dev, ino = str(header["sha256"]), int(header["dev"]), int(header["ino"])
    except (ValueError, KeyError, TypeError, AttributeError):
        redo.unlink(missing_ok=True)
        return False
    body = {k: v for k, v in header.items() if k != "sig"}
    if not machine_key.verify_scoped(_redo_scope(target), body, header.get("sig")):
        return False  # not written by this machine: never a licence to write; left alone
    st = os.fstat(fd)
    done = False
    if (
        (st.st_dev, st.st_ino) == (dev, ino)
        and len(payload) == length
        and hashlib.sha256(payload).hexdigest() == sha
        and st.st_size >= offset + length
    ):
        _pwrite_all(fd, payload, offset)
        os.fsync(fd)
        done = True
    redo.unlink(missing_ok=True)
    fsync_dir(target.parent)
    return done


def finish_interrupted_rewrites(directories: Iterable[Path]) -> list[Path]:
    """Finish the rewrites killed processes left half done here (at open); the files written."""
    done: list[Path] = []
    for d in directories:
        try:
            names = [e.name for e in os.scandir(d) if e.name.startswith(REDO_PREFIX)]
        except OSError:
            continue
        for name in names:
            target = Path(d) / name[len(REDO_PREFIX) :]
            if not target.exists():
                with contextlib.suppress(OSError):
                    (Path(d) / name).unlink()
                continue
            try:
                fd = open_locked(target, target, create=False, what="repaired")
            except WriteError:
                continue
            try:
                if _replay(target, fd):
                    done.append(target)
            except OSError:
                continue
            finally:
                os.close(fd)
    return done
