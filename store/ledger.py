"""The decision ledger: review metadata kept apart from the agents' files (docs/architecture.md).

Everything a person does is appended, as JSON lines, to ``.hurikaeri/ledger.jsonl`` under
the workspace root. Nothing is ever rewritten: the current state of an item is a fold over
the lines, and undo and redo append. The UI and the CLI share the file; each append is one
``write``, so they can both write at once. A line that cannot be read is reported and
skipped, and a torn last line (a crash mid-write) is ignored until something completes it.

Two generations of lines fold together:

- *Transactions* (``store.tx.transactions``): a ``begin`` line names the action, who
  did it, its subjects, the review-state changes it makes (``effects``) and every file it
  is about to write (path, SHA-256 before and after, backups); a ``commit`` line follows
  once the files are written, or an ``abort`` when they were put back. Only committed
  transactions count. A transaction that writes no file is one self-contained ``commit``
  line. Undo and redo are transactions naming the one they cancel (``undoes``) or apply
  again (``redoes``).
- *Older lines*, one per decision (``approve``, ``reject``, … with an optional ``batch``)
  and ``undo`` lines naming the entry they cancel: they keep folding exactly as they did.

The ledger is a record, never a licence to write: it lies in the workspace, where agents
and teammates write too. Every line appended here is signed (``sig``, see
:mod:`store.machine_key`) and records its ``channel``; :meth:`Ledger.is_ours` tells the
local reviewer's transactions whose lines this machine wrote — the only ones recovery, undo
and redo act on. Every line folds for review state. A ledger file that is not a regular
file (a FIFO) and a ledger directory that is a link are refused, naming them.

A team (``store.team``): with a ``ledger/`` directory in the state directory, each reviewer
appends only to ``ledger/<reviewer>.jsonl``, and ``ledger.jsonl`` (when there is one) is read
as the local reviewer's older history. The lines of every file are folded in one order, the
same on every machine whatever order the files are found in: by time (UTC; within a file
never earlier than the line before it, so one reviewer's own order always holds), then the
reviewer (the file's name), then ``ledger.jsonl`` before the reviewer's own file, then the
place in the file. A reviewer's lines undo, redo, commit or abort only that reviewer's own
transactions. When reviewers' latest decisions on an item differ, the item is
``contested`` (:class:`ItemState` keeps each one's decision); a decision made on a contested
item (``resolves``) settles it, and ``reopen`` sets it back to pending for everyone.
"""

from __future__ import annotations

import errno
import json
import math
import os
import secrets
import stat
import sys
import threading
from array import array
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from itertools import islice, repeat
from operator import itemgetter
from pathlib import Path
from typing import Any, Literal

from store import machine_key, team
from store.gc_pause import paused_gc
from store.located import place_of, plain_key, split_located
from store.read.diagnostics import DiagnosticSink
from store.read.jsonl import encode_record, scan_jsonl
from store.read.textio import MAX_RECORD_BYTES
from store.write.atomic import PathRefused, append_bytes

Op = Literal[
    "approve", "reject", "reopen", "edit", "promote", "write", "archive", "restore", "undo"
]
State = Literal["pending", "approved", "rejected", "contested"]
TxStatus = Literal["open", "committed", "aborted"]
DECISIONS: tuple[str, ...] = ("approve", "reject", "reopen")
#: The states that wait for a person's decision (contested: reviewers disagree).
UNDECIDED: tuple[str, ...] = ("pending", "contested")
LEDGER_NAME = "ledger.jsonl"
#: The ops of transaction lines (never folded as decisions themselves).
TX_OPS = ("begin", "commit", "abort")


#: Where a change was made (docs/trust-boundary.md "Approval is a person's"): the app, a person's
#: terminal, or a script (a command whose input is no terminal); ``agent`` is a decision made
#: inside an agent's session that the person's config allows (store.tx.agents). Every
#: transaction records it; an undo without an id takes back only what its own channel did last.
CHANNELS = ("app", "terminal", "script", "agent")
_channel: list[str] = []


def set_channel(name: str | None) -> None:
    """The channel of this process from now on (the command line sets ``app`` before it
    opens the app; ``None``: told by the input again, see :func:`current_channel`)."""
    if name is not None and name not in CHANNELS:
        raise ValueError(f"unknown channel {name!r}")
    _channel[:] = [name] if name else []


def current_channel() -> str:
    """This process's channel: as set, else ``terminal`` when its input is a terminal,
    else ``script``."""
    if _channel:
        return _channel[0]
    try:
        return "terminal" if sys.stdin is not None and sys.stdin.isatty() else "script"
    except (OSError, ValueError):
        return "script"


def now_iso() -> str:
    return datetime.now(UTC).astimezone().isoformat(timespec="seconds")


def new_id() -> str:
    return secrets.token_hex(6)


#: ``Entry``'s ``data`` when none is given
_NO_DATA: Any = object()
_setattr = object.__setattr__


