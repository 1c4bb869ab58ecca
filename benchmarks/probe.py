"""One measurement in a fresh process, for :mod:`benchmarks.run`: prints one JSON line.

    python -m benchmarks.probe bare WS              # discover + parse, C loader, one thread
    python -m benchmarks.probe index WS             # WorkspaceIndex(ws).load_all()
    python -m benchmarks.probe app WS [--keys 200]  # the app under Pilot, start to finish
    python -m benchmarks.probe search WS [--repeat 5] [--open-only]

Times are ``time.perf_counter()`` seconds; the app's are counted from this module's first
statement. When ``BENCH_SPAWNED`` holds the parent's ``perf_counter()`` taken just before
starting this process (the clock is system-wide on Linux), the interpreter's own start is
reported too, as ``startup_s``.
"""

# ruff: noqa: E402 - the clock is read before anything else is imported
from __future__ import annotations

import time

T0 = time.perf_counter()

import argparse
import asyncio
import gc
import json
import os
import re
import resource
import statistics
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from store.workspace import Workspace

#: What the app probe waits for at most: loading (cold, big workspaces), the watcher.
LOAD_TIMEOUT = 600.0
WRITE_TIMEOUT = 10.0
POLL = 0.005


def peak_rss_mb() -> float:
    """This process's peak resident set size (``ru_maxrss``: KiB on Linux, bytes on macOS)."""
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return rss / (1 << 20) if sys.platform == "darwin" else rss / 1024


def startup_s() -> float | None:
    spawned = os.environ.get("BENCH_SPAWNED")
    return T0 - float(spawned) if spawned else None


def workspace(root: str) -> Workspace:
    """The workspace as the command line opens it: the user's config, or the default one."""
    from store.config import Config, ConfigError, load_config
    from store.workspace import Workspace

    try:
        config = load_config()
    except ConfigError:
        config = Config()
    return Workspace(Path(root), config)


# -- bare parse: the baseline ------------------------------------------------------------------


def bare(root: str) -> dict[str, Any]:
    from ruamel.yaml.cyaml import CSafeLoader

    from store.read.kinds import YAML_SUFFIXES

    ws = workspace(root)
    t0 = time.perf_counter()
    paths = [f.path for f in ws.discover()]
    found = time.perf_counter()
    errors = records = size = 0
    for path in paths:
        data = path.read_bytes()
        size += len(data)
        name = path.name.lower()
        if name.endswith(".jsonl"):
            for line in data.splitlines():
                if line.strip():
                    records += 1
                    try:
                        json.loads(line)
                    except ValueError:
                        errors += 1
        elif name.endswith(YAML_SUFFIXES):
            loader = CSafeLoader(data)
            try:
                loader.get_single_data()
            except Exception:  # noqa: BLE001 - counted, as the app reports them
                errors += 1
            finally:
                loader.dispose()
    took = time.perf_counter() - t0
    return {
        "seconds": took,
        "discover_s": found - t0,
        "files": len(paths),
        "mb": size / 1e6,
        "jsonl_records": records,
        "parse_errors": errors,
        "rss_mb": peak_rss_mb(),
    }


# -- the index ---------------------------------------------------------------------------------


def index(root: str) -> dict[str, Any]:
    from store.index.workspace_index import WorkspaceIndex

    ws = workspace(root)
    imported = time.perf_counter()
    ix = WorkspaceIndex(ws)
    t0 = time.perf_counter()
    ix.load_all()
    took = time.perf_counter() - t0
    return {
        "seconds": took,
        "import_s": imported - T0,
        "files": len(ix.files),
        "sessions": len(ix.sessions),
        "stats": getattr(ix, "stats", None),
        "rss_mb": peak_rss_mb(),
    }


# -- the app -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Frame:
    """A frame the compositor handed to the driver, and the sessions table as it showed."""

    start: float
    end: float
    cpu: float  # process CPU time at the end (all threads)
    sessions: bool  # the sessions screen was the one painted
    laid_out: bool  # its table had a size
    cursor: int
    rows: int


