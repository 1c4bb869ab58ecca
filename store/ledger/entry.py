"""The ledger's line format: one line (:class:`Entry`) and one transaction
(:class:`TxRecord`), and what a line read keeps apart, made again when asked."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

Op = Literal[
    "approve", "reject", "reopen", "edit", "promote", "write", "archive", "restore", "undo"
]
TxStatus = Literal["open", "committed", "aborted"]
LEDGER_NAME = "ledger.jsonl"
#: The ops of transaction lines (never folded as decisions themselves).
TX_OPS = ("begin", "commit", "abort")


@dataclass(frozen=True, slots=True)
class Entry:
    """One line of the ledger, or one effect of a committed transaction (its ``tx`` then
    is the transaction's id). A transaction line read slim keeps its lists and objects out
    of ``data`` (in ``raw``: :attr:`full_data`), so that lines and effects share one ``data``."""

    id: str
    at: str
    op: str
    target: str
    note: str | None = None
    undoes: str | None = None
    #: every field of the line but the entry's own and ``tx`` (shared: never changed)
    data: dict[str, Any] = field(default_factory=dict)
    #: the ``tx`` of the line (or of the effect's transaction); ``None``: it has none
    tx: Any = field(default=None, compare=False)
    #: the reviewer whose ledger file holds it (the file's name; set as it is read)
    src: str = field(default="", init=False, compare=False, repr=False)
    #: what ``data`` leaves out: the line's text (UTF-8), or how to make a decision's
    #: subjects and effects again from ``effect_entries`` (a :data:`Shape`); ``None``: nothing
    raw: bytes | Shape | None = field(default=None, init=False, compare=False, repr=False)
    #: a transaction line's effects as entries (``None``: made when it commits; an element
    #: ``None``: an effect that is not one; one effect: its entry alone)
    effect_entries: Entry | tuple[Entry | None, ...] | None = field(
        default=None, init=False, compare=False, repr=False
    )
    #: the line's signature (``store.machine_key``; ``None``: none)
    sig: Any = field(default=None, init=False, compare=False, repr=False)

    @property
    def group(self) -> str:
        """What one undo cancels together: its transaction (the line alone without one)."""
        return str(self.tx or self.id)

    @property
    def full_data(self) -> dict[str, Any]:
        """``data`` with all of the line: ``tx``, and what ``data`` leaves out parsed from
        ``raw`` again (a new dict each time; ``data`` itself when nothing was left out)."""
        raw = self.raw
        if raw is None:
            return self.data if self.tx is None else {"tx": self.tx, **self.data}
        if isinstance(raw, tuple):
            return _unshape(self, raw)
        rec = scan_once(raw.decode("utf-8"), 0)[0]
        return {k: v for k, v in rec.items() if k not in KNOWN_FIELDS}

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

    @property
    def title(self) -> str:
        more = " …" if len(self.subjects) > 3 else ""
        return f"{self.action} {', '.join(self.subjects[:3])}{more}"


#: How a transaction line's left-out lists are made again from its effects' entries:
#: (its fields in order, its subjects — ``None``: its effects' targets —, each effect's
#: fields in order). Shared between the lines of one shape.
Shape = tuple[tuple[str, ...], tuple[str, ...] | None, tuple[tuple[str, ...], ...]]


def _unshape(e: Entry, shape: Shape) -> dict[str, Any]:
    """The ``data`` of a transaction line with all of it (see :func:`_shape`)."""
    data = e.data
    return {
        k: data[k] if k in data else _remade(e, shape, k) for k in shape[0] if k not in KNOWN_FIELDS
    }


def _remade(e: Entry, shape: Shape, name: str) -> Any:
    """The field ``name`` that ``data`` left out of a transaction line (see :func:`_shape`),
    made again from its effects' entries (a new list)."""
    _fields, subjects, effect_keys = shape
    if name == "tx":
        return e.tx
    made = each_made(e.effect_entries)
    if name == "subjects":
        return list(subjects) if subjects is not None else [m.target for m in made]  # type: ignore[union-attr]
    return [  # the effects
        {f: _effect_field(m, f) for f in keys}
        for m, keys in zip(made, effect_keys, strict=True)
        if m is not None
    ]


def _effect_field(m: Entry, name: str) -> Any:
    """The field ``name`` of the effect that made the entry ``m`` (``tx``: one it names)."""
    return getattr(m, name) if name in ("op", "target", "note", "tx") else m.data[name]


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
    return _remade(e, raw, name) if name in raw[0] and name not in KNOWN_FIELDS else None


#: The entries of a transaction's effects (one of them as itself), see ``effect_entries``.
Made = Entry | tuple[Entry | None, ...]


def each_made(made: Made | None) -> tuple[Entry | None, ...]:
    """The entries of ``made`` (kept by :func:`_one`), every one."""
    if made is None:
        return ()
    return (made,) if type(made) is Entry else made  # type: ignore[return-value]


KNOWN_FIELDS = frozenset({"id", "at", "op", "target", "note", "undoes", "sig"})

#: ``json.loads``'s own parser, without its work on each call (bytes, whitespace)
scan_once: Callable[[str, int], tuple[Any, int]] = json.JSONDecoder().scan_once  # type: ignore[attr-defined]
