"""The targets view's findings over 500 target files and 50,000 bullets (issue 21).

    uv run python -m benchmarks.targets_bench [--runs 7]

Generates a workspace with 50 projects (each a ``CLAUDE.md``, an ``AGENTS.md`` and eight
``.claude/rules/*.md``: 500 files of 100 bullets, English and Japanese, with planted
duplicates, near-duplicates, paths that exist and paths that do not, commands, and a few
fake keys), then measures, in one process:

- **baseline**: reading the 500 files and splitting them into lines — the least any view
  of them must do;
- **cold**: the whole report with an empty cache (every file read, parsed, scanned);
- **warm**: the whole report again with the files unchanged (median of ``--runs``): files
  and their secret scans come from the cache by file identity; stale references, budgets
  and duplicates across all 50,000 bullets are worked out afresh each time.

Figures are printed, never asserted (benchmarks/README.md).
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from pathlib import Path

from store.config import Config
from store.insight.target_report import TargetsCache, build_report
from store.insight.targets import list_targets
from store.ledger import Ledger
from store.workspace import Workspace

PROJECTS = 50
FILES_PER_PROJECT = 10
BULLETS_PER_FILE = 100

_EN = [
    "always",
    "run",
    "the",
    "tests",
    "before",
    "committing;",
    "prefer",
    "small",
    "pull",
    "requests;",
    "keep",
    "the",
    "API",
    "stable;",
    "log",
    "every",
    "retry",
    "with",
    "its",
    "reason;",
    "never",
    "swallow",
    "an",
    "exception;",
    "document",
    "why",
    "not",
    "what;",
    "rotate",
    "the",
    "keys",
    "every",
    "quarter;",
    "pin",
    "the",
    "dependency",
    "versions;",
    "check",
    "the",
    "migration",
    "on",
    "a",
    "copy",
    "first;",
    "measure",
    "before",
    "optimising",
    "the",
    "hot",
    "path;",
    "use",
    "the",
    "cache",
    "only",
    "for",
    "idempotent",
    "reads;",
    "name",
    "branches",
    "after",
    "their",
    "issue",
]
_JA = [
    "テスト",
    "コミット",
    "前に",
    "必ず",
    "実行",
    "する",
    "キー",
    "ローテーション",
    "依存",
    "固定",
    "計測",
    "最適化",
    "ログ",
    "理由",
    "例外",
    "握りつぶさ",
    "ない",
]


def _sentence(rnd: random.Random) -> str:
    if rnd.random() < 0.3:
        return "".join(rnd.choice(_JA) for _ in range(rnd.randint(5, 9)))
    return " ".join(rnd.choice(_EN) for _ in range(rnd.randint(7, 14)))


def generate(top: Path, seed: int = 21) -> Workspace:
    rnd = random.Random(seed)
    root = top / "claude"
    (root / ".hurikaeri").mkdir(parents=True)
    projects = []
    shared = [_sentence(rnd) for _ in range(300)]  # said again across projects
    for p in range(PROJECTS):
        proj = top / "src" / f"proj-{p:02d}"
        (proj / ".claude" / "rules").mkdir(parents=True)
        (proj / "src").mkdir()
        (proj / "src" / "main.py").write_text("")
        projects.append(proj)
        names = [
            "CLAUDE.md",
            "AGENTS.md",
            *(f".claude/rules/r{i}.md" for i in range(FILES_PER_PROJECT - 2)),
        ]
        for n, name in enumerate(names):
            lines = [f"# {name}", ""]
            for b in range(BULLETS_PER_FILE):
                r = rnd.random()
                if r < 0.05:
                    text = rnd.choice(shared)
                elif r < 0.08:
                    text = rnd.choice(shared) + " これは重要"
                elif r < 0.10:
                    text = f"the entry point is src/main.py, helpers in src/helper_{b}.py"
                elif r < 0.12:
                    text = f"run `uv run pytest -k case{b}` before `no-such-tool-{n} --fix`"
                else:
                    text = f"{_sentence(rnd)} ({p}-{n}-{b})"
                lines.append(f"- {text}")
            if p % 10 == 0 and n == 0:
                lines.append("- deploy token ghp_" + "zjgHWbmPZe9gwWQaq5mcdkU1gJQV3hDKJnQu")
            (proj / name).write_text("\r\n".join(lines) + "\r\n", encoding="utf-8")
    return Workspace(root, Config(projects=projects))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=7)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="targets-bench-") as tmp:
        ws = generate(Path(tmp))
        ledger = Ledger(ws.state_dir)
        files = list_targets(ws, ledger)
        bullets = sum(
            1 for f in files for line in f.path.read_text().splitlines() if line.startswith("- ")
        )
        base = []
        for _ in range(args.runs):
            t = time.perf_counter()
            for f in files:
                f.path.read_bytes().decode("utf-8").splitlines()
            base.append(time.perf_counter() - t)
        cache = TargetsCache()
        t = time.perf_counter()
        report = build_report(ws, ledger=ledger, cache=cache)
        cold = time.perf_counter() - t
        warm = []
        for _ in range(args.runs):
            t = time.perf_counter()
            report = build_report(ws, ledger=ledger, cache=cache)
            warm.append(time.perf_counter() - t)
        counts: dict[str, int] = {}
        for f in report.findings:
            counts[f.kind] = counts.get(f.kind, 0) + 1
        print(f"targets: {len(files)} files, {bullets:,} bullets")
        print(f"findings: {counts}; duplicate groups: {len(report.duplicates)}")
        print(f"baseline (read + split lines), median: {statistics.median(base) * 1000:.0f} ms")
        print(f"cold (empty cache): {cold * 1000:.0f} ms")
        print(
            f"warm, median of {args.runs}: {statistics.median(warm) * 1000:.0f} ms "
            f"(min {min(warm) * 1000:.0f}, max {max(warm) * 1000:.0f})"
        )


if __name__ == "__main__":
    main()
