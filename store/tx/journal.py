"""The files of a transaction: planned changes, backups, writing, and where a file stands.

Each file's *record* in the ``begin`` line tells later where it stands (:func:`where`) and how
to turn it back or forward. Four kinds: ``replace`` (the whole file), ``append`` (lines added
to a file others append to), ``truncate`` (its undo), ``record`` (one JSONL record, found again
by its bytes, so edits of other records never stand in the way).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import stat
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from store.read.textio import FileStamp
from store.workspace import Workspace
from store.write.atomic import (
    ConflictError,
    Guard,
    WriteError,
    atomic_write,
    fsync_dir,
    make_dir,
    open_locked,
    resolve_target,
    whole_lines,
    write_error,
)
from store.write.jsonl_edit import pad_to, replace_span, split_eol
from store.write.policy import action_writes, created_by_an_action, state

How = Literal["replace", "append", "truncate", "record"]
Where = Literal["before", "after", "changed"]
#: An expected whole file: ``(size, sha256)``, ``(None, None)`` when it must not exist.
Expect = tuple[int | None, str | None]
BACKUPS = "backups"
_CHUNK = 1 << 20


def sha256(data: bytes | None) -> str | None:
    return hashlib.sha256(data).hexdigest() if data is not None else None


@dataclass(slots=True)
class FileWrite:
    """One file an action changes, as planned. ``before``/``after``: ``replace``, the whole
    file (``None``: none); ``append``, ``after`` is the bytes added; ``truncate``, ``before``
    the bytes taken off the end; ``record``, the record's bytes at ``offset`` (empty: put
    back after the line ``anchor``, or removed). ``expect``: the whole file an append or
    truncate must find (``None``: whatever it is)."""

    path: Path
    before: bytes | None
    after: bytes | None
    guard: Guard
    how: How = "replace"
    #: which kind of action created the file (what an undo may delete; see
    #: :func:`store.write.policy.created_by_an_action`)
    created_by: str | None = None
    expect: Expect | None = None
    offset: int = 0
    anchor: bytes = b""
    record: str | None = None
    #: truncate: the file is removed when nothing is left (an append created it)
    remove_if_empty: bool = False
    #: append: the bytes to append, decided with the file open and locked (its descriptor,
    #: -1: none yet), so that what another import appended a moment ago is not appended again
    compose: Callable[[int], bytes] | None = None


@dataclass(slots=True)
class Prepared:
    """A :class:`FileWrite` checked and ready: its record for the ledger, and for appends
    and truncations the open, locked file."""

    fw: FileWrite
    real: Path
    rec: dict[str, Any]
    fd: int = -1
    #: what the commit corrects (an append that landed after another program's line)
    fix: dict[str, Any] = field(default_factory=dict)

    @property
    def idle(self) -> bool:
        """Nothing to change after all: an append with nothing left to add, a record or a
        file that would stay byte for byte as it is."""
        fw = self.fw
        if fw.how == "append":
            return not fw.after
        if fw.how in ("replace", "record"):
            return fw.before == fw.after
        return not fw.before

    def close(self) -> None:
        if self.fd >= 0:
            with contextlib.suppress(OSError):
                os.close(self.fd)  # also releases the lock
            self.fd = -1


def read_file(path: Path) -> bytes | None:
    """A regular file's bytes (``None`` when there is none; never opens a FIFO or device)."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return None
        return path.read_bytes()
    except OSError:
        return None


def read_kept(ws: Workspace, name: object) -> bytes | None:
    """A copy a file record names, read only from inside the backups (the ledger lies in
    the workspace); ``None`` otherwise."""
    if not name or not isinstance(name, str):
        return None
    backups = os.path.realpath(ws.state_dir / BACKUPS)
    path = os.path.realpath(ws.state_dir / name)
    if os.path.commonpath([backups, path]) != backups or path == backups:
        return None
    return read_file(Path(path))


