"""The workspace watcher: domain changes on ``watchfiles.awatch``. Each path of a batch is
stat'ed once it is complete (a rename-save is one modification, a ``chmod`` nothing); a missing
location is watched through its nearest existing ancestor; only locations are watched
recursively, never the root (``~/.claude`` is full of other tools' files)."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import os
import platform
import stat
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, TypeAlias

from watchfiles import Change as RawChange
from watchfiles import awatch

from store.ledger import LEDGER_NAME
from store.read.kinds import ignored_name
from store.read.textio import FileStamp
from store.team import team_dir
from store.workspace import Workspace, walk_files

log = logging.getLogger(__name__)

DOCUMENT_SUFFIXES = (".yaml", ".yml", ".jsonl", ".json", ".md", ".markdown")
OWN_WRITE_TTL = 10.0
ROOT_POLL_SECONDS = 0.5  # how often a missing workspace root is looked for
RETRY_SECONDS = 0.5  # before watchers that failed to start are tried again
#: watchfiles' poller keeps whole-second mtimes (samuelcolvin/watchfiles#319), so a second
#: write within the second, as an agent appending lines makes, is seen by a recheck
RECHECK_SECONDS = 1.1

_FILE_LOCATIONS = ("lessons_user", "lessons_ai")

ChangeKind: TypeAlias = Literal["added", "modified", "deleted"]


@dataclass(frozen=True, slots=True)
class Change:
    path: Path  # absolute, symlinks not resolved
    kind: ChangeKind


class OwnWrites:
    """Stamps of files this process wrote, so the watcher can skip our own writes; keyed by
    the real path (a write through a symlink counts), locked (workers write, the loop asks)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._entries: dict[str, tuple[float, FileStamp, int]] = {}

    def record(self, path: Path) -> None:
        key = os.path.realpath(path)
        try:
            st = os.stat(key)
            size, sha = _digest(key)
            stamp = FileStamp(size, st.st_mtime_ns, sha)
        except OSError:
            with self._lock:
                self._entries.pop(key, None)
            return
        with self._lock:
            self._prune()
            self._entries[key] = (self._clock() + OWN_WRITE_TTL, stamp, st.st_ino)

    def is_own(self, path: Path) -> bool:
        """The file holds what was recorded (kept for the TTL: a write may come in batches)."""
        key = os.path.realpath(path)
        with self._lock:
            self._prune()
            entry = self._entries.get(key)
        if entry is None:
            return False
        _, stamp, ino = entry
        try:
            st = os.stat(key)
            if not stat.S_ISREG(st.st_mode) or st.st_size != stamp.size:
                return False
            if st.st_mtime_ns == stamp.mtime_ns and st.st_ino == ino:
                return True
            size, sha = _digest(key)  # same size, new stat: compare the bytes
        except OSError:
            return False
        return size == stamp.size and sha == stamp.sha256

    def _prune(self) -> None:
        now = self._clock()
        for key in [k for k, (expires, _, _) in self._entries.items() if expires <= now]:
            del self._entries[key]


def _digest(path: str) -> tuple[int, str]:
    with open(path, "rb") as fh:
        sha = hashlib.file_digest(fh, "sha256").hexdigest()
        return fh.tell(), sha


# --- what to watch -------------------------------------------------------------------------

#: size, mtime, ctime (which no program can set), inode
_Stamp: TypeAlias = tuple[int, int, int, int]


@dataclass(frozen=True, slots=True)
class _Plan:
    deep: tuple[Path, ...]  # existing location directories, watched recursively
    shallow: tuple[Path, ...]  # existing directories watched for their direct entries only
    dirs: tuple[Path, ...]  # directory locations, existing or not
    files: frozenset[Path]  # single files: JSONL file locations and the ledger
    structural: frozenset[Path]  # a directory appearing or vanishing here changes the plan
    #: a directory appearing in one of these may match a location's glob pattern
    glob_tops: frozenset[Path] = frozenset()


def _lineage(path: Path) -> set[Path]:
    return {path, *path.parents}


def _too_wide(path: Path) -> bool:
    """Never watched recursively, whatever the config says."""
    return path == Path(path.anchor) or str(path) == os.path.expanduser("~")


def _nearest_dir(path: Path, root: Path) -> Path | None:
    """``path`` or its nearest existing ancestor; never above the root for a path inside it,
    never the filesystem root."""
    inside = path.is_relative_to(root)
    while not path.is_dir():
        if (inside and path == root) or path.parent == path:
            return None
        path = path.parent
    return None if path == Path(path.anchor) else path


