"""The loaded workspace: every file's diagnostics and heads and the sessions they form, from
the cache and workers, then updated file by file as the watcher reports changes."""

from __future__ import annotations

import bisect
import contextlib
import functools
import gc
import os
import sys
import threading
import time
from array import array
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import store.index.cache as index_cache
from store.gc_pause import collecting, paused_gc
from store.index.appends import appended
from store.index.docs import LessonRun, RecordRef, ReportRef, forget
from store.index.entries import (
    IndexedFile,
    entry_of_file,
    entry_of_path,
    file_of_entry,
    parse_entries,
)
from store.index.heads import HeadTable, SummaryHead
from store.index.sessions import Located, Session, session_key
from store.ledger import UNDECIDED, Ledger
from store.located import report_key, split_located
from store.read.kinds import YAML_SUFFIXES, Kind
from store.workspace import Found, Workspace, walk_files
from store.write.atomic import sweep_temp_files
from store.write.jsonl_edit import finish_interrupted_rewrites

if TYPE_CHECKING:
    from store.tx.transactions import Recovered

__all__ = ["IndexedFile", "WorkspaceIndex", "index_file"]

#: While a cold index is being built, the lists are refreshed this often (seconds).
PUBLISH_EVERY = 1.0
#: While files are parsed, what was built is frozen every this many files.
FREEZE_EVERY = 2000


def index_file(ws: Workspace, path: Path, kind: Kind | None) -> IndexedFile:
    """Parse and check one file into what the index holds of it."""
    return file_of_entry(ws, path, *entry_of_path(path, kind, ws.display(path)))


def index_pieces(ws: Workspace, top: Path) -> dict[Path, IndexedFile]:
    """Every YAML file under ``top`` (e.g. ``~/.takt/pieces``) as a TAKT piece, sorted."""
    return {p: index_file(ws, p, Kind.PIECE) for p in walk_files(top, YAML_SUFFIXES)}


if TYPE_CHECKING:  # the models are imported when a file is parsed or read
    from store.models import Proposal, SessionSummary

    Part = ReportRef | Located[Proposal] | RecordRef[SummaryHead, SessionSummary] | LessonRun
    #: a part, or a few in a tuple (a tuple of one costs 48 bytes per run of lessons)
    Parts = Part | tuple[Part, ...]


def _each(parts: Parts) -> tuple[Part, ...]:
    return parts if isinstance(parts, tuple) else (parts,)


def _joined(had: Parts | None, more: Parts) -> Parts:
    return more if had is None else (*_each(had), *_each(more))


def _contributions(f: IndexedFile) -> dict[str, Parts]:
    """What ``f`` gives to which session (by session key)."""
    out: dict[str, Parts] = {}
    head = f.head
    if head is not None:  # the usual case: nothing to import
        key = session_key(head.session_id, f"kpt:{head.id or f.path.stem}")
        out[key] = ReportRef(head, f.path)
        return out
    if f.kind is Kind.PROPOSAL and (doc := f.doc) is not None:  # (the models: imported then)
        from store.models import Proposal

        if isinstance(doc, Proposal):
            key = session_key(doc.session_id, f"prop:{doc.id or f.path.stem}")
            out[key] = Located(doc, f.path)
    if f.records is not None:
        _contribute_records(out, f.records, f.path, 0)
    return out


def _contribute_records(out: dict[str, Parts], table: HeadTable, path: Path, start: int) -> None:
    """Each summary from ``start`` on to its session; each session's lessons as one run."""
    summaries: dict[str, list[Part]] = {}
    runs: dict[str, array[int]] = {}
    kinds, sids = table.kinds, table.sids
    if kinds.find("S", start) >= 0:  # every session shows its summary's project: the
        table.project(len(table) - 1)  # table's are decoded here, in a few passes
    for i in range(start, len(table)):
        summary = kinds[i] == "S"
        sid = sids[i]
        if sid:
            key = session_key(sid, "")
        else:  # a session of its own: named after the record (decoded only for this)
            rec = table[i]
            key = f"{'ws' if summary else 'll'}:{rec.id or path}:{rec.span.line}"
        if summary:
            summaries.setdefault(key, []).append(RecordRef(table, i, path, "SessionSummary"))
        else:
            run = runs.get(key)
            if run is None:
                run = runs[key] = array("I")
            run.append(i)
    for key, refs in summaries.items():
        out[key] = _joined(out.get(key), refs[0] if len(refs) == 1 else tuple(refs))
    for key, indices in runs.items():
        out[key] = _joined(out.get(key), LessonRun(table, path, indices))


