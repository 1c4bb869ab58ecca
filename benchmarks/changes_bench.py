"""The changes view (issue #45): 500 targets, 1,000 transcripts, in a generated workspace.

    uv run python -m benchmarks.generate /tmp/ws10k-changes --reports 10000 --lessons 100000
    uv run python -m benchmarks.changes_bench /tmp/ws10k-changes [--runs 5]

Adds to the workspace 500 rules files (``rules/bench-NNN.md``, 60 bullets each), then
measures in one process:

- **first start**: the reviewed state of every target recorded (each file read, hashed and
  copied);
- **warm**: the listing again with nothing changed (median of ``--runs``);
- **attributed**: 1,000 transcripts written since (each 40 turns, reading and editing a
  few of the rules files, 25 of them editing the 20 files then changed), then the listing
  of those 20 changes with the session and turn of each (median of ``--runs``).

Figures are printed, never asserted (benchmarks/README.md).
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import statistics
import time
import uuid
from pathlib import Path
from typing import Any

from store.config import Config
from store.review.changes import list_changes
from store.workspace import Workspace

FILES = 500
TRANSCRIPTS = 1000
TURNS = 40
CHANGED = 20
#: file name → the text an agent's Edit wrote into it (the first half of the changed files)
WRITTEN: dict[str, str] = {}


def _rules(root: Path) -> list[Path]:
    top = root / "rules"
    shutil.rmtree(top, ignore_errors=True)
    top.mkdir(parents=True)
    out = []
    for i in range(FILES):
        p = top / f"bench-{i:03d}.md"
        p.write_text(
            f"# Rules {i}\n\n"
            + "".join(f"- rule {i}.{n}: keep the tests green\n" for n in range(60))
        )
        out.append(p)
    return out


def _line(kind: str, n: int, sid: str, cwd: str, message: dict[str, Any]) -> str:
    return json.dumps(
        {
            "type": kind,
            "uuid": f"u{n}",
            "sessionId": sid,
            "timestamp": f"2099-01-01T10:{n // 60 % 60:02d}:{n % 60:02d}Z",
            "cwd": cwd,
            "isSidechain": False,
            "message": message,
        }
    )


def _transcript(root: Path, rng: random.Random, names: list[str], edits: list[str]) -> None:
    sid = str(uuid.UUID(int=rng.getrandbits(128)))
    lines = []
    for t in range(TURNS // 2):
        lines.append(_line("user", len(lines), sid, str(root), {"role": "user", "content": "go"}))
        name = edits[t] if t < len(edits) else rng.choice(names)
        tool = "Edit" if t < len(edits) else "Read"
        new = f"- learned in {sid[:8]} turn {t}\n"
        if t < len(edits) and t == 0 and edits[0] in WRITTEN:
            WRITTEN[edits[0]] = new
        tool_input = {"file_path": f"rules/{name}"}
        if tool == "Edit":
            tool_input |= {"old_string": "", "new_string": new}
        content = [
            {"type": "text", "text": "Looking at the rules. " * 20},
            {"type": "tool_use", "id": f"t{t}", "name": tool, "input": tool_input},
        ]
        lines.append(
            _line(
                "assistant",
                len(lines),
                sid,
                str(root),
                {"id": f"m{t}", "role": "assistant", "content": content},
            )
        )
    d = root / "projects" / f"-bench-{rng.randrange(20)}"
    d.mkdir(parents=True, exist_ok=True)
    (d / f"{sid}.jsonl").write_text("\n".join(lines) + "\n")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("root", type=Path)
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    root = args.root.resolve()
    shutil.rmtree(root / ".hurikaeri" / "reviewed", ignore_errors=True)
    shutil.rmtree(root / "projects", ignore_errors=True)
    files = _rules(root)
    ws = Workspace(root, Config())
    t0 = time.perf_counter()
    _, recorded = list_changes(ws)
    first = time.perf_counter() - t0
    warm = []
    for _ in range(args.runs):
        t0 = time.perf_counter()
        assert list_changes(ws)[0] == []
        warm.append(time.perf_counter() - t0)
    rng = random.Random(45)
    changed = files[:CHANGED]
    names = [p.name for p in files]
    WRITTEN.update({p.name: "" for p in changed[: CHANGED // 2]})
    for k in range(TRANSCRIPTS):
        edits = [changed[k % CHANGED].name] if k < 25 else []
        _transcript(root, rng, names, edits)
    for k, p in enumerate(changed):
        p.write_text(p.read_text() + (WRITTEN.get(p.name) or f"- by hand {k}\n"))
    attributed = []
    found: list[Any] = []
    for _ in range(args.runs):
        t0 = time.perf_counter()
        found = list_changes(ws)[0]
        attributed.append(time.perf_counter() - t0)
    known = sum(1 for c in found if c.source is not None)
    by_content = sum(1 for c in found if c.source is not None and c.source.how == "content")
    print(f"targets recorded on first start: {recorded} in {first:.2f}s")
    print(f"warm listing, nothing changed: {statistics.median(warm) * 1000:.0f} ms")
    print(
        f"{len(found)} changes over {TRANSCRIPTS} transcripts, {known} attributed "
        f"({by_content} by content): "
        f"{statistics.median(attributed) * 1000:.0f} ms"
    )


if __name__ == "__main__":
    main()
