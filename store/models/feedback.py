"""prompt-improver feedback ``feedback/fb-YYYYMMDD-NNN.yaml`` (upstream feedback schema)."""

from __future__ import annotations

from typing import Annotated, Any

from store.models.base import Choice, DateText, IdPattern, Record, Required

ISSUE_TYPES = (
    "prompt_unclear",
    "skill_incomplete",
    "skill_incorrect",
    "hook_missing",
    "hook_incorrect",
    "example_missing",
    "pattern_missing",
    "context_lost",
    "misunderstanding",
    "other",
)
TARGET_TYPES = ("claude_md", "skill", "hook", "command", "agent", "other")
SEVERITIES = ("critical", "high", "medium", "low")
ACTION_SCOPES = ("skill", "claude_md", "hook", "command", "other")
EFFORTS = ("high", "medium", "low")
TRIAGE_STATUSES = ("open", "triaged", "in_progress", "fixed", "verified", "wont_fix")
SOURCES = ("user", "self", "eval", "prod-log")
REF_TYPES = ("transcript", "log", "screenshot", "artifact")

FB_ID = IdPattern(r"fb-\d{8}-\d{3,}", "fb-20260201-001")


class Outcome(Record):
    success: Annotated[bool | None, Required("true or false")] = None
    score: float | None = None
    rationale: Annotated[str | None, Required("why this outcome")] = None


class IssueTarget(Record):
    type: Annotated[str | None, Required(), Choice(*TARGET_TYPES)] = None
    path: Annotated[str | None, Required("a file path")] = None
    section: str | None = None
    line: int | None = None
    symbol: str | None = None


class Issue(Record):
    issue_id: Annotated[str | None, Required()] = None
    type: Annotated[str | None, Required(), Choice(*ISSUE_TYPES)] = None
    description: Annotated[str | None, Required()] = None
    target: Annotated[IssueTarget | None, Required("type and path")] = None
    severity: Annotated[str | None, Required(), Choice(*SEVERITIES)] = None
    confidence: float | None = None
    impact: str | None = None
    frequency: str | None = None
    evidence_ref: str | None = None


class Runtime(Record):
    model: str | None = None
    temperature: float | None = None
    tools_version: str | None = None


class Context(Record):
    skill_name: str | None = None
    skill_version: str | None = None
    prompt_hash: str | None = None
    repo: str | None = None
    runtime: Runtime | None = None
    locale: str | None = None


class Ref(Record):
    type: Annotated[str | None, Choice(*REF_TYPES)] = None
    path: str | None = None
    excerpt: str | None = None


class FbMetrics(Record):
    tokens: int | None = None
    latency_ms: float | None = None
    cost: float | None = None


class Repro(Record):
    steps: list[str] | None = None
    seed: str | None = None
    minimal_case: str | None = None


class ProposedAction(Record):
    scope: Annotated[str | None, Choice(*ACTION_SCOPES)] = None
    change_summary: str | None = None
    expected_impact: Annotated[str | None, Choice(*SEVERITIES)] = None
    effort: Annotated[str | None, Choice(*EFFORTS)] = None


class Triage(Record):
    status: Annotated[str | None, Choice(*TRIAGE_STATUSES)] = None
    priority: Annotated[str | None, Choice(*SEVERITIES)] = None
    owner: str | None = None
    labels: list[str] | None = None


class Resolution(Record):
    fix_ref: str | None = None
    verified_at: Annotated[str | None, DateText()] = None
    regression_test_ref: str | None = None


class Privacy(Record):
    redacted: bool | None = None
    redaction_notes: str | None = None


class Feedback(Record):
    id: Annotated[str | None, Required("fb-YYYYMMDD-NNN"), FB_ID] = None
    created_at: Annotated[str | None, Required("an ISO 8601 time"), DateText()] = None
    occurred_at: Annotated[str | None, DateText()] = None
    updated_at: Annotated[str | None, DateText()] = None
    task_summary: Annotated[str | None, Required("a 1-2 sentence summary")] = None
    session_id: str | None = None
    outcome: Annotated[Outcome | None, Required("success and rationale")] = None
    issues: Annotated[list[Issue] | None, Required("a list (may be empty)")] = None
    context: Context | None = None
    input_refs: list[Ref] | None = None
    output_refs: list[Ref] | None = None
    metrics: FbMetrics | None = None
    repro: Repro | None = None
    source: Annotated[str | None, Choice(*SOURCES)] = None
    user_feedback: str | None = None
    suggested_improvement: str | None = None
    proposed_actions: list[ProposedAction] | None = None
    triage: Triage | None = None
    resolution: Resolution | None = None
    privacy: Privacy | None = None
    extracted: dict[str, Any] | None = None
