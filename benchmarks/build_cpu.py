"""Cold builds of the search index side by side: CPU of the main process and of every process.

    uv run python -m benchmarks.build_cpu /tmp/ws-gen TREE [TREE ...] [--rounds 3]

Each TREE (a checkout of the code, run with this interpreter, its tree first on the path,
from a directory outside every tree) runs ``python -m tui.cli.search`` with no index on its
own fresh copy of the workspace, the trees taking turns in every round. The parsing workers
run under multiprocessing's fork server, not as the command's children, so ``time`` leaves
them out: this process makes itself their subreaper (``PR_SET_CHILD_SUBREAPER``), reaps every
descendant and counts it. Printed per tree: medians of CPU (user + system) of the main
process and of all, wall, and the index's size on disk.
"""

from __future__ import annotations

import argparse
import ctypes
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

PR_SET_CHILD_SUBREAPER = 36


def cold_build(code: Path, ws: Path, cwd: Path) -> tuple[float, float, float]:
    """CPU (s) of the main process, of it and every descendant, and wall (s)."""
    module = "tui.cli_search" if (code / "tui/cli_search.py").exists() else "tui.cli.search"
    cmd = [sys.executable, "-m", module, "--root", str(ws), "--limit", "1", "--", "warm-up"]
    env = {**os.environ, "PYTHONPATH": str(code)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, cwd=cwd, stdout=subprocess.DEVNULL)
    os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOWAIT)  # exited, not reaped: its stat
    wall = time.perf_counter() - t0
    with open(f"/proc/{proc.pid}/stat") as fh:
        utime, stime = fh.read().rsplit(")", 1)[1].split()[11:13]
    main = (int(utime) + int(stime)) / os.sysconf("SC_CLK_TCK")
    proc.wait()
    while True:  # the fork server and its workers, orphaned to this process
        try:
            os.wait()
        except ChildProcessError:
            break
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    every = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return main, every, wall


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m benchmarks.build_cpu", description=__doc__.split("\n")[0]
    )
    p.add_argument("workspace", type=Path, help="a generated workspace (copied for each build)")
    p.add_argument("trees", type=Path, nargs="+", help="checkouts of the code")
    p.add_argument("--rounds", type=int, default=3)
    a = p.parse_args(argv)
    if ctypes.CDLL(None).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        raise SystemExit("cannot become a subreaper: the workers could not be counted")
    trees = [t.resolve() for t in a.trees]
    got: dict[Path, list[tuple[float, float, float, float]]] = {t: [] for t in trees}
    with tempfile.TemporaryDirectory(prefix="build-cpu-") as tmp:
        for r in range(a.rounds):
            for code in trees if r % 2 == 0 else trees[::-1]:
                ws = Path(tmp) / "ws"
                shutil.rmtree(ws, ignore_errors=True)
                shutil.copytree(a.workspace, ws, symlinks=True)
                main_cpu, every, wall = cold_build(code, ws, Path(tmp))
                index = sum(f.stat().st_size for f in (ws / ".hurikaeri").rglob("search*/*"))
                got[code].append((main_cpu, every, wall, index / 1e6))
                print(f"round {r + 1} {code}: main {main_cpu:.1f} s, all {every:.1f} s, "
                      f"wall {wall:.1f} s, index {index / 1e6:.1f} MB, "
                      f"load {os.getloadavg()[0]:.1f}", flush=True)  # fmt: skip
    print(f"\nmedians of {a.rounds} rounds: CPU main / all processes, wall, index")
    for code, rows in got.items():
        m, e, w, i = (statistics.median(col) for col in zip(*rows, strict=True))
        print(f"  {code}: {m:.1f} / {e:.1f} s, {w:.1f} s, {i:.1f} MB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
