"""``--version`` and the demo's temporary copy (issue 17)."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
from importlib.metadata import version
from pathlib import Path

import pytest

import tui.cli as cli
from store import __version__
from tests.conftest import REPO


def test_version_prints_and_exits_0() -> None:
    r = subprocess.run(
        [sys.executable, "-m", "tui", "--version"], cwd=REPO, capture_output=True, text=True
    )
    assert r.returncode == 0
    assert r.stdout == f"hurikaeri {version('hurikaeri')}\n"


def test_the_version_in_the_code_is_the_projects() -> None:
    """``store.__version__`` (what ``--version`` prints and the index cache is stamped
    with, without asking the package's metadata at every start) is ``pyproject.toml``'s,
    as installed."""
    with (REPO / "pyproject.toml").open("rb") as fh:
        project = tomllib.load(fh)["project"]
    assert __version__ == project["version"] == version("hurikaeri")


@pytest.mark.parametrize("keep", [False, True])
def test_demo_removes_its_copy_unless_kept(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], keep: bool
) -> None:
    seen: list[Path] = []

    def fake_ui(ws: object) -> int:
        root = ws.root  # type: ignore[attr-defined]
        assert (root / "hurikaeri").is_dir()  # the app runs on a full copy
        seen.append(root)
        return 0

    monkeypatch.setattr(cli, "run_ui", fake_ui)
    assert cli.main(["demo", *(["--keep"] if keep else [])]) == 0
    (root,) = seen
    err = capsys.readouterr().err
    assert str(root) in err
    assert root.exists() is keep
    if keep:
        shutil.rmtree(root)


def test_demo_copy_is_removed_when_the_app_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[Path] = []

    def failing_ui(ws: object) -> int:
        seen.append(ws.root)  # type: ignore[attr-defined]
        raise RuntimeError("boom")

    monkeypatch.setattr(cli, "run_ui", failing_ui)
    assert cli.main(["demo"]) == 1
    assert not seen[0].exists()
