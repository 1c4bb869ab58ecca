"""KPT reflection report, ``hurikaeri/kpt-YYYYMMDD-NNN.yaml`` (seed 000)."""

from __future__ import annotations

from typing import Annotated, ClassVar

from pydantic import Field

from store.models.base import Choice, DateText, IdPattern, Record, Required
from store.models.kpt_terms import SECTIONS as SECTIONS
from store.models.kpt_terms import TARGET_TYPES as TARGET_TYPES

KEEP_CATEGORIES = ("approach", "tool_use", "communication", "architecture")
PROBLEM_CATEGORIES = ("error", "inefficiency", "misunderstanding", "oversight", "wrong_approach")
LEVELS = ("high", "medium", "low")
SCOPES = ("immediate", "session", "project", "global")
OUTCOMES = ("success", "partial", "failure")
SECTION_TITLES = {"keep": "Keep", "problem": "Problem", "try": "Try", "omission": "Omission"}

KPT_ID = IdPattern(r"kpt-\d{8}-\d{3,}", "kpt-20260208-001")


class KptItem(Record):
    warn_unknown_fields: ClassVar[bool] = True
    id: Annotated[str | None, Required("an id unique within its section, e.g. keep-001")] = None
    description: Annotated[str | None, Required("what happened, in a sentence")] = None


class KeepItem(KptItem):
    evidence: Annotated[str | None, Required("turns, files or operations")] = None
    category: Annotated[str | None, Required(), Choice(*KEEP_CATEGORIES)] = None
    reusability: Annotated[str | None, Choice(*LEVELS)] = None


class ProblemItem(KptItem):
    impact: Annotated[str | None, Required(), Choice(*LEVELS)] = None
    evidence: Annotated[str | None, Required("turns, files or operations")] = None
    category: Annotated[str | None, Required(), Choice(*PROBLEM_CATEGORIES)] = None
    root_cause: str | None = None
    turn_range: str | None = None


class PersistenceTarget(Record):
    warn_unknown_fields: ClassVar[bool] = True
    type: Annotated[str | None, Required(), Choice(*TARGET_TYPES)] = None
    path: Annotated[str | None, Required("the file to write into")] = None
    section: str | None = None


class TryItem(KptItem):
    addresses: Annotated[list[str] | None, Required("ids of the problems/omissions addressed")] = (
        None
    )
    scope: Annotated[str | None, Required(), Choice(*SCOPES)] = None
    persistence_target: PersistenceTarget | None = None


class OmissionItem(KptItem):
    reasoning: Annotated[str | None, Required("why it was missed")] = None
    risk_level: Annotated[str | None, Required(), Choice(*LEVELS)] = None
    counterfactual_prompt: Annotated[str | None, Required()] = None
    recommended_action: str | None = None


class KptMetrics(Record):
    warn_unknown_fields: ClassVar[bool] = True
    session_duration_turns: int | None = None
    user_turns: int | None = None
    assistant_turns: int | None = None
    tool_use_count: int | None = None
    unique_tools: list[str] | None = None
    code_changes_count: int | None = None
    error_count: int | None = None
    correction_count: int | None = None
    backtrack_count: int | None = None


class FeedbackIntegration(Record):
    warn_unknown_fields: ClassVar[bool] = True
    enabled: bool | None = None
    generated_feedback_id: str | None = None


class KptReport(Record):
    warn_unknown_fields: ClassVar[bool] = True

    id: Annotated[str | None, Required("kpt-YYYYMMDD-NNN"), KPT_ID] = None
    created_at: Annotated[str | None, Required("an ISO 8601 time"), DateText()] = None
    session_id: str | None = None
    session_summary: Annotated[str | None, Required("a 2-3 sentence summary")] = None
    task_goals: Annotated[list[str] | None, Required("a list of goals")] = None
    outcome: Annotated[str | None, Required(), Choice(*OUTCOMES)] = None
    keep: Annotated[list[KeepItem] | None, Required("a list (may be empty)")] = None
    problem: Annotated[list[ProblemItem] | None, Required("a list (may be empty)")] = None
    try_: Annotated[list[TryItem] | None, Required("a list (may be empty)")] = Field(
        None, alias="try"
    )
    omission: Annotated[list[OmissionItem] | None, Required("a list (may be empty)")] = None
    metrics: KptMetrics | None = None
    feedback_integration: FeedbackIntegration | None = None

    def section(self, name: str) -> list[KptItem]:
        """Items of ``keep``, ``problem``, ``try`` or ``omission`` (empty when absent)."""
        items = getattr(self, "try_" if name == "try" else name)
        return list(items or [])

    def items(self) -> list[tuple[str, KptItem]]:
        return [(sec, item) for sec in SECTIONS for item in self.section(sec)]
