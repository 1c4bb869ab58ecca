"""Every example of the specifications loads with zero errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from store.check.files import lint_file
from store.models import KptReport, WrapupInput
from store.read.kinds import Kind
from store.read.loader import load_file
from tests.conftest import SEEDS

EXAMPLES = sorted(p for p in SEEDS.iterdir() if p.name != "README.md")


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_seed_example_has_no_errors(path: Path) -> None:
    errors = [d for d in lint_file(path, None, path.name) if d.severity == "error"]
    assert errors == []


def test_minimal_kpt_report_is_fully_read() -> None:
    loaded = load_file(SEEDS / "kpt-20260208-001.yaml")
    assert loaded.kind is Kind.KPT
    doc = loaded.doc
    assert isinstance(doc, KptReport)
    assert doc.id == "kpt-20260208-001"
    assert doc.created_at == "2026-02-08T15:00:00Z"  # timestamps stay text
    assert [s for s, _ in doc.items()] == ["keep", "problem", "try", "omission"]
    target = doc.try_[0].persistence_target if doc.try_ else None
    assert target is not None and target.section == "## パッケージ管理"
    assert doc.metrics is not None and doc.metrics.session_duration_turns == 23


def test_pretty_printed_seed_records_are_read_as_one_record() -> None:
    loaded = load_file(SEEDS / "summaries-v1.4.jsonl")
    assert len(loaded.entries) == 1
    rec = loaded.entries[0].record
    data = (SEEDS / "summaries-v1.4.jsonl").read_bytes()
    assert rec.line == 1 and data[rec.start : rec.end].count(b"\n") == 38
    summary = loaded.entries[0].model
    assert summary is not None and summary.evaluation.ai.sub_scores["goal_achievement"].score == 5  # type: ignore[attr-defined]


def test_wrapup_input_with_newer_fields() -> None:
    loaded = load_file(SEEDS / "wrapup-input-v1.4.json")
    assert isinstance(loaded.doc, WrapupInput)
    assert loaded.doc.ai_lessons and loaded.doc.ai_lessons[0].memory_ref == "research-sources.md"


@pytest.mark.parametrize(
    ("name", "status", "verdict", "source"),
    [
        ("reply-review.md", "stop", "conditional", "block"),
        ("reply-discussion-continue.md", "continue", None, "block"),
        ("reply-discussion-stop.md", "stop", None, "block"),
    ],
)
def test_seed_replies(name: str, status: str, verdict: str | None, source: str) -> None:
    loaded = load_file(SEEDS / name)
    assert loaded.reply is not None
    assert (loaded.reply.status, loaded.reply.verdict, loaded.reply.source) == (
        status,
        verdict,
        source,
    )
