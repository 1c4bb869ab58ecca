"""Fixtures shared by the screen tests."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest


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