@dataclass(frozen=True, slots=True, init=False)
class Entry:
    """One line of the ledger, or one effect of a committed transaction (its ``tx`` then
    is the transaction's id).

    A transaction line read from a ledger file keeps only its single values in ``data``
    (``action``, ``who``, ``reason``, …); its lists and objects (``subjects``, ``effects``,
    ``files``, …) are kept apart (``raw``) and made again when asked for: :attr:`full_data`
    (and :class:`TxRecord`'s properties). A line's ``tx`` is never in ``data`` but kept on
    its own (``tx``), so that lines and effects alike share one ``data`` (a transaction's
    action and reviewer, an effect's file and reviewer): a large ledger holds tens of
    thousands of lines."""

    id: str
    at: str
    op: str
    target: str
    note: str | None = None
    undoes: str | None = None
    #: every field of the line but the entry's own and ``tx`` (shared between entries:
    #: never changed)
    data: dict[str, Any] = field(default_factory=dict)
    #: the ``tx`` of the line (or of the effect's transaction); ``None``: it has none
    tx: Any = field(default=None, compare=False)
    #: what one undo cancels together: the transaction, the older lines' batch, or the
    #: line alone
    group: str = field(default="", init=False, compare=False, repr=False)
    #: the reviewer whose ledger file holds it (the file's name; set as it is read)
    src: str = field(default="", init=False, compare=False, repr=False)
    #: what ``data`` leaves out (see above): the line's text (UTF-8), or for a decision's
    #: subjects and effects, how to make them again from ``effect_entries``
    #: (``_shape``); ``None``: nothing
    raw: bytes | _Shape | None = field(default=None, init=False, compare=False, repr=False)
    #: a transaction line's effects, made into entries as it was read (``None``: made
    #: when its transaction commits; an element ``None``: an effect that is not one; one
    #: effect: its entry alone)
    effect_entries: Entry | tuple[Entry | None, ...] | None = field(
        default=None, init=False, compare=False, repr=False
    )
    #: the line's signature (``store.machine_key``; ``None``: it has none): which lines
    #: this machine wrote, the only ones recovery, undo and redo act on
    sig: Any = field(default=None, init=False, compare=False, repr=False)

    def __init__(
        self,
        id: str,
        at: str,
        op: str,
        target: str,
        note: str | None = None,
        undoes: str | None = None,
        data: dict[str, Any] = _NO_DATA,
        tx: Any = None,
    ) -> None:
        """As the dataclass's own would, in fewer steps (a large ledger makes many); a
        ``tx`` in ``data`` is taken out of it (see ``tx``)."""
        if data is _NO_DATA:
            data = {}
        elif "tx" in data:
            tx = data["tx"]
            data = {k: v for k, v in data.items() if k != "tx"}
        s = _setattr
        s(self, "id", id)
        s(self, "at", at)
        s(self, "op", op)
        s(self, "target", target)
        s(self, "note", note)
        s(self, "undoes", undoes)
        s(self, "data", data)
        s(self, "tx", tx)
        s(self, "group", str(tx or data.get("batch") or id))
        s(self, "src", "")
        s(self, "raw", None)
        s(self, "effect_entries", None)
        s(self, "sig", None)

    @property
    def full_data(self) -> dict[str, Any]:
        """``data`` with all of the line: ``tx``, and what ``data`` leaves out parsed from
        ``raw`` again (a new dict each time; ``data`` itself when nothing was left out)."""
        raw = self.raw
        if raw is None:
            return self.data if self.tx is None else {"tx": self.tx, **self.data}
        if isinstance(raw, tuple):
            return _unshape(self, raw)
        rec = _scan_once(raw.decode("utf-8"), 0)[0]
        return {k: v for k, v in rec.items() if k not in _KNOWN}

    def as_record(self) -> dict[str, Any]:
        rec: dict[str, Any] = {"id": self.id, "at": self.at, "op": self.op, "target": self.target}
        if self.note:
            rec["note"] = self.note
        if self.undoes:
            rec["undoes"] = self.undoes
        rec.update(self.full_data)
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
        """Every field of its ``begin`` (or self-contained ``commit``) line but the entry's
        own (parsed from the line when asked: :attr:`Entry.full_data`)."""
        return self.begin.full_data

    @property
    def at(self) -> str:
        return self.begin.at

    @property
    def action(self) -> str:
        return str(self.begin.data.get("action") or "")  # single values stay parsed

    @property
    def who(self) -> str | None:
        who = self.begin.data.get("who")
        return str(who) if who is not None else None

    @property
    def src(self) -> str:
        """The reviewer whose ledger file holds it (see :attr:`Entry.src`)."""
        return self.begin.src

    @property
    def subjects(self) -> list[str]:
        subjects = _field(self.begin, "subjects")
        return [str(s) for s in subjects] if isinstance(subjects, list) else []

    @property
    def files(self) -> list[dict[str, Any]]:
        """The file records, with what the commit line corrected (an append that landed
        later than measured, after another program's line)."""
        files = _field(self.begin, "files")
        out = [dict(f) for f in files if isinstance(f, dict)] if isinstance(files, list) else []
        fixes = _field(self.end, "files") if self.end is not None else None
        if isinstance(fixes, list):
            for fix in fixes:
                if isinstance(fix, dict) and isinstance(fix.get("i"), int) and fix["i"] < len(out):
                    out[fix["i"]].update({k: v for k, v in fix.items() if k != "i"})
        return out

    @property
    def effects(self) -> list[dict[str, Any]]:
        effects = _field(self.begin, "effects")
        return [e for e in effects if isinstance(e, dict)] if isinstance(effects, list) else []

    @property
    def undoes(self) -> str | None:
        return self.begin.undoes

    @property
    def redoes(self) -> str | None:
        r = self.begin.data.get("redoes")
        return str(r) if r else None

    @property
    def note(self) -> str | None:
        return self.begin.note


@dataclass(frozen=True, slots=True, init=False)
class Decision:
    """One reviewer's standing decision on an item."""

    state: State
    who: str
    at: str
    note: str | None = None
    #: the transaction (or older line, or batch) that made it
    id: str = ""

    def __init__(
        self,
        state: State,
        who: str,
        at: str,
        note: str | None = None,
        id: str = "",
    ) -> None:
        """As the dataclass's own would, in fewer steps (every decision folded makes one)."""
        s = _setattr
        s(self, "state", state)
        s(self, "who", who)
        s(self, "at", at)
        s(self, "note", note)
        s(self, "id", id)


