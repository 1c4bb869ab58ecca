"""The ledger of one workspace: its files read and folded in order, lines appended."""

from __future__ import annotations

import contextlib
import json
import math
import os
import threading
from array import array
from collections.abc import Callable, Iterable
from itertools import islice, repeat
from operator import itemgetter
from pathlib import Path
from typing import Any

from store import machine_key, team
from store.gc_pause import paused_gc
from store.ledger.entry import LEDGER_NAME, TX_OPS, Entry, TxRecord
from store.ledger.files import OrderKey, Placed, Source, open_ledger, plain_pairs, seconds_of
from store.ledger.migrate import converted, is_older, migrate_file
from store.ledger.parse import Strs, effects_of, entry_of, keep_rest
from store.ledger.snapshot import KEEP_BYTES, Fold, Kept, Prefix, load, write
from store.ledger.state import ItemState, fold_entry
from store.located import place_of, plain_key, split_located
from store.read.diagnostics import DiagnosticSink
from store.read.jsonl import encode_record, scan_jsonl
from store.write.atomic import PathRefused, WriteError, append_bytes

#: the place in the fold of a line read
_place: Callable[[Placed], OrderKey] = itemgetter(0, 1, 2, 3)
#: A ledger is parsed this many bytes at a time (in whole lines)
_PIECE = 256 << 10


class _Replay(Exception):
    """A line read after a kept fold needs the lines it stands for: everything is read."""