def record_path(ws: Workspace, rec: dict[str, Any]) -> Path:
    """The absolute path a file record names (relative to the root when inside it)."""
    return ws.root / str(rec.get("path"))  # (an absolute path stays as it is)


def _feed(h: Any, fd: int, pos: int, n: int) -> int:
    """Hash the open file's bytes from ``pos`` up to ``n`` into ``h``; where it stopped."""
    while pos < n:
        chunk = os.pread(fd, min(_CHUNK, n - pos), pos)
        if not chunk:
            break
        h.update(chunk)
        pos += len(chunk)
    return pos


def _hash_prefixes(fd: int, sizes: list[int]) -> dict[int, str]:
    """SHA-256 of the first ``n`` bytes of the open file, for each ``n`` (one pass)."""
    h, out, pos = hashlib.sha256(), {}, 0
    for n in sorted(set(sizes)):
        pos = _feed(h, fd, pos, n)
        if pos < n:
            break
        out[n] = h.hexdigest()
    return out


def prepare(ws: Workspace, fw: FileWrite) -> Prepared:
    """Check one planned change against the file now (under the transaction lock): the guard,
    and that it is still what the action read. Appends and truncations keep it open, locked."""
    real = resolve_target(fw.path)
    fw.guard(real)
    rec: dict[str, Any] = {"path": ws.display(fw.path), "how": fw.how}
    if fw.created_by:
        rec["created_by"] = fw.created_by
    if fw.how == "replace":
        now = read_file(real)
        if (now is None) != (fw.before is None) or sha256(now) != sha256(fw.before):
            raise ConflictError(fw.path, _stamp(fw.before), _stamp(now))
        rec.update(
            before_sha256=sha256(fw.before),
            after_sha256=sha256(fw.after),
            before_size=len(fw.before) if fw.before is not None else None,
            after_size=len(fw.after) if fw.after is not None else None,
        )
        return Prepared(fw, real, rec)
    if fw.how == "record":
        data = read_file(real)
        if data is None or locate(data, fw.before or b"", fw.offset, fw.anchor) is None:
            raise ConflictError(fw.path, _stamp(fw.before), _stamp(data))
        old = fw.before or b""
        if old and not (fw.after or b"").strip():
            rec["removes"] = True
        if old and len(fw.after or b"") <= len(old):
            # a file others append to never shrinks: a shorter record is padded with spaces
            # before its line ending, a removed one leaves a blank line (store.write.jsonl_edit)
            fw.after = pad_to(fw.after or b"", len(old), old)
        rec.update(
            record=fw.record,
            offset=fw.offset,
            before_sha256=sha256(fw.before) if fw.before else None,
            after_sha256=sha256(fw.after) if fw.after else None,
            before_size=len(fw.before or b""),
            after_size=len(fw.after or b""),
        )
        return Prepared(fw, real, rec)
    p = Prepared(fw, real, rec)
    p.fd = _open_locked(real)
    try:
        if fw.how == "append" and p.fd >= 0 and not whole_lines(p.fd):
            raise WriteError(
                f"{real}: the last line is unfinished (another program may be writing it); "
                "nothing was appended"
            )
        if fw.how == "append" and fw.compose is not None:
            fw.after = fw.compose(p.fd)
        tail = (fw.after if fw.how == "append" else fw.before) or b""
        if p.fd < 0:  # no such file: an append creates it (and undo removes it again)
            if fw.how == "truncate":
                raise ConflictError(fw.path, _expect_stamp(fw.expect or (0, "")), None)
            size, digest, after_digest = None, None, sha256(tail)
        else:
            st = os.fstat(p.fd)
            size = st.st_size
            if fw.how == "append":  # one pass: the file as it is, then with the tail
                h = hashlib.sha256()
                _feed(h, p.fd, 0, size)
                digest = h.hexdigest()
                h.update(tail)
                after_digest = h.hexdigest()
            else:
                keep = size - len(tail)
                hashes = _hash_prefixes(p.fd, [size] + ([keep] if keep >= 0 else []))
                digest = hashes.get(size)
                if keep < 0 or os.pread(p.fd, len(tail), keep) != tail:
                    raise ConflictError(fw.path, None, _stamp(read_file(real)))
                after_digest = hashes.get(keep)
        if fw.expect is not None and (size, digest) != tuple(fw.expect):
            raise ConflictError(fw.path, _expect_stamp(fw.expect), _stamp(read_file(real)))
        cur = size or 0
        if fw.how == "append":
            after_size: int | None = cur + len(tail)
        else:
            after_size = cur - len(tail)
            if fw.remove_if_empty and after_size == 0:
                after_size, after_digest = None, None
        rec.update(
            before_size=size,
            before_sha256=digest,
            after_size=after_size,
            after_sha256=after_digest,
        )
    except BaseException:
        p.close()
        raise
    return p


