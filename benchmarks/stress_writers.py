"""Concurrent writers, many times over, with every CPU kept busy by other processes.

```sh
uv run python -m benchmarks.stress_writers [--runs 200] [--seconds 2] [--burners N] [--tx] [--json]
```

Each run is ``tests/hardening/concurrent_harness.run_once`` in a fresh workspace: agents
appending lesson lines (one reopening the file for every line, a logger keeping it open with
``O_APPEND`` and writing every 60–200 ms, and on every other run a second logger writing
every 1–4 ms), two hurikaeri processes editing different lessons of that file, and two
recording decisions in the same ledger, all at once, while ``--burners`` busy loops (one per
CPU by default) saturate the machine. With ``--tx`` the editors save as the app does, each
edit one transaction in the ledger (``edit_lesson_tx``), the deciders appending beside them. After each run the files are counted strictly: every
appended line present exactly once, no line that is not one JSON object (fused or torn),
every edit that reported success present, every decision in the ledger exactly once.

Prints one line per ten runs and the totals; the exit status is 1 when anything was lost.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

from tests.hardening.concurrent_harness import Outcome, burning, run_once


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=200)
    ap.add_argument("--seconds", type=float, default=2.0, help="writing time of each run")
    ap.add_argument("--burners", type=int, default=os.cpu_count() or 2, help="busy loops")
    ap.add_argument(
        "--tx",
        action="store_true",
        help="the editors save as the app does: each edit a transaction in the ledger",
    )
    ap.add_argument("--json", action="store_true", help="the totals as JSON")
    args = ap.parse_args(argv)

    total = Outcome()
    began = time.monotonic()
    with burning(args.burners):
        for i in range(args.runs):
            with tempfile.TemporaryDirectory(prefix="hurikaeri-stress-") as d:
                out = run_once(Path(d) / "ws", args.seconds, held=i % 2, slow=1, tx=args.tx)
            total.add(out)
            for p in out.problems:
                if not p.startswith("edit refused"):
                    print(f"  run {i + 1}: {p}", file=sys.stderr)
            if (i + 1) % 10 == 0 or i + 1 == args.runs:
                print(
                    f"{i + 1:4d} runs  {total.appended:8,d} lines  {total.edits:6,d} edits  "
                    f"{total.decisions:7,d} decisions  lost {total.lost} dup {total.duplicated} "
                    f"fused {total.fused} lost-edits {total.lost_edits} "
                    f"ledger lost {total.ledger_lost} dup {total.ledger_duplicated}  "
                    f"({time.monotonic() - began:.0f} s)",
                    flush=True,
                )
    figures = {
        "runs": total.runs,
        "cpus": os.cpu_count(),
        "burners": args.burners,
        "seconds_per_run": args.seconds,
        "transactions": args.tx,
        "appended_lines": total.appended,
        "appended_by_open_descriptors": total.appended_held,
        "edits_saved": total.edits,
        "edits_refused": total.failed_edits,
        "decisions": total.decisions,
        "lost": total.lost,
        "duplicated": total.duplicated,
        "fused": total.fused,
        "lost_edits": total.lost_edits,
        "ledger_lost": total.ledger_lost,
        "ledger_duplicated": total.ledger_duplicated,
        "ledger_broken": total.ledger_broken,
        "wall_seconds": round(time.monotonic() - began),
    }
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        print()
        print(
            f"runs {total.runs}, appended lines {total.appended:,} "
            f"({total.appended_held:,} through open descriptors), edits {total.edits:,} "
            f"({total.failed_edits} refused), decisions {total.decisions:,}"
        )
        print(
            f"lost {total.lost}, duplicated {total.duplicated}, fused {total.fused}, "
            f"lost edits {total.lost_edits}; ledger: lost {total.ledger_lost}, "
            f"duplicated {total.ledger_duplicated}, broken {total.ledger_broken}"
        )
    return 0 if total.clean else 1


if __name__ == "__main__":
    sys.exit(main())
