"""``promote --text`` (and ``--text -``): the person's wording, on the command line (#41).

Without ``--text`` the rule made from the description is written, and ``--dry-run`` shows it
before anything is written; ``--trigger``/``--reason`` set a memory entry's other fields; a
refused secret names how to override it (#44)."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from tests.conftest import REPO
from tui.cli.main import main

ITEM = "kpt-20261118-001/try-002"  # CLAUDE.md のセキュリティ規約に「…」を追記する
RULE = "リフレッシュトークンは不透明トークンで DB 管理"
MEMORY_ITEM = "kpt-20261030-002/try-002"


def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tui", *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        env=os.environ.copy(),
        input=stdin,
        stdin=None if stdin is not None else subprocess.DEVNULL,
        timeout=120,
    )


def _report(root: Path) -> Path:
    return next(root.rglob("kpt-20261118-001.yaml"))


def test_dry_run_shows_the_rule_made_from_the_instruction(demo_root: Path) -> None:
    root = ["--root", str(demo_root)]
    claude = (demo_root / "CLAUDE.md").read_bytes()
    r = run("promote", ITEM, "--dry-run", *root)
    assert r.returncode == 0, r.stderr
    assert f"# text: {RULE}\n" in r.stdout
    assert f"+- {RULE}\n" in r.stdout and "追記する" not in r.stdout
    r = run("promote", ITEM, "--dry-run", "--json", *root)
    assert json.loads(r.stdout)["text"] == RULE
    assert (demo_root / "CLAUDE.md").read_bytes() == claude


def test_text_is_what_is_written_and_the_report_is_kept(demo_root: Path) -> None:
    root = ["--root", str(demo_root)]
    report = _report(demo_root).read_bytes()
    wording = "リフレッシュトークンは不透明な値にして DB で失効を管理する"
    r = run("promote", ITEM, "--text", wording, "--yes", *root)
    assert r.returncode == 0, r.stderr
    assert f"as: {wording}" in r.stdout
    assert f"- {wording}\n" in (demo_root / "CLAUDE.md").read_text("utf-8")
    assert _report(demo_root).read_bytes() == report
    r = run("history", "--json", *root)
    assert wording in r.stdout


def test_text_from_standard_input(demo_root: Path) -> None:
    root = ["--root", str(demo_root)]
    wording = "Refresh tokens are opaque and kept in the DB\n"
    r = run("promote", ITEM, "--text", "-", "--yes", "--json", *root, stdin=wording)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["text"] == wording.strip()
    assert "- Refresh tokens are opaque and kept in the DB\n" in (
        demo_root / "CLAUDE.md"
    ).read_text("utf-8")


def test_memory_entry_fields_from_the_command_line(demo_root: Path) -> None:
    root = ["--root", str(demo_root)]
    r = run(
        "promote",
        MEMORY_ITEM,
        "--text",
        "Redis の統合テストは testcontainers で実物を起動する",
        "--trigger",
        "Redis を使うテストを書くとき",
        "--reason",
        "mock では Lua の原子性を確かめられない",
        "--yes",
        *root,
    )
    assert r.returncode == 0, r.stderr
    memory = YAML(typ="safe").load(
        (demo_root / "memory" / "harbor-api" / "project_memory.yaml").read_text("utf-8")
    )
    assert memory["learned_behaviors"][-1] == {
        "trigger": "Redis を使うテストを書くとき",
        "behavior": "Redis の統合テストは testcontainers で実物を起動する",
        "reason": "mock では Lua の原子性を確かめられない",
    }


def test_a_refused_secret_names_the_override(demo_root: Path) -> None:
    token = "ghp_" + "zjgHWbmPZe9gwWQaq5mcdkU1gJQV3hDKJnQu"
    r = run("promote", ITEM, "--text", f"push with {token}", "--yes", "--root", str(demo_root))
    assert r.returncode == 1
    assert "--allow-secret on the command line, o in the app" in r.stderr
    assert token not in r.stderr


def test_promote_text_from_stdin_is_bounded(
    demo_root: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``promote --text -`` read standard input whole (``< /dev/zero``: for ever)."""
    big = io.TextIOWrapper(io.BytesIO(b"x" * (9 * 1024 * 1024)), encoding="utf-8")
    monkeypatch.setattr(sys, "stdin", big)
    args = ["promote", "kpt-20261102-001/try-002", "--text", "-", "--dry-run"]
    assert main([*args, "--root", str(demo_root)]) == 1
    err = capsys.readouterr().err
    assert "<stdin>: over" in err and len(err.strip().splitlines()) == 1, err[:300]
