"""The secret scan on the command line (issue 21): promote, approve and import-wrapup refuse
agent text holding what looks like a secret — exit status 1, the match masked, the files
unchanged — and write it only with the explicit ``--allow-secret``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO, SEEDS

GH_TOKEN = "ghp_" + "zjgHWbmPZe9gwWQaq5mcdkU1gJQV3hDKJnQu"
DB_URL = "postgres://admin:" + "Xk9Lq2Rt7Wz1Pq" + "@db.internal:5432/app"


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


def _root(tmp_path: Path) -> Path:
    root = tmp_path / "claude"
    (root / "hurikaeri").mkdir(parents=True)
    (root / "CLAUDE.md").write_bytes(b"\xef\xbb\xbf# Ops\r\n- rotate keys every quarter\r\n")
    (root / "hurikaeri" / "kpt-20260101-001.yaml").write_text(
        "id: kpt-20260101-001\nproblem: []\nomission: []\n"
        f"try:\n  - id: try-001\n    description: push with {GH_TOKEN}\n"
        "    addresses: []\n    scope: global\n"
        "    persistence_target: {type: claude_md, path: CLAUDE.md, section: '## Ops'}\n"
    )
    inbox = root / "knowledge_base" / "inbox"
    inbox.mkdir(parents=True)
    (inbox / "prop-20260101-001.yaml").write_text(
        'id: prop-20260101-001\ncreated_at: "2026-01-01T10:00:00+09:00"\nproposed_by: agent\n'
        "kind: skill\ntitle: ci\nrationale: r\ntarget: knowledge_base/global/skills/ci.yaml\n"
        f"payload:\n  skill_id: ci\n  name: ci\n  content: 'connect with {DB_URL}'\n"
        "status: pending\n"
    )
    return root


def _ledger(root: Path) -> str:
    path = root / ".hurikaeri" / "ledger.jsonl"
    return path.read_text(encoding="utf-8") if path.exists() else ""


def test_promote_refuses_a_secret_unless_allowed(tmp_path: Path) -> None:
    root = _root(tmp_path)
    claude = root / "CLAUDE.md"
    before = claude.read_bytes()
    out = run("promote", "kpt-20260101-001", "try-001", "--yes", "--root", str(root))
    assert out.returncode == 1 and "github-pat ghp_" in out.stderr
    assert "CLAUDE.md:3:" in out.stderr and GH_TOKEN not in out.stderr + out.stdout
    assert claude.read_bytes() == before and "promote" not in _ledger(root)
    out = run(
        "promote", "kpt-20260101-001", "try-001", "--yes", "--allow-secret", "--root", str(root)
    )
    assert out.returncode == 0, out.stderr
    after = claude.read_bytes()
    assert after.startswith(b"\xef\xbb\xbf") and f"- push with {GH_TOKEN}\r\n".encode() in after


def test_approve_refuses_a_secret_in_a_proposal_unless_allowed(tmp_path: Path) -> None:
    root = _root(tmp_path)
    prop = root / "knowledge_base" / "inbox" / "prop-20260101-001.yaml"
    target = root / "knowledge_base" / "global" / "skills" / "ci.yaml"
    before = prop.read_bytes()
    out = run("approve", "prop-20260101-001", "--yes", "--root", str(root))
    assert out.returncode == 1 and "generic-credential-uri" in out.stderr
    assert "Xk9Lq2Rt7Wz1Pq" not in out.stderr + out.stdout
    assert prop.read_bytes() == before and not target.exists()
    out = run("approve", "prop-20260101-001", "--yes", "--allow-secret", "--root", str(root))
    assert out.returncode == 0, out.stderr
    assert DB_URL in target.read_text(encoding="utf-8")
    assert "status: approved" in prop.read_text(encoding="utf-8")


def test_import_wrapup_refuses_a_secret_unless_allowed(demo_root: Path) -> None:
    data = json.loads((SEEDS / "wrapup-input-v1.4.json").read_text(encoding="utf-8"))
    data["summary"]["info"].append(f"connected with {DB_URL}")
    text = json.dumps(data, ensure_ascii=False)
    files = sorted(demo_root.glob("session-summaries/**/*.jsonl")) + sorted(
        demo_root.glob("lessons/*/lessons.jsonl")
    )
    before = {p: p.read_bytes() for p in files}
    out = run("import-wrapup", "-", "--root", str(demo_root), stdin=text)
    assert out.returncode == 1 and "generic-credential-uri" in out.stderr
    assert "Xk9Lq2Rt7Wz1Pq" not in out.stderr + out.stdout
    assert {p: p.read_bytes() for p in files} == before
    assert sorted(demo_root.glob("session-summaries/**/*.jsonl")) == sorted(
        p for p in files if "session-summaries" in p.parts
    )
    out = run(
        "import-wrapup", "-", "--allow-secret", "--json", "--root", str(demo_root), stdin=text
    )
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["summary"] == "ws-20260223-001"
