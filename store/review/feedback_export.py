"""``export-feedback``: a KPT report converted to prompt-improver feedback (seed 000's table).

Categories map to issue types as the seed says (inefficiency → pattern_missing and
wrong_approach → skill_incomplete complete its "etc."). The report's ``feedback_integration``
is then set, changing only those lines; a report already exported is refused unless forced.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from store.ledger import Ledger
from store.models import Feedback, KptReport
from store.models.kpt import ProblemItem, TryItem
from store.read.diagnostics import DiagnosticSink
from store.read.validate import validate_tolerant
from store.review.items import ReviewError, find_report
from store.review.wrapup import next_id
from store.tx.journal import FileWrite
from store.tx.transactions import TxPlan, TxResult, apply
from store.workspace import Workspace
from store.write.policy import in_place
from store.write.roundtrip import YamlEditor, new_yaml_document

OUTCOME = {"success": (True, 1.0), "partial": (False, 0.5), "failure": (False, 0.2)}
ISSUE_TYPE = {
    "error": "skill_incorrect",
    "oversight": "example_missing",
    "misunderstanding": "prompt_unclear",
    "inefficiency": "pattern_missing",
    "wrong_approach": "skill_incomplete",
}
STATS = {
    "session_duration_turns": "turns",
    "user_turns": "user_turns",
    "assistant_turns": "assistant_turns",
    "tool_use_count": "tool_calls",
    "unique_tools": "tools",
    "code_changes_count": "code_changes",
    "error_count": "errors",
    "correction_count": "corrections",
    "backtrack_count": "backtracks",
}
ACTION_SCOPES = {"skill", "claude_md", "hook"}
LEVEL_ORDER = {"low": 0, "medium": 1, "high": 2}


class AlreadyExported(ReviewError):
    """The report was exported before (``feedback_id``); exporting again takes ``force``."""

    def __init__(self, message: str, feedback_id: str) -> None:
        super().__init__(message)
        self.feedback_id = feedback_id


def now() -> datetime:
    return datetime.now(UTC).astimezone()


def _target_of(item: TryItem | None) -> dict[str, Any]:
    t = item.persistence_target if item else None
    if t and t.path:
        kind = (t.type or "").lower()
        out: dict[str, Any] = {"type": kind if kind in ACTION_SCOPES else "other", "path": t.path}
        if t.section:
            out["section"] = t.section
        return out
    return {"type": "other", "path": "(not identified in the KPT report)"}


def convert(report: KptReport, fb_id: str, created: str) -> dict[str, Any]:
    tries = [t for t in report.section("try") if isinstance(t, TryItem)]
    problems = [p for p in report.section("problem") if isinstance(p, ProblemItem)]
    success, score = OUTCOME.get((report.outcome or "").lower(), (False, None))
    goals = "; ".join(report.task_goals or [])
    issues = []
    for p in problems:
        fix = next((t for t in tries if p.id in (t.addresses or [])), None)
        issue: dict[str, Any] = {
            "issue_id": p.id,
            "type": ISSUE_TYPE.get((p.category or "").lower(), "other"),
            "description": p.description,
            "target": _target_of(fix),
            "severity": (p.impact or "medium").lower(),
        }
        if p.evidence:
            issue["evidence_ref"] = p.evidence
        if p.root_cause:
            issue["impact"] = f"root cause: {p.root_cause}"
        issues.append(issue)
    actions = []
    for t in tries:
        addressed = [p for p in problems if p.id in (t.addresses or [])]
        impact = max((LEVEL_ORDER.get((p.impact or "").lower(), 1) for p in addressed), default=1)
        target = t.persistence_target
        kind = (target.type or "").lower() if target else ""
        actions.append(
            {
                "scope": kind if kind in ACTION_SCOPES else "other",
                "change_summary": t.description,
                "expected_impact": ["low", "medium", "high"][impact],
            }
        )
    data: dict[str, Any] = {
        "id": fb_id,
        "created_at": created,
        "occurred_at": report.created_at,
        "task_summary": report.session_summary,
        "session_id": report.session_id,
        "outcome": {
            "success": success,
            **({"score": score} if score is not None else {}),
            "rationale": f"KPT outcome: {report.outcome or 'unknown'}"
            + (f" — goals: {goals}" if goals else ""),
        },
        "issues": issues,
        "context": {"skill_name": "hurikaeri"},
        "source": "self",
        "proposed_actions": actions,
    }
    if report.metrics is not None:
        m = report.metrics.model_dump(exclude_none=True)
        data["stats"] = {STATS.get(k, k): v for k, v in m.items()}
    return {k: v for k, v in data.items() if v is not None}


@dataclass(slots=True)
class Export:
    report_path: Path
    feedback_path: Path
    feedback: dict[str, Any]
    report_before: bytes
    report_after: bytes
    #: the transaction that wrote both files (``None`` for a dry run)
    tx: TxResult | None = None


def export_feedback(
    ws: Workspace,
    report_id: str,
    *,
    force: bool = False,
    dry_run: bool = False,
    ledger: Ledger | None = None,
) -> Export:
    path, report = find_report(ws, report_id)
    fi = report.feedback_integration
    if fi and fi.generated_feedback_id and not force:
        existing = list(ws.loc("feedback").glob(f"{fi.generated_feedback_id}.y*ml"))
        if existing or fi.enabled:
            raise AlreadyExported(
                f"{report_id} was already exported as {fi.generated_feedback_id}; use --force to export again",
                fi.generated_feedback_id,
            )
    t = now()
    fb_id = next_id("fb", t.strftime("%Y%m%d"), [p.stem for p in ws.loc("feedback").glob("fb-*")])
    data = convert(report, fb_id, t.isoformat(timespec="seconds"))
    sink = DiagnosticSink(fb_id)
    validate_tolerant(Feedback, data, sink, what="feedback")
    errors = [d.message for d in sink.items if d.severity == "error"]
    if errors:
        raise ReviewError(f"{report_id} cannot be exported: " + "; ".join(errors))
    editor = YamlEditor.open(path)
    editor.set(["feedback_integration", "enabled"], True)
    editor.set(["feedback_integration", "generated_feedback_id"], fb_id)
    fb_path = ws.loc("feedback") / f"{fb_id}.yaml"
    out = Export(path, fb_path, data, editor.original_bytes, editor.render())
    if dry_run:
        return out
    report_guard = in_place(ws, "kpt")
    report_guard(path)  # both writes allowed before either happens
    files = [
        FileWrite(
            fb_path,
            None,
            new_yaml_document(data),
            in_place(ws, "feedback"),
            created_by="feedback",
        ),
        FileWrite(path, out.report_before, out.report_after, report_guard),
    ]
    plan = TxPlan("export-feedback", [report_id], files, note=fb_id)
    out.tx = apply(ws, plan, ledger=ledger)
    return out
