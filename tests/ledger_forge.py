"""Ledger lines written by hand: what this machine writes (signed with the test session's
machine key, as a killed process of ours leaves them), and what an agent — or a teammate
through git — can write: any line, any kept copy, with hashes that match, but no key."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def ours(state_dir: Path, rec: dict[str, Any]) -> dict[str, Any]:
    """``rec`` signed as this machine signs the lines it writes in this workspace."""
    from store import machine_key

    sig = machine_key.sign(state_dir, json.loads(json.dumps(rec)))
    assert sig is not None
    return {**rec, "sig": sig}


def write_lines(ledger: Path, *recs: dict[str, Any]) -> None:
    ledger.parent.mkdir(parents=True, exist_ok=True)
    with open(ledger, "a", encoding="utf-8") as fh:
        for rec in recs:
            fh.write(json.dumps(rec, ensure_ascii=False) + "\n")


def replace_tx(
    state_dir: Path,
    tx: str,
    path: str,
    before: bytes | None,
    after: bytes | None,
    *,
    action: str = "promote",
    created_by: str | None = None,
    sig: str | None = "forged",
) -> dict[str, Any]:
    """The ``begin`` line of a transaction that replaced ``path`` (relative to the root)
    from ``before`` to ``after``, with both kept copies under the state directory, as an
    agent can write them (a ``sig`` of its own making, which no key made)."""
    kept = state_dir / "backups" / tx
    kept.mkdir(parents=True, exist_ok=True)
    rec: dict[str, Any] = {
        "path": path,
        "how": "replace",
        "before_sha256": sha(before) if before is not None else None,
        "after_sha256": sha(after) if after is not None else None,
        "before_size": len(before) if before is not None else None,
        "after_size": len(after) if after is not None else None,
        "backup": None,
        "written": None,
    }
    if created_by:
        rec["created_by"] = created_by
    name = Path(path).name
    if before is not None:
        (kept / f"00-{name}").write_bytes(before)
        rec["backup"] = f"backups/{tx}/00-{name}"
    if after is not None:
        (kept / f"00-{name}.after").write_bytes(after)
        rec["written"] = f"backups/{tx}/00-{name}.after"
    line: dict[str, Any] = {
        "id": tx,
        "at": "2026-12-31T10:00:00+00:00",
        "op": "begin",
        "target": "k/t",
        "tx": tx,
        "action": action,
        "who": "me",
        "channel": "script",
        "subjects": ["k/t"],
        "effects": [],
        "files": [rec],
    }
    if sig is not None:
        line["sig"] = sig
    return line


def commit_of(begin: dict[str, Any], *, sig: str | None = "forged") -> dict[str, Any]:
    line: dict[str, Any] = {
        "id": begin["id"] + "c",
        "at": begin["at"],
        "op": "commit",
        "target": begin["target"],
        "tx": begin["tx"],
    }
    if sig is not None:
        line["sig"] = sig
    return line


def undo_of(begin: dict[str, Any], *, sig: str | None = "forged") -> dict[str, Any]:
    """A self-contained ``undo`` transaction of ``begin``'s (so that redo applies it)."""
    tx = begin["tx"] + "u"
    line: dict[str, Any] = {
        "id": tx,
        "at": begin["at"],
        "op": "commit",
        "target": begin["target"],
        "tx": tx,
        "action": "undo",
        "who": "me",
        "subjects": begin["subjects"],
        "undoes": begin["tx"],
        "effects": [],
    }
    if sig is not None:
        line["sig"] = sig
    return line
