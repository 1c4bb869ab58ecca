"""``hurikaeri completion bash|zsh|fish``: generated scripts that name every command (issue 17)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO
from tui.cli.main import main
from tui.cli.parser import build_parser


def script(capsys: pytest.CaptureFixture[str], shell: str) -> str:
    assert main(["completion", shell]) == 0
    return capsys.readouterr().out


def commands() -> list[str]:
    """The commands the usage line lists (``{demo,lint,…}``)."""
    found = re.search(r"\{([a-z,-]+)\}", build_parser().format_usage())
    assert found is not None
    return sorted(found.group(1).split(","))


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_each_shell_gets_a_script_naming_every_command(
    capsys: pytest.CaptureFixture[str], shell: str
) -> None:
    text = script(capsys, shell)
    assert "hurikaeri" in text and len(text.splitlines()) > 50
    for name in commands():
        assert name in text, (shell, name)
    assert "claude_md" in text  # retarget --type's choices


def test_paths_complete_as_files_and_directories(capsys: pytest.CaptureFixture[str]) -> None:
    """Each argument that takes a path completes as one: marked where the parser adds it."""
    text = script(capsys, "bash")
    for line in (
        "_shtab_hurikaeri___root_COMPGEN=_shtab_compgen_dirs",
        "_shtab_hurikaeri_lint___config_COMPGEN=_shtab_compgen_files",
        "_shtab_hurikaeri_show__o_COMPGEN=_shtab_compgen_files",
        "_shtab_hurikaeri_match___file_COMPGEN=_shtab_compgen_files",
    ):
        assert line in text, line
    assert "_shtab_hurikaeri_lint_pos_0_COMPGEN=_shtab_compgen_files" in text
    assert "_shtab_hurikaeri_import_wrapup_pos_0_COMPGEN=_shtab_compgen_files" in text
    zsh = script(capsys, "zsh")
    assert '"(*)::PATH:_files"' in zsh  # lint's paths


def test_completion_needs_no_workspace_and_no_config(tmp_path: Path) -> None:
    env = {**os.environ, "HOME": str(tmp_path), "HURIKAERI_CONFIG": str(tmp_path / "none.toml")}
    r = subprocess.run(
        [sys.executable, "-m", "tui", "completion", "fish"],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 0 and "complete -c hurikaeri" in r.stdout and not r.stderr


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not installed")
def test_the_bash_script_sources_and_completes(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "hurikaeri.bash"
    path.write_text(script(capsys, "bash"), encoding="utf-8")
    probe = (
        f"set -e; source {path}; complete -p hurikaeri; "
        'COMP_WORDS=(hurikaeri ret); COMP_CWORD=1; COMP_LINE="hurikaeri ret"; '
        "COMP_POINT=${#COMP_LINE}; _shtab_hurikaeri hurikaeri ret hurikaeri; "
        'echo "words: ${COMPREPLY[*]}"; '
        'COMP_WORDS=(hurikaeri retarget --type ""); COMP_CWORD=3; '
        'COMP_LINE="hurikaeri retarget --type "; COMP_POINT=${#COMP_LINE}; '
        '_shtab_hurikaeri hurikaeri "" --type; echo "types: ${COMPREPLY[*]}"'
    )
    r = subprocess.run(["bash", "-c", probe], capture_output=True, text=True, timeout=30)
    assert r.returncode == 0 and not r.stderr, r.stderr
    assert "-F _shtab_hurikaeri hurikaeri" in r.stdout
    assert "words: retarget\n" in r.stdout
    assert "types: claude_md skill hook memory\n" in r.stdout


@pytest.mark.skipif(shutil.which("zsh") is None, reason="zsh is not installed")
def test_the_zsh_script_parses(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "_hurikaeri"
    path.write_text(script(capsys, "zsh"), encoding="utf-8")
    r = subprocess.run(["zsh", "-n", str(path)], capture_output=True, text=True, timeout=30)
    assert r.returncode == 0, r.stderr


@pytest.mark.skipif(shutil.which("fish") is None, reason="fish is not installed")
def test_the_fish_script_parses(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "hurikaeri.fish"
    path.write_text(script(capsys, "fish"), encoding="utf-8")
    r = subprocess.run(
        ["fish", "--no-execute", str(path)], capture_output=True, text=True, timeout=30
    )
    assert r.returncode == 0, r.stderr
