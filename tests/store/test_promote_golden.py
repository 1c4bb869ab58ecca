"""Golden-file tests of promotion into every target type.

Each case copies an input from ``tests/fixtures/promote`` into a workspace, promotes a try
item, and compares the result byte for byte with ``<case>.expected``. Regenerate with
``HURIKAERI_UPDATE_GOLDEN=1 uv run pytest tests/store/test_promote_golden.py`` and read the
diff before committing.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

import store.review.promote as promote
from store.ledger import Ledger
from store.review.items import find_item
from store.review.promote import plan_promotion, promote_plans
from store.tx.transactions import undo_last
from store.workspace import Workspace
from tests.conftest import FIXTURES

GOLDEN = FIXTURES / "promote"
UPDATE = os.environ.get("HURIKAERI_UPDATE_GOLDEN") == "1"

REPORT = """\
id: kpt-20261122-001
created_at: 2026-11-22T09:00:00+09:00
session_summary: テスト
task_goals: [x]
outcome: partial
keep: []
problem:
  - id: prob-001
    description: "express-jwt を確認なしで追加した"
    impact: medium
    evidence: "turn 12"
    category: oversight
    root_cause: "既存の package.json を事前確認しなかった"
try:
  - id: try-001
    description: "{text}"
    addresses: ["prob-001"]
    scope: global
    persistence_target:
      type: {type}
      path: {path}
      section: "{section}"