@dataclass(slots=True)
class ItemState:
    """The folded review state of one item: ``contested`` when reviewers' decisions differ
    (:attr:`decisions` gives each one's, by ledger file).

    A large ledger has a state for each of a hundred thousand items, nearly all decided
    once, by one reviewer: that one standing decision is kept as whose it is and its id
    (its state, time, note and reviewer are the item's own), not as a dict and an object
    of its own; several are kept by ledger file (``several``)."""

    state: State = "pending"
    note: str | None = None
    at: str | None = None
    edited: bool = False
    archived: bool = False
    #: what promoting it wrote (a tuple, replaced when it grows: the empty one is shared)
    promoted: tuple[dict[str, Any], ...] = ()
    #: who made the latest decision
    who: str | None = None
    #: the one standing decision: the ledger file it is in (``None``: none, or several)
    #: and the transaction (or older line, or batch) that made it
    by: str | None = None
    by_id: str = ""
    #: two or more standing decisions, by ledger file (``None`` otherwise)
    several: dict[str, Decision] | None = None
    #: the decisions a later one settled (``resolves``): they no longer stand, even when
    #: one comes later in the fold (made in the same second, or on a clock behind); a
    #: frozenset, replaced when it grows: the empty one is shared (an empty set costs 216
    #: bytes)
    settled: frozenset[str] = frozenset()

    @property
    def contested(self) -> bool:
        return self.state == "contested"

    @property
    def decisions(self) -> dict[str, Decision]:
        """Each reviewer's standing approve or reject, by the name of their ledger file (a
        new dict: to read)."""
        if self.several is not None:
            return dict(self.several)
        if self.by is None:
            return {}
        one = Decision(self.state, self.who or "", self.at or "", self.note, self.by_id)
        return {self.by: one}

    def copy(self) -> ItemState:
        return ItemState(
            self.state,
            self.note,
            self.at,
            self.edited,
            self.archived,
            self.promoted,
            self.who,
            self.by,
            self.by_id,
            dict(self.several) if self.several is not None else None,
            self.settled,
        )

    def _decide(self, e: Entry, state: State, who: str) -> State:
        """Let ``e``'s decision stand (replacing its reviewer's earlier one); the item's
        state after it: ``contested`` when the standing decisions differ."""
        several = self.several
        if several is None:
            if self.by is None or self.by == e.src:  # the only one standing
                self.by, self.by_id = e.src, e.group
                return state
            several = {self.by: self.decisions[self.by]}
        several[e.src] = Decision(state, who, e.at, e.note, e.group)
        if len(several) == 1:  # the others were settled: this one alone stands
            self.by, self.by_id, self.several = e.src, e.group, None
            return state
        self.by, self.by_id, self.several = None, "", several
        return "contested" if len({d.state for d in several.values()}) > 1 else state

    def _settle(self, settled: frozenset[str]) -> None:
        """The decisions made by ``settled`` no longer stand."""
        self.settled = settled
        if self.by is not None and self.by_id in settled:
            self.by, self.by_id = None, ""
        elif self.several is not None:
            left = {k: d for k, d in self.several.items() if d.id not in settled}
            self.several = left or None  # one left: a decision is folded next (_decide)

    def _clear(self) -> None:
        self.by, self.by_id, self.several = None, "", None


_DECIDED: dict[str, State] = {"approve": "approved", "reject": "rejected"}


def fold_entry(st: ItemState, e: Entry) -> None:
    """What one (not undone) entry does to its target's state."""
    if e.op in _DECIDED:
        if e.group in st.settled:
            return
        resolves = e.data.get("resolves")  # decided while contested: settles what it saw
        if isinstance(resolves, list):
            st._settle(st.settled.union(str(r) for r in resolves))
        elif resolves:
            st._clear()
        who = str(e.data.get("who") or e.src or "")
        st.state = st._decide(e, _DECIDED[e.op], who)
        st.note, st.at, st.who = e.note, e.at, who or None
    elif e.op == "reopen":
        st.state, st.note, st.at = "pending", None, e.at
        st.who = str(e.data.get("who") or e.src or "") or None
        st._clear()
    elif e.op == "edit":
        st.edited = True
    elif e.op == "archive":
        st.archived = True
    elif e.op == "restore":
        st.archived = False
    elif e.op == "promote":
        st.promoted = (*st.promoted, dict(e.data))


def report_of(key: str) -> str:
    """The report id of an item's key or a report's (located or not), the id of anything
    else (a proposal's, a lesson's)."""
    return plain_key(key).partition("/")[0]


def item_key(report_id: str | None, item_id: str | None) -> str | None:
    """``KPT_ID/ITEM_ID``, the key an item's decisions are recorded under; ``None`` when the
    report or the item has no id. Such items are never decided on: every id-less item of a
    report would share the one key ``KPT_ID/`` (lint reports the missing id)."""
    if not report_id or not item_id:
        return None
    return f"{report_id}/{item_id}"


@dataclass(slots=True)
class _Source:
    """One ledger file and how far it has been read."""

    path: Path
    #: whose it is: the file's name (``ledger.jsonl``: the local reviewer, see ``_files``)
    key: str
    #: 0 for ``ledger.jsonl``, 1 for a reviewer's own file (the order of lines of one time)
    rank: int
    offset: int = 0
    line: int = 1
    #: lines taken in so far, and the latest time among them
    count: int = 0
    last: float = -math.inf


#: Where a line lies in the fold: (time, reviewer, rank, place in its file).
OrderKey = tuple[float, str, int, int]
#: A line read, after its place: ``(*place, entry)``.
Placed = tuple[float, str, int, int, "Entry"]


