"""The decision ledger: review metadata kept apart from the agents' files (DESIGN.md).

Approving, rejecting, reopening, editing and promoting KPT items are appended, one JSON line
each, to ``.hurikaeri/ledger.jsonl`` under the workspace root. Nothing is ever rewritten:
the current state of an item is a fold over the lines, and undo appends a line naming the
entry it cancels. The UI and the CLI share the file; each append is one ``write``, so they
can both write at once. A line that cannot be read is reported and skipped, and a torn last
line (a crash mid-write) is ignored until something completes it.
"""

from __future__ import annotations

import os
import secrets
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
DECISIONS: tuple[str, ...] = ("approve", "reject", "reopen")
LEDGER_NAME = "ledger.jsonl"


def now_iso() -> str:
    return datetime.now(UTC).astimezone().isoformat(timespec="seconds")


@dataclass(frozen=True, slots=True)
class Entry:
    """One line of the ledger."""

    id: str
    at: str
    op: str
    target: str
    note: str | None = None
    undoes: str | None = None
    data: dict[str, Any] = field(default_factory=dict)

    def as_record(self) -> dict[str, Any]:
        rec: dict[str, Any] = {"id": self.id, "at": self.at, "op": self.op, "target": self.target}
        if self.note:
            rec["note"] = self.note
        if self.undoes:
            rec["undoes"] = self.undoes
        rec.update(self.data)
        return rec


@dataclass(slots=True)
class ItemState:
    """The folded review state of one item."""

    state: State = "pending"
    note: str | None = None
    at: str | None = None
    edited: bool = False
    archived: bool = False
    promoted: list[dict[str, Any]] = field(default_factory=list)


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
        self.entries: list[Entry] = []
        self.undone: set[str] = set()
        self.states: dict[str, ItemState] = {}
        self.diagnostics: list[Any] = []
        self._offset = 0
        self._line = 1
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
        for e in new:
            self._apply(e)
        if any(e.op == "undo" for e in new):
            self._refold()
        return bool(new)

    def _reset(self) -> None:
        self.revision += 1
        self.entries, self.undone, self.states = [], set(), {}
        self._offset, self._line = 0, 1

    def _apply(self, e: Entry) -> None:
        self.revision += 1
        self.entries.append(e)
        if e.op == "undo":
            if e.undoes:
                self.undone.add(e.undoes)
            return
        self._fold_one(e)

    def _fold_one(self, e: Entry) -> None:
        if e.id in self.undone:
            return
        st = self.states.setdefault(e.target, ItemState())
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

    def _refold(self) -> None:
        self.states = {}
        for e in self.entries:
            if e.op != "undo":
                self._fold_one(e)

    def state(self, key: str) -> ItemState:
        return self.states.get(key) or ItemState()

    def last_undoable(self) -> Entry | None:
        """The newest entry that is not an undo and has not been undone."""
        for e in reversed(self.entries):
            if e.op != "undo" and e.id not in self.undone:
                return e
        return None

    # -- writing -----------------------------------------------------------------

    def record(
        self, op: Op, target: str, note: str | None = None, undoes: str | None = None, **data: Any
    ) -> Entry:
        entry = Entry(secrets.token_hex(6), now_iso(), op, target, note or None, undoes, data)
        append_bytes(
            self.path, encode_record(entry.as_record()), guard=self._guard, repair_torn=True
        )
        self.refresh()
        return entry

    def decide(self, targets: Iterable[str], op: Op, note: str | None = None) -> list[Entry]:
        """Several decisions as one batch: a single undo cancels them all."""
        batch = secrets.token_hex(6)
        return [self.record(op, t, note, batch=batch) for t in targets]

    def undoable_batch(self) -> list[Entry]:
        """The last decision, with every entry of its batch, oldest first."""
        last = self.last_undoable()
        if last is None:
            return []
        batch = last.data.get("batch")
        if not batch:
            return [last]
        return [
            e
            for e in self.entries
            if e.data.get("batch") == batch and e.op != "undo" and e.id not in self.undone
        ]

    def undo(self) -> Entry | None:
        """Cancel the last decision (its whole batch); returns its newest entry.

        Promotions changed files: they are undone by :func:`store.review.undo.undo_last`, which
        restores the files first.
        """
        self.refresh()
        entries = self.undoable_batch()
        if any("after_sha256" in e.data for e in entries):
            raise ValueError(
                "a decision that wrote files is undone with store.review.undo.undo_last"
            )
        self.mark_undone(entries)
        return entries[-1] if entries else None

    def mark_undone(self, entries: list[Entry]) -> None:
        for e in reversed(entries):
            self.record("undo", e.target, undoes=e.id)


def _entry(rec: dict[str, Any]) -> Entry | None:
    try:
        known = {"id", "at", "op", "target", "note", "undoes"}
        return Entry(
            str(rec["id"]),
            str(rec["at"]),
            str(rec["op"]),
            str(rec["target"]),
            rec.get("note"),
            rec.get("undoes"),
            {k: v for k, v in rec.items() if k not in known},
        )
    except KeyError:
        return None


__all__ = ["DECISIONS", "Entry", "ItemState", "Ledger", "item_key"]
