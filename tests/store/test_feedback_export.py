"""export-feedback: the seed-000 conversion table, field by field, and a minimal report diff."""

from __future__ import annotations

import difflib
from pathlib import Path

import pytest

import store.review.feedback_export as fe
from store.check.files import lint_file
from store.models import Feedback
from store.read.loader import load_file
from store.review.feedback_export import export_feedback
from store.review.items import ReviewError
from store.workspace import Workspace
from tests.conftest import SEEDS


@pytest.fixture
def ws(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Workspace:
    from datetime import datetime, timedelta, timezone

    monkeypatch.setattr(
        fe, "now", lambda: datetime(2026, 11, 22, 10, 0, tzinfo=timezone(timedelta(hours=9)))
    )
    (tmp_path / "hurikaeri").mkdir()
    (tmp_path / "hurikaeri" / "kpt-20260208-001.yaml").write_bytes(
        (SEEDS / "kpt-20260208-001.yaml").read_bytes()
    )
    return Workspace(tmp_path)


def test_conversion_table(ws: Workspace) -> None:
    out = export_feedback(ws, "kpt-20260208-001")
    assert out.feedback_path.name == "fb-20261122-001.yaml"
    doc = load_file(out.feedback_path).doc
    assert isinstance(doc, Feedback)
    assert doc.task_summary == "認証ミドルウェアを実装した"  # session_summary → task_summary
    assert doc.outcome is not None
    assert (doc.outcome.success, doc.outcome.score) == (False, 0.5)  # partial → false, 0.5
    (issue,) = doc.issues or []
    assert issue.issue_id == "prob-001" and issue.type == "example_missing"  # oversight →
    assert (
        issue.severity == "medium" and issue.description == "express-jwtパッケージを確認なしで追加"
    )
    assert issue.target is not None and (issue.target.type, issue.target.path) == (
        "claude_md",
        "~/.claude/CLAUDE.md",
    )
    (action,) = doc.proposed_actions or []
    assert action.scope == "claude_md"
    assert action.change_summary == "新パッケージ追加前にpackage.jsonの既存依存を確認する"
    assert doc.model_extra and doc.model_extra["stats"] == {
        "turns": 23,
        "tool_calls": 42,
        "code_changes": 8,
        "errors": 2,
        "corrections": 1,
    }
    assert [d for d in lint_file(out.feedback_path, None, "fb") if d.severity == "error"] == []


@pytest.mark.parametrize(
    ("category", "issue_type"),
    [
        ("error", "skill_incorrect"),
        ("oversight", "example_missing"),
        ("misunderstanding", "prompt_unclear"),
        ("inefficiency", "pattern_missing"),
        ("wrong_approach", "skill_incomplete"),
        ("made_up", "other"),
    ],
)
def test_problem_categories_map_to_issue_types(
    ws: Workspace, category: str, issue_type: str
) -> None:
    p = ws.loc("kpt") / "kpt-20260208-001.yaml"
    p.write_text(
        p.read_text(encoding="utf-8").replace("category: oversight", f"category: {category}"),
        encoding="utf-8",
    )
    doc = load_file(export_feedback(ws, "kpt-20260208-001").feedback_path).doc
    assert isinstance(doc, Feedback) and doc.issues and doc.issues[0].type == issue_type


@pytest.mark.parametrize(
    ("outcome", "success", "score"), [("success", True, 1.0), ("failure", False, 0.2)]
)
def test_outcomes(ws: Workspace, outcome: str, success: bool, score: float) -> None:
    p = ws.loc("kpt") / "kpt-20260208-001.yaml"
    p.write_text(
        p.read_text(encoding="utf-8").replace("outcome: partial", f"outcome: {outcome}"),
        encoding="utf-8",
    )
    doc = load_file(export_feedback(ws, "kpt-20260208-001").feedback_path).doc
    assert isinstance(doc, Feedback) and doc.outcome is not None
    assert (doc.outcome.success, doc.outcome.score) == (success, score)


def test_report_changes_only_feedback_integration_lines(ws: Workspace) -> None:
    p = ws.loc("kpt") / "kpt-20260208-001.yaml"
    before = p.read_text(encoding="utf-8")
    export_feedback(ws, "kpt-20260208-001")
    after = p.read_text(encoding="utf-8")
    changed = [
        ln for ln in difflib.ndiff(before.splitlines(), after.splitlines()) if ln[:1] in "+-"
    ]
    assert changed == [
        "-   enabled: false",
        "+   enabled: true",
        "+   generated_feedback_id: fb-20261122-001",
    ]


def test_second_export_is_detected(ws: Workspace) -> None:
    export_feedback(ws, "kpt-20260208-001")
    with pytest.raises(ReviewError, match="already exported as fb-20261122-001"):
        export_feedback(ws, "kpt-20260208-001")
    out = export_feedback(ws, "kpt-20260208-001", force=True)
    assert out.feedback_path.name == "fb-20261122-002.yaml"


def test_dry_run_writes_nothing(ws: Workspace) -> None:
    p = ws.loc("kpt") / "kpt-20260208-001.yaml"
    before = p.read_bytes()
    out = export_feedback(ws, "kpt-20260208-001", dry_run=True)
    assert p.read_bytes() == before and not out.feedback_path.exists()


def test_a_foreign_feedback_file_with_a_huge_number_does_not_stop_an_export(
    ws: Workspace,
) -> None:
    """A file another program put in feedback/ whose number is as long as a name may be:
    the export still gets an id a file can be named after."""
    (ws.root / "feedback").mkdir()
    (ws.root / "feedback" / f"fb-20261122-{'9' * 238}.yaml").write_text("{}\n")
    out = export_feedback(ws, "kpt-20260208-001")
    assert out.feedback_path.name == "fb-20261122-001.yaml" and out.feedback_path.is_file()
