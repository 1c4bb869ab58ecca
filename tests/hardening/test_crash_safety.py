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

import pytest

from store.ledger import Ledger
from store.read.diagnostics import DiagnosticSink
from store.read.jsonl import scan_jsonl
from store.tx.transactions import recover
from store.workspace import Workspace
from store.write.atomic import TEMP_PREFIX, sweep_temp_files
from tests.conftest import REPO
from tests.ledger_lines import decide

WRITER = r"""
import sys, itertools
from pathlib import Path
from store.write.atomic import atomic_write, current_stamp
from store.ledger import Ledger
from tests.ledger_lines import decide
root = Path(sys.argv[1])
doc = root / "doc.yaml"
ledger = Ledger(root / ".hurikaeri")
versions = [("a: " + "x" * 5000 + "\n").encode(), ("b: " + "y" * 9000 + "\n").encode()]
for i in itertools.count():
    atomic_write(doc, versions[i % 2], current_stamp(doc), guard=lambda p: None)
    decide(ledger, f"kpt-1/item-{i}", "approve")
    if i == 0:
        print("wrote", flush=True)
"""


@pytest.mark.slow
def test_sigkill_during_writes(tmp_path: Path) -> None:
    doc = tmp_path / "doc.yaml"
    doc.write_bytes(b"a: " + b"x" * 5000 + b"\n")
    allowed = {doc.read_bytes(), b"b: " + b"y" * 9000 + b"\n"}
    rng = random.Random(7)
    kills = 0
    for _ in range(25):
        proc = subprocess.Popen(
            [sys.executable, "-c", WRITER, str(tmp_path)], cwd=REPO, stdout=subprocess.PIPE
        )
        # killed at a random moment of its writes (after its first, however slow the start)
        assert proc.stdout is not None and proc.stdout.readline() == b"wrote\n"
        time.sleep(rng.random() * 0.4)
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
    decide(ledger, "kpt-1/after-crash", "reject")
    assert Ledger(tmp_path / ".hurikaeri").state("kpt-1/after-crash").state == "rejected"
    # temporary files of killed writers are swept on the next start (old ones only)
    leftovers = [p for p in tmp_path.iterdir() if p.name.startswith(TEMP_PREFIX)]
    for p in leftovers:
        os.utime(p, (time.time() - 3600, time.time() - 3600))
    assert sorted(sweep_temp_files([tmp_path])) == sorted(leftovers)


EDITOR = r"""
import itertools, sys
from pathlib import Path
from store.write.jsonl_edit import prefix_digest, replace_span
path = Path(sys.argv[1])
print("ready", flush=True)
for i in itertools.count():
    data = path.read_bytes()
    new = ('{"id": "ll-ai-20260101-001", "title": "%s"}\n' % ("x" * (i * 37 % 300))).encode()
    replace_span(path, 0, data.index(b"\n") + 1, new, prefix_len=len(data),
                 prefix_sha256=prefix_digest(data, len(data)), guard=lambda p: None)
"""


@pytest.mark.slow
def test_sigkill_during_jsonl_rewrites_in_place(tmp_path: Path) -> None:
    """A rewrite in place killed at any moment is finished from its redo file: every other
    line stays, the record is whole (old or new), and nothing else is left behind."""
    from store.write.jsonl_edit import REDO_PREFIX, finish_interrupted_rewrites

    path = tmp_path / "lessons.jsonl"
    others = b"".join(
        json.dumps({"id": f"ll-ai-20260101-{n:05d}", "title": "y" * (n % 90)}).encode() + b"\n"
        for n in range(2, 40000)
    )  # a tail of about 2.5 MB moves with every edit that grows the record
    path.write_bytes(b'{"id": "ll-ai-20260101-001", "title": ""}\n' + others)
    rng = random.Random(11)
    redone = 0
    for _ in range(25):
        proc = subprocess.Popen(
            [sys.executable, "-c", EDITOR, str(path)], cwd=REPO, stdout=subprocess.PIPE
        )
        assert proc.stdout is not None and proc.stdout.readline() == b"ready\n"
        time.sleep(rng.random() * 0.3)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        redone += len(finish_interrupted_rewrites([tmp_path]))
        data = path.read_bytes()
        first, _, rest = data.partition(b"\n")
        assert json.loads(first)["id"] == "ll-ai-20260101-001"
        # every other line as it was; at most blank room a kill left at the end
        assert rest[: len(others)] == others and not rest[len(others) :].strip()
        assert not [p for p in tmp_path.iterdir() if p.name.startswith(REDO_PREFIX)]
    print(f"{redone} of 25 kills left a rewrite half done, finished from its redo file")


KILLED_PROMOTE = r"""
import os, signal, sys
from pathlib import Path
from store.review.items import find_item
from store.review.promote import plan_promotion, promote_plans
from store.workspace import Workspace
ws = Workspace(Path(sys.argv[1]))
rename = os.replace
def replace(src, dst, **kw):  # killed right before the target's rename
    if str(dst) == str(ws.root / "CLAUDE.md"):
        os.kill(os.getpid(), signal.SIGKILL)
    rename(src, dst, **kw)
os.replace = replace
promote_plans(ws, [plan_promotion(ws, find_item(ws, "kpt-20261102-001/try-002"))])
"""


def test_recovery_removes_the_temp_file_a_killed_promotion_left(demo_root: Path) -> None:
    """CLAUDE.md's folder is no location the index sweeps: the rollback removes it."""
    before = (demo_root / "CLAUDE.md").read_bytes()
    r = subprocess.run([sys.executable, "-c", KILLED_PROMOTE, str(demo_root)], cwd=REPO)
    assert r.returncode == -signal.SIGKILL

    def temps() -> list[str]:
        return [p.name for p in demo_root.iterdir() if p.name.startswith(TEMP_PREFIX)]

    assert temps()  # what the kill left
    (rec,) = recover(Workspace(demo_root))
    assert rec.action == "promote" and rec.left == []
    assert (demo_root / "CLAUDE.md").read_bytes() == before
    assert temps() == []
