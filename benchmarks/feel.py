"""Speed as a person feels it: the installed command in a real pseudo-terminal.

    uv run python -m benchmarks.feel WS [--runs 3] [--keys 40] [--json OUT] [--only WHAT,...]

Every figure is taken from outside, on what the terminal receives, beside a bare Textual
app (``benchmarks/bare_textual.py``: a header, a 20-row DataTable, a footer) measured in
the same run, round by round, so a change in the machine's load touches both alike:

- **start**: from spawning ``.venv/bin/hurikaeri --root WS`` (the console script) in a
  120×40 pty to the first byte of output holding a date (``YYYY-MM-DD``, a row of the
  sessions list), the frame it is in included; the same for the bare app. Twice: with
  bytecode (a private ``PYTHONPYCACHEPREFIX``, written by one unmeasured run first, as a
  normal install has it) and without (``PYTHONDONTWRITEBYTECODE=1``: every module compiled
  from source at every start, as this environment sets it).
- **listed**, with start: spawn → the list's border naming every session ("10000
  sessions"), warm caches, and the app's CPU time then.
- **small commands**: spawn → exit of ``--help``, ``--version``, ``show KPT_ID``, ``meta
  FILE``, ``approve KPT_ID/keep-001``, ``import-wrapup`` of the seed's wrap-up input
  (imported once while priming: then already there) and ``search "jwks cache" --json`` (the
  index built while priming) (with bytecode), beside ``python -c pass``.
- **keys** (one app per round, warm cache, once idle): ``down`` in the sessions list,
  key → the end of the next frame; then ``/`` and the search queries of
  :mod:`benchmarks.search_bench` plus typo'd ones, typed one character at a time at most
  every 150 ms, and a mix of what people type beyond words (:data:`MIX`: backspaces,
  Japanese and Korean committed by an input method several characters at once, ids, a
  ``kind:`` filter): key → the end of the first frame that holds the results' status line
  (``… shown, …``). The pty answers Textual's query for synchronized output, so every
  frame ends with ``ESC[?2026l``. The same queries are typed into a bare Textual app with
  the search screen's layout that searches nothing (``benchmarks/bare_search.py``: each
  key puts 50 other rows in Textual's ``DataTable``): the baseline of the search lines.
- **memory**: the app's peak RSS (``VmHWM``) after opening every screen in turn (each
  until the process is idle), and the bare app's.
- **cache**: the sizes of the caches under the workspace's state directory, beside the
  size of the workspace's own files.
- **cold** (only when named in ``--only``): the first start with no caches, in the app in
  the pty (spawn → the index cache written at the end of the reading; the app process's
  peak RSS), beside the same reading in a plain process in the same round.

Everything runs on a copy of ``WS`` made first (and removed at the end): the app writes its
caches and ``approve`` appends to the ledger, and the measured workspace is never touched.
``--before`` runs on a copy of its own (a version's index cache removes another's).
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import json
import os
import pty
import re
import shlex
import shutil
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import threading
import time
from bisect import bisect_left
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent / "hurikaeri"
BARE = REPO / "benchmarks" / "bare_textual.py"
BARE_SEARCH = REPO / "benchmarks" / "bare_search.py"
WRAPUP = REPO / "tests" / "fixtures" / "seeds" / "wrapup-input.json"
COLS, ROWS = 120, 40
SYNC_QUERY = b"\x1b[?2026$p"
SYNC_REPLY = b"\x1b[?2026;2$y"
SYNC_START = b"\x1b[?2026h"
SYNC_END = b"\x1b[?2026l"
DATE = re.compile(rb"(?:19|20)\d\d-[01]\d-[0-3]\d")
ESCAPE = re.compile(r"\x1b\[[0-9;?<>=$]*[ -/]*[@-~]|\x1b[()][0-9A-Za-z]|\x1b[=>78]")
RESULTS = "shown,"  # the search screen's status line: "N matches · 50 shown, best first · …"

QUERIES: dict[str, list[str]] = {
    "common": ["test", "error", "config"],
    "rare": ["retrybucket", "nullreference", "preflight"],
    "multi-word": ["rate limit", "migration script", "jwks cache"],
    "japanese": ["タイムゾーン", "失敗するテスト", "実データ"],
    "korean": ["타임존", "재시도"],
    "id-like": ["kpt-20251221-014", "ll-ai-202506", "ws-2026011"],
    "typo": ["confgi", "retrybukcet", "migraton scrpit"],
}
BACKSPACE = "\x7f"
#: What a person types beyond whole words, each entry a list of writes to the terminal (one
#: key each, or several characters at once: what an input method commits): typos put right
#: with backspace, Japanese and Korean through an IME, an id, a ``kind:`` filter.
MIX: dict[str, list[list[str]]] = {
    "backspace": [
        [*"confg", BACKSPACE, *"ig"],
        [*"migrta", BACKSPACE, BACKSPACE, BACKSPACE, *"ration"],
        [*"rate limt", BACKSPACE, *"it"],
    ],
    "ime-japanese": [["タイム", "ゾーン"], ["失敗", "する", "テスト"], ["実", "データ"]],
    "ime-korean": [["타임", "존"], ["재시", "도"]],
    "id": [[*"ll-ai-2025"], [*"kpt-2025122"]],
    "filter": [[*"kind:lesson te"], [*"kind:try rate"]],
}
#: The screens opened in turn for the memory figure, by their keys (Escape closes each).
SCREEN_KEYS = ["L", "S", "/", "I", "K", "D", "T", "M", "P", "H", "C"]


def code_dir(env: dict[str, str]) -> str:
    """Where a run starts: its code's tree (``python -c`` and the fork server's workers put
    the working directory first on the path: from this tree, a ``--before`` run's workers
    would parse with this tree's code)."""
    return env.get("PYTHONPATH") or str(REPO)


