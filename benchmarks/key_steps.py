"""Where a search key's time goes inside the app, step by step.

    uv run python -m benchmarks.key_steps WS [--rounds 2] [--before DIR]

``benchmarks.feel`` times a key from outside: from writing it to the pty to the end of the
frame that shows its results. This runs the same app in the same kind of pty, typing the
same queries (one character at most every 150 ms), with the search screen's steps stamped
inside the process (``time.perf_counter``; the app's methods wrapped by this script before
it starts, nothing in the app itself):

1. the key read by Textual's input thread → the search thread starts on the query;
2. the engine (``WorkspaceSearch.search``);
3. its end → the frame that shows the results begins (back to the app's thread, the rows
   put in the table, the frame scheduled);
4. the frame (the compositor's update), and of it the results table's lines;
5. the frame's end → its bytes written to the terminal by Textual's writer thread;

and the sum, key read → written, beside the key as measured from outside (written to the
pty → the results' frame read back). p50 and p95 over every key typed, medians (min–max)
over ``--rounds``; with ``--before DIR`` another checkout of the code is measured in the
same rounds, taking turns (its code first on ``PYTHONPATH``).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a file: the child, with the code under test
    CHILD = True
else:
    CHILD = False
    from benchmarks.feel import DATE, RESULTS, Term, env_for, percentile, span, type_search

STEPS = [
    ("to_thread", "key read → search thread"),
    ("engine", "the engine"),
    ("to_frame", "→ the frame begins"),
    ("frame", "the frame"),
    ("table", "… of it the results table"),
    ("to_written", "frame's end → written"),
    ("total", "key read → written"),
    ("outside", "from outside (pty)"),
]


# -- the child: the app with its steps stamped ------------------------------------------


def child(root: str, out: str) -> None:
    import atexit

    from textual.app import App
    from textual.drivers import _writer_thread, linux_driver
    from textual.screen import Screen

    from screens import search
    from screens.widgets.virtual_table import VirtualTable
    from store.search import facade

    now = time.perf_counter
    log: list[list[Any]] = []

    def wrap(cls: Any, name: str, stamp: Any) -> None:
        original = getattr(cls, name)

        def wrapped(*a: Any, **k: Any) -> Any:
            return stamp(original, *a, **k)

        setattr(cls, name, wrapped)

    def timed(kind: str) -> Any:
        def stamp(original: Any, *a: Any, **k: Any) -> Any:
            t = now()
            try:
                return original(*a, **k)
            finally:
                log.append([kind, t, now()])

        return stamp

    def submit(original: Any, screen: Any, text: str, *a: Any, **k: Any) -> Any:
        log.append(["submit", now(), now(), text])
        return original(screen, text, *a, **k)

    def table(original: Any, widget: Any, crop: Any) -> Any:
        t = now()
        try:
            return original(widget, crop)
        finally:
            if type(widget).__name__ == "ResultsTable":
                log.append(["table", t, now()])

    def key_read(original: Any, driver: Any, message: Any) -> Any:
        if type(message).__name__ == "Key":
            log.append(["read", now(), now()])
        return original(driver, message)

    def writer(self: Any) -> None:  # Textual's WriterThread.run, each write stamped
        write, flush, get, qsize = (
            self._file.write,
            self._file.flush,
            self._queue.get,
            self._queue.qsize,
        )
        while (text := get()) is not None:
            t = now()
            write(text)
            if qsize() == 0:
                flush()
            log.append(["written", t, now()])
        flush()

    wrap(search.SearchScreen, "submit", submit)
    wrap(search.SearchScreen, "show_results", timed("show"))
    wrap(facade.WorkspaceSearch, "search", timed("engine"))
    wrap(Screen, "_compositor_refresh", timed("frame"))
    wrap(VirtualTable, "render_lines", table)
    wrap(App, "_display", timed("display"))
    wrap(linux_driver.LinuxDriver, "process_message", key_read)
    _writer_thread.WriterThread.run = writer  # type: ignore[method-assign]
    atexit.register(lambda: Path(out).write_text(json.dumps(log)))
    sys.argv = ["hurikaeri", "--root", root]
    from tui.launch import entry

    entry()


# -- the parent: typing, then reading the stamps -----------------------------------------


def type_queries(root: Path, env: dict[str, str], out: Path) -> list[float]:
    """Type every query in the stamped app; the keys' times as measured from outside."""
    script = Path(__file__).resolve()
    term = Term([sys.executable, str(script), "--child", str(root), str(out)], env)
    outside: list[float] = []
    try:
        if term.wait(lambda b: m.end() if (m := DATE.search(b)) else None, 120) is None:
            raise RuntimeError("the app showed no row")
        term.idle(0.5)
        since = term.size
        term.write(b"/")
        if term.first_frame(since, RESULTS, 300) is None:
            raise RuntimeError("search showed no results")
        term.idle(0.5)
        outside = [ms for times in type_search(term).values() for ms in times]
        term.write(b"\x1b")
        term.idle(0.3, 10)
        term.write(b"q")
        term.proc.wait(60)
    finally:
        term.close()
    return outside