def _outermost(paths: Iterable[Path]) -> list[Path]:
    kept: list[Path] = []
    for p in sorted(set(paths)):
        if not any(p.is_relative_to(k) for k in kept):
            kept.append(p)
    return kept


def _make_plan(ws: Workspace) -> _Plan | None:
    root = ws.root
    if not root.is_dir():
        return None
    ws.reglob()  # an author's directory a pull brought: its files come as added
    tops = ws.glob_tops()
    dirs: list[Path] = [team_dir(ws.state_dir)]  # a team's ledgers, one per reviewer
    files: list[Path] = [ws.state_dir / LEDGER_NAME]
    for key, paths in ws.locations.items():
        # transcripts are read when shown, not watched: Claude Code appends to them all day
        if key in ("state", "transcripts"):
            continue
        for p in paths:
            (files if key in _FILE_LOCATIONS and not p.is_dir() else dirs).append(p)
    deep: list[Path] = []
    shallow: list[Path] = []
    structural: set[Path] = set()
    for d in dirs:
        structural |= _lineage(d)
        if d.is_dir():
            (shallow if _too_wide(d) else deep).append(d)
    for f in files:
        structural |= _lineage(f.parent)
    # the parent sees a location deleted and recreated; for a missing one the nearest
    # existing ancestor sees the first directory on the way to it appear
    shallow += [a for p in (*dirs, *files) if (a := _nearest_dir(p.parent, root)) is not None]
    shallow += tops
    deep = _outermost(deep)
    shallow = sorted({s for s in shallow if not any(s.is_relative_to(d) for d in deep)})
    return _Plan(
        tuple(deep),
        tuple(shallow),
        tuple(dirs),
        frozenset(files),
        frozenset(structural),
        frozenset(tops),
    )


def _document_name(name: str) -> bool:
    return name.lower().endswith(DOCUMENT_SUFFIXES) and not ignored_name(name)


def _in_location(path: Path, plan: _Plan) -> bool:
    """``path`` lies inside a directory location, below no dot-directory or dropping."""
    for d in plan.dirs:
        if path != d and path.is_relative_to(d):
            return not any(ignored_name(part) for part in path.relative_to(d).parts)
    return False


def _wanted(path: Path, plan: _Plan) -> bool:
    return path in plan.files or (_document_name(path.name) and _in_location(path, plan))


def _stamp(st: os.stat_result) -> _Stamp:
    return (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)


def _stat_file(path: Path) -> _Stamp | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return _stamp(st) if stat.S_ISREG(st.st_mode) else None


def _stat_all(paths: Iterable[Path], found: dict[Path, _Stamp]) -> None:
    for path in paths:
        if (stamp := _stat_file(path)) is not None:
            found[path] = stamp


def _scan(plan: _Plan) -> dict[Path, _Stamp]:
    found: dict[Path, _Stamp] = {}
    _stat_all(plan.files, found)
    for d in _outermost(plan.dirs):
        _stat_all(walk_files(d, DOCUMENT_SUFFIXES), found)
    return found


# --- turning raw batches into changes ------------------------------------------------------