def _open_locked(real: Path, *, create: bool = False) -> int:
    """The file open and locked for appending and truncating (-1: none; ``create``: made now)."""
    if not create and not os.path.lexists(real):
        return -1
    if create:
        make_dir(real.parent)
    fd = open_locked(real, real, create=create, what="written")
    if create and os.fstat(fd).st_size:
        os.close(fd)  # another program created it meanwhile
        raise ConflictError(real, None, _stamp(read_file(real)))
    return fd


def _stamp(data: bytes | None) -> FileStamp | None:
    return FileStamp(len(data), 0, sha256(data) or "") if data is not None else None


def _expect_stamp(expect: Expect) -> FileStamp | None:
    size, digest = expect
    return FileStamp(size, 0, digest or "") if size is not None else None


def write_backups(ws: Workspace, tx: str, i: int, p: Prepared) -> None:
    """Keep the bytes of both sides under ``backups/<tx>/`` (written before the ``begin``
    line): whatever happens next, the file can be put back, or written again."""
    name = p.real.name[:80]
    base = f"{BACKUPS}/{tx}/{i:02d}-{name}"
    fw, own = p.fw, state(ws)
    keep: list[tuple[str, str, bytes | None]] = []
    if fw.how == "replace":
        keep += [("backup", base, fw.before), ("written", f"{base}.after", fw.after)]
    elif fw.how == "record":
        keep += [
            ("backup", base, fw.before or None),
            ("written", f"{base}.after", fw.after or None),
        ]
        if fw.anchor:
            keep.append(("anchor", f"{base}.anchor", fw.anchor))
    elif fw.how == "append":
        keep.append(("written", f"{base}.after", fw.after or b""))
    else:
        keep.append(("backup", base, fw.before or b""))
    for key, rel, data in keep:
        if data is None:
            p.rec[key] = None
            continue
        atomic_write(
            ws.state_dir / rel, data, _stamp(read_file(ws.state_dir / rel)), guard=own, create=True
        )
        p.rec[key] = rel
        if key == "anchor":  # the other copies' hashes are the record's before and after
            p.rec["anchor_sha256"] = sha256(data)


def kept_anchor(ws: Workspace, rec: dict[str, Any]) -> bytes | None:
    """The line a record's removal or return is anchored after (``b""``: none), as kept;
    ``None`` when the copy is not what the record's hash says (missing or swapped)."""
    if not rec.get("anchor"):
        return b""
    data = read_kept(ws, rec.get("anchor"))
    return data if data is not None and sha256(data) == rec.get("anchor_sha256") else None


