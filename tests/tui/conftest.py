"""Fixtures shared by the screen tests."""

from __future__ import annotations

import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

try:
    import fcntl
except ImportError:  # not on Windows: snapshot runs there are not shared
    fcntl = None  # type: ignore[assignment]

#: Held by a snapshot test for its whole run, across processes: the snapshots copy the demo
#: to fixed paths (the header shows the workspace root), which two test runs on one machine
#: (two clones, CI beside a developer) would otherwise remove under each other.
SNAPSHOT_LOCK = Path(tempfile.gettempdir()) / "hurikaeri-snapshot.lock"


@pytest.fixture(autouse=True)
def _one_snapshot_run_at_a_time(request: pytest.FixtureRequest) -> Iterator[None]:
    if fcntl is None or "snap_compare" not in request.fixturenames:
        yield
        return
    with SNAPSHOT_LOCK.open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


@pytest.fixture
def fake_editor(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    """An $EDITOR that applies a scripted change to the file it is given."""

    def install(old: str, new: str) -> None:
        script = tmp_path / "editor.py"
        script.write_text(
            "import sys, pathlib\n"
            "p = pathlib.Path(sys.argv[1])\n"
            f"p.write_text(p.read_text(encoding='utf-8').replace({old!r}, {new!r}), encoding='utf-8')\n"
        )
        monkeypatch.setenv("EDITOR", f"{sys.executable} {script}")
        monkeypatch.delenv("VISUAL", raising=False)

    return install