class _State:
    """The files known to exist, and what changed (always in a thread)."""

    def __init__(self, own_writes: OwnWrites | None) -> None:
        self.own_writes = own_writes
        self.plan: _Plan | None = None
        self.known: dict[Path, _Stamp] = {}
        #: existing files the last batch looked at (what a poller may look at again too late)
        self.touched: set[Path] = set()

    def seed(self, plan: _Plan) -> None:
        self.plan = plan
        self.known = _scan(plan)
        self.touched = self._recent()

    def reconcile(self, plan: _Plan | None) -> dict[Path, ChangeKind]:
        """Rescan after the plan changed."""
        self.plan = plan
        found = _scan(plan) if plan is not None else {}
        out: dict[Path, ChangeKind] = dict.fromkeys(self.known.keys() - found.keys(), "deleted")
        for path, stamp in found.items():
            old = self.known.get(path)
            if old != stamp and not self._own(path):
                out[path] = "added" if old is None else "modified"
        self.known = found
        self.touched = self._recent()
        return out

    def recheck(self, paths: Iterable[Path]) -> dict[Path, ChangeKind]:
        assert self.plan is not None
        out = self._decide(p for p in paths if _wanted(p, self.plan))
        self.touched = {p for p, kind in out.items() if kind != "deleted"}
        return out

    def _recent(self) -> set[Path]:
        since = time.time_ns() - 2_000_000_000
        return {p for p, stamp in self.known.items() if stamp[1] >= since}

    def process(self, raw: Iterable[tuple[RawChange, str]]) -> tuple[dict[Path, ChangeKind], bool]:
        """The changes of one batch, and whether the plan must be made again."""
        plan = self.plan
        assert plan is not None
        candidates: set[Path] = set()
        gone: set[str] = set()
        replan = False
        for change, name in raw:
            path = Path(name)
            if change is not RawChange.modified and path in plan.structural:
                replan = True
            if change is RawChange.added and path in plan.files and path.is_dir():
                replan = True  # a JSONL location turned out to be a directory
            if path.parent in plan.glob_tops and (
                (change is RawChange.added and path.is_dir())
                or (change is RawChange.deleted and any(d.is_relative_to(path) for d in plan.dirs))
            ):
                replan = True  # a directory that may match a glob pattern now, or no longer
            if _wanted(path, plan):
                candidates.add(path)
                continue
            if not _in_location(path, plan):
                continue
            if change is RawChange.added and path.is_dir():
                # a directory moved in: its files come without events of their own
                found: dict[Path, _Stamp] = {}
                _stat_all(walk_files(path, DOCUMENT_SUFFIXES), found)
                candidates.update(found)
            elif change is RawChange.deleted:
                gone.add(name.rstrip(os.sep) + os.sep)
        if gone:
            # a directory moved away: its files go without events of their own
            prefixes = tuple(gone)
            candidates.update(p for p in self.known if str(p).startswith(prefixes))
        return self._decide(candidates), replan

    def _decide(self, candidates: Iterable[Path]) -> dict[Path, ChangeKind]:
        out: dict[Path, ChangeKind] = {}
        self.touched = set()
        for path in candidates:
            stamp = _stat_file(path)
            old = self.known.get(path)
            if stamp is None:
                if old is not None:
                    del self.known[path]
                    out[path] = "deleted"
                continue
            self.known[path] = stamp
            self.touched.add(path)
            if stamp != old and not self._own(path):
                out[path] = "added" if old is None else "modified"
        return out

    def _own(self, path: Path) -> bool:
        return self.own_writes is not None and self.own_writes.is_own(path)


# --- the watchfiles side --------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Failed:
    error: Exception


_Item: TypeAlias = "set[tuple[RawChange, str]] | _Failed | None"  # None: stop


class _Watchers:
    """One generation of ``awatch`` loops for a plan (one recursive, one shallow), with
    its own stop event: ``awatch`` sets the event it was given when cancelled, so the
    caller's must not go to a generation replaced when the plan changes."""

    def __init__(
        self,
        plan: _Plan,
        queue: asyncio.Queue[_Item],
        *,
        debounce_ms: int,
        step_ms: int,
        force_polling: bool,
    ) -> None:
        self._queue = queue
        self._stop = asyncio.Event()
        self._debounce_ms = debounce_ms
        self._step_ms = step_ms
        self._force_polling = force_polling
        self._tasks = [
            asyncio.create_task(self._run(paths, recursive), name=f"watch {paths[0]}")
            for paths, recursive in ((plan.deep, True), (plan.shallow, False))
            if paths
        ]

    async def _run(self, paths: tuple[Path, ...], recursive: bool) -> None:
        try:
            async for raw in awatch(
                *paths,
                watch_filter=None,
                debounce=self._debounce_ms,
                step=self._step_ms,
                stop_event=self._stop,
                recursive=recursive,
                force_polling=self._force_polling,
                ignore_permission_denied=True,
            ):
                self._queue.put_nowait(raw)
        except (OSError, RuntimeError) as exc:  # what RustNotify raises: missing path, limits
            if not self._stop.is_set():
                log.warning("watching %s failed: %s", ", ".join(map(str, paths)), exc)
                self._queue.put_nowait(_Failed(exc))
        except Exception as exc:
            log.exception("watching %s failed", ", ".join(map(str, paths)))
            self._queue.put_nowait(_Failed(exc))

    async def close(self) -> None:
        self._stop.set()
        if self._tasks:
            _, pending = await asyncio.wait(self._tasks, timeout=2.0)
            for task in pending:
                task.cancel()


class _Rechecks:
    """Files to stat again once the second they were seen in is over (polling)."""

    def __init__(self) -> None:
        self._due: dict[Path, float] = {}

    def add(self, paths: Iterable[Path]) -> None:
        at = time.monotonic() + RECHECK_SECONDS
        for path in paths:
            self._due[path] = at  # seen again: the last sighting counts

    def timeout(self) -> float | None:
        if not self._due:
            return None
        return max(0.0, min(self._due.values()) - time.monotonic())

    def pop_due(self) -> list[Path]:
        now = time.monotonic()
        due = [p for p, at in self._due.items() if at <= now]
        for path in due:
            del self._due[path]
        return due