def perform(ws: Workspace, p: Prepared) -> None:
    """Write one prepared change (its record is in the ``begin`` line by now)."""
    fw = p.fw
    if fw.how == "replace":
        expected = _stamp(fw.before)
        if fw.after is None:
            _delete(p.real, expected, fw.guard)
        else:
            atomic_write(p.real, fw.after, expected, guard=fw.guard, create=True)
        return
    if fw.how == "record":
        data = read_file(p.real)
        old = fw.before or b""
        at = locate(data, old, fw.offset, fw.anchor) if data is not None else None
        if data is None or at is None:
            raise ConflictError(fw.path, _stamp(old), _stamp(data))
        end = at + len(old)

        def relocate(now: bytes) -> tuple[int, int] | None:
            found = locate(now, old, fw.offset, fw.anchor)
            return (found, found + len(old)) if found is not None else None

        # written as prepare() foresaw: padded when shorter (the bytes kept as "written")
        replace_span(
            p.real,
            at,
            end,
            fw.after or b"",
            prefix_len=end,
            prefix_sha256=hashlib.sha256(data[:end]).hexdigest(),
            guard=fw.guard,
            relocate=relocate,
        )
        return
    try:
        if fw.how == "append":
            _append(p)
        else:
            _truncate(p)
    except OSError as exc:
        raise write_error(exc, p.real) from exc


def _append(p: Prepared) -> None:
    data = p.fw.after or b""
    start = p.rec["before_size"] or 0
    if p.fd < 0:  # a new file: created now, and nobody else's meanwhile
        p.fw.guard(p.real)
        p.fd = _open_locked(p.real, create=True)
    written = os.write(p.fd, data)
    if written != len(data):
        raise WriteError(f"{p.real}: short write ({written} of {len(data)} bytes)")
    os.fsync(p.fd)
    if os.pread(p.fd, len(data), start) == data:
        return
    # another program appended between our measure and our write (it does not take our
    # lock): find where our bytes landed and say so in the commit
    size = os.fstat(p.fd).st_size
    at = size - len(data)
    while at >= start and os.pread(p.fd, len(data), at) != data:
        at -= 1
    if at < start:
        raise WriteError(f"{p.real}: the appended lines cannot be found again")
    hashes = _hash_prefixes(p.fd, [at, at + len(data)])
    p.fix = {
        "before_size": at,
        "before_sha256": hashes.get(at),
        "after_size": at + len(data),
        "after_sha256": hashes.get(at + len(data)),
    }


def _truncate(p: Prepared) -> None:
    keep = p.rec["before_size"] - len(p.fw.before or b"")
    size = os.fstat(p.fd).st_size
    digest = _hash_prefixes(p.fd, [size]).get(size)
    if (size, digest) != (p.rec["before_size"], p.rec["before_sha256"]):
        raise ConflictError(p.fw.path, None, None)
    if p.rec["after_size"] is None:
        p.fw.guard(p.real)
        os.unlink(p.real)
        fsync_dir(p.real.parent)
        return
    os.ftruncate(p.fd, keep)
    os.fsync(p.fd)


def _delete(real: Path, expected: FileStamp | None, guard: Guard) -> None:
    guard(real)
    now = read_file(real)
    if now is None:
        return
    if expected is None or sha256(now) != expected.sha256:
        raise ConflictError(real, expected, _stamp(now))
    try:
        os.unlink(real)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise write_error(exc, real) from exc
    fsync_dir(real.parent)


_BOM = b"\xef\xbb\xbf"


def _at_line_starts(data: bytes, needle: bytes) -> list[int]:
    """Where ``needle`` starts a line (right after a byte-order mark counts)."""
    bom = data.startswith(_BOM)
    return [i for i in _all(data, needle) if i == 0 or data[i - 1] == 10 or (i == 3 and bom)]


