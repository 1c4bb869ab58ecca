"""The decision ledger: append-only, folded, shared between processes, undo appends."""

from __future__ import annotations

import json
import multiprocessing
from pathlib import Path

from store.ledger import Ledger
from store.tx.transactions import undo_last
from store.workspace import Workspace
from tests.ledger_lines import decide


def test_decisions_fold_and_survive_restart(tmp_path: Path) -> None:
    led = Ledger(tmp_path)
    decide(led, "kpt-1/keep-001", "approve")
    decide(led, "kpt-1/prob-001", "reject", "근거가 약함")
    decide(led, "kpt-1/prob-001", "approve")  # changed its mind
    again = Ledger(tmp_path)
    assert again.state("kpt-1/keep-001").state == "approved"
    st = again.state("kpt-1/prob-001")
    assert (st.state, st.note) == ("approved", None)
    assert again.state("kpt-1/try-001").state == "pending"


def test_undo_appends_and_never_rewrites(tmp_path: Path) -> None:
    ws = Workspace(tmp_path)
    led = Ledger(ws.state_dir)
    decide(led, "a/1", "approve")
    second = decide(led, "a/2", "reject", "no")
    before = led.path.read_bytes()
    undone = undo_last(ws, ledger=led)
    assert undone is not None and undone.undoes == second
    after = led.path.read_bytes()
    assert after.startswith(before) and after.count(b"\n") == 3
    assert led.state("a/2").state == "pending"
    assert undo_last(ws, ledger=led) is not None and led.state("a/1").state == "pending"
    assert undo_last(ws, ledger=led) is None
    assert json.loads(after.splitlines()[-1])["undoes"] == second


def test_other_process_appends_are_seen(tmp_path: Path) -> None:
    ws = Workspace(tmp_path)
    a, b = Ledger(ws.state_dir), Ledger(ws.state_dir)
    decide(a, "x/1", "approve")
    assert b.state("x/1").state == "pending"
    assert b.refresh() and b.state("x/1").state == "approved"
    undo_last(ws, ledger=b)
    a.refresh()
    assert a.state("x/1").state == "pending"


def test_torn_last_line_is_ignored_then_read(tmp_path: Path) -> None:
    led = Ledger(tmp_path)
    decide(led, "x/1", "approve")
    with open(led.path, "ab") as fh:
        fh.write(b'{"id": "zz", "at": "t", "op": "commit", "tx": "zz", "action": "reject", ')
    assert not led.refresh()
    with open(led.path, "ab") as fh:
        fh.write(b'"target": "x/1", "effects": [{"op": "reject", "target": "x/1"}]}\n')
    assert led.refresh() and led.state("x/1").state == "rejected"


def _writer(root: str, n: int, tag: str) -> None:
    led = Ledger(Path(root))
    for i in range(n):
        decide(led, f"{tag}/{i}", "approve")


def test_concurrent_writers_lose_nothing(tmp_path: Path) -> None:
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_writer, args=(str(tmp_path), 150, t)) for t in "abc"]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
    led = Ledger(tmp_path)
    assert len(led.entries) == 450
    assert all(led.state(f"{t}/{i}").state == "approved" for t in "abc" for i in range(150))
    assert led.diagnostics == []