def new_report(kpt_dir: Path, taken: Callable[[str], bool]) -> tuple[str, str, str]:
    """``(report id, session id, text)``: the first report of ``kpt_dir`` that has top-level
    ``id``, ``created_at`` and ``session_id`` lines, with those replaced by an unused id in
    2099, a new session and a time that sorts it first."""
    n = 1
    while taken(f"kpt-20991231-{n:03d}"):
        n += 1
    rid = f"kpt-20991231-{n:03d}"
    sid = f"bench-{os.getpid()}-{time.time_ns()}"
    fields = {"id": rid, "session_id": sid, "created_at": '"2099-12-31T23:59:59+00:00"'}
    for path in sorted(kpt_dir.glob("*.y*ml")):
        text = path.read_text(encoding="utf-8", errors="replace")
        for key, value in fields.items():
            text, count = re.subn(rf"(?m)^{key}:.*$", f"{key}: {value}", text, count=1)
            if not count:
                break
        else:
            if valid_report(rid, text):
                return rid, sid, text
    raise SystemExit(f"{kpt_dir}: no report to copy the format of")


def valid_report(rid: str, text: str) -> bool:
    """The report, written as ``<rid>.yaml`` elsewhere, indexes without errors."""
    from store.index.workspace_index import index_file
    from store.read.kinds import Kind

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"{rid}.yaml"
        path.write_text(text, encoding="utf-8")
        return index_file(workspace(tmp), path, Kind.KPT).errors == 0


def percentile(values: list[float], p: int) -> float | None:
    """As ``benchmarks.search_bench.percentile`` (linear between closest ranks), without
    importing the search modules into the app's process."""
    if len(values) < 2:
        return values[0] if values else None
    return statistics.quantiles(values, n=100, method="inclusive")[p - 1]


async def settle(min_s: float = 0.3, max_s: float = 60.0) -> float:
    """Wait until the process has been idle (< 5 % CPU) for 100 ms; returns the wait."""
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < max_s:
        cpu = time.process_time()
        await asyncio.sleep(0.1)
        if time.process_time() - cpu < 0.005 and time.perf_counter() - t0 >= min_s:
            break
    return time.perf_counter() - t0


async def poll(done: Callable[[], bool], timeout: float) -> float | None:
    """When ``done()`` first held (polled every 5 ms), or ``None`` after ``timeout`` s."""
    t0 = time.perf_counter()
    while not done():
        if time.perf_counter() - t0 > timeout:
            return None
        await asyncio.sleep(POLL)
    return time.perf_counter()


