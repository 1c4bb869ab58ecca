"""Parsing workers start inside the running app (issue 47, point 1).

Textual replaces ``sys.stderr`` with a capture whose ``fileno()`` is -1 while an app runs;
multiprocessing's resource tracker, started from inside the app, was handed that
descriptor and every pool failed to start, so a first start parsed on one core in the
app's own process, silently. The app starts the tracker before Textual takes standard
error over, and a fallback to one core is told as a warning, never silent.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from store.index import parallel
from tests.tui.helpers import make_app, until

#: A fresh interpreter (the tracker is one per process: another test may have started it
#: already in this one) builds the app on a workspace with no caches and more to parse
#: than is parsed in-process, waits until it is read, then hands chunks to the workers
#: from a thread of the running app and prints which processes ran them.
SCRIPT = textwrap.dedent(
    """
    import asyncio, json, os, sys

    from store.index import parallel
    from tui.app import create_app


    def pid_of(chunk):
        return [os.getpid()]


    async def main(root):
        app = create_app(root, watch=False)
        told = []
        app.notify = lambda message, **kw: told.append(str(message))
        async with app.run_test() as pilot:
            await asyncio.wait_for(app.loaded.wait(), 600)
            pids = await asyncio.to_thread(
                lambda: [p for r in parallel.map_chunks(
                    pid_of, [[0], [1], [2], [3]], parallel.SERIAL_BELOW
                ) for p in r]
            )
            await pilot.pause()
            stats = dict(app.index.stats)
        print(json.dumps({"mine": os.getpid(), "pids": pids, "told": told, "stats": stats}))


    if __name__ == "__main__":
        asyncio.run(main(sys.argv[1]))
    """
)


def _big_workspace(root: Path) -> None:
    """Lessons enough to be parsed in workers (more than ``SERIAL_BELOW`` bytes)."""
    folder = root / "lessons" / "ai"
    folder.mkdir(parents=True)
    line = {
        "type": "ai_mistake",
        "title": "ran the migration before the backup",
        "description": "The backup must come first; " + "details " * 40,
        "project": "demo",
        "date": "2026-11-01T10:00:00",
    }
    n = parallel.SERIAL_BELOW // 400 + 1
    with (folder / "lessons.jsonl").open("w", encoding="utf-8") as f:
        for i in range(n):
            f.write(json.dumps({"id": f"ll-ai-20261101-{i:06d}", **line}) + "\n")


@pytest.mark.slow
def test_the_app_parses_in_worker_processes(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    _big_workspace(root)
    script = tmp_path / "probe.py"
    script.write_text(SCRIPT, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    done = subprocess.run(
        [sys.executable, str(script), str(root)], capture_output=True, text=True, env=env
    )
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout.strip().splitlines()[-1])
    assert got["stats"]["parsed"] >= 1  # the workspace was read with no cache
    assert got["pids"] and got["mine"] not in got["pids"], got
    assert not [t for t in got["told"] if "one core" in t], got["told"]


async def test_workers_that_cannot_start_are_told_not_silent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_pool(*args: object, **kwargs: object) -> None:
        raise OSError("no semaphores here")

    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", no_pool)
    app = make_app(tmp_path)
    told: list[str] = []
    monkeypatch.setattr(app, "notify", lambda message, **kw: told.append(str(message)))
    async with app.run_test() as pilot:
        got = await asyncio.to_thread(
            lambda: list(parallel.map_chunks(len, [[1, 2], [3]], parallel.SERIAL_BELOW))
        )
        assert sorted(got) == [1, 2]  # the work is still done, here
        await until(pilot, lambda: any("one core" in t for t in told))
    assert any("no semaphores here" in t for t in told)
