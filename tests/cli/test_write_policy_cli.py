"""The command line writes only where it was told (issue 14): global options in either place,
approvals shown as a diff and confirmed, exports never over workspace files."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO


def _home(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A fake home whose ~/.claude must never be touched by a command given --root."""
    home = tmp_path / "home"
    claude = home / ".claude"
    (claude / "hurikaeri").mkdir(parents=True)
    (claude / "CLAUDE.md").write_text("# mine\n")
    return home, {"HOME": str(home)}


def run(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tui", *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        stdin=subprocess.DEVNULL,
        timeout=120,
    )


def _tree(top: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(top)): p.read_bytes()
        for p in sorted(top.rglob("*"))
        if p.is_file() and "index-cache" not in p.name and "search-cache" not in p.name
    }


@pytest.mark.parametrize("where", ["before", "after"])
def test_global_options_work_before_or_after_the_subcommand(
    tmp_path: Path, demo_root: Path, where: str
) -> None:
    home, env = _home(tmp_path)
    untouched = _tree(home)
    root = ["--root", str(demo_root)]

    def cmd(*args: str) -> list[str]:
        return [*root, *args] if where == "before" else [args[0], *root, *args[1:]]

    r = run(*cmd("approve", "kpt-20261120-001/keep-001"), env=env)
    assert r.returncode == 0, r.stderr
    assert "kpt-20261120-001/keep-001" in (demo_root / ".hurikaeri" / "ledger.jsonl").read_text()
    r = run(*cmd("stats", "--json"), env=env)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["counts"]["sessions"] > 20
    r = run(*cmd("show", "kpt-20261120-001/keep-001", "--json"), env=env)
    assert json.loads(r.stdout)["state"] == "approved"
    assert _tree(home) == untouched


def test_lint_with_root_before_the_subcommand_sees_the_errors(tmp_path: Path) -> None:
    _home_dir, env = _home(tmp_path)
    ws = tmp_path / "ws"
    (ws / "hurikaeri").mkdir(parents=True)
    (ws / "hurikaeri" / "kpt-20260101-001.yaml").write_text("id: kpt-20260101-001\nkeep: [\n")
    r = run("--root", str(ws), "lint", env=env)
    assert r.returncode == 1
    assert "invalid YAML" in r.stdout


def test_config_before_the_subcommand_is_used(tmp_path: Path, demo_root: Path) -> None:
    _home_dir, env = _home(tmp_path)
    cfg = tmp_path / "c.toml"
    cfg.write_text('[write]\nallowed_dirs = ["/"]\n')
    r = run("--config", str(cfg), "--root", str(demo_root), "stats", env=env)
    assert r.returncode == 1
    assert "home directory" in r.stderr and "Traceback" not in r.stderr


@pytest.mark.slow
def test_approving_a_proposal_shows_the_diff_and_asks(tmp_path: Path, demo_root: Path) -> None:
    _home_dir, env = _home(tmp_path)
    target = demo_root / "knowledge_base/global/skills/duckdb_larger_than_memory.yaml"
    before = _tree(demo_root)
    r = run("approve", "prop-20261119-001", "--root", str(demo_root), env=env)
    assert r.returncode == 1
    assert "--yes" in r.stderr
    assert "+++ b/knowledge_base/global/skills/duckdb_larger_than_memory.yaml" in r.stdout
    r = run("approve", "prop-20261119-001", "--dry-run", "--root", str(demo_root), env=env)
    assert r.returncode == 0 and "+++ b/" in r.stdout
    assert _tree(demo_root) == before and not target.exists()
    r = run("approve", "prop-20261119-001", "--yes", "--root", str(demo_root), env=env)
    assert r.returncode == 0, r.stderr
    assert target.is_file()


def test_an_approval_into_settings_is_refused(tmp_path: Path, demo_root: Path) -> None:
    _home_dir, env = _home(tmp_path)
    prop = demo_root / "knowledge_base/inbox/prop-20261119-001.yaml"
    text = prop.read_text()
    prop.write_text(
        text.replace(
            "target: knowledge_base/global/skills/duckdb_larger_than_memory.yaml",
            "target: settings.json",
        )
    )
    (demo_root / "settings.json").write_text('{"permissions": {}}\n')
    r = run("approve", "prop-20261119-001", "--yes", "--root", str(demo_root), env=env)
    assert r.returncode == 1
    assert "settings" in r.stderr and "Traceback" not in r.stderr
    assert (demo_root / "settings.json").read_text() == '{"permissions": {}}\n'


def test_show_markdown_never_overwrites_a_report(tmp_path: Path, demo_root: Path) -> None:
    _home_dir, env = _home(tmp_path)
    report = demo_root / "hurikaeri" / "kpt-20261120-001.yaml"
    original = report.read_bytes()
    r = run(
        "show",
        "kpt-20261120-001",
        "--markdown",
        "-o",
        str(report),
        "--root",
        str(demo_root),
        env=env,
    )
    assert r.returncode == 1 and "refused" in r.stderr
    assert report.read_bytes() == original
    r = run(
        "show",
        "kpt-20261120-001",
        "--markdown",
        "-o",
        str(tmp_path / "no" / "such" / "x.md"),
        "--root",
        str(demo_root),
        env=env,
    )
    assert r.returncode == 1 and not (tmp_path / "no").exists()
    out = tmp_path / "session.md"
    r = run(
        "show",
        "kpt-20261120-001",
        "--markdown",
        "-o",
        str(out),
        "--root",
        str(demo_root),
        env=env,
    )
    assert r.returncode == 0 and str(out) in r.stdout and out.is_file()


def test_show_markdown_to_a_fifo_is_refused_at_once(tmp_path: Path, demo_root: Path) -> None:
    _home_dir, env = _home(tmp_path)
    fifo = tmp_path / "out.md"
    os.mkfifo(fifo)
    r = run(
        "show",
        "kpt-20261120-001",
        "--markdown",
        "-o",
        str(fifo),
        "--root",
        str(demo_root),
        env=env,
    )  # run() has a timeout: a blocked open would fail the test
    assert r.returncode == 1 and "not a regular file" in r.stderr
