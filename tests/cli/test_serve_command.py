"""The app ``hurikaeri serve`` runs per browser session imports our ``tui``, never one from
the directory serve was started in (an agent's workspace)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from store.workspace import Workspace
from tests.conftest import DEMO
from tui.cli.serve import app_command


def test_the_served_app_imports_no_tui_from_the_directory_serve_runs_in(tmp_path: Path) -> None:
    here = tmp_path / "workspace"
    (here / "tui").mkdir(parents=True)
    mark = tmp_path / "imported"
    (here / "tui" / "__init__.py").write_text(f"open({str(mark)!r}, 'w').close()\n")
    (here / "tui" / "__main__.py").write_text("")
    command = app_command(Workspace(DEMO), None)
    done = subprocess.run(
        [*command, "--version"], cwd=here, capture_output=True, text=True, check=False
    )
    assert not mark.exists()
    assert done.returncode == 0 and "hurikaeri" in done.stdout, done.stderr


def test_the_served_app_reads_the_config_it_was_given() -> None:
    command = app_command(Workspace(DEMO), Path("/tmp/c.toml"))
    assert command[-4:] == ["--root", str(DEMO), "--config", "/tmp/c.toml"]
