"""The decision ledger: review metadata kept apart from the agents' files (DESIGN.md).

Everything a person does is appended, as JSON lines, to ``.hurikaeri/ledger.jsonl`` under
the workspace root. Nothing is ever rewritten: the current state of an item is a fold over
the lines, and undo and redo append. The UI and the CLI share the file; each append is one
``write``, so they can both write at once. A line that cannot be read is reported and
skipped, and a torn last line (a crash mid-write) is ignored until something completes it.

Two generations of lines fold together:

- *Transactions* (``store.review.transactions``): a ``begin`` line names the action, who
  did it, its subjects, the review-state changes it makes (``effects``) and every file it
  is about to write (path, SHA-256 before and after, backups); a ``commit`` line follows
  once the files are written, or an ``abort`` when they were put back. Only committed
  transactions count. A transaction that writes no file is one self-contained ``commit``
  line. Undo and redo are transactions naming the one they cancel (``undoes``) or apply
  again (``redoes``).
- *Older lines*, one per decision (``approve``, ``reject``, … with an optional ``batch``)
  and ``undo`` lines naming the entry they cancel: they keep folding exactly as they did.
"""

from __future__ import annotations

import os
import secrets
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from store.read.diagnostics import DiagnosticSink
from store.read.jsonl import encode_record, scan_jsonl
from store.write.atomic import PathRefused, append_bytes

Op = Literal[
    "approve", "reject", "reopen", "edit", "promote", "write", "archive", "restore", "undo"
]
State = Literal["pending", "approved", "rejected"]
TxStatus = Literal["open", "committed", "aborted"]
DECISIONS: tuple[str, ...] = ("approve", "reject", "reopen")
LEDGER_NAME = "ledger.jsonl"
#: The ops of transaction lines (never folded as decisions themselves).
TX_OPS = ("begin", "commit", "abort")


def now_iso() -> str:
    return datetime.now(UTC).astimezone().isoformat(timespec="seconds")


def new_id() -> str:
    return secrets.token_hex(6)


