"""``import-wrapup`` as a hook runs it after a session: a fresh import each time.

Every run imports a wrap-up no earlier run wrote (the seed's input with a new session id
and its lessons' titles made unique), into the workspace given (it grows by a summary and
the lessons each run: use a copy), through the installed entry point, with bytecode. In the
same rounds, taking turns: the same import with ``--allow-secret`` (nothing scanned: the
floor), one whose lesson holds a token (refused: the scanner's rules are loaded), one right
after another import, and, with ``--before DIR``, the tree in ``DIR`` (put first on
``PYTHONPATH``) doing the same import.

A hook imports once a session ends, so the files it appends to were last written minutes
before (the previous session's import): each run but the one "right after" starts at least
``SETTLE_S`` after the run before ended. An import searches each file it appends to again
under the lock whatever its age, so "right after" shows what the page cache and a fresh
ledger cost, not a different path.

    uv run python -m benchmarks.wrapup_bench WS [--runs 7] [--before DIR]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Sequence
from pathlib import Path

from benchmarks.feel import BIN, WRAPUP, env_for

TOKEN = "ghp_" + "zjgHWbmPZe9gwWQaq5mcdkU1gJQV3hDKJnQu"
#: The pause before a run, after the run before it ended (a hook's gap between sessions).
SETTLE_S = 2.2


def fresh_input(folder: Path, *, secret: bool = False) -> Path:
    """The seed's wrap-up input as a session no run imported yet (``secret``: a lesson's
    summary holds a token)."""
    data = json.loads(WRAPUP.read_text(encoding="utf-8"))
    sid = str(uuid.uuid4())
    data["session_id"] = sid
    for kind in ("user_lessons", "ai_lessons"):
        for n, lesson in enumerate(data.get(kind, [])):
            lesson["title"] = f"{lesson.get('title', '')} {sid[:8]}-{n}"
    if secret:
        data["ai_lessons"][0]["summary"] = f"pushed with {TOKEN} by mistake"
    path = folder / f"{sid}.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


def timed(argv: list[str], env: dict[str, str]) -> tuple[float, int]:
    t0 = time.perf_counter()
    done = subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t0, done.returncode


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("root", type=Path)
    p.add_argument("--runs", type=int, default=7)
    p.add_argument("--before", type=Path, help="a checkout of the tree to compare with")
    a = p.parse_args(argv)
    root = a.root.resolve()
    pycache = Path(tempfile.gettempdir()) / "hurikaeri-feel-pycache"
    env = env_for(True, pycache)
    # name: (environment, extra arguments, a token in a lesson, exit status, settled first)
    cases: dict[str, tuple[dict[str, str], list[str], bool, int, bool]] = {
        "fresh import": (env, [], False, 0, True),
        "fresh import right after another (unsettled files)": (env, [], False, 0, False),
        "fresh import, --allow-secret (nothing scanned)": (env, ["--allow-secret"], False, 0, True),
        "a lesson holding a token (refused)": (env, [], True, 1, True),
    }
    if a.before:
        before = env | {"PYTHONPATH": str(a.before.resolve())}
        cases["fresh import, the tree before"] = (before, [], False, 0, True)
    times: dict[str, list[float]] = {name: [] for name in cases}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for e, extra, secret, _rc, _settled in cases.values():  # bytecode and caches written
            timed([str(BIN), "import-wrapup", str(fresh_input(folder, secret=secret)),
                   "--root", str(root), *extra], e)  # fmt: skip
        ended = time.monotonic()
        for n in range(a.runs):
            print(f"round {n + 1}/{a.runs}", file=sys.stderr, flush=True)
            for name, (e, extra, secret, rc, settled) in cases.items():
                wrapup = fresh_input(folder, secret=secret)
                if settled:
                    time.sleep(max(0.0, ended + SETTLE_S - time.monotonic()))
                took, got = timed(
                    [str(BIN), "import-wrapup", str(wrapup), "--root", str(root), *extra], e
                )
                ended = time.monotonic()
                if got != rc:
                    print(f"{name}: exit {got}, expected {rc}", file=sys.stderr)
                    return 1
                times[name].append(took)
    print(f"import-wrapup into {root}, {a.runs} rounds taking turns (median, min–max):")
    for name, values in times.items():
        print(
            f"  {name:52} {statistics.median(values):.3f} s ({min(values):.3f}–{max(values):.3f})"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
