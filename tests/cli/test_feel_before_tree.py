"""``benchmarks.feel --before``: a run of the other tree parses with that tree's code, its
worker processes included (a fork server's workers put the working directory first)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from benchmarks.feel import code_dir, env_for

PROBE = """
import multiprocessing
ctx = multiprocessing.get_context("forkserver")
ctx.set_forkserver_preload(["store"])
if __name__ == "__main__":
    with ctx.Pool(1) as pool:
        print(pool.apply(eval, ("__import__('store').__file__",)))
"""


def test_a_before_runs_workers_import_the_before_tree(tmp_path: Path) -> None:
    before = tmp_path / "before"
    (before / "store").mkdir(parents=True)
    (before / "store" / "__init__.py").write_text("")
    env = env_for(True, tmp_path / "pycache") | {"PYTHONPATH": str(before)}
    done = subprocess.run(
        [sys.executable, "-c", PROBE],
        env=env,
        cwd=code_dir(env),
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    assert Path(done.stdout.strip()).parent == before / "store"
