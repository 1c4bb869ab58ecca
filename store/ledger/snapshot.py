"""The ledger's fold kept between processes (docs/scale.md "Ledger cache"): a start reads
only the lines appended since. Its header is signed with this machine's key (a fold forged in
the workspace could show states no line gives); anything that does not hold is a full replay."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import store
from store import machine_key
from store.ledger.files import OrderKey, Source, open_ledger
from store.ledger.state import Decision, ItemState
from store.write.atomic import WriteError, replace_file

FORMAT = "hurikaeri-ledger-fold"
#: 2: the states as columns (a version 1 fold is a full replay once)
VERSION = 2
NAME = "ledger-cache-v1.json"
#: The fold is kept again once this many bytes were read past the kept one.
KEEP_BYTES = 64 << 10


@dataclass(slots=True)
class Prefix:
    """What the kept fold stands for, in place of its lines (see ``Ledger._prefix``)."""

    #: its transactions' ids, and the other ``tx`` its effects name
    tx_ids: set[str]
    fold_txs: set[str]
    #: whether a transaction was open in it (its lines are then read for recovery)
    open: bool
    #: its last line's place in the fold, and how many lines it holds
    last: OrderKey | None
    entries: int
    #: each file its committed transactions wrote (``Ledger.written``)
    written: list[tuple[Any, str, str]]


@dataclass(slots=True)
class Fold:
    sources: list[Source]
    #: as kept (a fold loaded: :class:`Kept`)
    states: dict[str, ItemState] | Kept
    undone: set[str]
    prefix: Prefix


def _scope(state_dir: Path) -> str:
    return "ledger-fold\0" + os.path.realpath(state_dir)


def _head(digest: str) -> dict[str, Any]:
    return {"format": FORMAT, "version": VERSION, "app": store.__version__, "sha256": digest}


def _columns(states: dict[str, ItemState]) -> dict[str, Any]:
    """The states as columns (JSON reads a few long lists far faster than a list per
    item): each one's ``(state, who, by)`` by its place in ``kinds``, ``at`` and ``by_id``;
    a note, and the rest when any differs from a fresh state's (most never do), by row."""
    kinds: dict[tuple[Any, ...], int] = {}
    kind, notes, rest = [], [], []
    for i, st in enumerate(states.values()):
        kind.append(kinds.setdefault((st.state, st.who, st.by), len(kinds)))
        if st.note is not None:
            notes.append((i, st.note))
        several = {k: [d.state, d.who, d.at, d.note, d.id] for k, d in (st.several or {}).items()}
        more = [st.edited, st.archived, list(st.promoted), several or None, sorted(st.settled)]
        if more != [False, False, [], None, []]:
            rest.append([i, *more])
    return {
        "keys": list(states),
        "kind": kind,
        "kinds": list(kinds),
        "at": [st.at for st in states.values()],
        "by_id": [st.by_id for st in states.values()],
        "notes": notes,
        "rest": rest,
    }


class Kept:
    """The kept fold's item states, each built when first asked for: a small command asks
    for one or two of a hundred thousand (the app, for all: :meth:`all`)."""

    def __init__(self, c: dict[str, Any]) -> None:
        self.keys: list[str] = c["keys"]
        self._kinds = [(s, w, by) for s, w, by in c["kinds"]]
        self._cols: tuple[list[int], list[str | None], list[str]] = (c["kind"], c["at"], c["by_id"])
        if any(len(col) != len(self.keys) for col in self._cols):
            raise ValueError("columns of different lengths")
        self._notes: dict[int, str] = dict(c["notes"])
        self._rest: dict[int, list[Any]] = {r[0]: r[1:] for r in c["rest"]}
        self._index: dict[str, int] | None = None

    def get(self, key: str) -> ItemState | None:
        if self._index is None:
            self._index = dict(zip(self.keys, range(len(self.keys)), strict=True))
        i = self._index.get(key)
        if i is None:
            return None
        (s, w, by), at, bid = self._kinds[self._cols[0][i]], self._cols[1][i], self._cols[2][i]
        return self._more(ItemState(s, self._notes.get(i), at, False, False, (), w, by, bid), i)

    def all(self, built: dict[str, ItemState]) -> dict[str, ItemState]:
        """Every state, those ``built`` (asked for, and folded onto since) as they are now;
        in the order a replay folds them."""
        make, kinds = ItemState, self._kinds
        rows = zip(map(kinds.__getitem__, self._cols[0]), self._cols[1], self._cols[2], strict=True)
        states = [make(s, None, at, False, False, (), w, by, bid) for (s, w, by), at, bid in rows]
        for i, note in self._notes.items():
            states[i].note = note
        for i in self._rest:
            self._more(states[i], i)
        out = dict(zip(self.keys, states, strict=True))
        out.update(built)
        return out

    def _more(self, st: ItemState, i: int) -> ItemState:
        if (rest := self._rest.get(i)) is not None:
            edited, archived, promoted, several, settled = rest
            st.edited, st.archived, st.promoted = edited, archived, tuple(promoted)
            st.several = {n: Decision(*d) for n, d in several.items()} if several else None
            st.settled = frozenset(settled)
        return st