async def _relay_stop(event: asyncio.Event, queue: asyncio.Queue[_Item]) -> None:
    await event.wait()
    queue.put_nowait(None)


async def _stopped_within(event: asyncio.Event | None, seconds: float) -> bool:
    if event is None:
        await asyncio.sleep(seconds)
        return False
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(event.wait(), seconds)
    return event.is_set()


async def _next_items(queue: asyncio.Queue[_Item], timeout: float | None) -> list[_Item]:
    """The next item and everything queued behind it (nothing after ``timeout``)."""
    try:
        items = [await asyncio.wait_for(queue.get(), timeout)]
    except TimeoutError:
        return []
    while not queue.empty():
        items.append(queue.get_nowait())
    return items


def _sorted(changes: dict[Path, ChangeKind]) -> list[Change]:
    return [Change(path, changes[path]) for path in sorted(changes)]


def polls(force_polling: bool | None) -> bool:
    """Whether watchfiles is to poll, as its ``force_polling`` documentation says."""
    if force_polling is not None:
        return force_polling
    env = os.getenv("WATCHFILES_FORCE_POLLING")
    if env:
        return env.lower() not in {"false", "disable", "disabled"}
    uname = platform.uname()
    return "microsoft-standard" in uname.release.lower() and uname.system.lower() == "linux"


async def watch_workspace(
    ws: Workspace,
    *,
    stop_event: asyncio.Event | None = None,
    own_writes: OwnWrites | None = None,
    debounce_ms: int = 50,
    step_ms: int = 25,
    force_polling: bool | None = None,
    started: asyncio.Event | None = None,
) -> AsyncIterator[list[Change]]:
    """The document changes of every location and the ledger, batch by batch, sorted by
    path; ``started`` is set once the watches are in place."""
    if stop_event is not None and stop_event.is_set():
        return
    queue: asyncio.Queue[_Item] = asyncio.Queue()
    relay = asyncio.create_task(_relay_stop(stop_event, queue)) if stop_event is not None else None
    state = _State(own_writes)
    polling = polls(force_polling)
    rechecks = _Rechecks()
    watchers: _Watchers | None = None
    pending: dict[Path, ChangeKind] = {}
    first = True
    try:
        while True:
            plan = await asyncio.to_thread(_make_plan, ws)
            if plan is None:  # no root (yet, or any more)
                if watchers is not None:
                    await watchers.close()
                    watchers = None
                pending.update(await asyncio.to_thread(state.reconcile, None))
                first = False  # what the root holds once it appears is new
                if started is not None:
                    started.set()
                if pending:
                    yield _sorted(pending)
                    pending = {}
                if await _stopped_within(stop_event, ROOT_POLL_SECONDS):
                    return
                continue
            old = watchers
            watchers = _Watchers(
                plan, queue, debounce_ms=debounce_ms, step_ms=step_ms, force_polling=polling
            )
            # ``awatch`` adds its watches synchronously in its first step, which each new
            # task has taken by the time this coroutine runs again
            await asyncio.sleep(0)
            if old is not None:
                await old.close()
            if await asyncio.to_thread(_make_plan, ws) != plan:
                continue  # a directory came or went before the watches were in place
            if first:
                await asyncio.to_thread(state.seed, plan)
                first = False
            else:
                pending.update(await asyncio.to_thread(state.reconcile, plan))
            if started is not None:
                started.set()
            replan = False
            while not replan:
                if polling:
                    rechecks.add(state.touched)
                    state.touched = set()
                if pending:
                    yield _sorted(pending)
                    pending = {}
                items = await _next_items(queue, rechecks.timeout() if polling else None)
                if not items:  # a recheck is due
                    pending = await asyncio.to_thread(state.recheck, rechecks.pop_due())
                    continue
                if None in items:
                    return
                raw: set[tuple[RawChange, str]] = set()
                failures: list[_Failed] = []
                for item in items:
                    if isinstance(item, set):
                        raw |= item
                    elif isinstance(item, _Failed):
                        failures.append(item)
                if raw:
                    pending, replan = await asyncio.to_thread(state.process, raw)
                if failures:
                    replan = True
                    if any("watch limit" in str(f.error) for f in failures) and not polling:
                        log.warning("the OS limit on watches is reached; polling instead")
                        polling = True
                    if await _stopped_within(stop_event, RETRY_SECONDS):
                        return
    finally:
        if relay is not None:
            relay.cancel()
        if watchers is not None:
            await watchers.close()