async def app_probe(root: str, keys: int) -> dict[str, Any]:
    from screens.sessions import SessionsScreen
    from screens.widgets.virtual_table import VirtualTable
    from tui.app import create_app

    imported = time.perf_counter()
    ws = workspace(root)
    app = create_app(ws)
    frames: list[Frame] = []
    interactive = asyncio.Event()
    loaded_at: list[float | None] = [None]
    table: VirtualTable | None = None
    display = app._display

    def recording_display(screen: Any, update: Any) -> None:
        # Every frame goes through App._display; headless, it returns before turning the
        # update into terminal output, so that is done here (and thrown away) to count it.
        nonlocal table
        start = time.perf_counter()
        display(screen, update)
        batching: int = getattr(app, "_batch_count", 0)  # inside batch_update: not shown
        if update is None or batching:
            return
        if app.is_headless and hasattr(update, "render_segments"):
            update.render_segments(app.console)
        end, cpu = time.perf_counter(), time.process_time()
        on_sessions = isinstance(screen, SessionsScreen)
        if on_sessions and table is None:
            table = screen.query_one("#sessions", VirtualTable)
        t = table if on_sessions else None
        frame = Frame(
            start,
            end,
            cpu,
            on_sessions,
            bool(t and t.size.height),
            t.cursor_row if t else -1,
            len(t.rows) if t else -1,
        )
        frames.append(frame)
        if app.loaded.is_set() and loaded_at[0] is None:
            loaded_at[0] = end
        if frame.laid_out and app.loaded.is_set() and frame.rows == len(app.index.sessions):
            interactive.set()

    setattr(app, "_display", recording_display)  # noqa: B010 - an instance, not the class
    out: dict[str, Any] = {"import_s": imported - T0, "startup_s": startup_s()}
    async with app.run_test(size=(120, 40)) as pilot:
        await asyncio.wait_for(interactive.wait(), LOAD_TIMEOUT)
        paint = next(f for f in frames if f.laid_out)
        ready = next(f for f in frames if f.laid_out and f.rows == len(app.index.sessions))
        out["first_paint_s"] = paint.end - T0
        out["interactive_s"] = ready.end - T0
        out["loaded_s"] = (loaded_at[0] or ready.end) - T0
        out["sessions"] = len(app.index.sessions)
        out["load_stats"] = getattr(app.index, "stats", None)

        # moving through the list, one key at a time
        screen = app.screen
        assert isinstance(screen, SessionsScreen) and table is not None
        if app.focused is not table:
            table.focus()
        out["settle_keys_s"] = await settle()
        latency: list[float] = []
        work: list[float] = []
        gc_pauses: list[float] = []
        gc_start = [0.0]

        def on_gc(phase: str, _info: dict[str, int]) -> None:
            if phase == "start":
                gc_start[0] = time.perf_counter()
            else:
                gc_pauses.append((time.perf_counter() - gc_start[0]) * 1000)

        gc.callbacks.append(on_gc)
        for _ in range(min(keys, len(table.rows) - 1 - table.cursor_row)):
            want, seen = table.cursor_row + 1, len(frames)
            t0, cpu0 = time.perf_counter(), time.process_time()
            await pilot.press("down")
            frame = next((f for f in frames[seen:] if f.cursor == want), None)
            if frame is not None:
                latency.append((frame.end - t0) * 1000)
                work.append((frame.cpu - cpu0) * 1000)
        gc.callbacks.remove(on_gc)
        out["keys"] = len(latency)
        out["key_ms"] = {
            "p50": percentile(latency, 50),
            "p95": percentile(latency, 95),
            "max": max(latency, default=None),
        }
        out["key_cpu_ms"] = {
            "p50": percentile(work, 50),
            "p95": percentile(work, 95),
            "max": max(work, default=None),
        }
        out["key_gc"] = {"collections": len(gc_pauses), "max_ms": max(gc_pauses, default=0)}

        # a report written by someone else, until it is on the sessions screen
        out["settle_s"] = await settle()
        kpt_dir = ws.loc("kpt")
        rid, _sid, text = new_report(
            kpt_dir, lambda r: r in app.index.by_report or (kpt_dir / f"{r}.yaml").exists()
        )
        path = kpt_dir / f"{rid}.yaml"

        def listed() -> bool:
            s = app.index.by_report.get(rid)
            return s is not None and any(x.key == s.key for x in screen.order)

        def shown(since: int, rows: int) -> Frame | None:
            """The first frame since ``frames[since]`` that showed ``rows`` sessions."""
            return next((f for f in frames[since:] if f.rows == rows), None)

        rows, seen = len(table.rows), len(frames)
        try:
            with open(path, "w", encoding="utf-8") as fh:
                fh.write(text)
            written = time.perf_counter()
            in_rows = await poll(listed, WRITE_TIMEOUT)
            await poll(lambda: shown(seen, rows + 1) is not None, 1.0)
        finally:
            gone_from = len(frames)
            path.unlink(missing_ok=True)
            deleted = time.perf_counter()
        added = shown(seen, rows + 1)
        out["report"] = rid
        out["write_rows_ms"] = (in_rows - written) * 1000 if in_rows else None
        out["write_screen_ms"] = (added.end - written) * 1000 if added and in_rows else None
        await poll(lambda: shown(gone_from, rows) is not None, WRITE_TIMEOUT)
        removed = shown(gone_from, rows)
        out["delete_screen_ms"] = (removed.end - deleted) * 1000 if removed else None
        await settle()
    out["rss_mb"] = peak_rss_mb()
    return out


# -- search ------------------------------------------------------------------------------------


def search(root: str, repeat: int, open_only: bool) -> dict[str, Any]:
    from benchmarks.search_bench import keystrokes
    from benchmarks.search_bench import percentile as pct
    from store.search.facade import open_index

    ws = workspace(root)
    t0 = time.perf_counter()
    ix, stats = open_index(ws, progress=None)
    out: dict[str, Any] = {"open_s": time.perf_counter() - t0, "rebuilt": stats["rebuilt"]}
    if open_only:
        return out
    times = [t for ts in keystrokes(ix, repeat).values() for t in ts]
    out |= {
        "keystrokes": len(times),
        "p50_ms": pct(times, 50),
        "p95_ms": pct(times, 95),
        "max_ms": max(times),
        "median_ms": statistics.median(times),
        "rss_mb": peak_rss_mb(),
    }
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.probe", description=__doc__)
    p.add_argument("what", choices=["bare", "index", "app", "search"])
    p.add_argument("root")
    p.add_argument("--keys", type=int, default=200)
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--open-only", action="store_true")
    a = p.parse_args(argv)
    if a.what == "bare":
        out = bare(a.root)
    elif a.what == "index":
        out = index(a.root)
    elif a.what == "app":
        out = asyncio.run(app_probe(a.root, a.keys))
    else:
        out = search(a.root, a.repeat, a.open_only)
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
