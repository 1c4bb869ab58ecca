"""Many writers on one lessons file and one ledger at once, and a strict count afterwards.

Used by ``test_concurrent_writers.py`` (one run) and ``benchmarks/stress_writers.py`` (many
runs, the CPUs saturated). Every writer is its own process, started together at one moment:

- agents appending lesson lines of varied length in two ways: ``reopen`` opens the path
  for every line (the wrap-up save script, every 0–2 ms), ``held`` keeps one ``O_APPEND``
  descriptor open for the whole run (a logger: a fast one writing every 1–4 ms, a slow one
  every 60–200 ms, which a rewrite that waits for quiet never notices);
- hurikaeri editors (``tests.lesson_edit.edit_lesson``), each editing its own lessons of the same file over
  and over, the new record sometimes longer, sometimes shorter than the old;
- hurikaeri processes recording decisions in the same ledger.

Afterwards: every appended line present exactly once, no line that is not one JSON object
(two records fused, a torn line), every edit that reported success present (each lesson
holds the title of its editor's last successful edit), every decision in the ledger once.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from tests.conftest import REPO

APPENDER = r"""
import json, os, random, sys, time
path, kind, tag = sys.argv[1], sys.argv[2], sys.argv[3]
start, seconds = float(sys.argv[4]), float(sys.argv[5])
rng = random.Random(tag)
time.sleep(max(0.0, start - time.time()))
end = time.monotonic() + seconds
n = 0
fd = os.open(path, os.O_WRONLY | os.O_APPEND) if kind != "reopen" else -1
while time.monotonic() < end:
    rec = {"id": f"ll-ai-20991231-{tag}{n:06d}", "date": "2099-12-31",
           "type": "ai_trial_error", "title": f"{tag} {n}", "summary": "." * rng.randrange(300)}
    line = (json.dumps(rec) + "\n").encode()
    if kind == "reopen":
        fd = os.open(path, os.O_WRONLY | os.O_APPEND)
        os.write(fd, line)
        os.close(fd)
        time.sleep(rng.uniform(0, 0.002))
    else:
        os.write(fd, line)
        time.sleep(rng.uniform(0.001, 0.004) if kind == "held" else rng.uniform(0.06, 0.2))
    n += 1
print(n)
"""

EDITOR = r"""
import json, random, sys, time
from pathlib import Path
from store.review.items import ReviewError
from store.review.lessons import find_lesson
from tests.lesson_edit import edit_lesson
from store.write.atomic import WriteError
from tests.guards import anywhere
path, who, ids = Path(sys.argv[1]), sys.argv[2], sys.argv[3].split(",")
start, seconds, tx = float(sys.argv[4]), float(sys.argv[5]), sys.argv[6] == "tx"
if tx:  # as the app saves: one transaction each, recorded in the ledger
    from store.ledger import Ledger
    from store.review.lessons import edit_lesson_tx
    from store.workspace import Workspace
    ws = Workspace(path.parents[2])
    ledger = Ledger(ws.state_dir)
rng = random.Random(who)
time.sleep(max(0.0, start - time.time()))
end = time.monotonic() + seconds
last, ok, failed, errors, i = {}, 0, 0, [], 0
while time.monotonic() < end:
    i += 1
    lid = ids[i % len(ids)]
    title = f"{who} {i} " + "x" * rng.randrange(120)  # longer or shorter than before
    try:
        if tx:
            edit_lesson_tx(ws, find_lesson(path, lid), {"title": title}, ledger=ledger)
        else:
            edit_lesson(find_lesson(path, lid), {"title": title}, guard=anywhere)
    except (WriteError, ReviewError) as exc:
        failed += 1
        errors.append(str(exc)[:200])
        continue
    last[lid] = title
    ok += 1
    time.sleep(rng.uniform(0, 0.004))