class Ledger:
    """The ledger of one workspace (every reviewer's file, in team mode); ``refresh()``
    reads what other processes appended, or what a ``git pull`` brought."""

    def __init__(
        self,
        state_dir: Path,
        *,
        read: bool = True,
        who: str | None = None,
    ) -> None:
        self.state_dir = state_dir
        self.local_path = state_dir / LEDGER_NAME  # a team member's older one too
        self._who = who
        self._refolded = False
        self._migrated: set[Path] = set()  # (or found not migratable): once each
        self._team = False
        #: held while lines are read or appended (the app shares one ledger between threads)
        self.lock = threading.RLock()
        #: grows with every entry read: what was worked out from the states holds while it
        #: stays the same
        self.revision = 0
        #: report ids two reports share (``store.located``): their items' states are kept
        #: apart (``_located``, see ``_clear``)
        self.located_ids: set[str] = set()
        self._reset()  # the lines read and what they fold into
        if read:
            self.refresh()

    def _clear(self) -> None:
        self.revision += 1
        #: after a kept fold (``_prefix``, ``store.ledger.snapshot``), only the lines read
        #: since; read whole when asked for (``_whole``)
        self._entries: list[Entry] = []
        self._folded: list[Entry] = []
        self._txs: dict[str, TxRecord] = {}
        self._prefix: Prefix | None = None
        self._older = False
        self.undone: set[str] = set()
        #: the item states asked for or folded onto; the kept fold's others built when asked
        self._states: dict[str, ItemState] = {}
        self._kept: Kept | None = None
        #: each entry's place in the fold (parallel to ``entries``; see ``_order``)
        self._times, self._ranks, self._counts = array("d"), bytearray(), array("q")
        #: the states of the items of ``located_ids``: under each located key, under the
        #: plain key (lines naming no place), and the located keys of each plain one
        self._located: dict[str, ItemState] = {}
        self._placeless: dict[str, ItemState] = {}
        self._places: dict[str, list[str]] = {}

    def _reset(self, keep: bool = True) -> None:
        """Read everything again (``keep``: from the kept fold if it holds)."""
        self._clear()
        self._sources: dict[Path, Source] = {}
        self._shapes: dict[Any, Any] = {}  # each shape of transaction line once
        self._authentic: dict[tuple[Any, ...], bool] = {}  # see authentic()
        self.diagnostics: list[Any] = []
        #: the bytes the kept fold covers (a new one is kept past ``KEEP_BYTES`` more)
        self._kept_at = 0 if keep else -1

    @property
    def who(self) -> str:
        if self._who is None:
            self._who = team.reviewer(None, self.state_dir)
        return self._who

    @property
    def path(self) -> Path:
        """The file this process appends to (the reviewer's own in team mode)."""
        if team.is_team(self.state_dir):
            return team.ledger_file(self.state_dir, self.who)
        return self.local_path

    def is_own(self, src: str) -> bool:
        """Whether the lines of ``src`` are the local reviewer's (every line without a team)."""
        return src == "" or src == team.file_name(self.who)

    def is_ledger_file(self, path: Path) -> bool:
        return path == self.local_path or (
            path.parent == team.team_dir(self.state_dir) and path.suffix == ".jsonl"
        )

    def paths(self) -> list[Path]:
        with self.lock:
            return [p for p, _k, _r in self._files()]

    def _guard_for(self, path: Path) -> Any:
        def guard(real: Path) -> None:
            """The ledger is the file itself in the state directory, never a link out."""
            if real != Path(os.path.realpath(path.parent)) / path.name:
                raise PathRefused(f"refused: {path} leads to {real}; the ledger is not a link")

        return guard

    @property
    def entries(self) -> list[Entry]:
        return self._whole()._entries

    @property
    def folded(self) -> list[Entry]:
        """What the state is folded from, in order: the effects of committed transactions
        (placed where their commit is)."""
        return self._whole()._folded

    @property
    def txs(self) -> dict[str, TxRecord]:
        return self._whole()._txs

    def _whole(self) -> Ledger:
        """This ledger with every line read, not only those after a kept fold."""
        if self._prefix is not None:
            with self.lock, paused_gc():
                if self._prefix is not None:
                    kept = self._kept_at
                    self._reset(keep=False)
                    self._refresh()
                    self._kept_at, self._refolded = kept, False  # (what the kept fold holds)
        return self

    def tx(self, tx: str) -> TxRecord | None:
        with self.lock:
            rec = self._txs.get(tx)
            if rec is None and self._prefix is not None and tx in self._prefix.tx_ids:
                rec = self.txs.get(tx)
            return rec

    def tx_ids(self) -> set[str]:
        with self.lock:
            return set(self._txs) | (self._prefix.tx_ids if self._prefix is not None else set())

    def written(self) -> list[tuple[Any, str, str]]:
        """(path as its line names it, action, time) of each file a committed transaction
        wrote, in order."""
        with self.lock:
            kept = self._prefix.written if self._prefix is not None else []
            txs = [t for t in self._txs.values() if t.status == "committed"]
            return kept + [(f.get("path"), t.action, t.at) for t in txs for f in t.files]

    def effects(self, tx: str) -> list[Entry]:
        with self.lock:
            p = self._prefix
            if p is not None and (tx in p.fold_txs or tx in p.tx_ids):
                self._whole()
            return [e for e in self._folded if e.tx == tx]

    def refresh(self) -> bool:
        """Read the lines appended since; True when anything changed."""
        with self.lock, paused_gc():
            changed = self._refresh()
            self._keep_if_due()
            return changed

    def _keep_if_due(self) -> None:
        """Keep the fold past ``KEEP_BYTES`` read since, or after an undo or redo (which
        the next process would otherwise read every line for)."""
        total = sum(s.offset for s in self._sources.values())
        read = total - self._kept_at
        if read >= KEEP_BYTES or (read > 0 and self._refolded and total >= KEEP_BYTES):
            self._keep()

    def _check_dirs(self) -> None:
        linked = team.linked_dir(self.state_dir)
        if linked is not None:
            raise PathRefused(  # a teammate could push ``ledger/`` as one
                f"refused: {linked} is a link (to {os.path.realpath(linked)}); the ledger is "
                "read and written only in a real directory inside the workspace"
            )

    def _files(self) -> list[tuple[Path, str, int]]:
        """Every ledger file (path, whose, rank): ``ledger.jsonl``, read as the local
        reviewer's, then each reviewer's own file in team mode (links are not followed)."""
        out: list[tuple[Path, str, int]] = []
        if self.local_path.exists() or self.local_path in self._sources:
            out.append((self.local_path, self._local_key(), 0))
        if self._team:
            tdir = team.team_dir(self.state_dir)
            try:
                names = sorted(
                    e.name
                    for e in os.scandir(tdir)
                    if e.name.endswith(".jsonl")
                    and not e.name.startswith(".")
                    and e.is_file(follow_symlinks=False)
                )
            except OSError:
                names = []
            found = [tdir / n for n in names]
            out += [(p, p.name[: -len(".jsonl")], 1) for p in found]
            # a file read before and gone now: read once more, to notice it is gone
            out += [(p, s.key, 1) for p, s in self._sources.items() if s.rank and p not in found]
        return out

    def _refresh(self) -> bool:
        self._check_dirs()
        team_now = team.is_team(self.state_dir)
        reset = False
        if team_now != self._team:  # joined a team (or left): whose lines are whose changed
            self._team = team_now
            if self._sources:
                self._reset()
                reset = True
        if not self._sources and self._kept_at >= 0 and not self.located_ids:
            self._load_kept()
        try:
            return self._take_in() or reset
        except _Replay:  # only after a kept fold: read everything
            self._reset(keep=False)
            return self._refresh() or True

    def _take_in(self) -> bool:
        new: list[Placed] = []
        strs: Strs = {}  # each recurring text once
        for path, whose, rank in self._files():
            src = self._sources.get(path)
            if src is None:
                src = self._sources[path] = Source(path, whose, rank)
            if not self._read(src, new, strs):  # replaced, truncated or removed
                self._reset()  # read everything again
                return self._refresh() or True
        del strs
        if not new:
            return False
        new.sort(key=_place)
        last = self._last()
        if last is not None and _place(new[0]) < last:
            if self._prefix is not None:
                raise _Replay
            # lines of another reviewer's past: everything folded again, in order
            new = sorted(
                [*((*place, e) for place, e in zip(self._order, self._entries, strict=True)), *new],
                key=_place,
            )
            self._clear()
        refold = False
        start = len(self._folded)
        new.reverse()
        pop = new.pop
        while new:  # each let go of as it is taken in (memory for the fold to reuse)
            refold = self._apply(pop()) or refold
        if refold:  # something was undone or redone: everything is folded again
            if self._prefix is not None:
                raise _Replay
            self._refold()
            self._refolded = True
        else:  # what was undone stays so: the new entries fold onto the states
            fold = self._fold_one
            for e in islice(self._folded, start, None):
                fold(e)
        return True

    def _local_key(self) -> str:
        return team.file_name(self.who) if self._team else ""

    def _load_kept(self) -> None:
        """Start from the fold another process kept, when it still holds (see
        ``store.ledger.snapshot``): only the lines after it are read."""
        fold = load(self.state_dir, self._team, self._local_key())
        if fold is None:
            return
        self._sources = {s.path: s for s in fold.sources}
        self._states, self.undone, self._prefix = {}, fold.undone, fold.prefix
        self._kept = fold.states if isinstance(fold.states, Kept) else None
        self._kept_at = sum(s.offset for s in fold.sources)
        self.revision += 1

    def _keep(self) -> None:
        """Keep the fold for the next process (not of a ledger with broken or older lines:
        what a replay reports or rewrites is left to it)."""
        if self.diagnostics or self._older or self.located_ids:
            return
        p = self._prefix
        txs = self._txs
        fold_txs = {e.tx for e in self._folded if type(e.tx) is str}
        tail_last = self._last_read()
        prefix = Prefix(
            set(txs) | (p.tx_ids if p else set()),
            fold_txs | (p.fold_txs if p else set()),
            any(t.status == "open" for t in txs.values()) or bool(p and p.open),
            tail_last if tail_last is not None else (p.last if p else None),
            len(self._entries) + (p.entries if p else 0),
            self.written(),
        )
        sources = list(self._sources.values())
        fold = Fold(sources, self.states, self.undone, prefix)
        write(self.state_dir, self._team, self._local_key(), fold)  # (not again if it fails)
        self._kept_at, self._refolded = sum(s.offset for s in sources), False

    def _read(self, src: Source, new: list[Placed], strs: Strs) -> bool:
        """Add the lines appended to ``src`` since it was last read to ``new``, each after
        its place in the fold (``False``: it shrank, is gone, or another file took its
        place: a migration's, a checkout's)."""
        try:
            with open_ledger(src.path) as fh:
                st = os.fstat(fh.fileno())
                size, file = st.st_size, (st.st_dev, st.st_ino)
                if size < src.offset or (src.offset and file != src.file):
                    return False
                src.file = file
                fh.seek(src.offset)
                data = fh.read()
        except FileNotFoundError:
            return not src.offset
        whole, at = not src.count, 0  # (whole: read from its start)
        while at < len(data):  # a piece at a time: what a piece parses into is let go of
            end = data.find(b"\n", at + _PIECE) + 1 or len(data)
            plain = plain_pairs(data[at:end])
            if plain is None or any(is_older(r) for r in plain[0]):
                end, plain = len(data), None  # broken, torn or older lines: the rest at once
            if not self._lines(src, data[at:end], plain, new, strs, whole):
                return False
            at = end
        return True

    def _lines(
        self,
        src: Source,
        data: bytes,
        plain: tuple[list[dict[str, Any]], list[str]] | None,
        new: list[Placed],
        strs: Strs,
        whole: bool,
    ) -> bool:
        """Add the lines of ``data`` (read from ``src`` where it was read up to; ``plain``:
        their objects and texts, when already parsed) to ``new``; see ``_read``."""
        if plain is None:
            plain = plain_pairs(data)
        lines: Iterable[str | None]
        if plain is not None:  # every line one object: what scan_jsonl would find
            records, lines = plain
            src.line += data.count(b"\n")
            src.offset += len(data)
            src.digest.update(data)
        else:  # anything else (broken, torn, pretty-printed lines): read as any JSONL
            sink = DiagnosticSink(str(src.path))
            scan = scan_jsonl(data, sink, base_offset=src.offset, base_line=src.line)
            self.diagnostics.extend(sink.items)
            consumed = scan.complete_until - src.offset
            src.line += data[:consumed].count(b"\n")
            src.digest.update(data[:consumed])
            src.offset = scan.complete_until
            records = [r.data for r in scan.records]
            lines = repeat(None)
        if any(is_older(r) for r in records):  # lines written before transactions
            if self._prefix is not None:  # a whole read may migrate them
                raise _Replay
            self._older = True
            if src.path not in self._migrated and self.is_own(src.key) and whole:
                self._migrated.add(src.path)  # once: the file is then read again
                with contextlib.suppress(OSError, WriteError):
                    if migrate_file(src.path, self.state_dir, self._guard_for(src.path)):
                        return False
            # not ours to rewrite (another reviewer's), or it could not be: read as if
            made = converted(records, self.state_dir if self.is_own(src.key) else None)
            records = [r for r in made if r is not None]
            lines = repeat(None)
        times: dict[str, float | None] = {}  # lines written together share their time
        setattr_ = object.__setattr__
        shapes = self._shapes
        add = new.append
        for rec, line in zip(records, lines, strict=False):
            e = entry_of(rec, line is not None, strs)
            if e is None:
                continue
            setattr_(e, "src", src.key)
            if e.raw is not None:  # a transaction line's lists: kept apart
                keep_rest(e, rec, line, shapes, strs)  # type: ignore[arg-type]
            try:
                t = times[e.at]
            except KeyError:
                t = times[e.at] = seconds_of(e.at)
            if t is None:  # no time: where the line before it was
                src.last = src.last if src.last > -math.inf else 0.0
            elif t > src.last:  # never before the line above it (a clock set back)
                src.last = t
            add((src.last, src.key, src.rank, src.count, e))
            src.count += 1
        return True

    @property
    def _order(self) -> list[OrderKey]:
        """Each entry's place in the fold (kept in arrays: a large ledger has many)."""
        return list(
            zip(
                self._times,
                [e.src for e in self._entries],
                self._ranks,
                self._counts,
                strict=True,
            )
        )

    def _last_read(self) -> OrderKey | None:
        """The place of the last line read (not a kept fold's)."""
        if not self._entries:
            return None
        return (self._times[-1], self._entries[-1].src, self._ranks[-1], self._counts[-1])

    def _last(self) -> OrderKey | None:
        last = self._last_read()
        return self._prefix.last if last is None and self._prefix is not None else last

    def _may_touch(self, e: Entry, ref: str) -> bool:
        """A reviewer's line undoes or redoes only that reviewer's own."""
        rec = self._txs.get(ref)
        return rec is None or rec.src == e.src

    def _apply(self, placed: Placed) -> bool:
        """Take one line in (what it adds to ``folded`` is folded after, see ``_refresh``);
        True when the whole state must be folded again."""
        t, _src, rank, count, e = placed
        self.revision += 1
        self._entries.append(e)
        self._times.append(t)
        self._ranks.append(rank)
        self._counts.append(count)
        return self._apply_tx(e) if e.op in TX_OPS else False

    def _apply_tx(self, e: Entry) -> bool:
        tx = str(e.tx or "")
        if not tx:
            return False
        p = self._prefix
        if p is not None and tx in p.tx_ids:  # its begin, or itself, before: read whole
            raise _Replay
        rec = self._txs.get(tx)
        seq = len(self._entries) - 1 + (p.entries if p is not None else 0)
        if e.op == "begin":
            if rec is None:
                self._txs[tx] = TxRecord(tx, e, seq=seq)
            return False
        if rec is None:
            if e.op != "commit" or "action" not in e.data:
                return False  # the end of a transaction whose begin is lost
            rec = self._txs[tx] = TxRecord(tx, e, seq=seq)  # self-contained
        if rec.status != "open" or rec.src != e.src:  # only its own reviewer ends it
            return False
        rec.end = e
        if e.op == "abort":
            rec.status = "aborted"
            return False
        rec.status = "committed"
        if rec.undoes:
            if self._may_touch(rec.begin, rec.undoes):
                self.undone.add(rec.undoes)
            return True
        if rec.redoes:
            if self._may_touch(rec.begin, rec.redoes):  # what undid it no longer counts
                self.undone.discard(rec.redoes)
            return True
        made = effects_of(rec)
        if type(made) is Entry:
            self._folded.append(made)
            return False
        self._folded += [entry for entry in made if entry is not None]  # type: ignore[union-attr]
        return False

    def is_undone(self, e: Entry) -> bool:
        return e.id in self.undone or e.group in self.undone

    def _fold_one(self, e: Entry) -> None:
        if self.undone and self.is_undone(e):
            return
        target = plain_key(e.target) if "@" in e.target else e.target
        st = self._state_of(target)
        if st is None:
            st = self._states[target] = ItemState()
        fold_entry(st, e)
        if self.located_ids and target.partition("/")[0] in self.located_ids:
            self._fold_located(e, target)

    def _fold_located(self, e: Entry, plain: str) -> None:
        """Fold ``e`` (about ``plain``, whose report id is shared) into the state of the
        report it names, or of every report of the id when it names none."""
        place = place_of(e.target, e.data)
        keys = self._places.setdefault(plain, [])
        if place is None:
            st = self._placeless.get(plain)
            if st is None:
                st = self._placeless[plain] = ItemState()
            fold_entry(st, e)
            for k in keys:
                fold_entry(self._located[k], e)
            return
        rid, _, item = plain.partition("/")
        key = f"{rid}@{place}/{item}"
        st = self._located.get(key)
        if st is None:  # the lines naming no place so far, then its own
            if key == e.target:
                key = e.target  # kept as the line's own text (one object, not two)
            base = self._placeless.get(plain)
            st = self._located[key] = base.copy() if base is not None else ItemState()
            keys.append(key)
        fold_entry(st, e)

    def locate(self, report_ids: Iterable[str]) -> None:
        """Keep the states of these report ids' items per report (``store.located``): the
        ids two reports share, as the index finds them."""
        with self.lock:
            new = set(report_ids) - self.located_ids
            if not new:
                return
            self._whole()  # the kept fold holds no states per report
            self.located_ids |= new
            self.revision += 1
            for e in self._folded:  # theirs alone, in order (nothing was kept for them yet)
                if self.undone and self.is_undone(e):
                    continue
                target = plain_key(e.target) if "@" in e.target else e.target
                if target.partition("/")[0] in new:
                    self._fold_located(e, target)

    def _refold(self) -> None:
        self._states, self._kept = {}, None
        self._located, self._placeless, self._places = {}, {}, {}
        for e in self._folded:
            self._fold_one(e)

    def state(self, key: str) -> ItemState:
        """The state of the item under ``key``: a plain ``KPT_ID/ITEM_ID`` folds every line
        of that key, a located one (``store.located``) the lines made on that report."""
        if "@" in key and (got := split_located(key)) is not None:
            plain = got[0]
            if plain.partition("/")[0] not in self.located_ids:
                self.locate([plain.partition("/")[0]])
            return self._located.get(key) or self._placeless.get(plain) or ItemState()
        return self._state_of(key) or ItemState()

    @property
    def states(self) -> dict[str, ItemState]:
        if self._kept is not None:
            with self.lock, paused_gc():
                if self._kept is not None:
                    self._states, self._kept = self._kept.all(self._states), None
        return self._states

    def _state_of(self, key: str) -> ItemState | None:
        st = self._states.get(key)
        if st is None and self._kept is not None:
            with self.lock:  # (built once: a refresh may be folding onto it)
                st = self._states.get(key)
                if st is None and self._kept is not None:
                    st = self._kept.get(key)
                    if st is not None:
                        self._states[key] = st
        return st

    def state_without(self, key: str, group: str) -> ItemState:
        """The state ``key`` would have if ``group`` were undone."""
        got = split_located(key)
        plain, place = got if got is not None else (key, None)
        st = ItemState()
        for e in self.folded:
            if (
                plain_key(e.target) == plain
                and (place is None or place_of(e.target, e.data) in (None, place))
                and e.group != group
                and not self.is_undone(e)
            ):
                fold_entry(st, e)
        return st

    def news(self, known: set[str], limit: int = 8) -> list[str]:
        """What other reviewers did that was not read before (``known``: the transaction
        ids read then), one line each, ``alice@example.com: approve kpt-…/try-001``; a
        last line counts the rest."""
        with self.lock:
            p = self._prefix
            txs = self._txs if p is not None and p.tx_ids <= known else self.txs
            fresh = [
                t
                for t in txs.values()
                if t.id not in known and t.status == "committed" and not self.is_own(t.src)
            ]
        lines = [f"{t.who or t.src}: {t.title}".rstrip() for t in fresh[:limit]]
        if len(fresh) > limit:
            lines.append(f"… and {len(fresh) - limit} more (see the history)")
        return lines

    def open_transactions(self) -> list[TxRecord]:
        """The local reviewer's transactions begun and neither committed nor aborted (in
        progress elsewhere, or left by a process that was killed:
        :func:`store.tx.transactions.recover`). Another reviewer's are theirs to end."""
        with self.lock:
            txs = self.txs if self._prefix is not None and self._prefix.open else self._txs
            return [t for t in txs.values() if t.status == "open" and self.is_own(t.src)]

    def append(self, record: dict[str, Any]) -> None:
        """Append one line (fsynced), signed as this machine's, and read it back."""
        with self.lock:
            self._check_dirs()
            path = self.path
            guard = self._guard_for(path)
            body = {k: v for k, v in record.items() if k != "sig"}
            # signed as it is read back (the JSON of the line, not the caller's objects)
            sig = machine_key.sign(self.state_dir, json.loads(encode_record(body)))
            line = encode_record({**body, "sig": sig} if sig else body)
            append_bytes(path, line, guard=guard)
            self._refresh()
            if self._refolded:  # an undo or a redo: kept now, not replayed by the next
                self._keep_if_due()

    def authentic(self, e: Entry | None) -> bool:
        """Whether the line of ``e`` was written by this machine in this workspace, as it
        is: signed with this machine's key (``store.machine_key``) over what it holds."""
        if e is None or type(e.sig) is not str:  # none, or a list, a number: forged
            return False
        key = (e.id, e.op, e.src, e.sig)
        known = self._authentic.get(key)
        if known is None:  # a line read stays as it is (a file rewritten is read anew)
            known = self._authentic[key] = machine_key.verify(self.state_dir, e.as_record(), e.sig)
        return known

    def is_ours(self, rec: TxRecord) -> bool:
        """The local reviewer's, begun and ended on this machine: what undo may act on."""
        if not self.is_own(rec.src) or not self.authentic(rec.begin):
            return False
        return rec.end is None or rec.end is rec.begin or self.authentic(rec.end)

    def complete_torn(self) -> None:
        """End a last line cut short by a crash (it stays, reported as broken, unless it
        was whole but for its newline) and read what that completes."""
        with self.lock:
            path = self.path
            try:
                with open_ledger(path) as fh:
                    size = os.fstat(fh.fileno()).st_size
                    torn = size > 0 and os.pread(fh.fileno(), 1, size - 1) != b"\n"
            except FileNotFoundError:
                return
            if torn:
                guard = self._guard_for(path)
                append_bytes(path, b"", guard=guard, create=False)
                self._refresh()
