"""Killing the process at random points during writes never leaves a file truncated or mixed."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

from store.ledger import Ledger
from store.read.diagnostics import DiagnosticSink
from store.read.jsonl import scan_jsonl
from store.write.atomic import TEMP_PREFIX, sweep_temp_files
from tests.conftest import REPO

WRITER = r"""
import sys, itertools
from pathlib import Path
from store.write.atomic import atomic_write, current_stamp
from store.ledger import Ledger
root = Path(sys.argv[1])
doc = root / "doc.yaml"
ledger = Ledger(root / ".hurikaeri")
versions = [("a: " + "x" * 5000 + "\n").encode(), ("b: " + "y" * 9000 + "\n").encode()]
for i in itertools.count():
    atomic_write(doc, versions[i % 2], current_stamp(doc), guard=lambda p: None)
    ledger.record("approve", f"kpt-1/item-{i}")
"""


def test_sigkill_during_writes(tmp_path: Path) -> None:
    doc = tmp_path / "doc.yaml"
    doc.write_bytes(b"a: " + b"x" * 5000 + b"\n")
    allowed = {doc.read_bytes(), b"b: " + b"y" * 9000 + b"\n"}
    rng = random.Random(7)
    kills = 0
    for _ in range(25):
        proc = subprocess.Popen([sys.executable, "-c", WRITER, str(tmp_path)], cwd=REPO)
        time.sleep(0.3 + rng.random() * 0.4)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        kills += 1
        assert doc.read_bytes() in allowed  # old or new, never torn
    assert kills == 25
    # the ledger reads back: complete lines only, a torn last line is kept for later
    ledger = Ledger(tmp_path / ".hurikaeri")
    data = ledger.path.read_bytes()
    scan = scan_jsonl(data, DiagnosticSink("ledger"))
    assert len(ledger.entries) == len(scan.records) > 0
    assert all(json.loads(data[r.start : r.end]) for r in scan.records)
    # and the next writer repairs a torn tail instead of refusing
    with open(ledger.path, "ab") as fh:
        fh.write(b'{"id": "torn", "op": "appr')
    ledger.record("reject", "kpt-1/after-crash")
    assert Ledger(tmp_path / ".hurikaeri").state("kpt-1/after-crash").state == "rejected"
    # temporary files of killed writers are swept on the next start (old ones only)
    leftovers = [p for p in tmp_path.iterdir() if p.name.startswith(TEMP_PREFIX)]
    for p in leftovers:
        os.utime(p, (time.time() - 3600, time.time() - 3600))
    assert sorted(sweep_temp_files([tmp_path])) == sorted(leftovers)
