"""Search speed on a generated workspace: keystrokes in the app, and the CLI against fzf.

    uv run python -m benchmarks.generate /tmp/ws --reports 10000 --lessons 100000
    uv run python -m benchmarks.search_bench /tmp/ws

1. *Keystrokes*: each query is typed one character at a time against the index as the
   app holds it (loaded from the cache, texts read from the mapped file), exactly what the search
   screen's thread runs per keystroke: ``SearchIndex.search(text, 50)`` with highlight
   spans. Each typing sequence is repeated (``--repeat``) from an empty box; a keystroke's
   time is the median of its repeats, then p50 / p95 / max over all keystrokes.
2. *CLI*: ``hurikaeri search QUERY`` end to end as a new process with a warm cache, against
   ``fzf --filter QUERY`` over a text file with one line per record of the same workspace
   (median of ``--runs`` runs each). The ratio is hurikaeri / fzf; the goal is ≤ 0.5.

With ``--before DIR --before-root WS2`` only the keystrokes are measured, for this tree and
for another checkout of the code (``git archive HEAD | tar -x -C DIR``) on its own copy of
the workspace (each version keeps its own cache, and removes the others'), in fresh
processes taking turns for ``--rounds`` rounds: per class of query, p50 and p95 of the
first typing (nothing decoded or kept yet) and of the median of ``--repeat`` typings,
as medians (min–max) over the rounds; the process's RSS after opening the index and
after typing every query; the cache's size.

Figures are measured, not asserted: the machine, its load and its cache all count.
"""

from __future__ import annotations

import argparse
import json
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
from typing import Any

from store.search.cache import BIN_NAME, SIDE_NAME, open_index
from store.search.engine import SearchIndex
from store.workspace import Workspace

