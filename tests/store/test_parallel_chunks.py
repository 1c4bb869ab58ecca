"""Chunks parsed in worker processes (``store.index.parallel.map_chunks``): every result
comes back once, and only a few chunks run ahead of what the caller has taken, so that
results do not pile up in the caller's memory while it is busy with earlier ones."""

from __future__ import annotations

import concurrent.futures
import itertools
import multiprocessing
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from store.index import parallel


def _echo(chunk: list[str]) -> list[str]:
    return chunk


def test_every_chunk_once_and_only_a_few_ahead_of_the_caller(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    handed: list[object] = []
    submit = concurrent.futures.ProcessPoolExecutor.submit

    def counted(pool: Any, fn: Any, /, *args: Any, **kwargs: Any) -> Any:
        handed.append(args)
        return submit(pool, fn, *args, **kwargs)

    monkeypatch.setattr(concurrent.futures.ProcessPoolExecutor, "submit", counted)
    chunks = [[f"chunk-{i}"] for i in range(24)]
    got = parallel.map_chunks(_echo, chunks, parallel.SERIAL_BELOW + 1)
    first = next(got)
    # the caller busy with it: no other chunk is handed to the workers meanwhile
    assert len(handed) <= parallel.AHEAD * min(parallel.workers(), len(chunks)) < len(chunks)
    rest = list(got)
    assert len(handed) == len(chunks)
    assert sorted([*first, *itertools.chain(*rest)]) == sorted(c[0] for c in chunks)


def _die_in_a_worker(chunk: list[tuple[str, Any]]) -> list[str]:
    name, (before, dying) = chunk[0]
    if name == "die" and multiprocessing.parent_process() is not None:
        assert before.wait(60)  # c1 finished first
        dying.set()
        os._exit(1)  # a worker killed (the OOM killer, a crash in a C parser)
    if name == "c1":
        before.set()
    return [name]


def test_a_worker_that_dies_loses_no_chunk_another_finished(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Chunks finished before a worker died are still handed over, the rest parsed here."""
    got: list[str] = []
    with multiprocessing.Manager() as manager:
        events = (manager.Event(), manager.Event())
        names = ["c0", "c1", "die", "c3", "c4", "c5"]
        chunks = [[(name, events)] for name in names]
        for result in parallel.map_chunks(_die_in_a_worker, chunks, parallel.SERIAL_BELOW + 1):
            got.extend(result)
            if "c1" in got:  # the caller busy with what it took while the worker dies
                assert events[1].wait(60)
    assert sorted(got) == sorted(names)
    assert "BrokenProcessPool" in caplog.text  # the rest read here


HOSTILE_STORE = """import os
open(os.path.join(os.environ["MARKS"], "store-" + str(os.getpid())), "w").close()
"""
#: a standard library module shadowed: marks, then hands over the real one
HOSTILE_SELECTORS = """import importlib, os, sys
open(os.path.join(os.environ["MARKS"], "selectors-" + str(os.getpid())), "w").close()
saved = list(sys.path)
sys.path[:] = [p for p in sys.path if p not in ("", os.getcwd())]
del sys.modules["selectors"]
real = importlib.import_module("selectors")
sys.path[:] = saved
sys.modules["selectors"] = real
globals().update({k: v for k, v in vars(real).items() if not k.startswith("__")})
"""
RUN = """import os
import pytest

from store.index import parallel

def pid(chunk):
    return [os.getpid()]

if __name__ == "__main__":
    got = parallel.map_chunks(pid, [[1], [2], [3]], parallel.SERIAL_BELOW + 1, ["store.index.entries"])
    print(len({p for r in got for p in r if p != os.getpid()}))
"""


def test_workers_import_nothing_from_the_directory_hurikaeri_runs_in(tmp_path: Path) -> None:
    """Run in an agent's workspace holding a ``store/`` package and a ``selectors.py``, the
    tracker, the fork server and the workers import ours and the standard library's."""
    here, marks, runner = tmp_path / "workspace", tmp_path / "marks", tmp_path / "runner"
    for d in (here / "store", marks, runner):
        d.mkdir(parents=True)
    (here / "store" / "__init__.py").write_text(HOSTILE_STORE)
    (here / "selectors.py").write_text(HOSTILE_SELECTORS)
    (runner / "run.py").write_text(RUN)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONSAFEPATH"} | {"MARKS": str(marks)}
    done = subprocess.run(
        [sys.executable, str(runner / "run.py")],
        cwd=here,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert sorted(p.name.split("-")[0] for p in marks.iterdir()) == []
    assert int(done.stdout) >= 1, done.stderr  # parsed in workers, not here
    assert "one core" not in done.stderr
