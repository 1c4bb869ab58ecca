"""Kill a process writing transactions at random moments, many times (issue 16).

    uv run python -m benchmarks.tx_kill [RUNS] [SEED]

A forked child runs random actions (every kind that writes) on a fresh copy of the demo
workspace and is killed with SIGKILL after 20–500 ms, RUNS times (default 300). After each
kill ``recover()`` runs and every file is checked against the last completed transaction
that wrote it; at the end every transaction done is undone, newest first, and the workspace
must be byte for byte what it was. Prints the figures (see tests/hardening/tx_kill_harness.py).
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from tests.hardening.tx_kill_harness import run


def main(argv: list[str]) -> int:
    runs = int(argv[0]) if argv else 300
    seed = int(argv[1]) if len(argv) > 1 else 16
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="hurikaeri-txkill-") as d:
        fig = run(Path(d) / "ws", runs, seed=seed)
    took = time.monotonic() - started
    print(f"runs (SIGKILL)                       {fig.runs}")
    print(f"transactions committed               {fig.committed}")
    print(f"left half done, rolled back          {fig.rolled_back}")
    print(f"  of which had written files         {fig.rolled_back_with_files}")
    print(f"runs with a file not as left         {fig.inconsistent}")
    print(f"undone at the end                    {fig.undone_at_end}")
    print(f"workspace byte-identical at the end  {fig.identical_at_end}")
    print(f"seconds                              {took:.1f}")
    for p in fig.problems[:20]:
        print(f"  problem: {p}")
    return 0 if not fig.problems and fig.identical_at_end else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
