"""What the person wrote is what a promotion writes and records (#41).

The dialog and ``promote --text`` plan with the person's wording; the rule file gets it, the
ledger's promote effect and the transaction's note record it, undo and redo restore it, and
the agent's report stays byte for byte as it was."""

from __future__ import annotations

import shutil
from pathlib import Path

from ruamel.yaml import YAML

from store.ledger import Ledger
from store.review.items import find_item
from store.review.promote import memory_prefill, plan_promotion, promote_plans
from store.tx.transactions import history, redo, undo
from store.workspace import Workspace
from tests.conftest import FIXTURES

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
KEY = "kpt-20261122-001/try-001"
INSTRUCTION = "CLAUDE.md のパッケージ管理に「依存の追加前に package.json を読む」を追記する"


def _ws(
    tmp_path: Path, src: str, type_: str, path: str, section: str
) -> tuple[Workspace, Path, Path]:
    root = tmp_path / "ws"
    (root / "hurikaeri").mkdir(parents=True)
    report = root / "hurikaeri" / "kpt-20261122-001.yaml"
    report.write_text(
        REPORT.format(text=INSTRUCTION, type=type_, path=path, section=section), encoding="utf-8"
    )
    target = root / path
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(FIXTURES / "promote" / src, target)
    return Workspace(root), report, target


def _claude(tmp_path: Path) -> tuple[Workspace, Path, Path]:
    return _ws(tmp_path, "claude_lf.md", "claude_md", "CLAUDE.md", "## パッケージ管理")


def test_the_plan_starts_from_the_rule_not_the_instruction(tmp_path: Path) -> None:
    ws, _report, _target = _claude(tmp_path)
    plan = plan_promotion(ws, find_item(ws, KEY))
    assert plan.new_text == "依存の追加前に package.json を読む"
    after = (plan.after or b"").decode("utf-8")
    assert "- 依存の追加前に package.json を読む\n" in after
    assert "追記する" not in after


def test_the_edited_wording_is_written_and_recorded_and_the_report_kept(tmp_path: Path) -> None:
    ws, report, target = _claude(tmp_path)
    report_bytes = report.read_bytes()
    wording = "新しい依存を入れる前に  package.json と lockfile を読む"
    plan = plan_promotion(ws, find_item(ws, KEY), text=wording)
    result = promote_plans(ws, [plan])
    assert result is not None
    assert "- 新しい依存を入れる前に package.json と lockfile を読む\n" in target.read_text("utf-8")
    assert report.read_bytes() == report_bytes
    (promoted,) = Ledger(ws.state_dir).state(KEY).promoted
    assert promoted["text"] == "新しい依存を入れる前に package.json と lockfile を読む"
    assert "as: 新しい依存を入れる前に package.json と lockfile を読む" in (
        history(ws)[0].note or ""
    )


def test_undo_and_redo_of_an_edited_wording(tmp_path: Path) -> None:
    ws, report, target = _claude(tmp_path)
    original, report_bytes = target.read_bytes(), report.read_bytes()
    wording = "依存を足す前に既存の package.json を必ず読む"
    result = promote_plans(ws, [plan_promotion(ws, find_item(ws, KEY), text=wording)])
    assert result is not None
    written = target.read_bytes()
    undo(ws, result.id)
    assert target.read_bytes() == original
    assert Ledger(ws.state_dir).state(KEY).promoted == ()
    redo(ws)
    assert target.read_bytes() == written
    assert f"- {wording}\n" in target.read_text("utf-8")
    assert [p["text"] for p in Ledger(ws.state_dir).state(KEY).promoted] == [wording]
    assert report.read_bytes() == report_bytes


def test_an_edited_wording_near_an_existing_rule_says_so(tmp_path: Path) -> None:
    ws, _report, target = _claude(tmp_path)
    existing = next(
        line[2:] for line in target.read_text("utf-8").splitlines() if line.startswith("- ")
    )
    plan = plan_promotion(ws, find_item(ws, KEY), text=existing + "。")
    assert plan.status == "near-duplicate"
    assert not plan.writes


def test_a_skill_yaml_content_gets_the_edited_wording(tmp_path: Path) -> None:
    ws, _report, target = _ws(
        tmp_path, "skill.yaml", "skill", "knowledge_base/global/skills/jwt_auth.yaml", "## 運用"
    )
    plan = plan_promotion(ws, find_item(ws, KEY), text="鍵は 90 日ごとに回す")
    assert promote_plans(ws, [plan]) is not None
    content = YAML(typ="safe").load(target.read_text("utf-8"))["content"]
    assert "- 鍵は 90 日ごとに回す\n" in content
    assert "追記する" not in content


def test_the_memory_entry_three_fields_prefilled_and_edited(tmp_path: Path) -> None:
    ws, report, target = _ws(
        tmp_path,
        "project_memory.yaml",
        "memory",
        "memory/harbor-api/project_memory.yaml",
        "learned_behaviors",
    )
    ref = find_item(ws, KEY)
    assert memory_prefill(ref) == {
        "trigger": "express-jwt を確認なしで追加した",
        "behavior": "依存の追加前に package.json を読む",
        "reason": "既存の package.json を事前確認しなかった",
    }
    entry = {
        "trigger": "依存を追加するとき",
        "behavior": "package.json の既存依存を先に読む",
        "reason": "express-jwt を重複して入れた",
    }
    report_bytes = report.read_bytes()
    result = promote_plans(ws, [plan_promotion(ws, ref, entry=entry)])
    assert result is not None
    memory = YAML(typ="safe").load(target.read_text("utf-8"))
    assert memory["learned_behaviors"][-1] == entry
    (promoted,) = Ledger(ws.state_dir).state(KEY).promoted
    assert promoted["entry"] == entry
    assert report.read_bytes() == report_bytes


def test_a_memory_behavior_near_an_existing_one_says_so(tmp_path: Path) -> None:
    ws, _report, target = _ws(
        tmp_path,
        "project_memory.yaml",
        "memory",
        "memory/harbor-api/project_memory.yaml",
        "learned_behaviors",
    )
    ref = find_item(ws, KEY)
    plan = plan_promotion(ws, ref, text="エラーハンドリングを必ず追加する")  # fixture: …必ず追加
    assert plan.status == "near-duplicate" and plan.near_text == "エラーハンドリングを必ず追加"
    assert not plan.writes
    assert plan_promotion(ws, ref, "skip", text="エラーハンドリングを必ず追加する").status == "skip"
    both = plan_promotion(ws, ref, "keep-both", text="エラーハンドリングを必ず追加する")
    assert len(YAML(typ="safe").load(both.after or b"")["learned_behaviors"]) == 2
    plan = plan_promotion(ws, ref, "replace", text="エラーハンドリングを必ず追加する")
    assert promote_plans(ws, [plan]) is not None
    behaviors = YAML(typ="safe").load(target.read_text("utf-8"))["learned_behaviors"]
    assert [b["behavior"] for b in behaviors] == ["エラーハンドリングを必ず追加する"]
