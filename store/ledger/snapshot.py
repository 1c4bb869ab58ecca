"""The ledger's fold kept between processes (``.hurikaeri/ledger-cache-v1.json``): the item
states after the bytes read of each ledger file, so that a start reads only what was
appended since (:class:`store.ledger.Ledger`; the lines themselves are read again only
when History, undo or recovery ask for them).

Trusted only whole and as written here: the header names format and versions and holds
the SHA-256 of the body, signed with this machine's key for this state directory
(``store.machine_key``: anyone can write into a workspace; a fold forged there could show
states no line gives). Each file's read prefix must hash as it did; anything else —
another version, key or workspace, a file shrunk, replaced or rewritten — is a full
replay, never an error. JSON, never pickle; written atomically.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from store import machine_key
from store.ledger.files import OrderKey, Source, open_ledger
from store.ledger.state import Decision, ItemState
from store.write.atomic import WriteError, replace_file

FORMAT = "hurikaeri-ledger-fold"
VERSION = 1
NAME = f"ledger-cache-v{VERSION}.json"
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
    states: dict[str, ItemState]
    undone: set[str]
    prefix: Prefix


def _scope(state_dir: Path) -> str:
    return "ledger-fold\0" + os.path.realpath(state_dir)


def _version() -> str:
    from store import __version__

    return __version__


def _head(digest: str) -> dict[str, Any]:
    return {"format": FORMAT, "version": VERSION, "app": _version(), "sha256": digest}


def _state_row(st: ItemState, names: dict[Any, int]) -> list[Any]:
    """``[state, note, at, who, by, by_id]`` (the first, who and by by their place in
    ``names``), then the rest when any differs from a fresh state's (most never do)."""
    row = [names.setdefault(st.state, len(names)), st.note, st.at]
    row += [names.setdefault(st.who, len(names)), names.setdefault(st.by, len(names)), st.by_id]
    several = st.several
    rest = [
        st.edited,
        st.archived,
        list(st.promoted),
        None if several is None else {k: list(_decision(d)) for k, d in several.items()},
        sorted(st.settled),
    ]
    return row + rest if rest != [False, False, [], None, []] else row


def _decision(d: Decision) -> tuple[Any, ...]:
    return (d.state, d.who, d.at, d.note, d.id)


def _states(rows: dict[str, list[Any]], names: list[Any]) -> dict[str, ItemState]:
    make = ItemState
    out = {
        k: make(names[r[0]], r[1], r[2], False, False, (), names[r[3]], names[r[4]], r[5])
        for k, r in rows.items()
    }
    for k, r in rows.items():
        if len(r) > 6:
            edited, archived, promoted, several, settled = r[6:]
            st = out[k]
            st.edited, st.archived, st.promoted = edited, archived, tuple(promoted)
            st.several = {n: Decision(*d) for n, d in several.items()} if several else None
            st.settled = frozenset(settled)
    return out


def write(state_dir: Path, team: bool, local: str, fold: Fold) -> None:
    """Keep ``fold`` (its sources as read: each one's digest covers its offset); nothing
    when it cannot be signed or written (the next start replays: nothing is lost)."""
    p = fold.prefix
    names: dict[Any, int] = {}
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
        "states": {k: _state_row(st, names) for k, st in fold.states.items()},
        "names": list(names),
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
        sources = [_source(state_dir, *row) for row in body["sources"]]
        if not all(sources):
            return None
        states = _states(body["states"], body["names"])
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


def _source(
    state_dir: Path,
    name: str,
    key: str,
    rank: int,
    offset: int,
    line: int,
    count: int,
    last: float,
    sha: str,
) -> Source | None:
    """The file ``name`` read up to ``offset``, when its first ``offset`` bytes hash ``sha``."""
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
