"""``git`` as hurikaeri runs it: no prompt, the C locale (messages are matched), no optional
lock (never blocking the person's git), any file name surviving (``surrogateescape``)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path


def run_git(
    cwd: Path, *args: str, timeout: float | None = None
) -> subprocess.CompletedProcess[str]:
    """``git args`` in ``cwd``, not checked; ``OSError`` when there is no git."""
    return subprocess.run(
        ["git", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        errors="surrogateescape",
        timeout=timeout,
        check=False,
        env={**os.environ, "GIT_TERMINAL_PROMPT": "0", "GIT_OPTIONAL_LOCKS": "0", "LC_ALL": "C"},
    )
