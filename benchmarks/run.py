"""hurikaeri at scale: start, index, list, live update and search, against the goals.

    uv run python -m benchmarks.run WS [--runs 5] [--keys 200] [--repeat 5] [--json OUT]

Each measurement runs in a fresh process (:mod:`benchmarks.probe`), one after another,
round by round (bare, cold, warm, app, search), so imports, caches and peak RSS start
clean and a change in the machine's load touches every figure alike; the table shows
medians over ``--runs`` rounds. See benchmarks/README.md, "Runner", for what each figure
measures.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from benchmarks.probe import workspace
from store.workspace import Workspace

REPO = Path(__file__).resolve().parent.parent

Result = dict[str, Any]


class ProbeFailed(RuntimeError):
    pass


def tree_rss_mb(pid: int) -> float:
    """Memory of ``pid`` and all its descendants now, in MB (Linux; else 0): the sum of
    their proportional set sizes, so pages shared with a fork are counted once."""
    children: dict[int, list[int]] = {}
    for entry in os.scandir("/proc") if os.path.isdir("/proc") else ():
        if entry.name.isdigit():
            with contextlib.suppress(OSError, ValueError, IndexError):
                stat = Path(entry.path, "stat").read_text()
                ppid = int(stat.rsplit(")", 1)[1].split()[1])
                children.setdefault(ppid, []).append(int(entry.name))
    total, todo = 0, [pid]
    while todo:
        p = todo.pop()
        todo += children.get(p, [])
        with contextlib.suppress(OSError, ValueError, IndexError):
            rollup = Path(f"/proc/{p}/smaps_rollup").read_text()
            total += int(rollup.split("\nPss:", 1)[1].split()[0])  # kB
    return total / 1024


def probe(what: str, root: Path, *args: str, module: str = "benchmarks.probe") -> Result:
    """Run ``MODULE WHAT ROOT ARGS`` (``benchmarks.probe`` unless told) in a new
    interpreter; its JSON line, with ``tree_rss_mb``: the peak memory of the process and
    its workers, sampled every 0.1 s."""
    cmd = [sys.executable, "-m", module, what, str(root), *args]
    env = dict(os.environ, BENCH_SPAWNED=repr(time.perf_counter()))
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        proc = subprocess.Popen(cmd, cwd=REPO, env=env, stdout=out, stderr=err, text=True)
        peak = 0.0
        while proc.poll() is None:
            peak = max(peak, tree_rss_mb(proc.pid))
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(0.1)
        out.seek(0)
        err.seek(0)
        lines = out.read().strip().splitlines()
        if proc.returncode != 0 or not lines:
            raise ProbeFailed(
                f"{shlex.join(cmd)} failed ({proc.returncode}):\n{err.read()[-3000:]}"
            )
    result: Result = json.loads(lines[-1])
    result["tree_rss_mb"] = peak
    if "rss_mb" in result:
        result["peak_rss_mb"] = max(result["rss_mb"], peak)
    return result


def clear_index_cache(ws: Workspace) -> None:
    try:
        from store.index.cache import clear
    except ImportError:  # before the index cache existed
        for p in ws.state_dir.glob("index-cache*"):
            p.unlink(missing_ok=True)
    else:
        clear(ws)


def get(result: Result, path: str) -> float | None:
    """``result["a"]["b"]`` for ``"a.b"``; ``None`` when missing."""
    value: Any = result
    for part in path.split("."):
        if not isinstance(value, dict):
            return None
        value = value.get(part)
    return float(value) if isinstance(value, int | float) else None


def median(results: list[Result], path: str) -> float | None:
    values = [v for r in results if (v := get(r, path)) is not None]
    return statistics.median(values) if values else None


def spread(results: list[Result], path: str, fmt: Callable[[float], str]) -> str:
    values = [v for r in results if (v := get(r, path)) is not None]
    if len(values) < 2:
        return ""
    return f"{fmt(min(values))} – {fmt(max(values))}"


def secs(v: float) -> str:
    return f"{v:.2f} s"


def ms(v: float) -> str:
    return f"{v:.1f} ms"


def mb(v: float) -> str:
    return f"{v:.0f} MB"


def machine() -> str:
    cpu = platform.processor() or platform.system()
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    return (
        f"{platform.machine()}, {os.cpu_count()} CPUs ({cpu}), "
        f"Python {platform.python_version()}, load average {load}"
    )


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.run", description=__doc__.split("\n")[0])
    p.add_argument("root", type=Path, help="a workspace (see benchmarks.generate)")
    p.add_argument("--runs", type=int, default=5, help="rounds of fresh processes (default 5)")
    p.add_argument("--keys", type=int, default=200, help="'down' presses in the list (default 200)")
    p.add_argument("--repeat", type=int, default=5, help="typings of each search query (default 5)")
    p.add_argument("--json", type=Path, help="write every run's figures here as JSON")
    a = p.parse_args(argv)
    root = a.root.resolve()
    if not root.is_dir():
        p.error(f"{a.root}: not a directory")
    ws = workspace(str(root))  # as the probes open it: for its state directory
    flags = ["--runs", str(a.runs), "--keys", str(a.keys), "--repeat", str(a.repeat)]
    command = shlex.join(["uv", "run", "python", "-m", "benchmarks.run", str(a.root), *flags])
    before = machine()

    def log(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    runs: dict[str, list[Result]] = {k: [] for k in ("bare", "cold", "warm", "app", "search")}
    try:
        log("search cache: opening (built when missing)…")
        warmup = probe("search", root, "--open-only")
        for n in range(a.runs):
            log(f"round {n + 1}/{a.runs}: bare parse…")
            runs["bare"].append(probe("bare", root))
            log(f"round {n + 1}/{a.runs}: cold index…")
            clear_index_cache(ws)
            runs["cold"].append(probe("index", root))
            log(f"round {n + 1}/{a.runs}: warm index…")
            runs["warm"].append(probe("index", root))
            log(f"round {n + 1}/{a.runs}: app…")
            runs["app"].append(probe("app", root, "--keys", str(a.keys)))
            log(f"round {n + 1}/{a.runs}: search…")
            runs["search"].append(probe("search", root, "--repeat", str(a.repeat)))
    except ProbeFailed as exc:
        print(exc, file=sys.stderr)
        return 1

    bare, cold, warm, app, search = (runs[k] for k in runs)
    base = median(bare, "seconds")
    sessions = int(median(app, "sessions") or 0)
    rows: list[tuple[str, str, str, str, bool | None]] = []

    def row(
        label: str,
        results: list[Result],
        path: str,
        fmt: Callable[[float], str],
        goal: str = "",
        ok: Callable[[float], bool] | None = None,
        extra: str = "",
    ) -> None:
        v = median(results, path)
        shown = (fmt(v) + extra) if v is not None else "—"
        met = ok(v) if ok is not None and v is not None else None
        rows.append((label, shown, spread(results, path, fmt), goal, met))

    def ratio(v: float) -> str:
        return f" ({v / base:.2f}× bare)" if base else ""

    rss_goal, rss_ok = "≤ 250 MB", (lambda v: v <= 250)
    row("bare parse: discover + C loader, 1 thread (baseline)", bare, "seconds", secs)
    cold_s = median(cold, "seconds")
    row(
        "cold full index (no index cache)",
        cold,
        "seconds",
        secs,
        "≤ 1.5× bare",
        lambda v: base is not None and v <= 1.5 * base,
        ratio(cold_s) if cold_s else "",
    )
    row("cold index: peak RSS of the process itself", cold, "rss_mb", mb, rss_goal, rss_ok)
    row("cold index: peak RSS, with its workers", cold, "peak_rss_mb", mb)
    warm_s = median(warm, "seconds")
    row("warm index (cache present)", warm, "seconds", secs, extra=ratio(warm_s) if warm_s else "")
    row("warm index: peak RSS, with its workers", warm, "peak_rss_mb", mb, rss_goal, rss_ok)
    row("app: interpreter start (before the clock starts)", app, "startup_s", secs)
    row("app: imports", app, "import_s", secs)
    row("app: first paint", app, "first_paint_s", secs, "≤ 0.5 s", lambda v: v <= 0.5)
    row("app: warm start, every session listed (the list is usable)", app, "interactive_s", secs)
    row(
        "app: warm start to fully interactive (everything loaded)",
        app,
        "loaded_s",
        secs,
        "≤ 1 s",
        lambda v: v <= 1.0,
    )
    key_goal = "≤ 16 ms" + ("" if sessions >= 10_000 else f" (at 10,000; here {sessions:,})")
    row("app: key → frame, p50", app, "key_ms.p50", ms)
    row("app: key → frame, p95", app, "key_ms.p95", ms, key_goal, lambda v: v <= 16)
    row("app: key, CPU of the process, p95", app, "key_cpu_ms.p95", ms)
    row("app: key, worst (longest GC pause in JSON)", app, "key_ms.max", ms)
    row(
        "app: new report file → on screen",
        app,
        "write_screen_ms",
        ms,
        "≤ 300 ms",
        lambda v: v <= 300,
    )
    row("app: peak RSS, with its workers", app, "peak_rss_mb", mb, rss_goal, rss_ok)
    row("search: keystroke p50", search, "p50_ms", ms)
    row("search: keystroke p95", search, "p95_ms", ms, "≤ 15 ms", lambda v: v <= 15)

    b = bare[0]
    print(f"# hurikaeri at scale: {root}\n")
    print(f"reproduce: `{command}`  ")
    print(f"machine: {before} (before); {machine().rsplit('load average ', 1)[1]} (after)  ")
    print(
        f"workspace: {b['files']:,} files, {b['mb']:.0f} MB, {sessions:,} sessions; "
        f"{b['parse_errors']} file/line parse errors in the bare parse; "
        f"search cache {'built for this run' if warmup['rebuilt'] else 'present'}  "
    )
    cached = [get(r, "load_stats.cached") for r in app]
    print(
        f"the app started with {', '.join(f'{c:.0f}' for c in cached if c is not None) or '?'} "
        f"of {b['files']:,} files from the index cache  "
    )
    print(f"medians of {a.runs} run(s), each in a fresh process\n")
    print("| figure | median | min – max | goal | |")
    print("|---|---:|---|---|---|")
    for label, shown, rng, goal, met in rows:
        mark = "" if met is None else ("met" if met else "**missed**")
        print(f"| {label} | {shown} | {rng} | {goal} | {mark} |")
    if a.json:
        a.json.write_text(
            json.dumps(
                {"command": command, "machine": before, "root": str(root), "runs": runs},
                indent=1,
            )
            + "\n"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