LIMIT = 50  # what the search screen asks for
QUERIES: dict[str, list[str]] = {
    "common": ["test", "error", "config"],
    "rare": ["retrybucket", "nullreference", "preflight"],
    "multi-word": ["rate limit", "migration script", "jwks cache"],
    "japanese": ["タイムゾーン", "失敗するテスト", "実データ"],
    "korean": ["타임존", "재시도"],
    "id-like": ["kpt-20251221-014", "ll-ai-202506", "ws-2026011"],
    "typo": ["confgi", "retrybukcet", "migraton scrpit"],
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


def search_commands(root: Path) -> list[tuple[str, list[str]]]:
    """How ``hurikaeri search`` is started: the installed command, once it knows the
    subcommand, and the standalone entry of the same code (``tui.cli.search``), which
    imports nothing of the rest of the command line."""
    tail = ["--root", str(root), "--limit", "20", "--"]
    out = [("python -m tui.cli.search", [sys.executable, "-m", "tui.cli.search", *tail])]
    exe = Path(sys.executable).with_name("hurikaeri")
    if exe.exists():
        probe = subprocess.run(
            [str(exe), "search", "--help"], capture_output=True, text=True, check=False
        )
        if probe.returncode == 0:
            out.insert(0, ("hurikaeri search", [str(exe), "search", *tail]))
    return out


#: One side of ``--before``: run by ``python -c`` with the code tree first on the path, so it
#: measures any version of the code the same way (argv: tree, workspace, repeat, queries).
_KEYS_CHILD = """
import json, statistics, sys, time
sys.path.insert(0, sys.argv[1])
from store.search.cache import open_index
from store.workspace import Workspace

def rss(key):
    with open("/proc/self/status") as fh:
        return next(int(x.split()[1]) / 1024 for x in fh if x.startswith(key + ":"))

index, stats = open_index(Workspace(sys.argv[2]))
assert not stats["rebuilt"], "open the workspace once first: the cache is built"
index.warm()
opened = rss("VmRSS")
first, median = {}, {}
for category, queries in json.loads(sys.argv[4]).items():
    first[category], median[category] = [], []
    for query in queries:
        runs = []
        for _ in range(int(sys.argv[3])):
            index.search("", 50)
            one = []
            for n in range(1, len(query) + 1):
                t0 = time.perf_counter()
                index.search(query[:n], 50)
                one.append((time.perf_counter() - t0) * 1000)
            runs.append(one)
        first[category] += runs[0]
        median[category] += [statistics.median(c) for c in zip(*runs)]
print(json.dumps({"first": first, "median": median, "rss_open": opened,
                  "rss_typed": rss("VmRSS"), "file": index.main._mapped.mm.size()}))
"""


def compare(root: Path, before: Path, before_root: Path, rounds: int, repeat: int) -> None:
    """Keystrokes of this tree and of ``before``, each on its own copy of the workspace."""
    sides = {"before": (before, before_root), "after": (Path(__file__).parents[1], root)}
    got: dict[str, list[dict[str, Any]]] = {k: [] for k in sides}
    for n in range(rounds):
        for side, (code, ws) in sides.items():
            args = [str(code.resolve()), str(ws), str(repeat), json.dumps(QUERIES)]
            out = subprocess.run(
                [sys.executable, "-c", _KEYS_CHILD, *args],
                capture_output=True,
                text=True,
                check=False,
                cwd=code,
            )
            if out.returncode:
                raise SystemExit(f"{side}: {out.stderr[-2000:]}")
            got[side].append(json.loads(out.stdout.strip().splitlines()[-1]))
        print(f"round {n + 1}/{rounds} (load average {os.getloadavg()[0]:.2f})", file=sys.stderr)

    def spread(values: list[float], fmt: str = ".1f") -> str:
        return f"{statistics.median(values):{fmt}} ({min(values):{fmt}}–{max(values):{fmt}})"

    for mode, label in (("first", "first typing"), ("median", f"median of {repeat} typings")):
        print(f"\nEngine per key, {label}, ms: medians of {rounds} rounds (min–max)")
        print(
            f"{'queries':<12} {'before p50':>20} {'after p50':>20} {'before p95':>20} {'after p95':>20}"
        )
        for cat in [*QUERIES, "all"]:
            row = f"{cat:<12}"
            for stat in (50, 95):
                for side in sides:
                    pick = [
                        percentile(
                            [t for ts in r[mode].values() for t in ts]
                            if cat == "all"
                            else r[mode][cat],
                            stat,
                        )
                        for r in got[side]
                    ]
                    row += f" {spread(pick, '.2f'):>20}"
            print(row)
    for key, label in (("rss_open", "RSS after opening"), ("rss_typed", "RSS after every key")):
        print(f"{label}: " + ", ".join(f"{s} {spread([r[key] for r in got[s]])} MB" for s in sides))
    print("cache file: " + ", ".join(f"{s} {got[s][0]['file'] / 1e6:.1f} MB" for s in sides))


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m benchmarks.search_bench", description=__doc__.split("\n")[0]
    )
    p.add_argument("root", type=Path, help="a workspace (see benchmarks.generate)")
    p.add_argument("--repeat", type=int, default=5, help="typings of each query (default 5)")
    p.add_argument("--runs", type=int, default=5, help="runs of each command (default 5)")
    p.add_argument("--before", type=Path, help="another checkout of the code to compare with")
    p.add_argument("--before-root", type=Path, help="its own copy of the workspace")
    p.add_argument("--rounds", type=int, default=5, help="rounds of --before (default 5)")
    a = p.parse_args(argv)
    if a.before is not None:
        if a.before_root is None:
            p.error("--before needs --before-root (a copy of the workspace for that version)")
        compare(a.root, a.before, a.before_root, a.rounds, a.repeat)
        return 0
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
    index.warm()
    print(f"app start from the cache: {time.perf_counter() - t0:.2f}s (texts left in the file)\n")

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
    commands = search_commands(a.root)
    for _label, cmd in commands:
        subprocess.run(
            [*cmd, "warm-up"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False
        )
    if fzf is None:
        print("fzf is not installed: no comparison (install it: apt-get install -y fzf).")
    with tempfile.TemporaryDirectory() as tmp:
        lines = Path(tmp) / "records.txt"
        print("CLI end to end, warm cache, median of", a.runs, "runs:")
        for n, (label, _cmd) in enumerate(commands):
            print(f"  [{n + 1}] `{label} QUERY`")
        if fzf is not None:
            count = fzf_lines(index, lines)
            version = subprocess.run(
                [fzf, "--version"], capture_output=True, text=True, check=False
            ).stdout.strip()
            print(
                f"  fzf: `fzf --filter QUERY` (fzf {version}) over {count} lines, "
                f"{lines.stat().st_size / 1e6:.0f} MB, one per record"
            )
        head = "".join(f" {f'[{n + 1}] ms':>8}" for n in range(len(commands)))
        ratios = "".join(f" {f'[{n + 1}]/fzf':>8}" for n in range(len(commands))) if fzf else ""
        print(f"{'query':<22} {'kind':<11}{head} {'fzf ms':>8}{ratios}")
        worst = [0.0] * len(commands)
        for category, queries in QUERIES.items():
            for query in queries:
                ours = [timed([*cmd, query], a.runs) for _label, cmd in commands]
                row = f"{query:<22} {category:<11}" + "".join(f" {t:>8.0f}" for t in ours)
                if fzf is None:
                    print(row)
                    continue
                theirs = timed([fzf, "--filter", query], a.runs, stdin=lines)
                for n, t in enumerate(ours):
                    worst[n] = max(worst[n], t / theirs)
                print(row + f" {theirs:>8.0f}" + "".join(f" {t / theirs:>8.2f}" for t in ours))
        if fzf is not None:
            pad = 34 + 9 * len(commands) + 9
            print(
                f"{'worst ratio':<{pad}}"
                + "".join(f" {w:>8.2f}" for w in worst)
                + "  (goal: ≤ 0.50)"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
