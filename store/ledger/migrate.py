"""Older ledger lines rewritten as transactions, once (docs/undo-and-history.md): a batch
becomes one self-contained ``commit``, its ``undo`` lines one ``undo``; other lines kept byte for
byte. Only the local reviewer's file is rewritten (the old bytes kept as ``<name>.older``)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from store import machine_key
from store.ledger.entry import TX_OPS
from store.read.jsonl import encode_record
from store.write.atomic import (
    ConflictError,
    atomic_write,
    current_stamp,
    replace_file,
)

#: The suffix of the copy of a ledger file as it was before it was migrated.
OLDER_SUFFIX = ".older"
#: What an older line holds that is not its effect's.
_LINE_FIELDS = frozenset({"id", "at", "op", "target", "batch", "channel", "sig", "undoes"})


def is_older(rec: Any) -> bool:
    """Whether ``rec`` is an older decision or ``undo`` line (not a transaction's; a line
    without an id or a time is no line the ledger folds, older or not)."""
    return (
        type(rec) is dict
        and isinstance(rec.get("op"), str)
        and rec["op"] not in TX_OPS
        and "id" in rec
        and "at" in rec
    )


def as_transactions(
    records: list[Any], signed: Callable[[dict[str, Any]], bool] | None = None
) -> dict[int, tuple[dict[str, Any], bool]]:
    """The transactions the older lines of ``records`` make, by the index of the line each
    replaces (a batch's first), with whether all its lines are this machine's (``signed``)."""
    groups: dict[str, list[tuple[int, dict[str, Any]]]] = {}
    group_of: dict[str, str] = {}  # an older line's id: its batch's
    for i, rec in enumerate(records):
        if is_older(rec) and rec["op"] != "undo":
            g = str(rec.get("batch") or rec["id"])
            groups.setdefault(g, []).append((i, rec))
            group_of[str(rec["id"])] = g
    out: dict[int, tuple[dict[str, Any], bool]] = {}
    undone: set[str] = set()  # cancelled by an undo line, and not applied again since
    for i, rec in enumerate(records):
        if not is_older(rec):
            if type(rec) is dict and rec.get("redoes") in undone:
                undone.discard(rec["redoes"])
            continue
        if rec["op"] == "undo":
            ref = str(rec.get("undoes") or "")
            g = group_of.get(ref, ref)
            if not g or g in undone:
                continue  # the batch's first undo line stands for all of it
            undone.add(g)
            out[i] = (_undo(rec, g, groups.get(g, [])), signed is not None and signed(rec))
        elif (members := groups[g := str(rec.get("batch") or rec["id"])])[0][0] == i:
            tx = _batch(g, [m for _, m in members])  # (its batch's first line)
            out[i] = (tx, signed is not None and all(signed(m) for _, m in members))
    return out


def _commit(
    g: str, line: dict[str, Any], action: str, subjects: list[str], effects: list[Any], **more: Any
) -> dict[str, Any]:
    """One self-contained ``commit`` under the id ``g``, at ``line``'s time and channel."""
    tx: dict[str, Any] = {
        "id": g,
        "at": line["at"],
        "op": "commit",
        "target": subjects[0],
        "tx": g,
        "action": action,
        "subjects": subjects,
        "effects": effects,
    }
    tx.update((k, v) for k, v in more.items() if v)
    if line.get("channel"):
        tx["channel"] = line["channel"]
    return tx


def _batch(g: str, lines: list[dict[str, Any]]) -> dict[str, Any]:
    """One older batch (or lone line) as one self-contained ``commit``."""
    first = lines[0]
    effects = [_effect(m) for m in lines if m["op"] != "write"]
    ops = [m["op"] for m in lines]
    action = "promote" if "promote" in ops else next((o for o in ops if o != "write"), "write")
    subjects = list(dict.fromkeys(str(m.get("target", "")) for m in lines))
    tx = _commit(g, first, action, subjects, effects, note=first.get("note"))
    files = _files(lines)
    if files:
        tx["files"] = files
    return tx


def _effect(line: dict[str, Any]) -> dict[str, Any]:
    rest = {k: v for k, v in line.items() if k not in _LINE_FIELDS}
    return {"op": line["op"], "target": str(line.get("target", "")), **rest}


def _undo(
    line: dict[str, Any], g: str, members: list[tuple[int, dict[str, Any]]]
) -> dict[str, Any]:
    """The older ``undo`` lines cancelling the batch ``g`` as one ``undo`` transaction."""
    subjects = list(dict.fromkeys(str(m.get("target", "")) for _, m in members)) or [
        str(line.get("target", ""))
    ]
    return _commit(line["id"], line, "undo", subjects, [], undoes=g)


def _files(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The files an older batch wrote, one record per file: the first line's *before* and
    the last one's *after* (several items promoted into one file left one line each)."""
    out: dict[str, dict[str, Any]] = {}
    for m in lines:
        if "path" not in m or "after_sha256" not in m:
            continue
        path = str(m["path"])
        created = bool(m.get("created"))
        rec = out.get(path)
        if rec is None:
            rec = out[path] = {
                "path": path,
                "how": "replace",
                "before_sha256": None if created else m.get("before_sha256"),
                "backup": None if created else m.get("backup"),
            }
            if created and m.get("created_by"):
                rec["created_by"] = m.get("created_by")
        rec["after_sha256"] = m.get("after_sha256")
        rec["written"] = m.get("written")
    return list(out.values())


def converted(records: list[Any], state_dir: Path | None) -> list[Any]:
    """``records`` with their older lines as transactions (``None`` in the place of a
    batch's other lines), those of lines signed here signed again for ``state_dir``."""

    def signed(rec: dict[str, Any]) -> bool:
        return state_dir is not None and machine_key.verify(state_dir, rec, rec.get("sig"))

    made = as_transactions(records, signed)
    out: list[Any] = []
    for i, rec in enumerate(records):
        if not is_older(rec):
            out.append(rec)
        elif i not in made:
            out.append(None)  # in the transaction of its batch's first line
        else:
            tx, ours = made[i]
            sig = machine_key.sign(state_dir, tx) if ours and state_dir is not None else None
            out.append({**tx, "sig": sig} if sig else tx)
    return out


def migrated_bytes(data: bytes, state_dir: Path | None) -> tuple[bytes, int]:
    """``data`` with its older lines as transactions, and how many there were (0: ``data``
    itself); ``state_dir`` signs again what was signed (``None``: nothing signed)."""
    lines = data.split(b"\n")
    records: list[Any] = []
    for raw in lines:
        try:
            records.append(json.loads(raw) if raw.strip() else None)
        except ValueError:  # a broken line: kept as it is
            records.append(None)
    count = sum(1 for r in records if is_older(r))
    if not count:
        return data, 0
    out: list[bytes] = []
    for raw, rec, new in zip(lines, records, converted(records, state_dir), strict=True):
        if not is_older(rec):
            out.append(raw)
        elif new is not None:
            out.append(encode_record(new).rstrip(b"\n"))
    return b"\n".join(out), count


def migrate_file(path: Path, state_dir: Path, guard: Callable[[Path], None]) -> int:
    """Rewrite the older lines of ``path`` in one rename, only if nothing was appended since
    (then it is read again); how many there were (0: left alone)."""
    for _attempt in range(5):
        stamp = current_stamp(path)
        if stamp is None:
            return 0
        data = path.read_bytes()
        new, count = migrated_bytes(data, state_dir)
        if not count:
            return 0
        if len(data) != stamp.size:
            continue  # appended to while it was read
        replace_file(path.with_name(path.name + OLDER_SUFFIX), [data])
        try:
            atomic_write(path, new, stamp, guard=guard)
        except ConflictError:
            continue  # appended to meanwhile: read it again
        return count
    return 0
