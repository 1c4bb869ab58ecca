"""When a person last put each rule of a target there: the bullets a committed, not undone
promotion or approval added, from the ledger, cached per revision (else: the file's time)."""

from __future__ import annotations

import threading
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from store.check.secrets import added_lines
from store.insight.duplicates import normalise
from store.insight.targets import TARGET_ACTIONS, markdown_rules, ws_path
from store.ledger import Ledger
from store.read.isotime import parse_time
from store.tx.journal import read_kept
from store.workspace import Workspace

RuleTimes = dict[Path, dict[str, str]]

_lock = threading.Lock()
_cache: dict[tuple[str, int, int], RuleTimes] = {}


def _note(out: RuleTimes, path: Path, before: bytes | None, after: bytes | None, at: str) -> None:
    if after is None:
        return
    added = [text for _, text in added_lines(before, after)]
    rules = markdown_rules(added, path)  # bullets, as the targets view reads them
    times = out.setdefault(path, {})
    for r in rules:
        key = normalise(r.text)
        if key and at > times.get(key, ""):
            times[key] = at


def _file_record(ws: Workspace, out: RuleTimes, rec: dict[str, Any], at: str) -> None:
    path = ws_path(ws, rec.get("path"))
    if path is None:
        return
    written = read_kept(ws, rec.get("written"))
    if rec.get("how") == "append":  # ``written`` holds only the appended bytes
        _note(out, path, None, written, at)
    else:
        _note(out, path, read_kept(ws, rec.get("backup")), written, at)


def rule_times(ws: Workspace, ledger: Ledger | None = None) -> RuleTimes:
    """Per target file, each rule (normalised text) a person put there through hurikaeri,
    and when last."""
    led = ledger if ledger is not None else Ledger(ws.state_dir)
    with led.lock:
        key = (str(ws.state_dir), led.revision, len(led.entries))
        with _lock:
            hit = _cache.get(key)
        if hit is not None:
            return hit
        txs = [
            (rec.at, rec.files)
            for rec in led.txs.values()
            if rec.status == "committed"
            and rec.action in TARGET_ACTIONS
            and rec.action != "merge-duplicates"  # a merge only takes lines out
            and rec.id not in led.undone
        ]
    out: RuleTimes = {}
    for at, files in txs:
        for rec in files:
            _file_record(ws, out, rec, at)
    with _lock:
        if len(_cache) > 8:
            _cache.clear()
        _cache[key] = out
    return out


def days_since(at: datetime | str | None, now: datetime | None = None) -> float | None:
    """Days from a time to ``now`` (``None`` when it does not parse)."""
    t = parse_time(at) if not isinstance(at, datetime) else at
    return None if t is None else ((now or datetime.now(UTC)) - t).total_seconds() / 86400