print(json.dumps({"ok": ok, "failed": failed, "last": last, "errors": errors[:5]}))
"""

DECIDER = r"""
import sys, time
from pathlib import Path
from store.ledger import Ledger
from tests.ledger_lines import decide
state, who = Path(sys.argv[1]), sys.argv[2]
start, seconds = float(sys.argv[3]), float(sys.argv[4])
ledger = Ledger(state, read=False)
time.sleep(max(0.0, start - time.time()))
end = time.monotonic() + seconds
n = 0
while time.monotonic() < end:
    decide(ledger, f"kpt-20991231-001/{who}-{n:06d}", "approve")
    n += 1
print(n)
"""

BURNER = "while True: pass"


@dataclass
class Outcome:
    """The strict count of one run (or of many, added up)."""

    runs: int = 0
    appended: int = 0
    appended_held: int = 0
    edits: int = 0
    failed_edits: int = 0
    decisions: int = 0
    lost: int = 0
    duplicated: int = 0
    fused: int = 0
    lost_edits: int = 0
    ledger_lost: int = 0
    ledger_duplicated: int = 0
    ledger_broken: int = 0
    problems: list[str] = field(default_factory=list)

    @property
    def clean(self) -> bool:
        return not (
            self.lost
            or self.duplicated
            or self.fused
            or self.lost_edits
            or self.ledger_lost
            or self.ledger_duplicated
            or self.ledger_broken
        )

    def add(self, other: Outcome) -> None:
        for name in self.__dataclass_fields__:
            if name != "problems":
                setattr(self, name, getattr(self, name) + getattr(other, name))
        self.problems += other.problems


def lesson(n: int, title: str) -> bytes:
    rec = {
        "id": f"ll-ai-20261028-{n:03d}",
        "date": "2026-10-28T10:00:00",
        "session_id": f"s-{n}",
        "type": "ai_trial_error",
        "category": "stress",
        "title": title,
        "summary": "a lesson that is edited while agents append",
        "tags": ["stress"],
    }
    return (json.dumps(rec, ensure_ascii=False) + "\n").encode()


def make_workspace(root: Path, records: int = 60) -> Path:
    lessons = root / "lessons" / "ai" / "lessons.jsonl"
    lessons.parent.mkdir(parents=True, exist_ok=True)
    lessons.write_bytes(b"".join(lesson(n, f"lesson {n}") for n in range(1, records + 1)))
    (root / ".hurikaeri").mkdir(exist_ok=True)
    return lessons


@contextlib.contextmanager
def burning(n: int) -> Iterator[list[subprocess.Popen[bytes]]]:
    """``n`` processes spinning on the CPUs for as long as the block runs."""
    procs = [subprocess.Popen([sys.executable, "-c", BURNER]) for _ in range(n)]
    try:
        yield procs
    finally:
        for p in procs:
            with contextlib.suppress(ProcessLookupError):
                os.kill(p.pid, signal.SIGKILL)
            p.wait()


def run_once(
    root: Path,
    seconds: float = 2.5,
    *,
    reopen: int = 1,
    held: int = 1,
    slow: int = 1,
    editors: int = 2,
    deciders: int = 2,
    lead: float = 2.0,
    tx: bool = False,
) -> Outcome:
    """One run in the workspace ``root`` (created): everyone starts ``lead`` seconds from
    now (time to import) and writes for ``seconds``. ``tx``: the editors save as the app
    does, each edit a transaction in the ledger (``edit_lesson_tx``); else the bare
    rewrite (``edit_lesson``)."""
    lessons = make_workspace(root)
    state = root / ".hurikaeri"
    start = time.time() + lead
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}

    def spawn(code: str, *args: object) -> subprocess.Popen[str]:
        return subprocess.Popen(
            [sys.executable, "-c", code, *map(str, args)],
            cwd=REPO,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )

    appenders = [
        ("r", i, spawn(APPENDER, lessons, "reopen", f"r{i}", start, seconds)) for i in range(reopen)
    ]
    appenders += [
        ("h", i, spawn(APPENDER, lessons, "held", f"h{i}", start, seconds)) for i in range(held)
    ]
    appenders += [
        ("s", i, spawn(APPENDER, lessons, "slow", f"s{i}", start, seconds)) for i in range(slow)
    ]
    # each editor has its own lessons: early in the file (the whole tail moves when one
    # grows) and interleaved with the other editor's
    owned = {
        f"e{k}": [f"ll-ai-20261028-{n:03d}" for n in range(2 + k, 2 + 3 * editors, editors)]
        for k in range(editors)
    }
    eds = [
        (who, spawn(EDITOR, lessons, who, ",".join(ids), start, seconds, "tx" if tx else "plain"))
        for who, ids in owned.items()
    ]
    decs = [(f"d{k}", spawn(DECIDER, state, f"d{k}", start, seconds)) for k in range(deciders)]

    out = Outcome(runs=1)
    counts: dict[str, int] = {}
    for kind, i, p in appenders:
        stdout, stderr = p.communicate(timeout=120)
        if p.returncode:
            raise RuntimeError(f"appender failed: {stderr}")
        counts[f"{kind}{i}"] = int(stdout)
        out.appended += int(stdout)
        if kind in "hs":
            out.appended_held += int(stdout)
    last: dict[str, str] = {}
    for _who, p in eds:
        stdout, stderr = p.communicate(timeout=120)
        if p.returncode:
            raise RuntimeError(f"editor failed: {stderr}")
        res = json.loads(stdout)
        out.edits += res["ok"]
        out.failed_edits += res["failed"]
        out.problems += [f"edit refused: {e}" for e in res["errors"]]
        last.update(res["last"])
    decided: dict[str, int] = {}
    for who, p in decs:
        stdout, stderr = p.communicate(timeout=120)
        if p.returncode:
            raise RuntimeError(f"decider failed: {stderr}")
        decided[who] = int(stdout)
        out.decisions += int(stdout)

    check_lessons(lessons, counts, last, out)
    check_ledger(state / "ledger.jsonl", decided, out)
    return out


def check_lessons(path: Path, counts: dict[str, int], last: dict[str, str], out: Outcome) -> None:
    seen: Counter[str] = Counter()
    titles: dict[str, list[str]] = {}
    for no, raw in enumerate(path.read_bytes().split(b"\n"), 1):
        if not raw.strip():
            continue
        try:
            rec = json.loads(raw)
            if not isinstance(rec, dict):
                raise ValueError("not an object")
        except ValueError:
            out.fused += 1
            out.problems.append(f"line {no} is not one JSON object: {raw[:160]!r}")
            continue
        rid = str(rec.get("id"))
        seen[rid] += 1
        titles.setdefault(rid, []).append(str(rec.get("title")))
    for tag, n in counts.items():
        for k in range(n):
            c = seen.get(f"ll-ai-20991231-{tag}{k:06d}", 0)
            if c == 0:
                out.lost += 1
                if out.lost <= 5:
                    out.problems.append(f"appended line {tag}{k:06d} lost")
            elif c > 1:
                out.duplicated += c - 1
                out.problems.append(f"appended line {tag}{k:06d} there {c} times")
    for rid, title in last.items():
        if titles.get(rid) != [title]:
            out.lost_edits += 1
            out.problems.append(f"{rid}: {titles.get(rid)} instead of the last save {title!r}")


def check_ledger(path: Path, decided: dict[str, int], out: Outcome) -> None:
    seen: Counter[str] = Counter()
    for raw in path.read_bytes().split(b"\n"):
        if not raw.strip():
            continue
        try:
            rec = json.loads(raw)
        except ValueError:
            out.ledger_broken += 1
            out.problems.append(f"ledger line is not JSON: {raw[:160]!r}")
            continue
        if isinstance(rec, dict) and str(rec.get("target", "")).startswith("kpt-20991231-001/"):
            seen[rec["target"]] += 1
    for who, n in decided.items():
        for k in range(n):
            c = seen.get(f"kpt-20991231-001/{who}-{k:06d}", 0)
            if c == 0:
                out.ledger_lost += 1
            elif c > 1:
                out.ledger_duplicated += c - 1