def env_for(bytecode: bool, pycache: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TEXTUAL", "BENCH"))}
    env |= {"TERM": "xterm-256color", "COLORTERM": "truecolor", "LANG": "C.UTF-8"}
    if bytecode:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(pycache)
    else:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        env.pop("PYTHONPYCACHEPREFIX", None)
    return env


def cpu_s(pid: int) -> float:
    """CPU time of ``pid`` and its waited-for children, in seconds (0 when gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return sum(int(x) for x in fields[11:15]) / os.sysconf("SC_CLK_TCK")


def status_kb(pid: int, key: str) -> int:
    with contextlib.suppress(OSError):
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(key + ":"):
                return int(line.split()[1])
    return 0


class Term:
    """A process in a pseudo-terminal, every byte it writes kept with when it was read."""

    def __init__(self, argv: list[str], env: dict[str, str]) -> None:
        master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLS, 0, 0))
        self.buf = bytearray()
        self.ends: list[int] = []  # buffer length after each read
        self.times: list[float] = []  # ... and when that read returned
        self.cond = threading.Condition()
        self.answered = False
        self.master = master
        self.t0 = time.perf_counter()
        self.proc = subprocess.Popen(
            argv,
            stdin=slave,
            stdout=slave,
            stderr=slave,
            env=env,
            cwd=code_dir(env),
            start_new_session=True,
        )
        os.close(slave)
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        while True:
            try:
                data = os.read(self.master, 1 << 16)
            except OSError:
                break
            if not data:
                break
            now = time.perf_counter()
            with self.cond:
                start = max(0, len(self.buf) - len(SYNC_QUERY))
                self.buf += data
                self.ends.append(len(self.buf))
                self.times.append(now)
                self.cond.notify_all()
                ask = not self.answered and self.buf.find(SYNC_QUERY, start) >= 0
            if ask:
                self.answered = True
                self.write(SYNC_REPLY)

    def write(self, data: bytes) -> None:
        os.write(self.master, data)

    @property
    def size(self) -> int:
        with self.cond:
            return len(self.buf)

    def time_at(self, offset: int) -> float:
        """When the byte at ``offset - 1`` was read."""
        with self.cond:
            return self.times[min(bisect_left(self.ends, offset), len(self.times) - 1)]

    def wait(self, found: Callable[[bytearray], int | None], timeout: float) -> int | None:
        """Wait until ``found(buffer)`` gives an offset; ``None`` after ``timeout`` s."""
        deadline = time.perf_counter() + timeout
        with self.cond:
            while True:
                at = found(self.buf)
                if at is not None:
                    return at
                left = deadline - time.perf_counter()
                if left <= 0 or self.proc.poll() is not None:
                    return None
                self.cond.wait(left)

    def frame_end(self, buf: bytearray, at: int) -> int | None:
        """The end of the frame holding offset ``at`` (``at`` itself outside a frame)."""
        start, end = buf.rfind(SYNC_START, 0, at), buf.rfind(SYNC_END, 0, at)
        if start < 0 or start < end:
            return at
        close = buf.find(SYNC_END, at)
        return None if close < 0 else close + len(SYNC_END)

    def first_frame(self, since: int, holding: str | None, timeout: float) -> float | None:
        """When the first frame ending after ``since`` (holding ``holding``) was read."""

        def found(buf: bytearray) -> int | None:
            pos = since
            while (close := buf.find(SYNC_END, pos)) >= 0:
                end = close + len(SYNC_END)
                text = ESCAPE.sub("", buf[pos:close].decode("utf-8", "replace"))
                if (holding is None and text.strip()) or (holding is not None and holding in text):
                    return end
                pos = end
            return None

        at = self.wait(found, timeout)
        return None if at is None else self.time_at(at)

    def quiet(self, gap: float, timeout: float = 5.0) -> None:
        """Wait until nothing has been written for ``gap`` s."""
        deadline = time.perf_counter() + timeout
        while time.perf_counter() < deadline:
            with self.cond:
                last = self.times[-1] if self.times else self.t0
            if time.perf_counter() - last >= gap:
                return
            time.sleep(gap / 4)

    def idle(self, gap: float = 0.3, timeout: float = 120.0) -> None:
        """Wait until the process used next to no CPU for ``gap`` s and wrote nothing. An idle
        app is not at 0: the cursor's blink and the watchers' polls cost it 3-8 % of a core
        on a slow host, which a fixed 0.02 s never let through."""
        deadline = time.perf_counter() + timeout
        while time.perf_counter() < deadline:
            before = cpu_s(self.proc.pid)
            time.sleep(gap)
            if cpu_s(self.proc.pid) - before < max(0.02, 0.15 * gap):
                self.quiet(0.05)
                return

    def close(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGTERM)
        try:
            self.proc.wait(3)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
        os.close(self.master)


def first_row(argv: list[str], env: dict[str, str], timeout: float = 120.0) -> float:
    """Seconds from spawning ``argv`` to the end of the first frame holding a date."""
    term = Term(argv, env)
    try:

        def found(buf: bytearray) -> int | None:
            m = DATE.search(buf)
            return None if m is None else term.frame_end(buf, m.end())

        at = term.wait(found, timeout)
        if at is None:
            raise RuntimeError(f"{shlex.join(argv)}: no dated row in {timeout} s")
        return term.time_at(at) - term.t0
    finally:
        term.close()


def run_s(argv: list[str], env: dict[str, str]) -> float:
    t0 = time.perf_counter()
    subprocess.run(
        argv, env=env, cwd=code_dir(env), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    return time.perf_counter() - t0


def percentile(values: Sequence[float], p: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    k = (len(ordered) - 1) * p / 100
    lo, hi = int(k), min(int(k) + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


def type_search(term: Term) -> dict[str, list[float]]:
    """Every query typed into the open search screen a character at a time (at most one
    every 150 ms), the box emptied after each: each key's time (ms) from writing it to the
    end of the first frame holding the results, by class of query."""
    typed: dict[str, list[float]] = {}
    typings = {cat: [list(q) for q in queries] for cat, queries in QUERIES.items()} | MIX
    for category, queries in typings.items():
        times = typed.setdefault(category, [])
        for writes in queries:
            for ch in writes:
                since = term.size
                t0 = time.perf_counter()
                term.write(ch.encode())
                t = term.first_frame(since, RESULTS, 3.0)
                if t is not None:
                    times.append((t - t0) * 1000)
                time.sleep(max(0.0, t0 + 0.15 - time.perf_counter()))
                term.quiet(0.05, 2.0)
            since = term.size
            term.write(b"\x15")  # ctrl+u: the box emptied
            term.first_frame(since, RESULTS, 3.0)
            term.idle(0.2, 10)
    return typed


def app_keys(root: Path, env: dict[str, str], keys: int) -> dict[str, Any]:
    """The sessions list and search keystrokes in one app; see the module's docstring."""
    term = Term([str(BIN), "--root", str(root)], env)
    out: dict[str, Any] = {}
    try:
        if term.wait(lambda b: m.end() if (m := DATE.search(b)) else None, 120) is None:
            raise RuntimeError("the app showed no row")
        term.idle(0.5)
        moves: list[float] = []
        for _ in range(keys):
            since = term.size
            t0 = time.perf_counter()
            term.write(b"\x1b[B")
            t = term.first_frame(since, None, 2.0)
            if t is not None:
                moves.append((t - t0) * 1000)
            term.quiet(0.03)
        out["list_ms"] = moves
        since = term.size
        term.write(b"/")
        if term.first_frame(since, RESULTS, 300) is None:
            raise RuntimeError("search showed no results")
        term.idle(0.5)
        out["search_ms"] = type_search(term)
        out["rss_mb_after_search"] = status_kb(term.proc.pid, "VmHWM") / 1024
    finally:
        term.close()
    return out


def app_memory(root: Path, env: dict[str, str]) -> dict[str, Any]:
    term = Term([str(BIN), "--root", str(root)], env)
    try:
        if term.wait(lambda b: m.end() if (m := DATE.search(b)) else None, 120) is None:
            raise RuntimeError("the app showed no row")
        term.idle(0.5)
        steps = {"start": status_kb(term.proc.pid, "VmHWM") / 1024}
        for key in SCREEN_KEYS:
            term.write(key.encode())
            time.sleep(0.3)
            term.idle(0.5, 300)
            steps[key] = status_kb(term.proc.pid, "VmHWM") / 1024
            term.write(b"\x1b")
            time.sleep(0.3)
            term.idle(0.3, 60)
        return {"peak_rss_mb": steps}
    finally:
        term.close()


LISTED = re.compile(rb"\b\d+ sessions")


def every_session_listed(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Seconds from spawning the app to the list's border naming its sessions ("10000
    sessions"): every session read and listed (the page kept from last start says
    "reading the workspace…" until then); and the app's CPU seconds then (which a loaded
    machine distorts less than the wall's)."""
    term = Term(argv, env)
    try:
        at = term.wait(lambda b: m.end() if (m := LISTED.search(b)) else None, 600)
        if at is None:
            raise RuntimeError(f"{shlex.join(argv)}: the sessions were never all listed")
        return term.time_at(at) - term.t0, cpu_s(term.proc.pid)
    finally:
        term.close()


def prime_app(argv: list[str], env: dict[str, str], root: Path) -> None:
    """The warm start every later round measures: the workspace read to the end once by the
    same code (``hurikaeri stats``, which writes the index cache when it parsed anything),
    then the app run until every session is listed and it is idle (the page kept for the
    next start written). An app ended at its first row, in the middle of a first reading,
    would leave no cache, and every round would read again."""
    subprocess.run(
        [argv[0], "stats", "--root", str(root)],
        env=env,
        cwd=code_dir(env),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        check=False,
    )
    term = Term(argv, env)
    try:
        if term.wait(lambda b: m.end() if (m := LISTED.search(b)) else None, 600) is None:
            raise RuntimeError("the app never listed every session")
        term.idle(1.0, 600)
    finally:
        term.close()


def drop_caches(root: Path) -> None:
    """The workspace as a first start (or one after an upgrade) finds it: no caches."""
    state = root / ".hurikaeri"
    for p in [*state.glob("*cache*"), *state.glob("first-page*")]:
        if p.is_dir():
            shutil.rmtree(p, ignore_errors=True)
        else:
            p.unlink(missing_ok=True)


def index_written(root: Path) -> bool:
    """The index cache is written at the end of the first reading: everything is read."""
    return any((root / ".hurikaeri").glob("index-cache-*"))


def app_cold(root: Path, env: dict[str, str]) -> dict[str, float]:
    """The app's first start on the workspace without caches, in the pty: spawn → the end of
    the reading (its index cache written), and the app process's peak RSS then (its worker
    processes apart: they end with the parse)."""
    drop_caches(root)
    term = Term([str(BIN), "--root", str(root)], env)
    try:
        while not index_written(root):
            if term.proc.poll() is not None:
                raise RuntimeError("the app ended before it had read the workspace")
            time.sleep(0.05)
        wall = time.perf_counter() - term.t0
        return {"wall_s": wall, "peak_rss_mb": status_kb(term.proc.pid, "VmHWM") / 1024}
    finally:
        term.close()


def plain_cold(root: Path, env: dict[str, str]) -> dict[str, float]:
    """The same first reading in a plain process (no terminal, no UI), the same code:
    ``WorkspaceIndex(ws).load_all()``, spawn → exit."""
    drop_caches(root)
    code = (
        "import resource, sys\n"
        "from benchmarks.probe import workspace\n"
        "from store.index.workspace_index import WorkspaceIndex\n"
        "if __name__ == '__main__':\n"
        "    WorkspaceIndex(workspace(sys.argv[1])).load_all()\n"
        "    print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)\n"
    )
    t0 = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", code, str(root)],
        env=env,
        cwd=code_dir(env),
        capture_output=True,
        text=True,
    )
    wall = time.perf_counter() - t0
    if done.returncode != 0:
        raise RuntimeError(f"the plain reading failed: {done.stderr[-500:]}")
    return {"wall_s": wall, "peak_rss_mb": int(done.stdout.split()[-1]) / 1024}


