"""Another process appends lessons and rewrites a report in a loop while we edit, decide,
import and promote: no line lost, no write clobbered, every conflict surfaced. Then every
kind of writer at once, the CPUs saturated (``concurrent_harness``; the stress script
``benchmarks/stress_writers.py`` runs that many times): counted strictly."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from store.ledger import Ledger
from store.review.item_edit import edit_item
from store.review.items import find_item
from store.review.lessons import find_lesson
from store.review.promote import plan_promotion, promote_plans
from store.review.wrapup import import_wrapup
from store.workspace import Workspace
from store.write.atomic import ConflictError, current_stamp
from tests.conftest import REPO, SEEDS
from tests.guards import anywhere
from tests.hardening.concurrent_harness import burning, run_once
from tests.ledger_lines import decide
from tests.lesson_edit import edit_lesson

AGENT = r"""
import json, os, sys, time
from pathlib import Path
from store.write.atomic import ConflictError, current_stamp, atomic_write, current_stamp
root = Path(sys.argv[1]); end = time.monotonic() + float(sys.argv[2])
lessons = root / "lessons" / "ai" / "lessons.jsonl"
report = root / "hurikaeri" / "kpt-20261120-001.yaml"
n = 0
while time.monotonic() < end:
    line = json.dumps({"id": f"ll-ai-20991231-{n:05d}", "date": "2099-12-31", "type": "ai_trial_error", "title": f"agent {n}"}) + "\n"
    fd = os.open(lessons, os.O_WRONLY | os.O_APPEND)
    os.write(fd, line.encode()); os.close(fd)
    n += 1
    time.sleep(0.0003)
    if n % 200 == 0:  # a careful agent rewrites its report: read, change, write if unchanged
        for _ in range(20):
            stamp = current_stamp(report); text = report.read_bytes()
            marker = f"# agent pass {n}\n".encode()
            body = text.split(b"# agent pass")[0]
            try:
                atomic_write(report, body + marker, stamp, guard=lambda p: None); break
            except ConflictError:
                time.sleep(0.001)
print(n)
"""


@pytest.mark.slow
def test_concurrent_writers(demo_root: Path) -> None:
    ws = Workspace(demo_root)
    lessons = demo_root / "lessons" / "ai" / "lessons.jsonl"
    report = demo_root / "hurikaeri" / "kpt-20261120-001.yaml"
    agent = subprocess.Popen(
        [sys.executable, "-c", AGENT, str(demo_root), "4"],
        cwd=REPO,
        stdout=subprocess.PIPE,
        text=True,
    )
    ledger = Ledger(ws.state_dir)
    edits, conflicts, saved = 0, 0, []
    deadline = time.monotonic() + 3.5
    i = 0
    while time.monotonic() < deadline:
        i += 1
        # edit an early lesson in place while lines are appended behind it
        ref = find_lesson(lessons, "ll-ai-20261028-001")
        edit_lesson(ref, {"title": f"edited {i}"}, guard=anywhere)
        edits += 1
        # a person's decision
        decide(ledger, f"kpt-20261120-001/keep-00{1 + i % 2}", "approve")
        # an item edit on the report the agent rewrites: conflict or success, never silent;
        # after a conflict the person reloads and tries again
        for _attempt in range(50):
            base = current_stamp(report)
            try:
                edit_item(
                    ws, report, "try", "try-001", {"description": f"ours {i}"}, base, ledger=ledger
                )
                saved.append(f"ours {i}")
                break
            except ConflictError:
                conflicts += 1
    import_wrapup(ws, (SEEDS / "wrapup-input-v1.4.json").read_text(encoding="utf-8"))
    plan = plan_promotion(ws, find_item(ws, "kpt-20261028-001/try-001"))
    promote_plans(ws, [plan], ledger=ledger)
    written = int(agent.communicate(timeout=30)[0])
    text = lessons.read_text(encoding="utf-8")
    # every line one JSON object: none fused with the next, none torn
    broken = [x for x in text.splitlines() if x.strip() and not _one_object(x)]
    assert broken == [], f"{len(broken)} line(s) are not one JSON object: {broken[:3]}"
    records = [json.loads(x) for x in text.splitlines() if x.strip()]
    agent_ids = [r["id"] for r in records if r["id"].startswith("ll-ai-20991231-")]
    expected = [f"ll-ai-20991231-{n:05d}" for n in range(written)]
    assert sorted(agent_ids) == expected and written > 50  # each appended line exactly once
    assert [r["title"] for r in records if r["id"] == "ll-ai-20261028-001"] == [f"edited {i}"]
    assert "ll-ai-20260223-001" in {r["id"] for r in records}  # the import landed too
    assert saved, "no item edit ever succeeded"
    assert f'description: "{saved[-1]}"' in report.read_text(encoding="utf-8") or saved[
        -1
    ] in report.read_text(encoding="utf-8")
    assert edits == i and len(Ledger(ws.state_dir).entries) >= i
    print(
        f"{written} agent lines, {edits} lesson edits, {len(saved)} item edits, {conflicts} conflicts surfaced"
    )


def _one_object(line: str) -> bool:
    try:
        return isinstance(json.loads(line), dict)
    except ValueError:
        return False


@pytest.mark.slow
def test_every_writer_at_once_under_load(tmp_path: Path) -> None:
    """Two agents appending (one reopening the file per line, one a logger keeping it open
    with O_APPEND and writing every 60–200 ms), two hurikaeri processes editing lessons of
    the same file, two deciding in the same ledger, with both CPUs busy: every line once,
    none fused, every save kept."""
    with burning(2):
        out = run_once(tmp_path / "ws", seconds=3.0, held=0, slow=1)
    print(
        f"{out.appended} lines appended ({out.appended_held} by the logger), "
        f"{out.edits} edits ({out.failed_edits} refused), {out.decisions} decisions"
    )
    assert out.appended_held >= 10 and out.appended > 200 and out.decisions > 20
    assert out.edits > 10, out.problems
    assert out.clean, out.problems[:10]
    assert out.failed_edits == 0, out.problems[:5]  # different lessons never conflict
