"""A ledger read for its transactions only (what ``import-wrapup`` needs, issue #18): the
same transactions as the whole fold — their status, files, order and who ends them — the
same open ones to recover and the same diagnostics, without one decision taken in; asking
it for an item's state raises instead of answering wrong."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from store.ledger import Ledger
from store.workspace import Workspace
from tests.store.team_fixture import team_workspace


def _tx_view(led: Ledger) -> list[tuple[Any, ...]]:
    return [
        (t.id, t.status, t.src, t.action, t.subjects, t.files, t.end.op if t.end else None)
        for t in sorted(led.txs.values(), key=lambda t: t.seq)
    ]


def _open(led: Ledger) -> list[str]:
    return [t.id for t in led.open_transactions()]


def _same(full: Ledger, only: Ledger) -> None:
    assert _tx_view(only) == _tx_view(full)
    assert _open(only) == _open(full)
    # a broken line is reported when it may be a transaction's (the others are not read)
    assert {(d.line, d.code) for d in only.diagnostics} <= {
        (d.line, d.code) for d in full.diagnostics
    }
    assert [e.id for e in only.folded] == [e.id for e in full.folded if e.tx is not None]


def _line(**rec: Any) -> str:
    return json.dumps(rec, ensure_ascii=False) + "\n"


_AT = "2026-11-2{}T0{}:00:00+00:00"


def _begin(tx: str, n: int, **extra: Any) -> str:
    return _line(
        id=tx,
        at=_AT.format(n % 10, n % 10),
        op="begin",
        target=f"k-{n}/try-001",
        tx=tx,
        action="promote",
        who="me@example.com",
        subjects=[f"k-{n}/try-001"],
        effects=[{"op": "promote", "target": f"k-{n}/try-001"}],
        files=[{"path": "CLAUDE.md", "how": "replace", "before_sha256": None}],
        **extra,
    )


def _end(tx: str, n: int, op: str) -> str:
    return _line(id=f"{tx}-e", at=_AT.format(n % 10, n % 10), op=op, target="t", tx=tx)


def _decision(n: int, op: str) -> str:
    return _line(id=f"d{n}", at=_AT.format(n % 10, n % 10), op=op, target=f"k-{n}/keep-001")


def test_the_same_transactions_without_a_decision_folded(tmp_path: Path) -> None:
    lines = [
        _decision(1, "approve"),
        _begin("t1", 2),
        _end("t1", 2, "commit"),
        _decision(3, "reject"),
        "not json at all\n",
        '{"id": "b1", "op": "begin", "tx": "b1", "target": \n',  # broken, and maybe a tx's
        _begin("t2", 4),
        _end("t2", 4, "abort"),
        _line(id="u1", at=_AT.format(5, 5), op="undo", target="k-1/keep-001", undoes="d1"),
        _begin("t3", 6),  # left open by a killed process
        _line(  # a self-contained commit (a transaction that wrote no file)
            id="t4",
            at=_AT.format(7, 7),
            op="commit",
            target="k-7/try-001",
            tx="t4",
            action="approve",
            who="me@example.com",
            subjects=["k-7/try-001"],
            effects=[{"op": "approve", "target": "k-7/try-001"}],
        ),
        # its key written with an escape: still read as a transaction
        _line(id="t6", at=_AT.format(8, 8), op="begin", target="x", tx="t6", action="edit").replace(
            '"tx"', '"\\u0074x"'
        ),
    ]
    (tmp_path / "ledger.jsonl").write_text("".join(lines), encoding="utf-8")
    full, only = Ledger(tmp_path), Ledger(tmp_path, transactions_only=True)
    _same(full, only)
    assert _open(only) == ["t3", "t6"]
    # a broken line that may be a transaction's: the file is read as any JSONL, and its
    # broken lines reported as the whole fold does
    assert len(full.diagnostics) == len(only.diagnostics) == 2
    assert {e.op for e in only.entries} <= {"begin", "commit", "abort"}
    assert full.state("k-1/keep-001").state == "pending"  # the whole fold still folds
    for ask in (
        lambda: only.state("k-3/keep-001"),
        lambda: only.state_without("k-3/keep-001", "t1"),
        only.last_undoable,
        lambda: only.locate(["k-3"]),
        lambda: only.located_states,
    ):
        with pytest.raises(RuntimeError, match="transactions only"):
            ask()
    # what is appended later is read as before: the open one ended, a new one begun
    with open(tmp_path / "ledger.jsonl", "a", encoding="utf-8") as fh:
        fh.write(_decision(8, "approve") + _end("t3", 8, "abort") + _begin("t5", 9))
    assert only.refresh() and full.refresh()
    _same(full, only)
    assert _open(only) == ["t6", "t5"]


def test_a_teams_files_give_the_same_transactions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ws: Workspace = team_workspace(tmp_path, monkeypatch)
    team_dir = ws.state_dir / "ledger"
    (team_dir / "me@example.com.jsonl").write_text(
        _decision(1, "approve") + _begin("m1", 2) + _begin("m2", 3) + _end("m2", 4, "commit"),
        encoding="utf-8",
    )
    # another reviewer's line cannot end this reviewer's transaction
    (team_dir / "you@example.com.jsonl").write_text(
        _decision(2, "reject") + _end("m1", 5, "commit") + _begin("y1", 6), encoding="utf-8"
    )
    full = Ledger(ws.state_dir, who="me@example.com")
    only = Ledger(ws.state_dir, who="me@example.com", transactions_only=True)
    _same(full, only)
    assert _open(only) == ["m1"]  # y1 is open too, but the other reviewer's to end


_OPS = st.sampled_from(["approve", "reject", "reopen", "undo", "begin", "commit", "abort"])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(_OPS, st.integers(0, 4), st.integers(0, 9)), max_size=25))
def test_any_ledger_gives_the_same_transactions(
    tmp_path_factory: pytest.TempPathFactory, steps: list[tuple[str, int, int]]
) -> None:
    root = tmp_path_factory.mktemp("led")
    lines = []
    for n, (op, tx, hour) in enumerate(steps):
        if op == "begin":
            lines.append(_begin(f"t{tx}", hour))
        elif op in ("commit", "abort"):
            lines.append(_end(f"t{tx}", hour, op).replace(f'"{f"t{tx}-e"}"', f'"e{n}"'))
        elif op == "undo":
            lines.append(
                _line(id=f"u{n}", at=_AT.format(hour, hour), op="undo", target="x", undoes=f"t{tx}")
            )
        else:
            lines.append(_decision(n, op))
    (root / "ledger.jsonl").write_text("".join(lines), encoding="utf-8")
    _same(Ledger(root), Ledger(root, transactions_only=True))


def test_a_broken_line_that_names_no_transaction_is_not_read(tmp_path: Path) -> None:
    (tmp_path / "ledger.jsonl").write_text(
        _begin("t1", 1) + '{"id": "d1", "op": "approve", "target": \n' + _end("t1", 2, "commit"),
        encoding="utf-8",
    )
    full, only = Ledger(tmp_path), Ledger(tmp_path, transactions_only=True)
    _same(full, only)
    assert len(full.diagnostics) == 1 and not only.diagnostics
    assert _tx_view(only)[0][1] == "committed"
