"""``hurikaeri targets`` and the secret scan on the command line (issue 21)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

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
