"""A ledger line's object made into an entry, and a transaction's effects into the
entries that fold; recurring texts and data kept once."""

from __future__ import annotations

import sys
from typing import Any

from store.ledger.entry import KNOWN_FIELDS, TX_OPS, Entry, Made, Shape, TxRecord

#: An effect's fields that are its entry's own (not ``data``).
_EFFECT_OWN = frozenset({"op", "target", "note"})
#: The fields of a transaction line read as single values (kept parsed whatever they hold).
_SINGLE = frozenset({"tx", "action", "who", "redoes", "reason"})
#: Fields of an effect whose text recurs from effect to effect: one object each.
_EFFECT_SHARED = frozenset({"loc", "who"})
_intern = sys.intern  # field names, ops, reviewers, actions
#: each other recurring text once while lines are read (and each ``data``: :func:`_shared`)
Strs = dict[Any, Any]
#: What :func:`entry_of` leaves in ``raw`` of a transaction line (until :func:`keep_rest`
#: keeps there what ``data`` left out).
_LEFT_OUT = b""


def entry_of(rec: dict[str, Any], slim: bool = False, strs: Strs | None = None) -> Entry | None:
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
    if rec.keys() <= KNOWN_FIELDS:
        data: dict[str, Any] = {}
    elif slim:
        data = {
            _intern(k): v
            for k, v in rec.items()
            if k not in KNOWN_FIELDS
            and k != "tx"
            and (((t := type(v)) is not list and t is not dict) or k in _SINGLE)
        }
        for k in ("who", "action"):
            v = data.get(k)
            if type(v) is str:
                data[k] = _intern(v)
        data = _shared(data, strs)
    else:
        data = {_intern(k): v for k, v in rec.items() if k not in KNOWN_FIELDS and k != "tx"}
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


def _effect_entry(
    tx: str, at: str, src: str, who: str | None, i: int, eff: dict[str, Any], strs: Strs
) -> Entry | None:
    """The ``i``-th effect of the transaction ``tx`` as an entry to fold (``None``: no op or
    target). Its id is ``TX:I``, the first one's ``TX`` (most have one effect)."""
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


def effects_of(rec: TxRecord) -> Made:
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


def _at(e: Entry, at: str) -> Entry:
    """``e`` at the time ``at``."""
    entry = Entry(e.id, at, e.op, e.target, e.note, e.undoes, e.data, e.tx)
    object.__setattr__(entry, "src", e.src)
    return entry


def _prepare_effects(e: Entry, rec: dict[str, Any], strs: Strs) -> list[Entry | None] | None:
    """The effects of the transaction line ``e`` as entries, made while ``rec`` is parsed
    (``data`` leaves them out); ``None``: it begins no transaction that folds effects."""
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


def keep_rest(e: Entry, rec: dict[str, Any], line: str, shapes: dict[Any, Any], strs: Strs) -> None:
    """Keep what ``data`` left out of the transaction line ``e`` (``raw``): a shape to make
    it again from the entries of its effects when they hold all of it (a decision's
    ``subjects`` and ``effects``), else the line's text."""
    own = 3 + ("target" in rec) + ("note" in rec) + ("undoes" in rec) + ("tx" in rec)
    own += "sig" in rec
    left = len(rec) - len(e.data) - own
    made = _prepare_effects(e, rec, strs) if e.op == "commit" or e.op == "begin" else None
    raw: bytes | Shape | None = None
    if left:
        if made is not None:
            raw = _shape(rec, made, shapes, left, strs)
        if raw is None:
            raw = line.encode("utf-8")
    object.__setattr__(e, "raw", raw)


def _shape(
    rec: dict[str, Any], made: list[Entry | None], shapes: dict[Any, Any], left: int, strs: Strs
) -> Shape | None:
    """The shape of ``rec`` (see :data:`Shape`), whose ``left`` fields ``data`` left out;
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
    shape: Shape = (tuple(rec), subs, effect_keys)
    if subs is None:  # one of the few shapes of lines
        shape = shapes.setdefault(shape, shape)
        return shape
    fields = shape[0]
    keys = tuple([shapes.setdefault(k, k) for k in effect_keys])
    return (shapes.setdefault(fields, fields), subs, shapes.setdefault(keys, keys))