def bare_keys(env: dict[str, str]) -> dict[str, Any]:
    """The same queries typed into a bare Textual app with the search screen's layout that
    searches nothing (``benchmarks/bare_search.py``): Textual's own cost of such a frame."""
    term = Term([sys.executable, str(BARE_SEARCH)], env)
    try:
        if term.first_frame(0, RESULTS, 60) is None:
            raise RuntimeError("the bare search app showed no results")
        term.idle(0.5)
        return {"search_ms": type_search(term)}
    finally:
        term.close()


def bare_memory(env: dict[str, str]) -> float:
    term = Term([sys.executable, str(BARE)], env)
    try:
        term.wait(lambda b: m.end() if (m := DATE.search(b)) else None, 60)
        term.idle(0.3)
        return status_kb(term.proc.pid, "VmHWM") / 1024
    finally:
        term.close()


def cache_sizes(root: Path) -> dict[str, float]:
    """MB: the workspace's own files, and each file under its state directory's caches."""
    from benchmarks.probe import workspace

    ws = workspace(str(root))
    own = sum(f.path.stat().st_size for f in ws.discover())
    out = {"workspace": own / 1e6}
    for p in sorted(ws.state_dir.rglob("*")):
        if p.is_file() and ("cache" in p.name or p.suffix in (".bin", ".db", ".idx")):
            out[str(p.relative_to(ws.state_dir))] = p.stat().st_size / 1e6
    return out


