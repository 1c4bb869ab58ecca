"""Safe writes (docs/architecture.md, principle 2). Our writers of one file exclude each
other with its ``flock``, so a line another hurikaeri process appends never lands in a file
being replaced."""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
import tempfile
import time
from collections.abc import Callable, Iterable
from pathlib import Path

from store.read import textio
from store.read.textio import FileStamp, flock_within

TEMP_PREFIX = ".hurikaeri-tmp-"


class WriteError(Exception):
    """A write that could not happen; the original file is untouched."""


class PathRefused(WriteError):
    """A write to a place it may not go; the message names the resolved path."""


#: Called with the real file (symlinks followed) right before it is written; raises
#: :class:`PathRefused` when the action may not write there (``store.write.policy``).
Guard = Callable[[Path], None]


class ConflictError(WriteError):
    """The file changed on disk since it was read."""

    def __init__(self, path: Path, expected: FileStamp | None, actual: FileStamp | None) -> None:
        self.path = path
        self.expected = expected
        self.actual = actual
        super().__init__(f"{path}: {describe_change(expected, actual)}")


def describe_change(expected: FileStamp | None, actual: FileStamp | None) -> str:
    if expected is None and actual is not None:
        return "the file was created by another program since it was read"
    if actual is None:
        return "the file was deleted or moved since it was read"
    assert expected is not None
    if actual.size != expected.size:
        delta = actual.size - expected.size
        unit = "byte" if abs(delta) == 1 else "bytes"
        return f"the file changed on disk since it was read ({delta:+,} {unit})"
    return "the file's content changed on disk since it was read"


def resolve_target(path: Path) -> Path:
    """The real file a write to ``path`` must change (symlinks followed)."""
    return Path(os.path.realpath(path))


def current_stamp(path: Path) -> FileStamp | None:
    """What the file is now (``None``: there is none). A FIFO, device or directory is never
    opened (reading one could block for ever): :class:`PathRefused`."""
    try:
        st = path.stat()
    except FileNotFoundError:
        return None
    if not stat.S_ISREG(st.st_mode):
        raise PathRefused(f"refused: {path} is not a regular file")
    try:
        data = path.read_bytes()
        st = path.stat()
    except FileNotFoundError:
        return None
    return FileStamp.of_bytes(data, st)


def check_unchanged(path: Path, expected: FileStamp | None) -> None:
    # The content decides, even when the size and the mtime agree (a rewrite that keeps the
    # size and restores the mtime is still a change); same bytes with a new mtime (touched,
    # or rewritten identically) is not a conflict.
    actual = current_stamp(path)
    if actual is None and expected is None:
        return
    if (
        expected is None
        or actual is None
        or actual.size != expected.size
        or actual.sha256 != expected.sha256
    ):
        raise ConflictError(path, expected, actual)


def fsync_dir(directory: Path) -> None:
    with contextlib.suppress(OSError):  # not every filesystem lets a directory be fsynced
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def write_error(exc: OSError, path: Path) -> WriteError:
    if exc.errno == errno.ENOSPC:
        return WriteError(f"{path}: the disk is full; nothing was changed")
    if exc.errno in (errno.EACCES, errno.EPERM):
        return WriteError(f"{path}: permission denied; nothing was changed")
    if exc.errno == errno.EROFS:
        return WriteError(f"{path}: the filesystem is read-only; nothing was changed")
    return WriteError(f"{path}: {exc.strerror or exc}; nothing was changed")


def lock_or_fail(fd: int, target: Path) -> None:
    """Take the exclusive lock on an open file within :data:`LOCK_TIMEOUT`, or refuse."""
    timeout = textio.LOCK_TIMEOUT  # looked up now: a test may shorten it
    if not flock_within(fd, exclusive=True, timeout=timeout):
        raise WriteError(
            f"{target}: another program has held the file locked for over "
            f"{timeout:g} s; nothing was changed"
        )


def same_file(fd: int, target: Path) -> bool:
    """The path still names the open file (not replaced or removed since it was opened)."""
    try:
        st = os.stat(target, follow_symlinks=False)
    except OSError:
        return False
    own = os.fstat(fd)
    return (st.st_dev, st.st_ino) == (own.st_dev, own.st_ino)


def _lock_existing(target: Path) -> int | None:
    """An open descriptor holding the exclusive lock of the regular file at ``target``
    (``None``: there is none, or it is not a regular file, which the caller refuses)."""
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    for _attempt in range(5):
        try:  # a FIFO is never opened (that would unblock a writer waiting on it)
            if not stat.S_ISREG(os.stat(target, follow_symlinks=False).st_mode):
                return None
            fd = os.open(target, flags)
        except OSError:
            return None
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                os.close(fd)
                return None
            lock_or_fail(fd, target)
        except BaseException:
            os.close(fd)
            raise
        if same_file(fd, target):
            return fd
        os.close(fd)  # replaced while we waited: lock the new one
    return None