def _seconds(at: str) -> float | None:
    """The time ``at`` (ISO 8601; UTC when it names no zone) in seconds, ``None`` when it
    is not a time. A line's place in the fold is its time, never earlier than the line
    before it in its file (a clock set back reorders nothing of one reviewer's own); a
    line without a time takes the place of the line before it (see ``_read``)."""
    try:
        dt = datetime.fromisoformat(at)
    except (TypeError, ValueError):
        return None
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=UTC)
    return dt.timestamp()


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
        #: the single ledger of a workspace without a team (and a team member's older one)
        self.legacy_path = state_dir / LEDGER_NAME
        self._who = who
        #: every line read, in fold order (transaction lines included)
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
        self._sources: dict[Path, _Source] = {}
        #: the shapes of transaction lines read (see ``_shape``), each kept once
        self._shapes: dict[Any, Any] = {}
        #: each entry's place in the fold (parallel to ``entries``; see ``_order``)
        self._times, self._ranks, self._counts = array("d"), bytearray(), array("q")
        self._team = False
        #: which lines were found signed by this machine (see :meth:`authentic`)
        self._authentic: dict[tuple[Any, ...], bool] = {}
        #: held while lines are read in or appended (the app shares one ledger between
        #: threads); hold it to read several of the attributes consistently
        self.lock = threading.RLock()
        #: grows with every entry read (and on a reset): what was worked out from the
        #: states may be kept while it stays the same
        self.revision = 0
        #: report ids two reports share (``store.located``; the index says which): their
        #: items' lines are kept together, to fold each report's own under its located key
        self.located_ids: set[str] = set()
        #: their items' states: under each located key (its report's lines and those that
        #: name no place), under the plain key (only the lines that name no place), and
        #: the located keys of each plain one
        self._located: dict[str, ItemState] = {}
        self._placeless: dict[str, ItemState] = {}
        self._places: dict[str, list[str]] = {}
        if read:
            self.refresh()

    # -- whose ---------------------------------------------------------------------

    @property
    def who(self) -> str:
        """The local reviewer (:func:`store.team.reviewer`)."""
        if self._who is None:
            self._who = team.reviewer(None, self.state_dir)
        return self._who

    @property
    def path(self) -> Path:
        """The file this process appends to: the reviewer's own in team mode, else
        ``ledger.jsonl``."""
        if team.is_team(self.state_dir):
            return team.ledger_file(self.state_dir, self.who)
        return self.legacy_path

    def is_own(self, src: str) -> bool:
        """Whether lines of the reviewer ``src`` (an entry's or a transaction's ``src``) are
        the local reviewer's: every line without a team, their own file's with one."""
        return src == "" or src == team.file_name(self.who)

    def is_ledger_file(self, path: Path) -> bool:
        """Whether ``path`` is one of the ledger's files (``ledger.jsonl`` or a reviewer's)."""
        return path == self.legacy_path or (
            path.parent == team.team_dir(self.state_dir) and path.suffix == ".jsonl"
        )

    def paths(self) -> list[Path]:
        """The ledger files read, in the order of their names."""
        with self.lock:
            return [p for p, _k, _r in self._files()]

    def _guard_for(self, path: Path) -> Any:
        def guard(real: Path) -> None:
            """The ledger is the file itself in the state directory, never a link out."""
            if real != Path(os.path.realpath(path.parent)) / path.name:
                raise PathRefused(f"refused: {path} leads to {real}; the ledger is not a link")

        return guard

    # -- reading -----------------------------------------------------------------

    def refresh(self) -> bool:
        """Read lines appended since the last read; True when anything changed."""
        with self.lock, paused_gc():
            return self._refresh()

    def _check_dirs(self) -> None:
        """The ledger is kept in real directories inside the workspace, never through a
        link (a teammate could push ``ledger/`` as one): refused, naming it."""
        linked = team.linked_dir(self.state_dir)
        if linked is not None:
            raise PathRefused(
                f"refused: {linked} is a link (to {os.path.realpath(linked)}); the ledger is "
                "read and written only in a real directory inside the workspace"
            )

    def _files(self) -> list[tuple[Path, str, int]]:
        """Every ledger file (path, whose, rank): ``ledger.jsonl``, read as the local
        reviewer's, then each reviewer's own file in team mode (links are not followed)."""
        out: list[tuple[Path, str, int]] = []
        legacy_key = team.file_name(self.who) if self._team else ""
        if self.legacy_path.exists() or self.legacy_path in self._sources:
            out.append((self.legacy_path, legacy_key, 0))
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
        new: list[Placed] = []
        strs: Strs = {}  # each recurring text once
        for path, whose, rank in self._files():
            src = self._sources.get(path)
            if src is None:
                src = self._sources[path] = _Source(path, whose, rank)
            if not self._read(src, new, strs):  # replaced, truncated or removed
                self._reset()  # read everything again
                return self._refresh() or True
        del strs
        if not new:
            return reset
        new.sort(key=_place)
        if self.entries and _place(new[0]) < self._last():
            # lines of another reviewer's past: everything folded again, in order
            new = sorted(
                [*((*place, e) for place, e in zip(self._order, self.entries, strict=True)), *new],
                key=_place,
            )
            self._clear()
        refold = False
        start = len(self.folded)
        new.reverse()
        pop = new.pop
        while new:  # each let go of as it is taken in (memory for the fold to reuse)
            refold = self._apply(pop()) or refold
        if refold:  # something was undone or redone: everything is folded again
            self._refold()
        else:  # what was undone stays so: the new entries fold onto the states
            fold = self._fold_one
            for e in islice(self.folded, start, None):
                fold(e)
        return True

    def _read(self, src: _Source, new: list[Placed], strs: Strs) -> bool:
        """Add the lines appended to ``src`` since it was last read to ``new``, each after
        its place in the fold (``False``: it shrank, or is gone)."""
        try:
            with _open_ledger(src.path) as fh:
                size = os.fstat(fh.fileno()).st_size
                if size < src.offset:
                    return False
                fh.seek(src.offset)
                data = fh.read()
        except FileNotFoundError:
            return not src.offset
        if not data:
            return True
        plain = _plain_pairs(data)
        lines: Iterable[str | None]
        if plain is not None:  # every line one object: what scan_jsonl would find
            records, lines = plain
            src.line += data.count(b"\n")
            src.offset += len(data)
        else:  # anything else (broken, torn, pretty-printed lines): read as any JSONL
            sink = DiagnosticSink(str(src.path))
            scan = scan_jsonl(data, sink, base_offset=src.offset, base_line=src.line)
            self.diagnostics.extend(sink.items)
            consumed = scan.complete_until - src.offset
            src.line += data[:consumed].count(b"\n")
            src.offset = scan.complete_until
            records = [r.data for r in scan.records]
            lines = repeat(None)
        times: dict[str, float | None] = {}  # a batch's lines share their time
        setattr_ = object.__setattr__
        shapes = self._shapes
        add = new.append
        for rec, line in zip(records, lines, strict=False):
            e = _entry(rec, line is not None, strs)
            if e is None:
                continue
            setattr_(e, "src", src.key)
            if e.raw is not None:  # a transaction line's lists: kept apart
                _keep_rest(e, rec, line, shapes, strs)  # type: ignore[arg-type]
            try:
                t = times[e.at]
            except KeyError:
                t = times[e.at] = _seconds(e.at)
            if t is None:  # no time: where the line before it was
                src.last = src.last if src.last > -math.inf else 0.0
            elif t > src.last:
                src.last = t
            add((src.last, src.key, src.rank, src.count, e))
            src.count += 1
        return True

    def _clear(self) -> None:
        """Forget what was worked out (the lines are folded again, in their order)."""
        self.revision += 1
        self.entries, self.folded, self.undone, self.states = [], [], set(), {}
        self.txs, self.line_of = {}, {}
        self._times, self._ranks, self._counts = array("d"), bytearray(), array("q")
        self._located, self._placeless, self._places = {}, {}, {}

    def _reset(self) -> None:
        self._clear()
        self._sources, self._shapes, self._authentic = {}, {}, {}

    def _owner(self, ref: str) -> str | None:
        """Whose transaction, batch or line ``ref`` is (``None``: not read)."""
        rec = self.txs.get(ref)
        if rec is not None:
            return rec.src
        i = self.line_of.get(ref)
        if i is not None:
            return self.entries[i].src
        for e in self.folded:
            if e.group == ref:
                return e.src
        return None

    @property
    def _order(self) -> list[OrderKey]:
        """Each entry's place in the fold (kept in arrays: a large ledger has many)."""
        return list(
            zip(
                self._times,
                [e.src for e in self.entries],
                self._ranks,
                self._counts,
                strict=True,
            )
        )

    def _last(self) -> OrderKey:
        """The place of the last entry in the fold."""
        return (self._times[-1], self.entries[-1].src, self._ranks[-1], self._counts[-1])

    def _may_touch(self, e: Entry, ref: str) -> bool:
        """A reviewer's line undoes or redoes only that reviewer's own."""
        owner = self._owner(ref)
        return owner is None or owner == e.src

    def _apply(self, placed: Placed) -> bool:
        """Take one line in (what it adds to ``folded`` is folded after, see ``_refresh``);
        True when the whole state must be folded again."""
        t, _src, rank, count, e = placed
        self.revision += 1
        self.entries.append(e)
        self._times.append(t)
        self._ranks.append(rank)
        self._counts.append(count)
        if e.op in TX_OPS:
            return self._apply_tx(e)
        if e.op == "undo":
            if e.undoes and self._may_touch(e, e.undoes):
                self.undone.add(e.undoes)
            return True
        self.line_of.setdefault(e.id, len(self.entries) - 1)
        self.folded.append(e)
        return False

    def _apply_tx(self, e: Entry) -> bool:
        tx = str(e.tx or "")
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
            if self._may_touch(rec.begin, rec.redoes):
                self._redo(rec.redoes)
            return True
        made = _effects_of(rec)
        if type(made) is Entry:
            self.folded.append(made)
            return False
        self.folded += [entry for entry in made if entry is not None]  # type: ignore[union-attr]
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
        target = plain_key(e.target) if "@" in e.target else e.target
        st = self.states.get(target)
        if st is None:
            st = self.states[target] = ItemState()
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

    @property
    def located_states(self) -> dict[str, ItemState]:
        """The states kept per report of the shared ids (by located key)."""
        return self._located

    def locate(self, report_ids: Iterable[str]) -> None:
        """Keep the states of these report ids' items per report (``store.located``): the
        ids two reports share, as the index finds them."""
        with self.lock:
            new = set(report_ids) - self.located_ids
            if not new:
                return
            self.located_ids |= new
            self.revision += 1
            for e in self.folded:  # theirs alone, in order (nothing was kept for them yet)
                if self.undone and self.is_undone(e):
                    continue
                target = plain_key(e.target) if "@" in e.target else e.target
                if target.partition("/")[0] in new:
                    self._fold_located(e, target)

    def _refold(self) -> None:
        self.states = {}
        self._located, self._placeless, self._places = {}, {}, {}
        for e in self.folded:
            self._fold_one(e)

    def state(self, key: str) -> ItemState:
        """The state of the item under ``key``: a plain ``KPT_ID/ITEM_ID`` folds every line
        of that key, a located one (``store.located``) the lines made on that report."""
        if "@" in key and (got := split_located(key)) is not None:
            plain = got[0]
            if plain.partition("/")[0] not in self.located_ids:
                self.locate([plain.partition("/")[0]])
            return self._located.get(key) or self._placeless.get(plain) or ItemState()
        return self.states.get(key) or ItemState()

    def state_without(self, key: str, group: str) -> ItemState:
        """The state ``key`` would have if ``group`` (a transaction or batch) were undone."""
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

    def last_undoable(self) -> Entry | None:
        """The newest folded entry of the local reviewer's that has not been undone."""
        for e in reversed(self.folded):
            if not self.is_undone(e) and self.is_own(e.src):
                return e
        return None

    def news(self, known: set[str], limit: int = 8) -> list[str]:
        """What other reviewers did that was not read before (``known``: the transaction
        ids read then), one line each, ``alice@example.com: approve kpt-…/try-001``; a
        last line counts the rest."""
        with self.lock:
            fresh = [
                t
                for t in self.txs.values()
                if t.id not in known and t.status == "committed" and not self.is_own(t.src)
            ]
        lines = []
        for t in fresh[:limit]:
            subjects = ", ".join(t.subjects[:3]) + (" …" if len(t.subjects) > 3 else "")
            lines.append(f"{t.who or t.src}: {t.action} {subjects}".rstrip())
        if len(fresh) > limit:
            lines.append(f"… and {len(fresh) - limit} more (see the history)")
        return lines

    def open_transactions(self) -> list[TxRecord]:
        """The local reviewer's transactions begun and neither committed nor aborted (in
        progress elsewhere, or left by a process that was killed:
        :func:`store.tx.transactions.recover`). Another reviewer's are theirs to end."""
        with self.lock:
            return [t for t in self.txs.values() if t.status == "open" and self.is_own(t.src)]

    # -- writing -----------------------------------------------------------------

    def append(self, record: dict[str, Any]) -> None:
        """Append one line (fsynced), signed as this machine's (``store.machine_key``),
        and read it back."""
        with self.lock:
            self._check_dirs()
            path = self.path
            guard = self._guard_for(path)
            body = {k: v for k, v in record.items() if k != "sig"}
            # signed as it is read back (the JSON of the line, not the caller's objects)
            sig = machine_key.sign(self.state_dir, json.loads(encode_record(body)))
            line = encode_record({**body, "sig": sig} if sig else body)
            append_bytes(path, line, guard=guard, repair_torn=True)
            self._refresh()

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
        """Whether the transaction is the local reviewer's, begun and ended on this
        machine: the only kind recovery, undo and redo may act on."""
        if not self.is_own(rec.src) or not self.authentic(rec.begin):
            return False
        return rec.end is None or rec.end is rec.begin or self.authentic(rec.end)

    def complete_torn(self) -> None:
        """End a last line cut short by a crash (it stays, reported as broken, unless it
        was whole but for its newline) and read what that completes."""
        with self.lock:
            path = self.path
            try:
                with _open_ledger(path) as fh:
                    size = os.fstat(fh.fileno()).st_size
                    torn = size > 0 and os.pread(fh.fileno(), 1, size - 1) != b"\n"
            except FileNotFoundError:
                return
            if torn:
                guard = self._guard_for(path)
                append_bytes(path, b"", guard=guard, repair_torn=True, create=False)
                self._refresh()

    def record(
        self, op: Op, target: str, note: str | None = None, undoes: str | None = None, **data: Any
    ) -> Entry:
        """One line of the older kind (a decision of its own, not a transaction)."""
        data.setdefault("channel", current_channel())
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
        :func:`store.tx.transactions.undo`, which restores the files first.
        """
        self.refresh()
        entries = self.undoable_batch()
        if any("after_sha256" in e.data or e.tx is not None for e in entries):
            raise ValueError(
                "a transaction or a decision that wrote files is undone with "
                "store.tx.transactions.undo"
            )
        self.mark_undone(entries)
        return entries[-1] if entries else None

    def mark_undone(self, entries: list[Entry]) -> None:
        for e in reversed(entries):
            self.record("undo", e.target, undoes=e.id)


def _open_ledger(path: Path) -> Any:
    """A ledger file opened for reading: never a FIFO or device (it would block every
    command and the app), never through a link: refused, naming it."""
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise
    except OSError as exc:
        what = "a link" if exc.errno == errno.ELOOP else exc.strerror or str(exc)
        raise PathRefused(f"refused: {path}: {what}; the ledger is not read") from exc
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise PathRefused(
                f"refused: {path} is not a regular file (a FIFO, device or directory); "
                "the ledger is not read"
            )
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def _effect_entry(
    tx: str, at: str, src: str, who: str | None, i: int, eff: dict[str, Any], strs: Strs
) -> Entry | None:
    """The ``i``-th effect of the transaction ``tx`` (committed at ``at``, by ``who``, in the
    file of ``src``) as an entry to fold; ``None`` when it names no op or target. Its id is
    ``TX:I``; the first one's is the transaction's own (most have one effect, and a ledger
    has tens of thousands of them)."""
    op, target = eff.get("op"), eff.get("target")
    if not isinstance(op, str) or not isinstance(target, str):
        return None
    note = eff.get("note")
    data: dict[str, Any] = {}
    for k, v in eff.items():
        if k not in _EFFECT_OWN:
            data[_intern(k)] = (
                strs.setdefault(v, v) if k in _EFFECT_SHARED and type(v) is str else v
            )
    if who is not None:
        data.setdefault("who", who)
    own = data.pop("tx", tx)  # an effect naming a tx of its own: as it names
    entry = Entry(
        f"{tx}:{i}" if i else tx,
        at,
        _intern(op) if type(op) is str else op,
        strs.setdefault(target, target) if type(target) is str else target,
        (strs.setdefault(note, note) if type(note) is str else str(note)) if note else None,
        None,
        _shared(data, strs),
        own,
    )
    object.__setattr__(entry, "src", src)
    return entry


#: The entries of a transaction's effects (one of them as itself), see ``effect_entries``.
Made = Entry | tuple[Entry | None, ...]


def _effects_of(rec: TxRecord) -> Made:
    """The effects of a transaction as it commits, as entries (at its commit's time); kept
    on its ``begin`` line's entry, to be taken again when the lines are folded anew."""
    begin = rec.begin
    made = begin.effect_entries
    if made is not None and rec.end is begin:  # self-contained: made at its own time
        return made
    at = rec.end.at if rec.end is not None else rec.at
    if made is None:  # read as any JSONL: made now
        who = rec.who
        strs: Strs = {}
        made = _one(
            [
                _effect_entry(rec.id, at, rec.src, who, i, eff, strs)
                for i, eff in enumerate(rec.effects)
            ]
        )
    elif isinstance(made, Entry):
        if made.at == at:
            return made
        made = _at(made, at)  # made at its begin's time
    elif any(m is not None and m.at != at for m in made):
        made = tuple([m if m is None else _at(m, at) for m in made])
    else:
        return made
    object.__setattr__(begin, "effect_entries", made)
    return made


def _one(made: list[Entry | None]) -> Made:
    """``made`` as kept: its one entry as itself."""
    return made[0] if len(made) == 1 and made[0] is not None else tuple(made)


def _each(made: Made | None) -> tuple[Entry | None, ...]:
    """The entries of ``made`` (kept by :func:`_one`), every one."""
    if made is None:
        return ()
    return (made,) if type(made) is Entry else made  # type: ignore[return-value]


def _at(e: Entry, at: str) -> Entry:
    """``e`` at the time ``at``."""
    entry = Entry(e.id, at, e.op, e.target, e.note, e.undoes, e.data, e.tx)
    object.__setattr__(entry, "src", e.src)
    return entry


def _prepare_effects(e: Entry, rec: dict[str, Any], strs: Strs) -> list[Entry | None] | None:
    """Make the effects of the transaction line ``e`` (read from ``rec``) into entries now,
    while they are parsed (``data`` leaves them out): what :func:`_effects_of` makes when
    ``e`` begins a transaction that commits at its own time. ``None``: it never begins one
    that folds effects."""
    d = e.data
    tx = str(e.tx or "")
    if not tx or e.undoes or d.get("redoes"):
        return None
    effects = rec.get("effects")
    if not isinstance(effects, list):
        made: list[Entry | None] = []
    else:
        who = d.get("who")
        who = str(who) if who is not None else None
        at, src = e.at, e.src
        if len(effects) == 1 and type(effects[0]) is dict:
            made = [_effect_entry(tx, at, src, who, 0, effects[0], strs)]
        else:
            made = [
                _effect_entry(tx, at, src, who, i, eff, strs)
                for i, eff in enumerate([x for x in effects if isinstance(x, dict)])
            ]
    object.__setattr__(e, "effect_entries", _one(made))
    return made


#: How a transaction line's left-out lists are made again from its effects' entries:
#: (its fields in order, its subjects — ``None``: its effects' targets —, each effect's
#: fields in order). Shared between the lines of one shape.
_Shape = tuple[tuple[str, ...], tuple[str, ...] | None, tuple[tuple[str, ...], ...]]


def _keep_rest(
    e: Entry, rec: dict[str, Any], line: str, shapes: dict[Any, Any], strs: Strs
) -> None:
    """Keep what ``data`` left out of the transaction line ``e`` (``raw``): a shape to make
    it again from the entries of its effects when they hold all of it (a decision's
    ``subjects`` and ``effects``), else the line's text."""
    own = 3 + ("target" in rec) + ("note" in rec) + ("undoes" in rec) + ("tx" in rec)
    own += "sig" in rec
    left = len(rec) - len(e.data) - own
    made = _prepare_effects(e, rec, strs) if e.op == "commit" or e.op == "begin" else None
    raw: bytes | _Shape | None = None
    if left:
        if made is not None:
            raw = _shape(rec, made, shapes, left, strs)
        if raw is None:
            raw = line.encode("utf-8")
    object.__setattr__(e, "raw", raw)


def _shape(
    rec: dict[str, Any], made: list[Entry | None], shapes: dict[Any, Any], left: int, strs: Strs
) -> _Shape | None:
    """The shape of ``rec`` (see :data:`_Shape`), whose ``left`` fields ``data`` left out;
    ``None`` when the entries of its effects cannot make them again exactly."""
    effects, subjects = rec.get("effects"), rec.get("subjects")
    if (type(effects) is list) + (type(subjects) is list) != left:
        return None  # something else is left out
    effect_keys: tuple[tuple[str, ...], ...] = ()
    if type(effects) is list:
        if len(effects) != len(made):
            return None
        for eff, m in zip(effects, made, strict=True):
            if m is None or type(eff) is not dict or eff.get("note") != m.note:
                return None  # no entry, or its note is not the effect's
        effect_keys = tuple([tuple(eff) for eff in effects])
    subs: tuple[str, ...] | None = None
    if type(subjects) is list and [None if m is None else m.target for m in made] != subjects:
        if not all(type(s) is str for s in subjects):
            return None
        subs = tuple([str(strs.setdefault(s, s)) for s in subjects])
    shape: _Shape = (tuple(rec), subs, effect_keys)
    if subs is None:  # one of the few shapes of lines
        shape = shapes.setdefault(shape, shape)
        return shape
    fields = shape[0]
    keys = tuple([shapes.setdefault(k, k) for k in effect_keys])
    return (shapes.setdefault(fields, fields), subs, shapes.setdefault(keys, keys))


def _unshape(e: Entry, shape: _Shape) -> dict[str, Any]:
    """The ``data`` of a transaction line with all of it (see :func:`_shape`)."""
    data = e.data
    return {k: data[k] if k in data else _remade(e, shape, k) for k in shape[0] if k not in _KNOWN}


def _remade(e: Entry, shape: _Shape, name: str) -> Any:
    """The field ``name`` that ``data`` left out of a transaction line (see :func:`_shape`),
    made again from its effects' entries (a new list)."""
    _fields, subjects, effect_keys = shape
    if name == "tx":
        return e.tx
    made = _each(e.effect_entries)
    if name == "subjects":
        return list(subjects) if subjects is not None else [m.target for m in made]  # type: ignore[union-attr]
    return [  # the effects
        {f: _effect_field(m, f) for f in keys}
        for m, keys in zip(made, effect_keys, strict=True)
        if m is not None
    ]


def _effect_field(m: Entry, name: str) -> Any:
    """The field ``name`` of the effect that made the entry ``m``."""
    if name == "op":
        return m.op
    if name == "target":
        return m.target
    if name == "note":
        return m.note
    if name == "tx":  # an effect naming a transaction of its own
        return m.tx
    return m.data[name]


def _field(e: Entry, name: str) -> Any:
    """The field ``name`` of the line of ``e`` (``None`` when it has none), as
    ``e.full_data.get(name)`` would give it, without making the rest again."""
    if name == "tx":
        return e.tx
    raw = e.raw
    data = e.data
    if raw is None or name in data:
        return data.get(name)
    if not isinstance(raw, tuple):  # the line's text
        return e.full_data.get(name)
    return _remade(e, raw, name) if name in raw[0] and name not in _KNOWN else None


#: the place in the fold of a line read
_place: Callable[[Placed], OrderKey] = itemgetter(0, 1, 2, 3)


_KNOWN = frozenset({"id", "at", "op", "target", "note", "undoes", "sig"})
#: An effect's fields that are its entry's own (not ``data``).
_EFFECT_OWN = frozenset({"op", "target", "note"})
#: The fields of a transaction line read as single values (kept parsed whatever they hold).
_SINGLE = frozenset({"tx", "batch", "action", "who", "redoes", "reason"})
#: Fields of an effect whose text recurs from effect to effect: one object each.
_EFFECT_SHARED = frozenset({"loc", "who"})
#: Field names and the few texts that recur everywhere (ops, reviewers, actions) are
#: interned for good; other recurring texts (targets, places, notes) are kept once each
#: while lines are read (a :data:`Strs` of them).
_intern = sys.intern
#: each recurring text once (and each recurring ``data``, by its items: :func:`_shared`)
Strs = dict[Any, Any]
#: What :func:`_entry` leaves in ``raw`` of a transaction line (until :func:`_keep_rest`
#: keeps there what ``data`` left out).
_LEFT_OUT = b""


def _entry(rec: dict[str, Any], slim: bool = False, strs: Strs | None = None) -> Entry | None:
    """The entry of one line's object ``rec``. ``slim``: a transaction line's lists and
    objects are left out of ``data`` (``raw`` is then :data:`_LEFT_OUT`, for the reader to
    keep them). Recurring texts are kept once (in ``strs``, see ``_intern``)."""
    try:
        eid = str(rec["id"])
        at = str(rec["at"])
        op = str(rec["op"])
        tx_line = rec.get("op") in TX_OPS
        target = str(rec.get("target", "")) if tx_line else str(rec["target"])
    except KeyError:
        return None
    if strs is None:
        strs = {}
    note = rec.get("note")
    slim = slim and tx_line
    if rec.keys() <= _KNOWN:
        data: dict[str, Any] = {}
    elif slim:
        data = {
            _intern(k): v
            for k, v in rec.items()
            if k not in _KNOWN
            and k != "tx"
            and (((t := type(v)) is not list and t is not dict) or k in _SINGLE)
        }
        for k in ("who", "action"):
            v = data.get(k)
            if type(v) is str:
                data[k] = _intern(v)
        data = _shared(data, strs)
    else:
        data = {_intern(k): v for k, v in rec.items() if k not in _KNOWN and k != "tx"}
        v = data.get("batch")
        if type(v) is str:
            data["batch"] = strs.setdefault(v, v)
    tx = rec.get("tx")
    e = Entry(
        eid,
        at,
        _intern(op),
        strs.setdefault(target, target),
        strs.setdefault(note, note) if type(note) is str else note,
        rec.get("undoes"),
        data,
        eid if tx == eid else tx,
    )
    if slim:
        object.__setattr__(e, "raw", _LEFT_OUT)
    sig = rec.get("sig")
    if sig is not None:
        object.__setattr__(e, "sig", sig)
    return e


def _shared(data: dict[str, Any], strs: Strs) -> dict[str, Any]:
    """``data``, or an equal dict read before (kept in ``strs``): the lines of a ledger
    share a few actions and reviewers, its effects a file and a reviewer per report."""
    key: tuple[Any, ...] = tuple(data.items())
    for _k, v in key:
        if type(v) is not str:  # by type too: 1 and true are equal, and not the same
            key = tuple([(k, type(v), v) for k, v in data.items()])
            break
    try:
        return strs.setdefault(key, data)  # type: ignore[no-any-return]
    except TypeError:  # a value that is a list or an object
        return data


#: ``json.loads``'s own parser, without its work on each call (bytes, whitespace)
_scan_once: Callable[[str, int], tuple[Any, int]] = json.JSONDecoder().scan_once  # type: ignore[attr-defined]
#: The longest line :func:`_plain_pairs` takes in (in characters; longer: ``scan_jsonl``,
#: which tells records over ``MAX_RECORD_BYTES`` apart).
_PLAIN_LINE_MAX = MAX_RECORD_BYTES // 4


def _plain_pairs(data: bytes) -> tuple[list[dict[str, Any]], list[str]] | None:
    """The objects of ``data`` when it is what the ledger's own appends make: UTF-8, whole
    lines, each one JSON object (blank lines apart). ``None`` for anything else — a line
    that is broken, torn, pretty-printed over several, not an object, very long — which
    :func:`scan_jsonl` reads (and reports on). Each line is parsed as ``json.loads`` would,
    but without its per-call work on bytes: the ledger of a large workspace is tens of
    thousands of lines, read by every small command. With the objects, each one's line."""
    if not data:
        return [], []
    if not data.endswith(b"\n"):
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    out: list[dict[str, Any]] = []
    append = out.append
    texts: list[str] = []
    append_text = texts.append
    lines = text.split("\n")
    lines.pop()  # after the last newline
    for line in lines:
        try:
            obj, end = _scan_once(line, 0)
        except (StopIteration, ValueError, RecursionError):
            if line.strip(" \t\r"):
                return None
            continue  # a blank line
        if type(obj) is not dict or len(line) > _PLAIN_LINE_MAX:
            return None
        if end != len(line) and line[end:].strip(" \t\r"):
            return None
        append(obj)
        append_text(line)
    return out, texts


__all__ = [
    "CHANNELS",
    "DECISIONS",
    "UNDECIDED",
    "Decision",
    "Entry",
    "ItemState",
    "Ledger",
    "TxRecord",
    "current_channel",
    "fold_entry",
    "item_key",
    "new_id",
    "report_of",
    "set_channel",
]