def some_ids(root: Path) -> tuple[str, Path]:
    kpt = sorted((root / "hurikaeri").glob("kpt-*.yaml"))
    md = sorted((root / "discussions").rglob("*.md"))
    if not kpt or not md:
        raise SystemExit(f"{root}: needs a KPT report and a discussion (benchmarks.generate)")
    return kpt[0].stem, md[0]


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.feel", description=__doc__)
    p.add_argument("root", type=Path)
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--keys", type=int, default=40, help="'down' presses in the list")
    p.add_argument(
        "--only",
        default="start,small,keys,memory,cache",
        help="what to measure, of start,small,keys,memory,cache,cold (cold: the first start "
        "with no caches, in the app and in a plain process; not measured unless named)",
    )
    p.add_argument(
        "--before",
        type=Path,
        help="a copy of the sources to measure too, round by round (put first on PYTHONPATH)",
    )
    p.add_argument("--json", type=Path)
    a = p.parse_args(argv)
    scratch = Path(tempfile.mkdtemp(prefix="hurikaeri-feel-"))
    try:
        root = scratch / a.root.resolve().name
        print(f"copying {a.root} to {root} (measured there)…", file=sys.stderr, flush=True)
        shutil.copytree(a.root.resolve(), root, symlinks=True)
        return measure(a, root)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def measure(a: argparse.Namespace, root: Path) -> int:
    """Every figure of :func:`main`, on ``root`` (the copy)."""
    only = set(a.only.split(","))
    pycache = Path(tempfile.gettempdir()) / f"hurikaeri-feel-pycache-{os.getuid()}"
    variants: dict[str, tuple[dict[str, str], dict[str, str]]] = {}
    if a.before:
        code = str(a.before.resolve())
        variants["before"] = (
            env_for(True, pycache) | {"PYTHONPATH": code},
            env_for(False, pycache) | {"PYTHONPATH": code},
        )
    variants["after"] = (env_for(True, pycache), env_for(False, pycache))
    with_bc, without_bc = variants["after"]
    # each its own copy: two versions' caches in one workspace would remove each other (a
    # cache of another version is deleted when one is written), and every start re-read
    roots = {name: root for name in variants}
    if a.before:
        roots["before"] = root.with_name(root.name + "-before")
        shutil.copytree(root, roots["before"], symlinks=True)
    apps = {name: [str(BIN), "--root", str(r)] for name, r in roots.items()}
    bare = [sys.executable, str(BARE)]
    kpt_id, md = some_ids(root)
    smalls = {
        name: {
            "--help": [str(BIN), "--help"],
            "--version": [str(BIN), "--version"],
            "show": [str(BIN), "show", kpt_id, "--root", str(r)],
            "meta": [str(BIN), "meta", str(r / md.relative_to(root)), "--root", str(r)],
            # what hooks run after a session: a decision (one ledger line more each time)
            # and a wrap-up imported again (already there after the first run: nothing
            # written)
            "approve": [str(BIN), "approve", f"{kpt_id}/keep-001", "--root", str(r)],
            "import-wrapup": [str(BIN), "import-wrapup", str(WRAPUP), "--root", str(r)],
            # a query of search_bench's command-line set, the index built while priming
            "search": [str(BIN), "search", "jwks cache", "--json", "--root", str(r)],
        }
        for name, r in roots.items()
    }

    def log(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    log("priming: bytecode, the index and search caches…")
    first_row(bare, with_bc)
    run_s([sys.executable, "-c", "pass"], with_bc)
    if "keys" in only:
        bare_keys(with_bc)
    for name, (env, _) in variants.items():
        prime_app(apps[name], env, roots[name])
        if "small" in only:
            for cmd in smalls[name].values():
                run_s(cmd, env)
        if "keys" in only or "memory" in only:
            term = Term(apps[name], env)
            try:
                term.wait(lambda b: m.end() if (m := DATE.search(b)) else None, 600)
                term.idle(0.5, 600)
                term.write(b"/")
                term.first_frame(0, RESULTS, 1200)
                term.idle(1.0, 1200)
            finally:
                term.close()

    runs: dict[str, list[Any]] = {}

    def add(key: str, value: Any) -> None:
        runs.setdefault(key, []).append(value)

    for n in range(a.runs):
        log(f"round {n + 1}/{a.runs}")
        if "start" in only:
            add("bare:start", first_row(bare, with_bc))
            add("bare:start.nobc", first_row(bare, without_bc))
            for name, (env, env_nobc) in variants.items():
                add(f"{name}:start", first_row(apps[name], env))
                add(f"{name}:start.nobc", first_row(apps[name], env_nobc))
                wall, cpu = every_session_listed(apps[name], env)
                add(f"{name}:listed", wall)
                add(f"{name}:listed.cpu", cpu)
        if "small" in only:
            add("bare:small.python -c pass", run_s([sys.executable, "-c", "pass"], with_bc))
            for name, (env, _) in variants.items():
                for cmd_name, cmd in smalls[name].items():
                    add(f"{name}:small.{cmd_name}", run_s(cmd, env))
        if "keys" in only:
            log("  keys: bare Textual")
            add("bare:keys", bare_keys(with_bc))
            for name, (env, _) in variants.items():
                log(f"  keys: {name}")
                add(f"{name}:keys", app_keys(roots[name], env, a.keys))
        if "cold" in only:
            add("plain:cold", plain_cold(root, with_bc))
            for name, (env, _) in variants.items():
                log(f"  cold start: {name}")
                add(f"{name}:cold", app_cold(roots[name], env))
        if "memory" in only:
            add("bare:memory", bare_memory(with_bc))
            for name, (env, _) in variants.items():
                log(f"  memory: {name}")
                add(f"{name}:memory", app_memory(roots[name], env))

    report(a, root, list(variants), runs, cache_sizes(root) if "cache" in only else {})
    if a.json:
        a.json.write_text(json.dumps({"root": str(a.root), "runs": runs}, indent=1) + "\n")
    return 0


def span(values: Sequence[float], fmt: str) -> str:
    if not values:
        return "—"
    med = statistics.median(values)
    rng = f" ({fmt.format(min(values))}–{fmt.format(max(values))})" if len(values) > 1 else ""
    return fmt.format(med) + rng


def report(
    a: argparse.Namespace,
    root: Path,
    names: list[str],
    runs: dict[str, list[Any]],
    cache: dict[str, float],
) -> None:
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"# felt speed: {root}\n")
    print(f"{a.runs} rounds, medians (min–max); load average at the end {load}\n")
    print(f"| figure | {' | '.join(names)} | baseline, same run | ratio |")
    print(f"|---|{'---|' * len(names)}---|---:|")

    def line(label: str, figure: Callable[[str], list[float]], base: list[float], fmt: str) -> None:
        cells = [span(figure(n), fmt) for n in names]
        meds = [statistics.median(v) if (v := figure(n)) else None for n in names]
        ratio = ""
        if base and meds[-1] is not None:
            ratio = f"{meds[-1] / statistics.median(base):.2f}× baseline"
        elif len(names) > 1 and meds[0] and meds[-1] is not None:
            ratio = f"{meds[-1] / meds[0]:.2f}× before"
        print(f"| {label} | {' | '.join(cells)} | {span(base, fmt) if base else ''} | {ratio} |")

    def plain(key: str) -> Callable[[str], list[float]]:
        return lambda n: runs.get(f"{n}:{key}", [])

    if "bare:start" in runs:
        line("launch → first dated row", plain("start"), runs["bare:start"], "{:.2f} s")
        line(
            "launch → first dated row, no bytecode",
            plain("start.nobc"),
            runs["bare:start.nobc"],
            "{:.2f} s",
        )
    if any(k.endswith(":listed") for k in runs):
        line("warm start → every session listed", plain("listed"), [], "{:.2f} s")
        line("warm start → every session listed, CPU", plain("listed.cpu"), [], "{:.2f} s")
    if "plain:cold" in runs:
        for key, label, fmt in (
            ("wall_s", "first start, no caches: spawn → everything read", "{:.1f} s"),
            ("peak_rss_mb", "first start, no caches: peak RSS of the app process", "{:.0f} MB"),
        ):
            line(
                f"{label} (baseline: the same reading in a plain process)",
                lambda n, key=key: [r[key] for r in runs.get(f"{n}:cold", [])],
                [r[key] for r in runs["plain:cold"]],
                fmt,
            )
    base = runs.get("bare:small.python -c pass", [])
    for key in sorted({k.split(":", 1)[1] for k in runs if ":small." in k and "pass" not in k}):
        line(f"`hurikaeri {key[6:]}` spawn → exit", plain(key), base, "{:.3f} s")

    def keys(pick: Callable[[dict[str, Any]], list[float]], stat: int) -> Callable[[str], list]:
        return lambda n: [
            v for r in runs.get(f"{n}:keys", []) if (v := percentile(pick(r), stat)) is not None
        ]

    if any(k.endswith(":keys") for k in runs):
        for stat in (50, 95):
            line(
                f"sessions list: `down` → frame, p{stat}",
                keys(lambda r: r["list_ms"], stat),
                [],
                "{:.1f} ms",
            )
        for cat in [*QUERIES, *MIX, "words", "mix", "all"]:

            def pick(r: dict[str, Any], cat: str = cat) -> list[float]:
                typed: dict[str, list[float]] = r["search_ms"]
                groups = {"words": list(QUERIES), "mix": list(MIX), "all": list(typed)}
                return [t for c in groups.get(cat, [cat]) for t in typed.get(c, [])]

            for stat in (50, 95):
                line(
                    f"search, {cat}: key → results frame, p{stat}",
                    keys(pick, stat),
                    keys(pick, stat)("bare"),
                    "{:.1f} ms",
                )
        line(
            "peak RSS after typing in search",
            lambda n: [r["rss_mb_after_search"] for r in runs.get(f"{n}:keys", [])],
            [],
            "{:.0f} MB",
        )
    if "bare:memory" in runs:
        for key in ["start", *SCREEN_KEYS]:
            line(
                f"peak RSS, screens opened up to `{key}`",
                lambda n, key=key: [r["peak_rss_mb"][key] for r in runs.get(f"{n}:memory", [])],
                runs["bare:memory"] if key == "start" else [],
                "{:.0f} MB",
            )
    for name, size in cache.items():
        print(f"| on disk: {name} | {size:.1f} MB |{' |' * len(names)}")


if __name__ == "__main__":
    sys.exit(main())
