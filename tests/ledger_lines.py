"""Decisions written into a ledger as the app writes them: one self-contained ``commit``
per decision (``store.tx.transactions.apply`` of a plan without files), for tests that
need a ledger's lines without a workspace around them."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from store.ledger import Ledger, current_channel, new_id, now_iso


def commit_line(
    targets: Iterable[str], op: str, note: str | None = None, **extra: Any
) -> dict[str, Any]:
    """The ``commit`` line of one decision on ``targets`` (``extra``: more of its fields)."""
    subjects = list(targets)
    tx = str(extra.pop("tx", None) or new_id())
    effects = [{"op": op, "target": t, **({"note": note} if note else {})} for t in subjects]
    line: dict[str, Any] = {
        "id": tx,
        "at": now_iso(),
        "op": "commit",
        "target": subjects[0],
        "tx": tx,
        "action": op,
        "channel": current_channel(),
        "subjects": subjects,
        "effects": effects,
    }
    if note:
        line["note"] = note
    return line


def decide(
    led: Ledger, targets: Iterable[str] | str, op: str, note: str | None = None, **effect: Any
) -> str:
    """Append one decision on ``targets`` (signed, as every line the ledger appends); its
    transaction's id."""
    line = commit_line([targets] if isinstance(targets, str) else targets, op, note, **effect)
    led.append(line)
    return str(line["tx"])
