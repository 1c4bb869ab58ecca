"""Reading the ledger: lines that are broken, or still being written, and transactions
whose subjects look like keys, read by the one reader (the whole file)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from store.ledger import Ledger
from store.workspace import Workspace


def _tx_view(led: Ledger) -> list[tuple[Any, ...]]:
    """The transactions begun on a line of their own (those that write files)."""
    return [
        (t.id, t.status, t.src, t.action, t.subjects, t.files, t.end.op if t.end else None)
        for t in sorted(led.txs.values(), key=lambda t: t.seq)
        if t.begin.op == "begin"
    ]


def _line(**rec: Any) -> str:
    return json.dumps(rec, ensure_ascii=False) + "\n"


_AT = "2026-11-2{}T0{}:00:00+00:00"


def _begin(tx: str, n: int, target: str | None = None, **extra: Any) -> str:
    target = target or f"k-{n}/try-001"
    return _line(
        id=tx,
        at=_AT.format(n % 10, n % 10),
        op="begin",
        target=target,
        tx=tx,
        action="promote",
        who="me@example.com",
        subjects=[target],
        effects=[{"op": "promote", "target": target}],
        files=[{"path": "CLAUDE.md", "how": "replace", "before_sha256": None}],
        **extra,
    )


def _end(tx: str, n: int, op: str, eid: str | None = None) -> str:
    return _line(id=eid or f"{tx}-e", at=_AT.format(n % 10, n % 10), op=op, target="t", tx=tx)


def test_a_broken_line_that_may_be_read_is_reported(tmp_path: Path) -> None:
    (tmp_path / "ledger.jsonl").write_text(
        _begin("t1", 1)
        + '{"id": "b1", "op": "begin", "tx": "b1", "target": \n'
        + '{"id": "d1", "op": "approve", "target": \n'
        + _end("t1", 2, "commit"),
        encoding="utf-8",
    )
    led = Ledger(tmp_path)
    assert len(led.diagnostics) == 2  # read as any JSONL then, its broken lines reported
    assert _tx_view(led)[0][1] == "committed"


def test_a_record_still_being_written_over_several_lines_is_waited_for(tmp_path: Path) -> None:
    """A line holding only ``{`` (a pretty-printed record, the rest not written yet) is
    not passed over: the rest, once there, completes it (found by a review)."""
    path = tmp_path / "ledger.jsonl"
    path.write_bytes(b"{\n")
    ledgers = [Ledger(tmp_path), Ledger(tmp_path)]
    with open(path, "ab") as fh:
        fh.write(
            b'"id": "t1", "at": "2026-01-01T00:00:00+00:00", "op": "begin", "tx": "t1",\n'
            b'"target": "k-1/i1", "action": "approve", "files": [],\n'
            b'"effects": [{"op": "approve", "target": "k-1/i1"}]\n}\n'
            + _end("t1", 1, "commit").encode()
        )
    for led in ledgers:
        led.refresh()
        assert _tx_view(led) == _tx_view(ledgers[0]) and _tx_view(led)[0][1] == "committed"
    assert ledgers[0].state("k-1/i1").state == "approved"


@pytest.mark.parametrize("subject", ["action", "kpt-1", 'say "action": now'])
def test_a_transaction_whose_subject_reads_action_is_not_rolled_back(
    tmp_path: Path, subject: str
) -> None:
    """Its end names ``"action"`` as its target, not as a key: still the end of it (a
    review found it taken for a decision, and the committed write rolled back)."""
    from store.tx.journal import FileWrite
    from store.tx.transactions import TxPlan, apply, recover

    ws = Workspace(tmp_path)
    notes = tmp_path / "notes.md"
    notes.write_text("before\n", encoding="utf-8")
    write = FileWrite(notes, b"before\n", b"after\n", guard=lambda _real: None)
    apply(ws, TxPlan("export-feedback", [subject], [write]))
    led = Ledger(ws.state_dir)
    assert led.open_transactions() == []
    assert recover(ws, ledger=led) == []
    assert notes.read_text(encoding="utf-8") == "after\n"