@dataclass(frozen=True, slots=True)
class Entry:
    """One line of the ledger, or one effect of a committed transaction (its ``data``
    then holds ``tx``, the transaction's id)."""

    id: str
    at: str
    op: str
    target: str
    note: str | None = None
    undoes: str | None = None
    data: dict[str, Any] = field(default_factory=dict)
    #: what one undo cancels together: the transaction, the older lines' batch, or the
    #: line alone
    group: str = field(default="", init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        d = self.data
        object.__setattr__(self, "group", str(d.get("tx") or d.get("batch") or self.id))

    def as_record(self) -> dict[str, Any]:
        rec: dict[str, Any] = {"id": self.id, "at": self.at, "op": self.op, "target": self.target}
        if self.note:
            rec["note"] = self.note
        if self.undoes:
            rec["undoes"] = self.undoes
        rec.update(self.data)
        return rec


@dataclass(slots=True)
class TxRecord:
    """One transaction as the ledger holds it."""

    id: str
    begin: Entry
    status: TxStatus = "open"
    end: Entry | None = None
    #: the place of its ``begin`` (or self-contained ``commit``) among the ledger's lines
    seq: int = 0

    @property
    def data(self) -> dict[str, Any]:
        return self.begin.data

    @property
    def at(self) -> str:
        return self.begin.at

    @property
    def action(self) -> str:
        return str(self.data.get("action") or "")

    @property
    def who(self) -> str | None:
        who = self.data.get("who")
        return str(who) if who is not None else None

    @property
    def subjects(self) -> list[str]:
        subjects = self.data.get("subjects")
        return [str(s) for s in subjects] if isinstance(subjects, list) else []

    @property
    def files(self) -> list[dict[str, Any]]:
        """The file records, with what the commit line corrected (an append that landed
        later than measured, after another program's line)."""
        files = self.data.get("files")
        out = [dict(f) for f in files if isinstance(f, dict)] if isinstance(files, list) else []
        fixes = self.end.data.get("files") if self.end is not None else None
        if isinstance(fixes, list):
            for fix in fixes:
                if isinstance(fix, dict) and isinstance(fix.get("i"), int) and fix["i"] < len(out):
                    out[fix["i"]].update({k: v for k, v in fix.items() if k != "i"})
        return out

    @property
    def effects(self) -> list[dict[str, Any]]:
        effects = self.data.get("effects")
        return [e for e in effects if isinstance(e, dict)] if isinstance(effects, list) else []

    @property
    def undoes(self) -> str | None:
        return self.begin.undoes

    @property
    def redoes(self) -> str | None:
        r = self.data.get("redoes")
        return str(r) if r else None

    @property
    def note(self) -> str | None:
        return self.begin.note


@dataclass(slots=True)
class ItemState:
    """The folded review state of one item."""

    state: State = "pending"
    note: str | None = None
    at: str | None = None
    edited: bool = False
    archived: bool = False
    promoted: list[dict[str, Any]] = field(default_factory=list)


def fold_entry(st: ItemState, e: Entry) -> None:
    """What one (not undone) entry does to its target's state."""
    if e.op == "approve":
        st.state, st.note, st.at = "approved", e.note, e.at
    elif e.op == "reject":
        st.state, st.note, st.at = "rejected", e.note, e.at
    elif e.op == "reopen":
        st.state, st.note, st.at = "pending", None, e.at
    elif e.op == "edit":
        st.edited = True
    elif e.op == "archive":
        st.archived = True
    elif e.op == "restore":
        st.archived = False
    elif e.op == "promote":
        st.promoted.append(dict(e.data))


def item_key(report_id: str | None, item_id: str | None) -> str | None:
    """``KPT_ID/ITEM_ID``, the key an item's decisions are recorded under; ``None`` when the
    report or the item has no id. Such items are never decided on: every id-less item of a
    report would share the one key ``KPT_ID/`` (lint reports the missing id)."""
    if not report_id or not item_id:
        return None
    return f"{report_id}/{item_id}"


class Ledger:
    """The ledger of one workspace; ``refresh()`` reads what other processes appended."""

    def __init__(self, state_dir: Path, *, read: bool = True) -> None:
        self.path = state_dir / LEDGER_NAME
        #: every line read, in order (transaction lines included)
        self.entries: list[Entry] = []
        #: what the state is folded from, in order: older decision lines and the effects of
        #: committed transactions (placed where their commit is)
        self.folded: list[Entry] = []
        #: ids of what is undone now: older lines (by id), batches and transactions
        self.undone: set[str] = set()
        self.txs: dict[str, TxRecord] = {}
        #: the place of each older decision line among the ledger's lines
        self.line_of: dict[str, int] = {}
        self.states: dict[str, ItemState] = {}
        self.diagnostics: list[Any] = []
        self._offset = 0
        self._line = 1
        #: held while lines are read in or appended (the app shares one ledger between
        #: threads); hold it to read several of the attributes consistently
        self.lock = threading.RLock()
        #: grows with every entry read (and on a reset): what was worked out from the
        #: states may be kept while it stays the same
        self.revision = 0
        if read:
            self.refresh()

    def _guard(self, real: Path) -> None:
        """The ledger is ``ledger.jsonl`` itself in the state directory, never a link out."""
        if real != Path(os.path.realpath(self.path.parent)) / LEDGER_NAME:
            raise PathRefused(f"refused: {self.path} leads to {real}; the ledger is not a link")

    # -- reading -----------------------------------------------------------------

    def refresh(self) -> bool:
        """Read lines appended since the last read; True when anything changed."""
        with self.lock:
            return self._refresh()

    def _refresh(self) -> bool:
        try:
            with open(self.path, "rb") as fh:
                size = os.fstat(fh.fileno()).st_size
                if size < self._offset:  # replaced or truncated by hand: read it all again
                    self._reset()
                fh.seek(self._offset)
                data = fh.read()
        except FileNotFoundError:
            if self._offset:
                self._reset()
                return True
            return False
        if not data:
            return False
        sink = DiagnosticSink(str(self.path))
        scan = scan_jsonl(data, sink, base_offset=self._offset, base_line=self._line)
        self.diagnostics.extend(sink.items)
        consumed = scan.complete_until - self._offset
        self._line += data[:consumed].count(b"\n")
        self._offset = scan.complete_until
        new = [e for e in (_entry(r.data) for r in scan.records) if e is not None]
        refold = False
        for e in new:
            refold = self._apply(e) or refold
        if refold:
            self._refold()
        return bool(new)

    def _reset(self) -> None:
        self.revision += 1
        self.entries, self.folded, self.undone, self.states = [], [], set(), {}
        self.txs, self.line_of = {}, {}
        self._offset, self._line = 0, 1

    def _apply(self, e: Entry) -> bool:
        """Take one line in; True when the whole state must be folded again."""
        self.revision += 1
        self.entries.append(e)
        if e.op in TX_OPS:
            return self._apply_tx(e)
        if e.op == "undo":
            if e.undoes:
                self.undone.add(e.undoes)
            return True
        self.line_of.setdefault(e.id, len(self.entries) - 1)
        self.folded.append(e)
        self._fold_one(e)
        return False

    def _apply_tx(self, e: Entry) -> bool:
        tx = str(e.data.get("tx") or "")
        if not tx:
            return False
        rec = self.txs.get(tx)
        if e.op == "begin":
            if rec is None:
                self.txs[tx] = TxRecord(tx, e, seq=len(self.entries) - 1)
            return False
        if rec is None:
            if e.op != "commit" or "action" not in e.data:
                return False  # the end of a transaction whose begin is lost
            rec = self.txs[tx] = TxRecord(tx, e, seq=len(self.entries) - 1)  # self-contained
        if rec.status != "open":
            return False
        rec.end = e
        if e.op == "abort":
            rec.status = "aborted"
            return False
        rec.status = "committed"
        if rec.undoes:
            self.undone.add(rec.undoes)
            return True
        if rec.redoes:
            self._redo(rec.redoes)
            return True
        for i, eff in enumerate(rec.effects):
            entry = _effect_entry(rec, i, eff)
            if entry is not None:
                self.folded.append(entry)
                self._fold_one(entry)
        return False

    def _redo(self, group: str) -> None:
        """Whatever cancelled ``group`` (a transaction, a batch or one older line) no longer
        counts: its older ``undo`` lines included."""
        self.undone.discard(group)
        for e in self.folded:
            if e.group == group:
                self.undone.discard(e.id)

    def is_undone(self, e: Entry) -> bool:
        return e.id in self.undone or e.group in self.undone

    def _fold_one(self, e: Entry) -> None:
        if self.undone and self.is_undone(e):
            return
        fold_entry(self.states.setdefault(e.target, ItemState()), e)

    def _refold(self) -> None:
        self.states = {}
        for e in self.folded:
            self._fold_one(e)

    def state(self, key: str) -> ItemState:
        return self.states.get(key) or ItemState()

    def state_without(self, key: str, group: str) -> ItemState:
        """The state ``key`` would have if ``group`` (a transaction or batch) were undone."""
        st = ItemState()
        for e in self.folded:
            if e.target == key and e.group != group and not self.is_undone(e):
                fold_entry(st, e)
        return st

    def last_undoable(self) -> Entry | None:
        """The newest folded entry that has not been undone."""
        for e in reversed(self.folded):
            if not self.is_undone(e):
                return e
        return None

    def open_transactions(self) -> list[TxRecord]:
        """Transactions begun and neither committed nor aborted (in progress elsewhere, or
        left by a process that was killed: :func:`store.review.transactions.recover`)."""
        with self.lock:
            return [t for t in self.txs.values() if t.status == "open"]

    # -- writing -----------------------------------------------------------------

    def append(self, record: dict[str, Any]) -> None:
        """Append one line (fsynced) and read it back."""
        with self.lock:
            append_bytes(self.path, encode_record(record), guard=self._guard, repair_torn=True)
            self._refresh()

    def complete_torn(self) -> None:
        """End a last line cut short by a crash (it stays, reported as broken, unless it
        was whole but for its newline) and read what that completes."""
        with self.lock:
            try:
                with open(self.path, "rb") as fh:
                    size = os.fstat(fh.fileno()).st_size
                    torn = size > 0 and os.pread(fh.fileno(), 1, size - 1) != b"\n"
            except FileNotFoundError:
                return
            if torn:
                append_bytes(self.path, b"", guard=self._guard, repair_torn=True, create=False)
                self._refresh()

    def record(
        self, op: Op, target: str, note: str | None = None, undoes: str | None = None, **data: Any
    ) -> Entry:
        """One line of the older kind (a decision of its own, not a transaction)."""
        entry = Entry(new_id(), now_iso(), op, target, note or None, undoes, data)
        self.append(entry.as_record())
        return entry

    def decide(self, targets: Iterable[str], op: Op, note: str | None = None) -> list[Entry]:
        """Several decisions as one batch: a single undo cancels them all."""
        batch = new_id()
        return [self.record(op, t, note, batch=batch) for t in targets]

    def undoable_batch(self) -> list[Entry]:
        """The last decision, with every entry of its batch (or transaction), oldest first."""
        last = self.last_undoable()
        if last is None:
            return []
        return [e for e in self.folded if e.group == last.group and not self.is_undone(e)]

    def undo(self) -> Entry | None:
        """Cancel the last decision (its whole batch) with older ``undo`` lines; returns its
        newest entry.

        Decisions that wrote files, and transactions, are undone by
        :func:`store.review.transactions.undo`, which restores the files first.
        """
        self.refresh()
        entries = self.undoable_batch()
        if any("after_sha256" in e.data or "tx" in e.data for e in entries):
            raise ValueError(
                "a transaction or a decision that wrote files is undone with "
                "store.review.transactions.undo"
            )
        self.mark_undone(entries)
        return entries[-1] if entries else None

    def mark_undone(self, entries: list[Entry]) -> None:
        for e in reversed(entries):
            self.record("undo", e.target, undoes=e.id)


def _effect_entry(rec: TxRecord, i: int, eff: dict[str, Any]) -> Entry | None:
    op, target = eff.get("op"), eff.get("target")
    if not isinstance(op, str) or not isinstance(target, str):
        return None
    note = eff.get("note")
    known = {"op", "target", "note"}
    data = {k: v for k, v in eff.items() if k not in known}
    return Entry(
        f"{rec.id}:{i}",
        rec.end.at if rec.end is not None else rec.at,
        op,
        target,
        str(note) if note else None,
        None,
        {"tx": rec.id, **data},
    )


def _entry(rec: dict[str, Any]) -> Entry | None:
    try:
        known = {"id", "at", "op", "target", "note", "undoes"}
        return Entry(
            str(rec["id"]),
            str(rec["at"]),
            str(rec["op"]),
            str(rec.get("target", "")) if rec.get("op") in TX_OPS else str(rec["target"]),
            rec.get("note"),
            rec.get("undoes"),
            {k: v for k, v in rec.items() if k not in known},
        )
    except KeyError:
        return None


__all__ = [
    "DECISIONS",
    "Entry",
    "ItemState",
    "Ledger",
    "TxRecord",
    "fold_entry",
    "item_key",
    "new_id",
]