def _flat(given: list[tuple[Path, Parts]]) -> Iterator[Part]:
    for _p, parts in given:
        yield from _each(parts)


def _path(name: str, parents: dict[str, Path | None]) -> Path:
    """``Path(name)`` in half the time: joined to its folder's, made once (unless written
    otherwise than ``Path`` writes it: then parsed whole)."""
    folder, _, base = name.rpartition(os.sep)
    parent = parents.get(folder)
    if parent is None and folder not in parents:
        parent = parents[folder] = Path(folder)
        if str(parent) != folder or folder.endswith(os.sep):
            parent = parents[folder] = None
    return Path(name) if parent is None else parent / base


def _sessions_of(key: str, parts: Iterable[Part]) -> list[Session]:
    """The session ``key`` from its parts (none without a report or summary); of reports
    sharing a ``session_id`` the highest id's, each other a session of its own."""
    report: ReportRef | None = None
    others: list[ReportRef] = []
    summary: RecordRef[SummaryHead, SessionSummary] | None = None
    runs: list[LessonRun] = []
    proposals: list[Located[Proposal]] = []
    for part in parts:
        if isinstance(part, ReportRef):
            if report is None:
                report = part
            elif (part.head.id or "") > (report.head.id or ""):
                others.append(report)
                report = part
            else:
                others.append(part)
        elif isinstance(part, Located):
            proposals.append(part)
        elif isinstance(part, LessonRun):
            runs.append(part)
        elif summary is None:
            summary = part
    if report is None and summary is None:
        return []
    # the session id: the one object the heads hold (interned), not a copy per session
    sid = sys.intern(key[4:]) if key.startswith("sid:") else None
    out = [Session(key, sid, report, summary, tuple(runs), tuple(proposals))]
    out += [Session(f"{key}#{r.path}", sid, r) for r in others]  # (further reports)
    return out


