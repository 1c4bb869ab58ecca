"""The index cache (``.hurikaeri/index-cache-vN.json``): per file its identity, diagnostics
and heads, so a start parses only what changed. JSON, never pickle (anyone can write into a
workspace), with SHA-256 checksums in two parts (the lessons checked last); what does not
match is rebuilt, never trusted."""

from __future__ import annotations

import contextlib
import hashlib
import io
import itertools
import json
import mmap
import os
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import store
from store.gc_pause import give_back
from store.workspace import Workspace
from store.write.atomic import replace_file

FORMAT = "hurikaeri-index"
#: Bump when the entries' layout or what indexing computes changes.
VERSION = 8
#: Bump whenever a check changes what it reports (cached diagnostics of older checks).
RULES = 4
NAME = f"index-cache-v{VERSION}.json"
BATCH_BYTES = 1 << 20
CHECKSUM_CHUNK = 16 << 20
#: Files modified this close to the cache's writing are checked by hash (coarse clocks).
RACY_NS = 2_000_000_000


class CacheError(Exception):
    """Absent, foreign, of another version, or corrupt."""


def cache_path(ws: Workspace) -> Path:
    return ws.state_dir / NAME


def clear(ws: Workspace) -> None:
    for p in ws.state_dir.glob("index-cache-*"):
        with contextlib.suppress(OSError):
            p.unlink()


def _fingerprint(ws: Workspace) -> dict[str, Any]:
    return {
        "root": str(ws.root),
        "locations": {k: [str(p) for p in v] for k, v in sorted(ws.locations.items())},
    }


def file_sha256(path: Path) -> str | None:
    try:
        with open(path, "rb") as f:
            return hashlib.file_digest(f, "sha256").hexdigest()
    except OSError:
        return None


#: A part of the mapped cache file: (the mapping, start, end).
Blob = tuple[mmap.mmap, int, int]


@dataclass(slots=True)
class Cached:
    """Each file's kind, and where its entry and blob lie in the cache's file, mapped
    read-only: each decoded only when asked for."""

    written_ns: int
    #: path → (kind, where its entry's JSON lies, blob)
    lines: dict[str, tuple[str | None, tuple[int, int], Blob | None]]
    mapped: mmap.mmap
    #: where the part checked apart begins, and whether it matches (waits for its hash)
    later: int
    later_ok: Callable[[], bool]

    def entries(
        self, paths: list[str], per: int = 512, most: int = BATCH_BYTES
    ) -> Iterator[tuple[str, Any, Blob | None]]:
        """``(path, entry, blob)`` of ``paths``, decoded ``per`` at a time; ``entry`` is
        ``None`` when not valid. Pages read are given back."""
        m, lines = self.mapped, self.lines
        trusted = len(m)
        at = 0
        while at < len(paths):
            where: list[tuple[str | None, tuple[int, int], Blob | None]] = []
            size = 0
            while at + len(where) < len(paths) and len(where) < per and (not where or size < most):
                w = lines[paths[at + len(where)]]
                where.append(w)
                size += w[1][1] - w[1][0]
            part = paths[at : at + len(where)]
            at += len(where)
            try:
                raws = json.loads(b"[" + b",".join(m[lo:hi] for _k, (lo, hi), _b in where) + b"]")
                if len(raws) != len(part):
                    raise ValueError("entries run together")
            except ValueError:  # one of them is not JSON (or two make one): each alone
                raws = []
                for _k, (lo, hi), _b in where:
                    try:
                        raws.append(json.loads(m[lo:hi]))
                    except ValueError:
                        raws.append(None)
            give_back(m, min(w[1][0] for w in where), max(w[1][1] for w in where))
            if max(w[1][1] for w in where) > self.later and not self.later_ok():
                trusted = self.later
            for p, raw, (_k, (lo, _hi), blob) in zip(part, raws, where, strict=True):
                yield p, raw if isinstance(raw, list) and lo < trusted else None, blob

    def release(self) -> None:
        give_back(self.mapped)

    def unchanged(self, path: Path, ident: tuple[int, int, int, int, str]) -> bool:
        """Whether ``path`` is still the file of ``ident``."""
        size, mtime_ns, ino, ctime_ns, sha = ident
        try:
            st = os.stat(path)
        except OSError:
            return False
        if size < 0 or st.st_size != size or st.st_mtime_ns != mtime_ns:
            return False
        settled = mtime_ns < self.written_ns - RACY_NS
        if settled and st.st_ino == ino and st.st_ctime_ns == ctime_ns:
            return True
        return bool(file_sha256(path) == sha)