def write(state_dir: Path, team: bool, local: str, fold: Fold) -> None:
    """Keep ``fold`` (its sources as read: each one's digest covers its offset); nothing
    when it cannot be signed or written (the next start replays: nothing is lost)."""
    p = fold.prefix
    body = {
        "team": team,
        "local": local,
        "sources": [
            [
                os.path.relpath(s.path, state_dir),
                s.key,
                s.rank,
                s.offset,
                s.line,
                s.count,
                s.last,
                s.digest.hexdigest(),
            ]
            for s in fold.sources
        ],
        "last": p.last,
        "entries": p.entries,
        "open": p.open,
        "txs": list(p.tx_ids),
        "fold_txs": sorted(p.fold_txs - p.tx_ids),
        "undone": list(fold.undone),
        "written": p.written,
        "states": _columns(fold.states if isinstance(fold.states, dict) else fold.states.all({})),
    }
    raw = json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    head = _head(hashlib.sha256(raw).hexdigest())
    sig = machine_key.sign_scoped(_scope(state_dir), head)
    if sig is not None:
        with contextlib.suppress(OSError):
            replace_file(state_dir / NAME, [json.dumps({**head, "sig": sig}).encode() + b"\n", raw])


def load(state_dir: Path, team: bool, local: str) -> Fold | None:
    """The kept fold, when it is this version's, signed here for this state directory, and
    every file it read still starts with the bytes it read (``None``: replay)."""
    try:
        with open_ledger(state_dir / NAME) as fh:  # never a FIFO, never through a link
            head = json.loads(fh.readline())
            raw = fh.read()
        want = _head(hashlib.sha256(raw).hexdigest())
        if not isinstance(head, dict) or head != {**want, "sig": head.get("sig")}:
            return None  # another format or version, or a body that is not the one signed
        if not machine_key.verify_scoped(_scope(state_dir), want, head["sig"]):
            return None
        body = json.loads(raw)
        if body["team"] != team or body["local"] != local:
            return None
        sources = [_source(state_dir, row) for row in body["sources"]]
        if not all(sources):
            return None
        states = Kept(body["states"])
        last = body["last"]
        prefix = Prefix(
            set(body["txs"]),
            set(body["fold_txs"]),
            bool(body["open"]),
            (float(last[0]), str(last[1]), int(last[2]), int(last[3])) if last else None,
            int(body["entries"]),
            [(w[0], str(w[1]), str(w[2])) for w in body["written"]],
        )
        return Fold(sources, states, set(body["undone"]), prefix)  # type: ignore[arg-type]
    except (OSError, WriteError, ValueError, TypeError, KeyError, IndexError):
        return None


def _source(state_dir: Path, row: list[Any]) -> Source | None:
    """The file of a kept ``row`` (as :func:`write` makes it) read up to its offset, when its
    first bytes still hash as they did."""
    name, key, rank, offset, line, count, last, sha = row
    path = state_dir / name
    if path.parent not in (state_dir, state_dir / "ledger") or offset < 0:
        return None
    digest = hashlib.sha256()
    with open_ledger(path) as fh:
        st = os.fstat(fh.fileno())
        if st.st_size < offset:
            return None
        left = offset
        while left:
            chunk = fh.read(min(left, 1 << 20))
            if not chunk:
                return None
            digest.update(chunk)
            left -= len(chunk)
    if digest.hexdigest() != sha:
        return None
    src = Source(path, key, rank, offset, line, (st.st_dev, st.st_ino), count, last)
    src.digest = digest
    return src
