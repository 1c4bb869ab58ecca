"""An app whose terminal disappears without a hang-up signal ends (issue 47, point 4).

When a pty's other side closes and the app is not the session's leader (started by a tool
that holds the terminal, or with SIGHUP ignored), no signal comes: Textual's input thread
then spins on the dead descriptor, most of a core for ever. The app looks for the hang-up
on its input and ends."""

from __future__ import annotations

import os
import select
import subprocess
import sys
from pathlib import Path

import pytest

pty = pytest.importorskip("pty")


def test_the_app_ends_when_its_terminal_is_gone(tmp_path: Path) -> None:
    (tmp_path / "hurikaeri").mkdir()
    master, slave = pty.openpty()
    child = subprocess.Popen(
        [sys.executable, "-m", "tui", "--root", str(tmp_path)],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env={**os.environ, "TERM": "xterm-256color", "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    os.close(slave)
    try:
        seen = b""
        while b"hurikaeri" not in seen:  # the first screen is drawn: the app runs
            ready, _, _ = select.select([master], [], [], 60)
            assert ready, f"the app drew nothing: {seen!r}"
            seen += os.read(master, 65536)
        os.close(master)  # the terminal goes away; no SIGHUP (no controlling terminal)
        master = -1
        child.wait(timeout=120)  # a bound for a failing run only: it ends within seconds
    finally:
        if master >= 0:
            os.close(master)
        if child.poll() is None:
            child.kill()
            child.wait()
    assert child.returncode is not None