class Reading:
    """The cache of ``ws`` being read, checksums hashed in a thread beside the caller's work,
    a window of the mapping at a time (no arena kept, pages given back). :meth:`result` or
    :class:`CacheError`; :meth:`close` in any case."""

    def __init__(self, ws: Workspace) -> None:
        self._error: BaseException | None = None
        self._mapped: mmap.mmap | None = None
        self._thread: threading.Thread | None = None
        self._failed: list[BaseException] = []
        self._sums: list[str] = []  # each part's, as hashed
        self._first = threading.Event()  # the first part hashed (or the hashing failed)
        self._written, self._body, self._later = 0, 0, 0
        self._sha256: list[str] = []
        try:
            with open(cache_path(ws), "rb") as f:
                self._written, self._mapped, self._sha256, later = _opened(ws, f)
                self._body = f.tell()
                self._later = min(self._body + later, len(self._mapped))
        except CacheError as exc:
            self._error = exc
        except (OSError, ValueError, MemoryError) as exc:
            self._error = CacheError(f"no cache: {exc}")
        if self._error is not None:
            self.close()
            return
        thread = threading.Thread(target=self._checksum, name="hurikaeri-index-cache")
        thread.daemon = True
        try:
            thread.start()
            self._thread = thread
        except RuntimeError:  # no thread to be had: hashed here
            self._checksum()

    def _checksum(self) -> None:
        mapped = self._mapped
        assert mapped is not None
        try:
            with memoryview(mapped) as view:
                for lo, hi in ((self._body, self._later), (self._later, len(mapped))):
                    digest = hashlib.sha256()
                    for at in range(lo, hi, CHECKSUM_CHUNK):
                        with view[at : min(hi, at + CHECKSUM_CHUNK)] as part:  # (let go of
                            digest.update(part)  # before close)
                        give_back(mapped, at, min(hi, at + CHECKSUM_CHUNK))
                    self._sums.append(digest.hexdigest())
                    self._first.set()
        except BaseException as exc:  # noqa: BLE001 - raised again by result()
            self._failed.append(exc)
        finally:
            self._first.set()

    def _later_ok(self) -> bool:
        """Whether the second part matches its checksum (once hashed)."""
        if self._thread is not None:
            self._thread.join()
        return not self._failed and self._sums == self._sha256

    def result(self) -> Cached:
        if self._error is not None:
            raise self._error
        mapped = self._mapped
        assert mapped is not None
        try:
            try:  # scanned while the checksum is hashed; trusted only once it matches
                lines, bad = _layout(mapped, self._body), None
            except CacheError as exc:
                lines, bad = {}, exc
            self._first.wait()
            if self._failed:
                raise self._failed[0]
            if self._sums[:1] != self._sha256[:1]:
                raise CacheError("corrupt: the checksum does not match")
            if bad is not None:
                raise bad
            cached = Cached(self._written, lines, mapped, self._later, self._later_ok)
            self._mapped = None  # the cache's own now (the second part still hashed)
        except OSError as exc:
            raise CacheError(f"no cache: {exc}") from exc
        finally:
            self.close()
        cached.release()  # the pages the layout was read from: read again when needed
        return cached

    def close(self) -> None:
        if self._mapped is not None:  # (not taken: the hashing of it ended first)
            if self._thread is not None:
                self._thread.join()
            self._mapped.close()
            self._mapped = None


def _opened(ws: Workspace, f: io.BufferedReader) -> tuple[int, mmap.mmap, list[str], int]:
    """Time of writing, the mapped file, the checksums and where the second part begins
    (from the body's start), once the header fits."""
    try:
        header = json.loads(f.readline())
    except ValueError:
        header = None
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise CacheError("not an index cache")
    if (
        header.get("version") != VERSION
        or header.get("app") != store.__version__
        or header.get("rules") != RULES
    ):
        raise CacheError("made by another version")
    if header.get("workspace") != _fingerprint(ws):
        raise CacheError("made for another workspace")
    written, sums, later = header.get("written_ns"), header.get("sha256"), header.get("later")
    if not isinstance(written, int):
        raise CacheError("corrupt: no time of writing")
    if not (isinstance(sums, list) and len(sums) == 2 and isinstance(later, int) and later >= 0):
        raise CacheError("corrupt: no checksums")
    try:
        mapped = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError) as exc:
        raise CacheError(f"cannot map: {exc}") from exc
    return written, mapped, sums, later