omission: []
"""

CASES = {
    # case: (input file, target type, target path, section, description, near choice)
    "md_lf_existing_heading": (
        "claude_lf.md",
        "claude_md",
        "CLAUDE.md",
        "## パッケージ管理",
        "新しいパッケージの前に既存の依存を確認する",
        None,
    ),
    "md_crlf_existing_heading": (
        "claude_crlf.md",
        "claude_md",
        "CLAUDE.md",
        "## パッケージ管理",
        "新しいパッケージの前に既存の依存を確認する",
        None,
    ),
    "md_missing_heading": (
        "claude_lf.md",
        "claude_md",
        "~/.claude/CLAUDE.md",
        "### テスト",
        "テストを先に書く",
        None,
    ),
    "md_missing_heading_crlf": (
        "claude_crlf.md",
        "claude_md",
        "CLAUDE.md",
        "テスト",
        "テストを先に書く",
        None,
    ),
    "md_missing_heading_no_final_newline": (
        "claude_no_final_newline.md",
        "claude_md",
        "CLAUDE.md",
        "## テスト",
        "Write the test first",
        None,
    ),
    "md_identical_bullet": (
        "claude_lf.md",
        "claude_md",
        "CLAUDE.md",
        "## パッケージ管理",
        "依存を追加する前に  lockfile を確認する",
        None,
    ),
    "md_near_duplicate_replace": (
        "claude_lf.md",
        "claude_md",
        "CLAUDE.md",
        "## パッケージ管理",
        "依存を追加する前に lockfile を必ず確認する",
        "replace",
    ),
    "md_near_duplicate_keep_both": (
        "claude_lf.md",
        "claude_md",
        "CLAUDE.md",
        "## パッケージ管理",
        "依存を追加する前に lockfile を必ず確認する",
        "keep-both",
    ),
    "md_near_duplicate_skip": (
        "claude_lf.md",
        "claude_md",
        "CLAUDE.md",
        "## パッケージ管理",
        "依存を追加する前に lockfile を必ず確認する",
        "skip",
    ),
    "skill_md_heading_any_level": (
        "skill_notes.md",
        "skill",
        "skills/architecture/SKILL.md",
        "## Testing",
        "Name tests after the behaviour",
        None,
    ),
    "skill_md_fenced_heading_ignored": (
        "skill_notes.md",
        "skill",
        "skills/architecture/SKILL.md",
        "## パッケージ管理",
        "lockfile を確認する",
        None,
    ),
    "hook_note_md": (
        "claude_lf.md",
        "hook",
        "hooks/notes.md",
        "## Git Workflow",
        "push の前に pre-commit を通す",
        None,
    ),
    "skill_yaml_existing_section": (
        "skill.yaml",
        "skill",
        "knowledge_base/global/skills/jwt_auth.yaml",
        "## よくある間違い",
        "aud を検証しない",
        None,
    ),
    "skill_yaml_new_section": (
        "skill.yaml",
        "skill",
        "knowledge_base/global/skills/jwt_auth.yaml",
        "## 運用",
        "鍵は 90 日でローテーションする",
        None,
    ),
    "memory_learned_behavior": (
        "project_memory.yaml",
        "memory",
        "memory/harbor-api/project_memory.yaml",
        "learned_behaviors",
        "新しい依存の前に package.json を読む",
        None,
    ),
    "memory_trigger_from_section": (
        "project_memory.yaml",
        "memory",
        "memory/harbor-api/project_memory.yaml",
        "依存を追加するとき",
        "新しい依存の前に package.json を読む",
        None,
    ),
}


def _workspace(tmp_path: Path, case: str) -> tuple[Workspace, Path]:
    src, type_, path, section, text, _near = CASES[case]
    root = tmp_path / "ws"
    (root / "hurikaeri").mkdir(parents=True)
    (root / "hurikaeri" / "kpt-20261122-001.yaml").write_text(
        REPORT.format(text=text, type=type_, path=path, section=section), encoding="utf-8"
    )
    rel = path.removeprefix("~/.claude/")
    target = root / rel
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(GOLDEN / src, target)
    return Workspace(root), target


@pytest.fixture(autouse=True)
def _fixed_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(promote, "now_iso", lambda: "2026-11-22T09:30:00+09:00")


@pytest.mark.parametrize("case", sorted(CASES))
def test_golden(tmp_path: Path, case: str) -> None:
    ws, target = _workspace(tmp_path, case)
    original = target.read_bytes()
    ledger = Ledger(ws.state_dir)
    ref = find_item(ws, "kpt-20261122-001/try-001")
    plan = plan_promotion(ws, ref, CASES[case][5])
    promote_plans(ws, [plan], ledger=ledger)
    expected = GOLDEN / f"{case}.expected"
    if UPDATE:
        expected.write_bytes(target.read_bytes())
    assert target.read_bytes() == expected.read_bytes()
    if target.read_bytes() != original:
        assert ledger.state(ref.key).state == "approved"
        assert ws.root / ledger.state(ref.key).promoted[0]["path"] == target
        undo_last(ws, ledger=ledger)
        assert target.read_bytes() == original
        assert ledger.state(ref.key).state == "pending"
    else:
        assert plan.status in ("identical", "skip")
        assert ledger.entries == []


def test_statuses(tmp_path: Path) -> None:
    expect = {
        "md_identical_bullet": "identical",
        "md_near_duplicate_skip": "skip",
        "md_lf_existing_heading": "write",
    }
    for case, status in expect.items():
        ws, _ = _workspace(tmp_path / case, case)
        plan = plan_promotion(ws, find_item(ws, "kpt-20261122-001/try-001"), CASES[case][5])
        assert plan.status == status, case
    ws, _ = _workspace(tmp_path / "near", "md_near_duplicate_replace")
    plan = plan_promotion(ws, find_item(ws, "kpt-20261122-001/try-001"))
    assert plan.status == "near-duplicate" and plan.after is None
    assert plan.near_text == "依存を追加する前に lockfile を確認する"


def test_new_markdown_file_is_created_and_undo_removes_it(tmp_path: Path) -> None:
    ws, target = _workspace(tmp_path, "hook_note_md")
    target.unlink()
    ledger = Ledger(ws.state_dir)
    plan = plan_promotion(ws, find_item(ws, "kpt-20261122-001/try-001"))
    promote_plans(ws, [plan], ledger=ledger)
    assert (
        target.read_text(encoding="utf-8") == "## Git Workflow\n\n- push の前に pre-commit を通す\n"
    )
    undo_last(ws, ledger=ledger)
    assert not target.exists()
