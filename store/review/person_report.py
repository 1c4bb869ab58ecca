"""A KPT report made by a person from what an agent's discussion brought up.

Nothing is ever added to an agent's discussion or report: the person writes a new report of
their own (a finding → a problem and its suggestion a try-item, a blocker → a high-impact
problem, a next step → a try-item), which then goes through the normal review.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

from store.check.files import check_kpt
from store.check.secrets import check_write, scan_text
from store.ledger import Ledger
from store.models import KptReport
from store.read.diagnostics import Diagnostic, DiagnosticSink
from store.read.metadata_block import Reply, severity_of
from store.read.validate import validate_tolerant
from store.read.yamlload import load_yaml
from store.review.wrapup import next_id
from store.tx.journal import FileWrite
from store.tx.transactions import TxPlan, apply
from store.workspace import Workspace
from store.write.policy import in_place
from store.write.roundtrip import new_yaml_document

PickKind = Literal["finding", "blocker", "next_step"]
IMPACTS = {"high": "high", "medium": "medium", "low": "low", "critical": "high", "blocker": "high"}
OUTCOMES = {"pass": "success", "conditional": "partial", "fail": "failure"}
DEFAULT_CATEGORY = "oversight"
DEFAULT_SCOPE = "project"


@dataclass(frozen=True, slots=True)
class Pick:
    """One entry of a reply picked for the report: its kind and place in its list."""

    kind: PickKind
    index: int


def next_report_id(ws: Workspace, day: str) -> str:
    """``kpt-<day>-NNN`` after the highest number already used that day."""
    taken = [p.stem for d in ws.locations["kpt"] for p in d.glob(f"kpt-{day}-*.y*ml")]
    return next_id("kpt", day, taken)


def draft_person_report(
    ws: Workspace,
    reply: Reply,
    display: str,
    picks: list[Pick],
    now: datetime | None = None,
) -> tuple[str, dict[str, Any]]:
    """``(report id, document)`` for the picked findings, blockers and next steps."""
    now = now or datetime.now().astimezone()
    rid = next_report_id(ws, now.strftime("%Y%m%d"))
    problems: list[dict[str, Any]] = []
    tries: list[dict[str, Any]] = []

    def problem(description: str, impact: str, evidence: str) -> str:
        pid = f"prob-{len(problems) + 1:03d}"
        problems.append(
            {
                "id": pid,
                "description": description,
                "impact": impact,
                "evidence": evidence,
                "category": DEFAULT_CATEGORY,
            }
        )
        return pid

    def try_item(description: str, addresses: list[str]) -> None:
        tries.append(
            {
                "id": f"try-{len(tries) + 1:03d}",
                "description": description,
                "addresses": addresses,
                "scope": DEFAULT_SCOPE,
            }
        )

    findings, blockers, steps = reply.findings, reply.texts("blockers"), reply.texts("next_steps")
    for pick in picks:
        if pick.kind == "finding" and 0 <= pick.index < len(findings):
            f = findings[pick.index]
            sev = severity_of(f)
            pid = problem(
                (f.message or "(the finding has no message)").strip(),
                IMPACTS.get(sev, "medium"),
                f"{display}: finding {pick.index + 1} (severity {f.severity or 'not given'})",
            )
            if f.suggestion and f.suggestion.strip():
                try_item(f.suggestion.strip(), [pid])
        elif pick.kind == "blocker" and 0 <= pick.index < len(blockers):
            problem(
                str(blockers[pick.index]).strip(), "high", f"{display}: blocker {pick.index + 1}"
            )
        elif pick.kind == "next_step" and 0 <= pick.index < len(steps):
            try_item(str(steps[pick.index]).strip(), [])
    about = f"status {reply.status or '?'}" + (
        f", verdict {reply.verdict}" if reply.verdict else ""
    )
    data: dict[str, Any] = {
        "id": rid,
        "created_at": now.isoformat(timespec="seconds"),
        "session_summary": (
            f"Follow-up of the agent discussion {display} ({about}), "
            "written by a person in hurikaeri."
        ),
        "task_goals": [f"Act on what {display} brought up"],
        "outcome": OUTCOMES.get(reply.verdict or "", "partial"),
        "keep": [],
        "problem": problems,
        "try": tries,
        "omission": [],
    }
    return rid, data


def render_report(data: dict[str, Any]) -> str:
    return new_yaml_document(data).decode("utf-8")


def report_path(ws: Workspace, report_id: str) -> Path:
    return ws.loc("kpt") / f"{report_id}.yaml"


def check_person_report(ws: Workspace, report_id: str, text: str) -> list[Diagnostic]:
    """What is wrong with the (possibly edited) draft: format, cross-checks, file taken."""
    path = report_path(ws, report_id)
    sink = DiagnosticSink(ws.display(path))
    if path.exists():
        sink.error("file-exists", f"{ws.display(path)} already exists; nothing is overwritten")
    doc = load_yaml(text, sink)
    if doc is None:
        return sink.items
    if not isinstance(doc.data, dict):
        sink.error("not-a-mapping", "the report must be a YAML mapping of fields", 1)
        return sink.items
    model = validate_tolerant(KptReport, doc.data, sink, doc.line_of, "kpt")
    if model is not None:
        check_kpt(model, path, sink, doc.line_of)
    for hit in scan_text(text):
        sink.error(
            "secret",
            f"this looks like a secret ({hit.label} {hit.masked}); edit it out before writing",
            hit.line,
        )
    return sink.items


def write_person_report(
    ws: Workspace,
    ledger: Ledger | None,
    report_id: str,
    text: str,
) -> Path:
    """Write exactly ``text`` as a new report (a ``person-report`` transaction); secrets refused."""
    path = report_path(ws, report_id)
    check_write(None, text, ws.display(path), "the report")
    fw = FileWrite(path, None, text.encode("utf-8"), in_place(ws, "kpt"), created_by="person")
    apply(ws, TxPlan("person-report", [report_id], [fw]), ledger=ledger)
    return path