class WorkspaceIndex:
    """Everything hurikaeri knows about one workspace, safe to read from the UI thread."""

    def __init__(self, ws: Workspace, *, use_cache: bool = True) -> None:
        self.ws = ws
        self.use_cache = use_cache
        #: the start of the app's run (an undo of an earlier decision asks first)
        self.opened = time.time()
        self.files: dict[Path, IndexedFile] = {}
        self.kinds: dict[Path, Kind | None] = {}
        self.sessions: dict[str, Session] = {}
        self.by_report: dict[str, Session] = {}
        # read by load_all (in a worker), not here (on the way to the first screen)
        self.ledger = Ledger(ws.state_dir, read=False)
        self.lock = threading.Lock()
        #: held by a load: an update waits for it; a save meanwhile is left for later
        self._loading = threading.RLock()
        self.stats: dict[str, int] = {}
        self._dirty = False
        #: what each JSONL file gives each session (other files: :meth:`_given`)
        self._parts: dict[Path, dict[str, Parts]] = {}
        self._paths_of: dict[str, list[Path]] = {}  # lists: a set of one costs 216 bytes
        #: each file's place in the workspace's order (a session lists its parts so)
        self._rank: dict[Path, int] = {}
        #: shared report ids, worked out for ``sessions`` as it was
        self._shared: tuple[dict[str, Session] | None, dict[str, list[Session]]] = (None, {})
        #: the sessions (keys) whose report carries each report id
        self._rid_keys: dict[str, set[str]] = {}
        #: the keys listed for a session's further reports, by the session's key
        self._more_keys: dict[str, list[str]] = {}
        #: (ledger revision, the report ids it holds an item's state of)
        self._decided: tuple[int, set[str]] = (-1, set())

    # -- building ----------------------------------------------------------------

    def recover(self) -> list[Recovered]:
        """Roll back what a killed process left half done (a read-only state directory
        leaves it for later). With none open the code is not imported (~30 ms)."""
        if not self.ledger.open_transactions():  # (the ledger was just read)
            return []
        from store.tx.transactions import recover
        from store.write.atomic import WriteError

        try:
            return list(recover(self.ws, ledger=self.ledger))
        except (OSError, WriteError):
            return []

    def load_all(
        self,
        progress: Callable[[int, int], None] | None = None,
        publish: Callable[[], None] | None = None,
        *,
        parallel: bool = True,
    ) -> None:
        """Read the workspace: the cache (``publish`` once the sessions are in), then the
        changed files in workers (``publish`` every :data:`PUBLISH_EVERY` s)."""
        with self._loading:  # one load at a time (a reload while the first still reads)
            self._load(progress, publish, parallel)

    @paused_gc()
    def _load(
        self,
        progress: Callable[[int, int], None] | None,
        publish: Callable[[], None] | None,
        parallel: bool,
    ) -> None:
        # the cache's checksum (off the interpreter) is hashed while the ledger is folded
        reading = index_cache.Reading(self.ws) if self.use_cache else None
        cached: index_cache.Cached | None = None
        try:
            self.ledger.refresh()
            self.recover()
            if reading is not None:
                with contextlib.suppress(index_cache.CacheError):
                    cached = reading.result()
        finally:
            if reading is not None:
                reading.close()
        files: dict[Path, IndexedFile] = {}
        if cached is not None:
            # reports and summaries first (the sessions list is complete with them), then
            # lessons, then small documents; the first merge relies on the cache's order
            paths: dict[str, Path] = {}  # (made as needed: the sessions' files first)
            parents: dict[str, Path | None] = {}
            first = (Kind.KPT.value, Kind.SUMMARIES.value)
            groups: tuple[list[str], list[str], list[str]] = ([], [], [])
            for name, (kind, *_where) in cached.lines.items():
                groups[0 if kind in first else 1 if kind == Kind.LESSONS.value else 2].append(name)
            for i, group in enumerate(groups):
                if i == 1:  # every file's path and order, made once the sessions are out
                    paths = {n: paths.get(n) or _path(n, parents) for n in cached.lines}
                    self._rank = {p: n for n, p in enumerate(paths.values())}
                batch: dict[Path, IndexedFile] = {}
                for name, entry, blob in cached.entries(group):
                    if entry is None:
                        continue  # parsed again below
                    try:
                        path = paths.get(name) or paths.setdefault(name, _path(name, parents))
                        batch[path] = file_of_entry(self.ws, path, entry, blob, name)
                    except (ValueError, TypeError, IndexError, KeyError):
                        continue
                cached.release()  # the entries' pages: read once
                files.update(batch)
                self._merge(batch, set(), reset=i == 0)
                if publish is not None and i == 0:
                    publish()
            cached.lines.clear()
        found = list(self.ws.discover())
        if files:  # one Path object per file, whoever holds it (a few hundred thousand)
            same = {p: p for p in files}
            found = [Found(same.get(f.path, f.path), f.kind) for f in found]
            del same
        self._rank = {f.path: i for i, f in enumerate(found)}
        if files and not self._in_workspace_order(files):
            # the cache held another order (files added while an app ran): joined again
            again = {key for key, paths in self._paths_of.items() if len(paths) > 1}
            self._merge({}, set(), again=again)
            self._dirty = True
        folders = sorted({f.path.parent for f in found} | {self.ws.state_dir})
        # a JSONL rewrite a killed process left half done (its redo file is beside the real file)
        jsonl = {Path(os.path.realpath(f.path)).parent for f in found if f.path.suffix == ".jsonl"}
        finish_interrupted_rewrites(sorted(jsonl | set(folders)))
        sweep_temp_files(folders)
        todo: list[Found] = []
        for f in found:
            cur = files.get(f.path)
            ident = cur.identity() if cur is not None else None
            if cached is None or ident is None or not cached.unchanged(f.path, ident):
                todo.append(f)
        kinds = {f.path: f.kind for f in found}
        removed = set(files) - set(kinds)
        self.stats = {
            "files": len(found),
            "cached": len(found) - len(todo),
            "parsed": len(todo),
            "removed": len(removed),
        }
        with self.lock:
            self.kinds = kinds
        if todo or removed:
            last = time.monotonic()
            batch = {}
            # while workers parse this process mostly waits: collect meanwhile
            with collecting():
                for n, (path, (entry, parsed)) in enumerate(
                    parse_entries(self.ws, todo, progress, parallel), 1
                ):
                    batch[path] = file_of_entry(self.ws, path, entry, parsed)
                    if n % FREEZE_EVERY == 0:  # what was built lives on: full collections
                        gc.freeze()  # need not walk it again and again (1 s of 19 at 30k)
                    if publish is not None and time.monotonic() - last > PUBLISH_EVERY:
                        self._merge(batch, set())
                        batch = {}
                        publish()
                        last = time.monotonic()
            self._merge(batch, removed)
            self._dirty = True
        elif progress is not None:
            progress(len(found), len(found))
        self.save_cache()  # when anything changed (or was joined again in the workspace's order)
        gc.freeze()

    def _in_workspace_order(self, files: dict[Path, IndexedFile]) -> bool:
        """Whether ``files`` (from the cache) come in the workspace's order, kind by kind."""
        rank = self._rank
        last: dict[Kind | None, int] = {}
        for path, f in files.items():
            at = rank.get(path)
            if at is None:  # gone since: taken out, not out of order
                continue
            if at < last.get(f.kind, -1):
                return False
            last[f.kind] = at
        return True

    def save_cache(self) -> bool:
        """Write the index cache if anything changed since it was read or written."""
        if not self.use_cache or not self._dirty:
            return False
        if not self._loading.acquire(blocking=False):
            return False  # a load is under way (a reload): it writes the cache at its end
        try:
            return self._save_cache()
        finally:
            self._loading.release()

    def _save_cache(self) -> bool:
        with self.lock:
            files = list(self.files.values())
        rank = self._ranked(files)
        files.sort(key=lambda f: rank[f.path])

        def entries(lessons: bool) -> Iterator[tuple[str, str | None, list[Any], bytes]]:
            for f in files:
                if (f.kind is Kind.LESSONS) is lessons:
                    yield (str(f.path), f.kind.value if f.kind else None, *entry_of_file(f))
                    if f.records is not None:  # written: a mapped table's pages given back
                        f.records.release()

        try:  # the lessons last, checked apart: a start lists its sessions before
            index_cache.write(self.ws, entries(False), entries(True))
        except OSError:
            return False
        self._dirty = False
        return True

    def _ranked(self, files: list[IndexedFile]) -> dict[Path, int]:
        """:attr:`_rank` with files added since the walk bisected into place."""
        rank = self._rank
        added = sorted({f.path for f in files if f.path not in rank}, key=self.ws.order_key)
        if not added:
            return rank
        order = sorted(rank, key=rank.__getitem__)
        key = functools.cache(self.ws.order_key)  # (a bisect asks again for the same paths)
        at = 0
        places: list[int] = []
        for p in added:  # in order: each is placed after the one before
            at = bisect.bisect_right(order, key(p), lo=at, key=key)
            places.append(at)
        for p, at in zip(reversed(added), reversed(places), strict=True):
            order.insert(at, p)
        self._rank = rank = {p: n for n, p in enumerate(order)}
        return rank

    def update(self, paths: Iterable[Path]) -> tuple[set[Path], set[Path]]:
        """Re-read changed files (after any load under way); (changed or added, removed)."""
        with self._loading:
            return self._update(paths)

    def _update(self, paths: Iterable[Path]) -> tuple[set[Path], set[Path]]:
        changed: set[Path] = set()
        removed: set[Path] = set()
        new_files: dict[Path, IndexedFile] = {}
        grown: dict[Path, tuple[IndexedFile, int]] = {}
        kinds: dict[Path, Kind | None] = {}
        gone: set[Path] = set()  # read or only found so far (a load stopped after the walk)
        todo: list[Found] = []
        for path in set(paths):
            forget(path)
            found = self.ws.found(path)
            if found is None:
                gone.add(path)
                if path in self.files:
                    removed.add(path)
                continue
            kinds[path] = found.kind
            cur = self.files.get(path)
            if cur is not None and cur.kind is found.kind and (got := appended(cur)) is not None:
                grown[path] = got
                changed.add(path)
            else:
                todo.append(found)
        # a big file is parsed in a worker process (see parallel.map_chunks)
        for path, (entry, blob) in parse_entries(self.ws, todo):
            f = file_of_entry(self.ws, path, entry, blob)
            cur = self.files.get(path)
            if cur is None or cur.stamp != f.stamp:
                new_files[path] = f
                changed.add(path)
        if changed or removed:
            self._merge(new_files, removed, grown)
            self._dirty = True
        with self.lock:
            self.kinds = {p: k for p, k in self.kinds.items() if p not in gone} | kinds
        return changed, removed

    # -- sessions: joined incrementally ------------------------------------------

    def _merge(
        self,
        new: dict[Path, IndexedFile],
        removed: set[Path],
        grown: dict[Path, tuple[IndexedFile, int]] | None = None,
        *,
        reset: bool = False,
        again: Collection[str] = (),
    ) -> None:
        """Put ``new`` files in, ``removed`` out, ``grown`` files' records in, rebuilding the
        sessions touched; readers see the old dicts or the new, never one changing."""
        assert not (reset and (removed or grown)), "a first merge removes and grows nothing"
        with self.lock:
            files: dict[Path, IndexedFile] = {}
            sessions: dict[str, Session] = {}
            by_report: dict[str, Session] = {}
            #: a first merge: what each file gives each session, gathered once
            gathered: dict[str, list[tuple[Path, Parts]]] | None = None
            touched: Collection[str]
            if reset:
                self._parts.clear()
                self._paths_of.clear()
                self._rid_keys, self._more_keys = {}, {}
                gathered = self._gather(new, files)
                touched = gathered.keys()
            else:
                files.update(self.files)
                sessions.update(self.sessions)
                by_report.update(self.by_report)
                touched = self._replace(new, removed, grown or {}, files) | set(again)
            lost: set[str] = set()
            rid_keys, more_keys = self._rid_keys, self._more_keys
            newly_shared: set[str] = set()
            for key in touched:
                if gathered is None:
                    for k in (key, *more_keys.pop(key, ())):
                        old = sessions.pop(k, None)
                        if old is not None and old.report_id:
                            rid_keys.get(old.report_id, set()).discard(k)
                            if by_report.get(old.report_id) is old:
                                del by_report[old.report_id]
                                lost.add(old.report_id)
                    made = self._session(key, files)
                else:  # (nothing to take out of a first merge)
                    made = _sessions_of(key, _flat(gathered[key]))  # in order already
                if len(made) > 1:
                    more_keys[key] = [m.key for m in made[1:]]
                for s in made:
                    sessions[s.key] = s
                    if rid := s.report_id:
                        by_report[rid] = s
                        keys = rid_keys.get(rid)
                        if keys is None:
                            rid_keys[rid] = {s.key}
                        else:
                            keys.add(s.key)
                            if len(keys) == 2:
                                newly_shared.add(rid)
            for s in sessions.values() if lost - by_report.keys() else ():
                if s.report_id in lost and s.report_id not in by_report:  # another report
                    by_report[s.report_id] = s  # with the id stays
            self.files, self.sessions, self.by_report = files, sessions, by_report
        if newly_shared:  # their items' states are kept per report from now on
            self.ledger.locate(newly_shared)

    def _replace(
        self,
        new: dict[Path, IndexedFile],
        removed: set[Path],
        grown: dict[Path, tuple[IndexedFile, int]],
        files: dict[Path, IndexedFile],
    ) -> set[str]:
        """:meth:`_merge`'s changes to ``files``; the sessions touched."""
        touched: set[str] = set()
        for p in removed | set(new):
            for key in self._given(p, files.get(p)):
                paths = self._paths_of[key]
                if p in paths:
                    paths.remove(p)
                touched.add(key)
            self._parts.pop(p, None)
            if p in removed:
                files.pop(p, None)
        for p, f in new.items():
            files[p] = f
            touched.update(self._add_parts(p, f, _contributions(f)))
        for p, (f, start) in grown.items():
            files[p] = f  # its earlier records' parts stay; the new ones are added
            added: dict[str, Parts] = {}
            if f.records is not None:
                _contribute_records(added, f.records, p, start)
            touched.update(self._add_parts(p, f, added))
        return touched

    def _add_parts(self, path: Path, f: IndexedFile, added: dict[str, Parts]) -> set[str]:
        """Note what ``path`` gives to which session; the sessions touched."""
        if f.records is not None:
            parts = self._parts.setdefault(path, {})
            for key, more in added.items():
                parts[key] = _joined(parts.get(key), more)
        for key in added:
            paths = self._paths_of.setdefault(key, [])
            if path not in paths:
                paths.append(path)
        return set(added)

    def _given(self, path: Path, f: IndexedFile | None) -> Mapping[str, Parts]:
        """What ``path`` gives to which session: kept for a JSONL file, worked out again for
        any other (one part: cheaper than keeping it for tens of thousands of files)."""
        if f is None or f.records is not None:
            return self._parts.get(path, {})
        return _contributions(f)

    def _gather(
        self, new: dict[Path, IndexedFile], files: dict[Path, IndexedFile]
    ) -> dict[str, list[tuple[Path, Parts]]]:
        """A first merge (``new`` in the workspace's order): what each gives, by session."""
        gathered: dict[str, list[tuple[Path, Parts]]] = {}
        for p, f in new.items():
            files[p] = f
            given = _contributions(f)
            if f.records is not None:
                self._parts[p] = given
            for key, parts in given.items():
                got = gathered.get(key)
                if got is None:
                    gathered[key] = [(p, parts)]
                else:
                    got.append((p, parts))
        paths_of = self._paths_of
        for key, got in gathered.items():
            paths_of[key] = [p for p, _parts in got]
        return gathered

    def _in_order(self, given: list[tuple[Path, Parts]]) -> Iterator[Part]:
        if len(given) > 1:
            rank = self._rank
            if all(p in rank for p, _parts in given):
                given = sorted(given, key=lambda t: rank[t[0]])
            else:  # a file added since the workspace was walked: placed as a walk would
                order_key = self.ws.order_key
                given = sorted(given, key=lambda t: order_key(t[0]))
        return _flat(given)

    def _session(self, key: str, files: dict[Path, IndexedFile]) -> list[Session]:
        paths = self._paths_of.get(key)
        if not paths:
            self._paths_of.pop(key, None)
            return []
        return _sessions_of(
            key, self._in_order([(p, self._given(p, files.get(p)).get(key, ())) for p in paths])
        )

    # -- questions ---------------------------------------------------------------

    def review_progress(self, s: Session) -> tuple[int, int]:
        """Items decided and in all (kept until the ledger or the session changes)."""
        revision = self.ledger.revision
        hit = s._progress
        if hit is not None and hit[0] == revision:
            return hit[1], hit[2]
        rkey = self.report_key(s)
        items = s.report.head.items if rkey is not None and s.report is not None else ()
        done = 0
        if self._decided[0] != revision:  # most reports have no state: none looked up
            self._decided = (revision, {k.partition("/")[0] for k in list(self.ledger.states)})
        if rkey is not None and items and ("@" in rkey or rkey in self._decided[1]):
            states, state = self.ledger.states, self.ledger.state
            located, prefix = "@" in rkey, f"{rkey}/"
            for _sec, item_id in items:  # the keys of item_keys(), not built as a list
                key = prefix + item_id
                st = state(key) if located or "@" in item_id else states.get(key)
                if st is not None and st.state not in UNDECIDED:  # contested: undecided
                    done += 1
        s._progress = (revision, done, len(items))
        return done, len(items)

    def unreviewed_count(self) -> int:
        return sum(t - d for d, t in (self.review_progress(s) for s in self.sessions.values()))

    def inbox_pending(self) -> int:
        files = [f for f in self.files.values() if f.kind is Kind.PROPOSAL]
        if not files:  # none read yet: no model to import (a start counts before they are)
            return 0
        from store.models import Proposal

        return sum(
            1
            for f in files
            if isinstance(d := f.doc, Proposal) and (d.status or "pending").lower() == "pending"
        )

    def problem_files(self) -> list[IndexedFile]:
        """Files with any diagnostic (the Problems view and the header's count)."""
        return [f for f in self.files.values() if f.diagnostics]

    def error_files(self) -> list[IndexedFile]:
        """Files with errors (``stats``' "files with errors")."""
        return [f for f in self.files.values() if f.errors]

    def find_report(self, report_id: str, path: Path | None = None) -> Session | None:
        """The session of ``KPT_ID`` (or ``KPT_ID@PLACE``); of a shared id, the one at
        ``path`` or the place."""
        got = split_located(report_id)
        rid, place = got if got is not None else (report_id, None)
        if self.is_shared(rid) and (place is not None or path is not None):
            for key in list(self._rid_keys.get(rid, ())):  # this id's sessions only
                s = self.sessions.get(key)
                if s is None or s.report is None:
                    continue
                if s.report.path == path or (
                    place is not None and self.report_key(s) == f"{rid}@{place}"
                ):
                    return s
            return None
        return self.by_report.get(rid)

    def shared_ids(self) -> dict[str, list[Session]]:
        """Report ids several sessions' reports carry, with their sessions by path."""
        sessions = self.sessions
        if self._shared[0] is not sessions:
            shared: dict[str, list[Session]] = {}
            for rid, keys in list(self._rid_keys.items()):
                if len(keys) > 1:
                    got = [s for k in list(keys) if (s := sessions.get(k)) and s.report]
                    if len(got) > 1:
                        shared[rid] = sorted(got, key=lambda s: self.ws.display(s.report.path))  # type: ignore[union-attr]
            self._shared = (sessions, shared)
        return self._shared[1]

    def shared_session_ids(self) -> dict[str, list[Session]]:
        """Session ids several reports name, with their sessions (the session's own first)."""
        sessions, out = self.sessions, {}
        for key, more in list(self._more_keys.items()):
            got = [s for k in (key, *more) if (s := sessions.get(k)) and s.report]
            if len(got) > 1 and got[0].session_id:
                out[got[0].session_id] = got
        return out

    def is_shared(self, report_id: str) -> bool:
        return len(self._rid_keys.get(report_id, ())) > 1

    def report_key(self, s: Session) -> str | None:
        """The session's report id, located when another report carries it too."""
        if s.report is None or not s.report.head.id:
            return None
        rid = s.report.head.id
        if not self.is_shared(rid):
            return rid
        if s._report_key is None:  # (a session's report does not change: it is made anew)
            s._report_key = report_key(rid, self.ws.display(s.report.path))
        return s._report_key

    def item_keys(self, s: Session) -> list[str]:
        """The ledger key of every item of the session's report, in report order."""
        rkey = self.report_key(s)
        if rkey is None or s.report is None:
            return []
        return [f"{rkey}/{item_id}" for _sec, item_id in s.report.head.items]

    def located_key(self, key: str, path: Path | str) -> str:
        """``KPT_ID/ITEM_ID`` at ``path``, located when its id is shared."""
        rid, sep, rest = key.partition("/")
        if not self.is_shared(rid):
            return key
        return report_key(rid, self.ws.display(Path(path))) + sep + rest

    def report_loc(self, s: Session) -> dict[str, str]:
        """{report key: path as shown}, what a decision records."""
        rkey = self.report_key(s)
        return {rkey: self.ws.display(s.report.path)} if rkey and s.report else {}