def locate(data: bytes, span: bytes, offset: int, anchor: bytes) -> int | None:
    """Where ``span`` (whole lines) is in ``data``: at ``offset`` when it is still there,
    else its one occurrence; an empty span goes right after the line ``anchor`` (at the
    start of the file when there is none). ``None``: not there, or not only once."""
    if span:
        hits = _at_line_starts(data, span)
    elif anchor:
        hits = [i + len(anchor) for i in _at_line_starts(data, anchor)]
    else:
        hits = [3 if data.startswith(_BOM) else 0]
    if offset in hits:
        return offset
    if len(hits) > 1 and span and anchor:  # several alike (blank lines): the one after anchor
        after = {i + len(anchor) for i in _at_line_starts(data, anchor)}
        hits = [h for h in hits if h in after]
    return hits[0] if len(hits) == 1 else None


@dataclass(slots=True)
class Standing:
    """Where a file is against one file record (``why``: in words, when changed)."""

    where: Where
    why: str = ""
    now: bytes | None = None
    #: a record's line as it is in the file now, when it is the record but for the
    #: spaces padding it (a later, longer edit undone in its place leaves more of them)
    found: bytes | None = None


def _digests(path: Path, head: int) -> tuple[int | None, str | None, str | None]:
    """A regular file's size, digest and that of its first ``head`` bytes, read in chunks."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return None, None, None
        with path.open("rb") as f:
            size = os.fstat(f.fileno()).st_size
            got = _hash_prefixes(f.fileno(), [head, size])
    except OSError:
        return None, None, None
    return size, got.get(size), got.get(head)


def where(ws: Workspace, rec: dict[str, Any], *, content: bool = True) -> Standing:
    """Is the file as the record's transaction found it, left it, or neither? ``content=False``:
    hashed in chunks, not kept (the history's state of each transaction of a 36 MB file)."""
    path = record_path(ws, rec)
    how = rec.get("how") or "replace"
    # sizes as a whole number (0 otherwise): a teammate's line is any JSON, not a crash
    n, old_n = (
        v if isinstance(v, int) else 0 for v in (rec.get("after_size"), rec.get("before_size"))
    )
    if content or how == "record":
        now = read_file(path)
        if how == "record":
            return _where_record(ws, rec, now)
        size, digest = (len(now), sha256(now)) if now is not None else (None, None)
        first = None
    else:
        now = None
        size, digest, first = _digests(path, n)
    if size is None and path.exists():
        return Standing("changed", "it is not a regular file", None)
    sized = how in ("append", "truncate")  # a file others append to: its size too
    for side in ("after", "before"):
        if digest == rec.get(f"{side}_sha256") and (not sized or size == rec.get(f"{side}_size")):
            return Standing(side, now=now)
    if sized and size is not None and size > max(n, old_n) and rec.get("after_sha256"):
        if now is not None:  # (the chunked read hashed its first bytes already)
            first = hashlib.sha256(memoryview(now)[:n]).hexdigest()
        if first == rec.get("after_sha256"):
            return Standing("changed", "lines were appended after it since", now)
    return Standing("changed", "it changed since", now)


def _record_copies(ws: Workspace, rec: dict[str, Any]) -> tuple[bytes, bytes, bytes] | None:
    """A record's kept copies (before, after, anchor); ``None`` unless each hashes as the
    record says: the copies lie in the workspace too."""
    old = read_kept(ws, rec.get("backup")) or b""
    new = read_kept(ws, rec.get("written")) or b""
    anchor = kept_anchor(ws, rec)
    digests = (sha256(old) if old else None, sha256(new) if new else None)
    if anchor is None or digests != (rec.get("before_sha256"), rec.get("after_sha256")):
        return None
    return old, new, anchor


def _where_record(ws: Workspace, rec: dict[str, Any], now: bytes | None) -> Standing:
    if now is None:
        return Standing("changed", "the file is gone", None)
    copies = _record_copies(ws, rec)
    if copies is None:
        return Standing("changed", "its copies under .hurikaeri/backups are missing", now)
    old, new, anchor = copies
    offset = int(rec.get("offset") or 0)
    old_at = locate(now, old, offset, anchor) if old else None
    new_at = locate(now, new, offset, anchor) if new else None
    old_gone = bool(old) and not _at_line_starts(now, old)
    new_gone = bool(new) and not _at_line_starts(now, new)
    anchored = not anchor or bool(_at_line_starts(now, anchor))
    after = new_at is not None if new else (old_gone and anchored)
    before = old_at is not None if old else (new_gone and anchored)
    if after and not before:
        return Standing("after", now=now)
    if before and not after:
        return Standing("before", now=now)
    if not after and not before:  # the record, padded otherwise than when it was written
        new_padded = padded_line(now, new, offset) if new else None
        old_padded = padded_line(now, old, offset) if old else None
        if new_padded is not None and old_padded is None:
            return Standing("after", now=now, found=new_padded)
        if old_padded is not None and new_padded is None:
            return Standing("before", now=now, found=old_padded)
    return Standing(
        "changed", f"the record {rec.get('record') or ''} changed since".replace("  ", " "), now
    )


def _unpadded(line: bytes) -> tuple[bytes, bytes]:
    body, nl = split_eol(line)
    return body.rstrip(b" "), nl


def padded_line(data: bytes, record: bytes, offset: int) -> bytes | None:
    """The one line of ``data`` that is ``record`` but for the spaces before its line
    ending (at ``offset`` when it is there); ``None``: none, or several."""
    core, nl = _unpadded(record)
    if not core:
        return None
    found: dict[int, bytes] = {}
    for at in _at_line_starts(data, core):
        end = data.find(b"\n", at)
        line = data[at : end + 1] if end >= 0 else data[at:]
        if _unpadded(line) == (core, nl):
            found[at] = line
    if offset in found:
        return found[offset]
    return next(iter(found.values())) if len(found) == 1 else None


def record_now(data: bytes | None, rec: dict[str, Any]) -> bytes:
    """The line a record is (or was) in the file now, for a diff of one record against
    one record: the line at its place, else the one naming its id; ``b""``: none."""
    if not data:
        return b""
    offset = int(rec.get("offset") or 0)
    starts = [offset] if offset == 0 or data[offset - 1 : offset] == b"\n" else []
    rid = rec.get("record")
    if rid:
        needle = json.dumps(str(rid), ensure_ascii=False).encode("utf-8", "surrogatepass")
        starts += [data.rfind(b"\n", 0, i) + 1 for i in _all(data, needle)]
    for at in starts:
        if at >= len(data):
            continue
        end = data.find(b"\n", at)
        line = data[at : end + 1] if end >= 0 else data[at:]
        if not rid or str(rid).encode("utf-8", "surrogatepass") in line:
            return line
    return b""


def _all(data: bytes, needle: bytes) -> list[int]:
    out = []
    i = data.find(needle)
    while i >= 0:
        out.append(i)
        i = data.find(needle, i + 1)
    return out


def replay_guard(ws: Workspace, rec: dict[str, Any], *, deletes: bool, action: str) -> Guard:
    """What an undo, redo or roll-back of an ``action`` record may write: what that action may
    write now, deleting only a file such an action creates (a line must not lead elsewhere)."""
    allowed = action_writes(ws, action)
    creatable = created_by_an_action(ws)
    kind = rec.get("created_by")

    def guard(path: Path) -> None:
        allowed(path)
        if deletes:
            creatable(path, kind=str(kind) if kind else None)

    return guard


def remove_created_empty(ws: Workspace, rec: dict[str, Any], action: str) -> bool:
    """Remove the empty file an append killed before writing left (True: removed)."""
    if rec.get("how") != "append" or rec.get("before_size") is not None:
        return False
    path = record_path(ws, rec)
    if read_file(path) != b"":
        return False
    try:
        replay_guard(ws, rec, deletes=True, action=action)(resolve_target(path))
        os.unlink(path)
    except (WriteError, OSError):
        return False
    return True


class Unrestorable(WriteError):
    """A file a record cannot be turned around for (a copy missing, a path refused)."""


def turn_write(
    ws: Workspace, rec: dict[str, Any], st: Standing, action: str, *, back: bool
) -> FileWrite:
    """The change that takes the file (standing at ``st``) from the record's *after* back to
    its *before* (``back``), or forward again, as ``action`` may write. Every kept copy is
    checked against the record's hashes first: only what the record says was written is."""
    now = st.now
    path = record_path(ws, rec)
    how = rec.get("how") or "replace"
    src, dst = ("after", "before") if back else ("before", "after")
    if how == "record":
        copies = _record_copies(ws, rec)
        if copies is None:
            raise Unrestorable(
                f"refused: the copies of the record in {path} under {ws.state_dir / BACKUPS} "
                "are not what was recorded; nothing was changed"
            )
        old, new, anchor = copies
        cur, to = (new, old) if back else (old, new)
        if st.found is not None:  # the record as it is now, padded otherwise
            cur = st.found
        offset = int(rec.get("offset") or 0)
        return FileWrite(
            path,
            cur,
            to,
            replay_guard(ws, rec, deletes=False, action=action),
            "record",
            offset=offset,
            anchor=anchor,
            record=rec.get("record"),
        )
    if how in ("append", "truncate"):
        grows = (how == "append") != back
        tail_key = "written" if how == "append" else "backup"
        tail = read_kept(ws, rec.get(tail_key))
        if tail is None or len(tail) != abs(
            (rec.get("after_size") or 0) - (rec.get("before_size") or 0)
        ):
            raise Unrestorable(
                f"refused: the copy of the lines {path} received is missing under "
                f"{ws.state_dir / BACKUPS}; nothing was changed"
            )
        expect: Expect = (rec.get(f"{src}_size"), rec.get(f"{src}_sha256"))
        gone = rec.get(f"{dst}_size") is None
        if grows and sha256((now or b"") + tail) != rec.get(f"{dst}_sha256"):
            raise Unrestorable(
                f"refused: the copy of the lines {path} received under "
                f"{ws.state_dir / BACKUPS} is not what was recorded; nothing was changed"
            )
        return FileWrite(
            path,
            None if grows else tail,
            tail if grows else None,
            replay_guard(ws, rec, deletes=gone, action=action),
            "append" if grows else "truncate",
            created_by=rec.get("created_by"),
            expect=expect,
            remove_if_empty=gone,
        )
    target = rec.get(f"{dst}_sha256")
    data: bytes | None = None
    if target is None:  # deletes: only a file hurikaeri wrote, as the copy it kept shows
        kept = read_kept(ws, rec.get("written" if back else "backup"))
        if kept is None or sha256(kept) != rec.get(f"{src}_sha256"):
            raise Unrestorable(
                f"refused: {path} is not the file hurikaeri created (its copy under "
                f"{ws.state_dir / BACKUPS} is missing or differs); nothing was deleted"
            )
    else:
        data = read_kept(ws, rec.get("backup" if back else "written"))
        if data is None or sha256(data) != target:
            raise Unrestorable(
                f"refused: the {'backup' if back else 'copy of what was written'} of {path} "
                f"is missing under {ws.state_dir / BACKUPS}; nothing was changed"
            )
    return FileWrite(
        path,
        now,
        data,
        replay_guard(ws, rec, deletes=target is None, action=action),
        "replace",
        created_by=rec.get("created_by"),
    )


def kept_side(ws: Workspace, rec: dict[str, Any], side: Literal["before", "after"]) -> bytes | None:
    """The bytes of one side of a record as kept, for diffs (append, truncate: the lines only)."""
    how = rec.get("how") or "replace"
    if how in ("replace", "record"):
        return read_kept(ws, rec.get("backup" if side == "before" else "written"))
    if how == "append":
        return b"" if side == "before" else read_kept(ws, rec.get("written"))
    return read_kept(ws, rec.get("backup")) if side == "before" else b""