def atomic_write(
    path: Path,
    data: bytes,
    expected: FileStamp | None,
    *,
    guard: Guard,
    create: bool = False,
) -> FileStamp:
    """Replace ``path`` with ``data`` if it is still ``expected`` (``None``: must not exist) and
    ``guard`` allows it; returns the new stamp."""
    target = resolve_target(path)
    guard(target)
    check_unchanged(target, expected)
    directory = target.parent
    if create:
        make_dir(directory)
    try:
        old_mode = stat.S_IMODE(target.stat().st_mode)
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        old_mode = 0o666 & ~umask
    fd, tmp_name = -1, ""
    try:
        fd, tmp_name = tempfile.mkstemp(prefix=temp_prefix(target), dir=directory)
        with os.fdopen(fd, "wb") as fh:
            fd = -1
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp_name, old_mode)
        if resolve_target(path) != target:  # a link appeared or changed meanwhile
            raise PathRefused(f"refused: {path} was replaced by a link while it was written")
        guard(target)
        held = _lock_existing(target)  # our appenders wait; none writes into the old file
        try:
            check_unchanged(target, expected)
            os.replace(tmp_name, target)
        finally:
            if held is not None:
                os.close(held)
        tmp_name = ""
    except OSError as exc:
        raise write_error(exc, target) from exc
    finally:
        if fd >= 0:
            os.close(fd)
        if tmp_name:
            with contextlib.suppress(OSError):
                os.unlink(tmp_name)
    fsync_dir(directory)
    st = target.stat()
    return FileStamp.of_bytes(data, st)


def replace_file(path: Path, chunks: Iterable[bytes]) -> None:
    """Write our own file (a cache) whole: temp file, fsync, rename. No conflict check:
    nobody else edits it, and a reader sees the old file or the new one, never a mix."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"{TEMP_PREFIX}{path.name}.{secrets.token_hex(4)}")  # swept if left
    try:
        with open(tmp, "wb") as fh:
            for c in chunks:
                fh.write(c)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


def make_dir(directory: Path) -> None:
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise write_error(exc, directory) from exc


def whole_lines(fd: int) -> bool:
    """Whether the open file ends with a whole line, its last line waited for briefly (another
    program may be writing it)."""
    for delay in (0.0, 0.01, 0.05, 0.1, 0.25):
        if delay:
            time.sleep(delay)
        size = os.fstat(fd).st_size
        if size == 0 or os.pread(fd, 1, size - 1) == b"\n":
            return True
    return False


def open_locked(path: Path, target: Path, *, create: bool, what: str) -> int:
    """``target`` opened (``O_APPEND``) and locked, still named by the path; a link, a non-regular
    file or one with other hard links is refused."""
    # O_NOFOLLOW: a link made after the check is not followed; O_NONBLOCK: a FIFO or device
    # put there never blocks (and is refused below)
    flags = os.O_RDWR | os.O_APPEND | os.O_NOFOLLOW | os.O_NONBLOCK | (os.O_CREAT if create else 0)
    flags |= getattr(os, "O_CLOEXEC", 0)
    for _attempt in range(5):
        try:
            fd = os.open(target, flags, 0o666)
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise PathRefused(f"refused: {path} became a link while it was {what}") from exc
            raise write_error(exc, target) from exc
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):
                raise PathRefused(f"refused: {target} is not a regular file; nothing was changed")
            if st.st_nlink > 1:  # another name of the same file may lie anywhere
                raise PathRefused(
                    f"refused: {target} has {st.st_nlink} hard links; a write would also "
                    "change the other names of the file, which may lie outside the workspace"
                )
            os.set_blocking(fd, True)
            lock_or_fail(fd, target)
            if same_file(fd, target):
                return fd
        except BaseException:
            os.close(fd)
            raise
        os.close(fd)  # replaced while we waited for the lock: open the new file
    raise ConflictError(target, None, None)


def append_bytes(path: Path, line: bytes, *, guard: Guard, create: bool = True) -> None:
    """Append one whole line to the ledger in a single ``write``, under our writers' lock; a
    last line left unfinished (a crash mid-write) is ended first."""
    target = resolve_target(path)
    guard(target)
    if create:
        make_dir(target.parent)
    fd = open_locked(path, target, create=create, what="appended to")
    try:
        if not whole_lines(fd):
            os.write(fd, b"\n")
        if not line:  # only the torn line repaired
            return
        written = os.write(fd, line)
        if written != len(line):
            raise WriteError(f"{target}: short write ({written} of {len(line)} bytes)")
        os.fsync(fd)
    except OSError as exc:
        raise write_error(exc, target) from exc
    finally:
        os.close(fd)  # also releases the lock


def temp_prefix(target: Path) -> str:
    """How the name of :func:`atomic_write`'s temp file for ``target`` starts: the name of
    the file it replaces (cut short), so a killed write's is found by its target's name."""
    return f"{TEMP_PREFIX}{target.name[:40]}."


def remove_temp_files(target: Path) -> None:
    """Remove the temp files killed writes of ``target`` left; only while no write of it can
    be under way (recovery holds the transaction lock every write of a target takes)."""
    prefix = temp_prefix(target)
    with contextlib.suppress(OSError):
        for e in os.scandir(target.parent):
            if e.name.startswith(prefix) and e.is_file(follow_symlinks=False):
                with contextlib.suppress(OSError):
                    os.unlink(e.path)


def sweep_temp_files(directories: list[Path], older_than: float = 600.0) -> list[Path]:
    """Remove our temp files a crash left, only those older than ``older_than`` seconds."""
    removed = []
    cutoff = time.time() - older_than
    for d in directories:
        try:
            entries = list(os.scandir(d))
        except OSError:
            continue
        for e in entries:
            if e.name.startswith(TEMP_PREFIX):
                try:
                    if (
                        e.is_file(follow_symlinks=False)
                        and e.stat(follow_symlinks=False).st_mtime < cutoff
                    ):
                        os.unlink(e.path)
                        removed.append(Path(e.path))
                except OSError:
                    continue
    return removed