def steps_of(log: list[list[Any]]) -> list[dict[str, float]]:
    """Each typed key's steps (ms), from the child's stamps."""
    log = sorted(log, key=lambda e: e[1])
    keys: list[dict[str, float]] = []
    last_read: float | None = None
    for i, e in enumerate(log):
        if e[0] == "read":
            last_read = e[1]
            continue
        if e[0] != "submit" or not e[3] or last_read is None:
            continue
        read, last_read = last_read, None
        after = []
        for f in log[i + 1 :]:
            if f[0] in ("read", "submit"):
                break
            after.append(f)
        engine = next((f for f in after if f[0] == "engine"), None)
        show = next((f for f in after if f[0] == "show"), None)
        if engine is None or show is None:
            continue
        frame = next((f for f in after if f[0] == "frame" and f[1] >= show[1]), None)
        if frame is None:
            continue
        written = next((f for f in after if f[0] == "written" and f[1] >= frame[1]), None)
        if written is None:
            continue
        table = sum(f[2] - f[1] for f in after if f[0] == "table" and frame[1] <= f[1] <= frame[2])
        keys.append(
            {
                "to_thread": (engine[1] - read) * 1000,
                "engine": (engine[2] - engine[1]) * 1000,
                "to_frame": (frame[1] - engine[2]) * 1000,
                "frame": (frame[2] - frame[1]) * 1000,
                "table": table * 1000,
                "to_written": (written[2] - frame[2]) * 1000,
                "total": (written[2] - read) * 1000,
            }
        )
    return keys


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.key_steps", description=__doc__)
    p.add_argument("root", type=Path)
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--before", type=Path, help="another checkout of the code, measured too")
    a = p.parse_args(argv)
    root = a.root.resolve()
    pycache = Path(tempfile.gettempdir()) / "hurikaeri-key-steps-pycache"
    variants = {}
    if a.before:
        variants["before"] = env_for(True, pycache) | {"PYTHONPATH": str(a.before.resolve())}
    variants["after"] = env_for(True, pycache)
    figures: dict[str, dict[str, list[tuple[float, float]]]] = {v: {} for v in variants}
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(a.rounds):
            for name, env in variants.items():
                print(f"round {r + 1}/{a.rounds}: {name}", file=sys.stderr, flush=True)
                out = Path(tmp) / f"{name}-{r}.json"
                outside = type_queries(root, env, out)
                keys = steps_of(json.loads(out.read_text()))
                for key, _label in STEPS:
                    values = outside if key == "outside" else [k[key] for k in keys]
                    p50, p95 = percentile(values, 50), percentile(values, 95)
                    if p50 is not None and p95 is not None:
                        figures[name].setdefault(key, []).append((p50, p95))
                print(f"  {len(keys)} keys stamped, {len(outside)} seen", file=sys.stderr)
    print(f"# a search key's steps: {root}\n")
    print(f"{a.rounds} rounds; p50 / p95 over the keys, medians (min–max) over the rounds\n")
    names = list(variants)
    print("| step | " + " | ".join(f"{n} p50 | {n} p95" for n in names) + " |")
    print("|---|" + "---:|---:|" * len(names))
    for key, label in STEPS:
        cells = []
        for n in names:
            got = figures[n].get(key, [])
            cells += [span([x[i] for x in got], "{:.1f}") for i in (0, 1)]
        print(f"| {label} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    if CHILD and sys.argv[1:2] == ["--child"]:
        child(sys.argv[2], sys.argv[3])
    else:
        sys.exit(main())
