"""Seed 003's effect metrics (store.insight.effect): values from the workspace's own counts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from store.insight.effect import Metric, as_json, effect_metrics
from store.workspace import Workspace

NAMES = [
    "total_tasks",
    "skills_loaded",
    "skill_hit_rate",
    "first_try_success_rate_with_skills",
    "first_try_success_rate_without_skills",
    "estimated_token_savings",
    "estimated_cost_savings_usd",
    "retry_reduction",
    "human_correction_reduction",
    "time_savings",
]


def _write(root: Path, rel: str, doc: Any) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")


def _fb(root: Path, n: int, success: bool | None, **extra: Any) -> None:
    outcome: dict[str, Any] = {"rationale": "r"}
    if success is not None:
        outcome["success"] = success
    doc = {
        "id": f"fb-20260101-{n:03d}",
        "created_at": "2026-01-01T00:00:00Z",
        "task_summary": "t",
        "outcome": outcome,
        "issues": [],
        **extra,
    }
    _write(root, f"feedback/fb-20260101-{n:03d}.yaml", doc)


def _kpt(root: Path, name: str, created_at: str | None, **metrics: int) -> None:
    doc: dict[str, Any] = {"id": name, "session_summary": "s", "outcome": "success"}
    if created_at is not None:
        doc["created_at"] = created_at
    if metrics:
        doc["metrics"] = metrics
    _write(root, f"hurikaeri/{name}.yaml", doc)


def _skill(root: Path, rel: str, **stats: float) -> None:
    sid = Path(rel).stem
    doc = {"skill_id": sid, "name": sid, "content": "c", "stats": stats}
    _write(root, rel, doc)


def _by_name(metrics: list[Metric]) -> dict[str, Metric]:
    assert [m.name for m in metrics] == NAMES
    return {m.name: m for m in metrics}


@pytest.fixture
def controlled(tmp_path: Path) -> Path:
    # feedback: 2 with skills (1 success), 4 without (2 of 3 recorded outcomes succeed)
    _fb(tmp_path, 1, True, context={"skill_name": "architecture"})
    _fb(tmp_path, 2, False, extracted={"skills_used": [{"name": "a", "count": 1}]})
    _fb(tmp_path, 3, True)
    _fb(tmp_path, 4, False, context={"skill_name": ""}, extracted={"skills_used": []})
    _fb(tmp_path, 5, None)
    _fb(tmp_path, 6, True, metrics={"latency_ms": 1200})
    (tmp_path / "feedback" / "fb-20260101-009.yaml").write_text("id: [broken\n")
    # skills: 10 × 250 + 3 × 100.5; one without avg_tokens_saved; the inbox does not count
    _skill(tmp_path, "knowledge_base/global/skills/a.yaml", times_loaded=10, avg_tokens_saved=250)
    _skill(
        tmp_path,
        "knowledge_base/projects/p/learned/b.yaml",
        times_loaded=3,
        avg_tokens_saved=100.5,
        success_rate=0.5,
    )
    _skill(tmp_path, "knowledge_base/groups/phase2/c.yaml", times_loaded=4)
    _skill(tmp_path, "knowledge_base/inbox/d.yaml", times_loaded=99, avg_tokens_saved=99)
    # KPT reports, by created_at (file names in another order; +09:00 sorts by UTC):
    # backtracks 4, 2, 9, 1, 1; corrections 0, 0, 5, 1, 2
    _kpt(tmp_path, "kpt-20260101-005", "2026-01-01T08:00:00+09:00", backtrack_count=4)
    _kpt(tmp_path, "kpt-20260101-001", "2026-01-01T00:30:00Z", backtrack_count=2)
    _kpt(tmp_path, "kpt-20260101-003", "2026-01-02T00:00:00Z", backtrack_count=9)
    _kpt(tmp_path, "kpt-20260101-002", "2026-01-03T00:00:00Z", backtrack_count=1)
    _kpt(tmp_path, "kpt-20260101-004", "2026-01-04", backtrack_count=1)
    for name, count in (
        ("kpt-20260101-005", 0),
        ("kpt-20260101-001", 0),
        ("kpt-20260101-003", 5),
        ("kpt-20260101-002", 1),
        ("kpt-20260101-004", 2),
    ):
        path = tmp_path / "hurikaeri" / f"{name}.yaml"
        doc = json.loads(path.read_text())
        doc["metrics"]["correction_count"] = count
        path.write_text(json.dumps(doc))
    _kpt(tmp_path, "kpt-20260101-006", None, backtrack_count=50, correction_count=50)
    _kpt(tmp_path, "kpt-20260101-007", "not a date", backtrack_count=50, correction_count=50)
    _kpt(tmp_path, "kpt-20260101-008", "2026-01-05T00:00:00Z")
    return tmp_path


def test_metrics_from_controlled_counts(controlled: Path) -> None:
    m = _by_name(effect_metrics(Workspace(controlled)))
    assert m["total_tasks"].value == 6
    assert "1 unreadable feedback file left out" in m["total_tasks"].basis
    assert m["skills_loaded"].value == 2
    assert m["skill_hit_rate"].value == pytest.approx(2 / 6)
    assert "2 of 6" in m["skill_hit_rate"].basis

    with_ = m["first_try_success_rate_with_skills"]
    assert with_.value == 0.5 and with_.supported
    assert with_.basis.startswith("1 of 2 feedback tasks that used skills")
    without = m["first_try_success_rate_without_skills"]
    assert without.value == pytest.approx(2 / 3)
    assert "2 of 3" in without.basis and "1 without outcome.success left out" in without.basis

    tokens = m["estimated_token_savings"]
    assert tokens.value == 2801.5  # 10 × 250 + 3 × 100.5
    assert "2 of 3 skills" in tokens.basis

    retry = m["retry_reduction"]
    assert retry.supported
    assert retry.value == pytest.approx((3 - 1) / 3)  # earliest 4, 2 vs latest 1, 1
    assert "earliest 2 vs latest 2 of 5" in retry.basis
    assert "middle report left out" in retry.basis
    assert "(6 → 2)" in retry.basis

    corrections = m["human_correction_reduction"]
    assert corrections.value is None and not corrections.supported
    assert "(0 → 3)" in corrections.basis and "no rate of reduction" in corrections.basis

    assert m["time_savings"].value is None
    assert "latency_ms is set on 1 of the tasks" in m["time_savings"].basis


def test_a_metric_is_shown_as_a_count_a_rate_to_3_places_or_n_a(controlled: Path) -> None:
    m = _by_name(effect_metrics(Workspace(controlled)))
    names = ("total_tasks", "skill_hit_rate", "estimated_token_savings", "time_savings")
    assert [m[n].shown for n in names] == ["6", "0.333", "2801.500", "n/a"]


def test_an_integral_token_sum_is_an_int(tmp_path: Path) -> None:
    _skill(tmp_path, "knowledge_base/global/skills/a.yaml", times_loaded=4, avg_tokens_saved=250)
    m = _by_name(effect_metrics(Workspace(tmp_path)))
    assert m["estimated_token_savings"].value == 1000
    assert isinstance(m["estimated_token_savings"].value, int)


def test_an_empty_workspace_supports_nothing_but_counts(tmp_path: Path) -> None:
    m = _by_name(effect_metrics(Workspace(tmp_path)))
    assert m["total_tasks"].value == 0 and m["skills_loaded"].value == 0
    for name in NAMES[2:]:
        assert m[name].value is None, name
        assert not m[name].supported, name
        assert m[name].basis, name
    assert "found 0" in m["retry_reduction"].basis
    assert "none of 0 skills" in m["estimated_token_savings"].basis


def test_one_report_is_not_a_trend(tmp_path: Path) -> None:
    _kpt(tmp_path, "kpt-20260101-001", "2026-01-01T00:00:00Z", backtrack_count=3)
    m = _by_name(effect_metrics(Workspace(tmp_path)))
    assert m["retry_reduction"].value is None
    assert "found 1" in m["retry_reduction"].basis


def test_demo_metrics(demo_root: Path) -> None:
    m = _by_name(effect_metrics(Workspace(demo_root)))
    assert m["total_tasks"].value == 2
    assert m["skills_loaded"].value == 2
    assert m["skill_hit_rate"].value == 1.0
    assert m["first_try_success_rate_with_skills"].value == 0.0
    without = m["first_try_success_rate_without_skills"]
    assert without.value is None and not without.supported
    assert "0 in the group" in without.basis
    # jwt 12×3100 + redis 4×1800 + unity 15×2500 + windows 7×900 + utc 2×700 + loads 6×1400
    assert m["estimated_token_savings"].value == 98000
    assert "6 of 6 skills" in m["estimated_token_savings"].basis
    # 30 reports: backtracks 17 → 13, corrections 13 → 9 (earliest 15 vs latest 15)
    assert m["retry_reduction"].value == pytest.approx(4 / 17)
    assert "(17 → 13)" in m["retry_reduction"].basis
    assert m["human_correction_reduction"].value == pytest.approx(4 / 13)
    assert "(13 → 9)" in m["human_correction_reduction"].basis
    for name in ("time_savings", "estimated_cost_savings_usd"):
        assert m[name].value is None and not m[name].supported and m[name].basis


def test_as_json(demo_root: Path) -> None:
    out = as_json(effect_metrics(Workspace(demo_root)))
    assert json.loads(json.dumps(out, ensure_ascii=False)) == out
    assert [d["name"] for d in out] == NAMES
    assert set(out[0]) == {"name", "value", "basis", "supported"}