def _layout(
    mapped: mmap.mmap, body: int
) -> dict[str, tuple[str | None, tuple[int, int], Blob | None]]:
    """Each file's kind, entry place and blob (skipped, not read)."""
    at, end = body, len(mapped)
    quoted: list[bytes] = []
    places: list[tuple[str | None, tuple[int, int], Blob | None]] = []
    find = mapped.find
    while at < end:
        # each file: ["path", "kind" or null, blob bytes] TAB entry NEWLINE blob
        nl = find(b"\n", at)
        tab = find(b"\t", at, nl) if nl >= 0 else -1
        if tab < 0:
            raise CacheError("corrupt: unexpected layout")
        head = mapped[at:tab]
        size_at = head.rfind(b",")  # the kind and the size hold no comma; the path may
        kind_at = head.rfind(b",", 0, size_at)
        if kind_at < 2 or head[:2] != b'["' or head[-1:] != b"]":
            raise CacheError("corrupt: unexpected layout")
        try:
            size = int(head[size_at + 1 : -1])
            kind_raw = head[kind_at + 1 : size_at].strip()
            if kind_raw == b"null":
                kind = None
            elif kind_raw[:1] == b'"' == kind_raw[-1:] and b"\\" not in kind_raw:
                kind = kind_raw[1:-1].decode()  # a kind's name: plain ASCII
            else:
                kind = json.loads(kind_raw)
        except ValueError as exc:
            raise CacheError(f"corrupt: {exc}") from exc
        start = nl + 1
        if size < 0 or start + size > end or not (kind is None or isinstance(kind, str)):
            raise CacheError("corrupt: unexpected layout")
        quoted.append(head[1:kind_at])
        places.append((kind, (tab + 1, nl), (mapped, start, start + size) if size else None))
        at = start + size
    try:  # the paths, decoded in one pass
        names = json.loads(b"[" + b",".join(quoted) + b"]") if quoted else []
    except ValueError as exc:
        raise CacheError(f"corrupt: {exc}") from exc
    if len(names) != len(places) or not all(isinstance(n, str) for n in names):
        raise CacheError("corrupt: unexpected layout")
    return dict(zip(names, places, strict=True))


Entries = Iterable[tuple[str, str | None, list[Any], bytes]]


def write(ws: Workspace, entries: Entries, later: Entries = ()) -> None:
    """Write the cache atomically from ``(path, kind, entry, blob)``, ``later``'s hashed
    apart; ``OSError``: callers may ignore it."""
    ws.state_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryFile(dir=ws.state_dir) as scratch:
        sums = [_write_part(scratch, entries)]
        later_at = scratch.tell()
        sums.append(_write_part(scratch, later))
        header = {
            "format": FORMAT,
            "version": VERSION,
            "rules": RULES,
            "app": store.__version__,
            "workspace": _fingerprint(ws),
            "written_ns": time.time_ns(),
            "sha256": sums,
            "later": later_at,
        }
        scratch.seek(0)
        body = iter(lambda: scratch.read(1 << 20), b"")
        replace_file(cache_path(ws), itertools.chain([json.dumps(header).encode() + b"\n"], body))
    for old in ws.state_dir.glob("index-cache-*"):  # other versions' caches
        if old.name != NAME and not old.name.startswith("."):
            with contextlib.suppress(OSError):
                old.unlink()


def _write_part(scratch: IO[bytes], entries: Entries) -> str:
    """Each file: ``["path", "kind" or null, blob bytes]`` TAB entry NEWLINE blob; the
    SHA-256 of what was written."""
    digest = hashlib.sha256()
    for path, kind, entry, blob in entries:
        piece = (
            json.dumps([path, kind, len(blob)], ensure_ascii=True).encode()
            + b"\t"
            + json.dumps(entry, ensure_ascii=False, separators=(",", ":")).encode(
                "utf-8", "backslashreplace"
            )
            + b"\n"
        )
        for part in (piece, blob):
            digest.update(part)
            scratch.write(part)
    return digest.hexdigest()


def report_path_hint(ws: Workspace, report_id: str) -> Path | None:
    """The file where the cache last saw the KPT report ``report_id`` (a byte search): a
    hint the caller checks by reading the file; ``None`` when none."""
    rid = json.dumps(report_id, ensure_ascii=False).encode("utf-8", "backslashreplace")
    needle = b'["R",[' + rid + b","  # (a lone surrogate as the cache writes it)
    try:
        with (
            open(cache_path(ws), "rb") as f,
            mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as m,
        ):
            at = m.find(needle)
            if at < 0:
                return None
            # the line's start: the last '["' before the tab (the path's JSON is ASCII)
            tab = m.rfind(b"\t", 0, at)
            start = m.rfind(b'["', 0, tab) if tab >= 0 else -1
            head = json.loads(m[start:tab]) if start >= 0 else None
    except (OSError, ValueError):
        return None
    if not isinstance(head, list) or len(head) != 3 or head[1] != "kpt":
        return None
    return Path(head[0]) if isinstance(head[0], str) else None
