"""The history's state of a transaction on a large file is found without holding the file
(issue 47: History took 60 MB at 10k for one import appended to a 36 MB lessons file)."""

from __future__ import annotations

import os
import tracemalloc
from pathlib import Path

import pytest

from store.ledger import Ledger
from store.review.wrapup import import_wrapup
from store.tx import transactions as tx
from store.tx.journal import record_path, where
from store.workspace import Workspace
from tests.conftest import SEEDS

BIG = 24 << 20


def test_history_hashes_a_large_appended_file_in_chunks(tmp_path: Path) -> None:
    ws = Workspace(tmp_path)
    import_wrapup(ws, (SEEDS / "wrapup-input.json").read_text(encoding="utf-8"))
    [view] = tx.history(ws)
    assert view.state == "done"
    grown = Path(ws.root, view.files[-1].path)
    with grown.open("ab") as f:  # another program appends after the import's lines
        f.write(b"\n".join(b'{"pad": "%d"}' % i for i in range(BIG // 14)) + b"\n")
    assert grown.stat().st_size > BIG

    tracemalloc.start()
    try:
        [view] = tx.history(ws)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert (view.state, view.reason) == (
        "blocked",
        f"{view.files[-1].path}: lines were appended after it since",
    )
    assert peak < BIG // 4, f"{peak:,} bytes held to find the state of a {BIG:,}-byte file"


@pytest.mark.parametrize("change", ["none", "append", "truncate", "rewrite", "delete", "fifo"])
def test_the_state_hashed_in_chunks_is_the_state_read_whole(tmp_path: Path, change: str) -> None:
    if change == "fifo" and not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs here")
    ws = Workspace(tmp_path)
    import_wrapup(ws, (SEEDS / "wrapup-input.json").read_text(encoding="utf-8"))
    led = Ledger(ws.state_dir)
    led.refresh()
    [rec] = led.txs.values()
    for f in rec.files:
        path = record_path(ws, f)
        if change == "append":
            path.write_bytes(path.read_bytes() + b'{"id": "x"}\n')
        elif change == "truncate":
            path.write_bytes(path.read_bytes()[:-5])
        elif change == "rewrite":
            path.write_bytes(path.read_bytes().replace(b"{", b"[", 1))
        elif change == "delete":
            path.unlink()
        elif change == "fifo":
            path.unlink()
            os.mkfifo(path)
        whole, chunked = where(ws, f), where(ws, f, content=False)
        assert (chunked.where, chunked.why) == (whole.where, whole.why), f["path"]
