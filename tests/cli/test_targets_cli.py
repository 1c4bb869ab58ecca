"""``hurikaeri targets`` and the secret scan on the command line (issue 21)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO

GH_TOKEN = "ghp_" + "zjgHWbmPZe9gwWQaq5mcdkU1gJQV3hDKJnQu"


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tui", *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        env=os.environ.copy(),
        stdin=subprocess.DEVNULL,
        timeout=120,
    )


def _root(tmp_path: Path) -> Path:
    root = tmp_path / "claude"
    (root / "hurikaeri").mkdir(parents=True)
    (root / "CLAUDE.md").write_bytes(b"\xef\xbb\xbf# Ops\r\n- run `no-such-tool-xyz --all`\r\n")
    (root / "skills" / "ops").mkdir(parents=True)
    (root / "skills" / "ops" / "SKILL.md").write_text(
        "---\nname: ops\n---\n- run `no-such-tool-xyz --all`\n"
    )
    (root / "hurikaeri" / "kpt-20260101-001.yaml").write_text(
        "id: kpt-20260101-001\nproblem: []\nomission: []\n"
        f"try:\n  - id: try-001\n    description: push with {GH_TOKEN}\n"
        "    addresses: []\n    scope: global\n"
        "    persistence_target: {type: claude_md, path: CLAUDE.md, section: '## Ops'}\n"
    )
    return root


def test_targets_lists_files_and_findings_as_json(tmp_path: Path) -> None:
    root = _root(tmp_path)
    out = run("targets", "--root", str(root), "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    rows = {t["display"]: t for t in data["targets"]}
    assert rows["CLAUDE.md"]["kind"] == "claude_md" and rows["CLAUDE.md"]["bullets"] == 1
    assert rows["CLAUDE.md"]["findings"]["duplicate"] == 1
    assert rows["CLAUDE.md"]["findings"]["stale-command"] == 1
    assert rows["skills/ops/SKILL.md"]["budget"] == 5000
    stale = run("targets", "--root", str(root), "--stale")
    assert stale.returncode == 0
    assert "CLAUDE.md:2: stale-command" in stale.stdout


def test_promoting_a_secret_is_refused_and_the_file_unchanged(tmp_path: Path) -> None:
    root = _root(tmp_path)
    before = (root / "CLAUDE.md").read_bytes()
    out = run("promote", "kpt-20260101-001", "try-001", "--yes", "--root", str(root))
    assert out.returncode == 1
    assert "github-pat" in out.stderr and "ghp_" in out.stderr
    assert GH_TOKEN not in out.stderr + out.stdout
    assert (root / "CLAUDE.md").read_bytes() == before
    assert (
        not (root / ".hurikaeri" / "ledger.jsonl").exists()
        or "promote" not in (root / ".hurikaeri" / "ledger.jsonl").read_text()
    )


def test_a_target_not_read_says_so_in_the_text_and_fails(tmp_path: Path) -> None:
    """Issue 40, point 10: a 10 MB MEMORY.md was "0 lines, no findings" with exit 0, and a
    rule linked to a file outside the root was read and shown."""
    root = tmp_path / "claude"
    memory = root / "projects" / "-home-me-app" / "memory"
    memory.mkdir(parents=True)
    with (memory / "MEMORY.md").open("w", encoding="utf-8") as fh:
        fh.write("- a line of memory that goes on and on\n" * 260_000)
    (root / "rules").mkdir()
    secret = tmp_path / "outside.md"
    secret.write_text("- not for the agent\n", encoding="utf-8")
    os.symlink(secret, root / "rules" / "linked.md")
    out = run("targets", "--root", str(root))
    assert out.returncode == 1, out.stdout + out.stderr
    lines = out.stdout.splitlines()
    (memo,) = [ln for ln in lines if ln.startswith("projects/-home-me-app/memory/MEMORY.md  ")]
    assert "not read" in memo and "0 lines" not in memo
    (linked,) = [ln for ln in lines if ln.startswith("rules/linked.md  ")]
    assert "not read" in linked and str(secret) in linked
    assert "not for the agent" not in out.stdout
    data = json.loads(run("targets", "--root", str(root), "--json").stdout)
    assert {f["kind"] for f in data["findings"]} == {"unreadable"}


def test_a_targets_line_says_when_and_what_apart(
    demo_root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 44, point 14: `written 2026-11-28T22:19: duplicate 1` read the findings as part
    of the time. The line says who wrote it and when, in local time, then the findings."""
    from tui.cli.main import main

    assert main(["promote", "kpt-20261028-001/try-001", "--yes", "--root", str(demo_root)]) == 0
    capsys.readouterr()
    main(["targets", "--root", str(demo_root)])
    lines = capsys.readouterr().out.splitlines()
    (claude,) = [line for line in lines if line.startswith("CLAUDE.md  ")]
    assert re.search(r"written by hurikaeri \d{4}-\d\d-\d\d \d\d:\d\d · findings: \w", claude)
    assert not re.search(r"\d\d:\d\d: ", claude)
    others = [line for line in lines if "[skill_yaml]" in line]
    assert others and all("not written by hurikaeri · " in line for line in others)
