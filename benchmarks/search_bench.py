"""Search speed on a generated workspace: keystrokes in the app, and the CLI against fzf.

    uv run python -m benchmarks.generate /tmp/ws --reports 10000 --lessons 100000
    uv run python -m benchmarks.search_bench /tmp/ws

1. *Keystrokes*: each query is typed one character at a time against the index as the
   app holds it (loaded from the cache, texts in memory), exactly what the search
   screen's thread runs per keystroke: ``SearchIndex.search(text, 50)`` with highlight
   spans. Each typing sequence is repeated (``--repeat``) from an empty box; a keystroke's
   time is the median of its repeats, then p50 / p95 / max over all keystrokes.
2. *CLI*: ``hurikaeri search QUERY`` end to end as a new process with a warm cache, against
   ``fzf --filter QUERY`` over a text file with one line per record of the same workspace
   (median of ``--runs`` runs each). The ratio is hurikaeri / fzf; the goal is ≤ 0.5.

Figures are measured, not asserted: the machine, its load and its cache all count.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from store.search_cache import BIN_NAME, SIDE_NAME, open_index
from store.search_index import SearchIndex
from store.workspace import Workspace

LIMIT = 50  # what the search screen asks for
QUERIES: dict[str, list[str]] = {
    "common": ["test", "error", "config"],
    "rare": ["retrybucket", "nullreference", "preflight"],
    "multi-word": ["rate limit", "migration script", "jwks cache"],
    "japanese": ["タイムゾーン", "失敗するテスト", "実データ"],
    "korean": ["타임존", "재시도"],
    "id-like": ["kpt-20251221-014", "ll-ai-202506", "ws-2026011"],
}


def percentile(values: Sequence[float], p: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return 0.0
    k = (len(ordered) - 1) * p / 100
    lo, hi = int(k), min(int(k) + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


def keystrokes(index: SearchIndex, repeat: int) -> dict[str, list[float]]:
    """Per category, the time of every keystroke (ms, median of ``repeat`` typings)."""
    out: dict[str, list[float]] = {}
    for category, queries in QUERIES.items():
        times: list[float] = []
        for query in queries:
            runs: list[list[float]] = []
            for _ in range(repeat):
                index.search("", LIMIT)  # an empty box first, as when the screen opens
                one = []
                for n in range(1, len(query) + 1):
                    t0 = time.perf_counter()
                    index.search(query[:n], LIMIT)
                    one.append((time.perf_counter() - t0) * 1000)
                runs.append(one)
            times += [statistics.median(col) for col in zip(*runs, strict=True)]
        out[category] = times
    return out


def fzf_lines(index: SearchIndex, path: Path) -> int:
    """One line per record (its id and searchable text), as fzf would be given them."""
    seg = index.main
    n = 0
    with open(path, "w", encoding="utf-8") as fh:
        for rid in range(len(seg)):
            if rid in index.tomb:
                continue
            rec = seg.records[rid]
            fh.write(
                " ".join([rec.kind, rec.search_text()]).replace("\n", " ").replace("\r", " ") + "\n"
            )
            n += 1
        for d in index.delta:
            fh.write(" ".join([d.record.kind, d.record.search_text()]).replace("\n", " ") + "\n")
            n += 1
    return n


def timed(cmd: list[str], runs: int, stdin: Path | None = None) -> float:
    """Median wall time (ms) of ``cmd``, output discarded."""
    times = []
    for _ in range(runs):
        with open(stdin, "rb") if stdin else open(os.devnull, "rb") as fh:
            t0 = time.perf_counter()
            subprocess.run(
                cmd, stdin=fh, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False
            )
            times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def search_command(root: Path) -> tuple[str, list[str]]:
    """How ``hurikaeri search`` is started: the installed command once it knows the
    subcommand, else the standalone entry of the same code."""
    exe = Path(sys.executable).with_name("hurikaeri")
    if exe.exists():
        probe = subprocess.run(
            [str(exe), "search", "--help"], capture_output=True, text=True, check=False
        )
        if probe.returncode == 0:
            return "hurikaeri search", [
                str(exe),
                "search",
                "--root",
                str(root),
                "--limit",
                "20",
                "--",
            ]
    return "python -m tui.cli_search", [
        sys.executable,
        "-m",
        "tui.cli_search",
        "--root",
        str(root),
        "--limit",
        "20",
        "--",
    ]


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m benchmarks.search_bench", description=__doc__.split("\n")[0]
    )
    p.add_argument("root", type=Path, help="a workspace (see benchmarks.generate)")
    p.add_argument("--repeat", type=int, default=5, help="typings of each query (default 5)")
    p.add_argument("--runs", type=int, default=5, help="runs of each command (default 5)")
    a = p.parse_args(argv)
    ws = Workspace(a.root)
    print(
        f"machine: {platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}, "
        f"load average {os.getloadavg()[0]:.2f}"
    )

    t0 = time.perf_counter()
    index, stats = open_index(ws, progress=None)
    took = time.perf_counter() - t0
    what = "cold build (no cache)" if stats["rebuilt"] else "warm open (cache)"
    size = sum(
        (ws.state_dir / n).stat().st_size
        for n in (BIN_NAME, SIDE_NAME)
        if (ws.state_dir / n).exists()
    )
    print(
        f"workspace: {stats['files']} files, {len(index)} records; {what} {took:.1f}s; "
        f"cache {size / 1e6:.0f} MB"
    )
    t0 = time.perf_counter()
    index, _ = open_index(ws)
    index.materialize()
    print(f"app start from the cache: {time.perf_counter() - t0:.2f}s (open + texts into memory)\n")

    print(
        f"Keystrokes in the app (SearchIndex.search(text, {LIMIT}), median of {a.repeat} typings)"
    )
    print(f"{'queries':<12} {'keys':>5} {'p50 ms':>8} {'p95 ms':>8} {'max ms':>8}  typed")
    every: list[float] = []
    for category, times in keystrokes(index, a.repeat).items():
        every += times
        print(
            f"{category:<12} {len(times):>5} {percentile(times, 50):>8.1f} {percentile(times, 95):>8.1f} "
            f"{max(times):>8.1f}  {', '.join(QUERIES[category])}"
        )
    print(
        f"{'all':<12} {len(every):>5} {percentile(every, 50):>8.1f} {percentile(every, 95):>8.1f} "
        f"{max(every):>8.1f}  (goal: p95 ≤ 15 ms)\n"
    )

    fzf = shutil.which("fzf")
    label, cmd = search_command(a.root)
    subprocess.run(
        [*cmd, "warm-up"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False
    )
    if fzf is None:
        print("fzf is not installed: no comparison (install it: apt-get install -y fzf).")
    with tempfile.TemporaryDirectory() as tmp:
        lines = Path(tmp) / "records.txt"
        if fzf is not None:
            n = fzf_lines(index, lines)
            version = subprocess.run(
                [fzf, "--version"], capture_output=True, text=True, check=False
            ).stdout.strip()
            print(
                f"CLI end to end, warm cache: `{label} QUERY` vs `fzf --filter QUERY` (fzf {version}) "
                f"over {n} lines, {lines.stat().st_size / 1e6:.0f} MB; median of {a.runs} runs"
            )
        else:
            print(f"CLI end to end, warm cache: `{label} QUERY`; median of {a.runs} runs")
        print(f"{'query':<22} {'kind':<11} {'hurikaeri ms':>12} {'fzf ms':>8} {'ratio':>6}")
        ratios = []
        for category, queries in QUERIES.items():
            for query in queries:
                ours = timed([*cmd, query], a.runs)
                if fzf is None:
                    print(f"{query:<22} {category:<11} {ours:>12.0f}")
                    continue
                theirs = timed([fzf, "--filter", query], a.runs, stdin=lines)
                ratios.append(ours / theirs)
                print(
                    f"{query:<22} {category:<11} {ours:>12.0f} {theirs:>8.0f} {ours / theirs:>6.2f}"
                )
        if ratios:
            print(f"{'worst ratio':<34} {max(ratios):>28.2f}  (goal: ≤ 0.50)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
