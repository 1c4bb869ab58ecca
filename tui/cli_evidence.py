"""``hurikaeri evidence KPT_ID [--json]``: a KPT report's evidence checked against its
session's transcript.

For each item: its evidence state (found, partly found, not found, no transcript, nothing to
check), the turns it cites, each file or command it names and the turns where it appears,
and the notes; then the report's ``metrics`` beside the counts from the transcript, each
difference marked ``≠``. ``KPT_ID/ITEM_ID`` checks one item. ``--json`` prints
:meth:`store.insight.evidence.ReportEvidence.as_dict` plus ``missing`` (the items whose
evidence was not found) and ``metrics_differ``.

Exit status: 0 when no item's evidence is "not found", 1 when one is — the items the
``evidence:missing`` filter lists and ``a`` asks about; partly found items, differing
metrics and a missing transcript are printed, not failures — and 2 on usage errors.

Wiring (tui/cli.py): :func:`add_evidence_parser` in ``build_parser`` and an ``"evidence"``
entry in ``COMMANDS`` calling :func:`cmd_evidence` (imported inside the handler).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from store.insight.evidence import EvidenceCheck, MetricRow, ReportEvidence
    from store.models.kpt import KptReport
    from store.workspace import Workspace

#: state → mark and words, as the UI shows them (screens/widgets/evidence_marks.py)
STATES = {
    "found": ("◆", "found"),
    "partial": ("◇", "partly found"),
    "not_found": ("✗", "not found"),
    "no_transcript": ("–", "no transcript"),
    "unchecked": ("·", "nothing to check"),
}


def add_evidence_parser(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "evidence",
        parents=[common],
        help="check a KPT report's evidence and metrics against its session's transcript",
    )
    p.add_argument("id", metavar="KPT_ID", help="KPT_ID, or KPT_ID/ITEM_ID for one item")
    p.add_argument("--json", action="store_true", help="print the check as JSON")


def cmd_evidence(args: argparse.Namespace, ws: Workspace) -> int:
    from store.insight.evidence import check_session
    from store.review.errors import ReviewError
    from store.review.items import find_report, split_ref

    report_id, item_id = split_ref(args.id)
    _path, report = find_report(ws, report_id)
    result = check_session(ws, report)
    if item_id is not None:
        keep = {k: v for k, v in result.items.items() if v[1].id == item_id}
        if not keep:
            known = ", ".join(i.id for _s, i in report.items() if i.id) or "none"
            raise ReviewError(f"report '{report_id}' has no item '{item_id}' (items: {known})")
        result.items = keep
    if args.json:
        data = _report_dict(result)
        json.dump(data, sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
    else:
        print(render_evidence(result, ws))
    return 1 if result.missing else 0


def evidence_json(ws: Workspace, report: KptReport, item_id: str | None = None) -> dict[str, Any]:
    """What ``show --json`` adds as ``evidence``: the whole check of a report, or one
    item's check with the transcript it was checked against. Without a session id or a
    transcript nothing is read beyond a listing of the transcripts location."""
    from store.insight.evidence import check_session

    result = check_session(ws, report)
    if item_id is None:
        return _report_dict(result)
    check = result.check(item_id)
    transcript = str(result.transcript_path) if result.transcript_path else None
    return {
        **(check.as_dict() if check is not None else {"state": None}),
        "transcript": transcript,
        "turns": result.turns,
    }


def _report_dict(result: ReportEvidence) -> dict[str, Any]:
    data = result.as_dict()
    data["missing"] = result.missing
    data["metrics_differ"] = [m.name for m in result.metrics if m.differs]
    return data


def render_evidence(result: ReportEvidence, ws: Workspace) -> str:
    """The check as plain text: a header, one block per item, the metrics table."""
    from store.read.textsafe import printable

    lines = [f"{result.report_id or '(no id)'}  session {result.session_id or '(none)'}"]
    if result.transcript_path is None:
        lines.append("transcript: none found in the transcripts location")
    else:
        problems = (
            f", {result.diagnostics} lines not read (broken or unknown)"
            if result.diagnostics
            else ""
        )
        lines.append(
            f"transcript: {ws.display(result.transcript_path)} ({result.turns} turns{problems})"
        )
    lines.append("")
    for key, (section, item, check) in result.items.items():
        mark, words = STATES[check.state]
        desc = " ".join(str(getattr(item, "description", "") or "").split())
        if len(desc) > 72:
            desc = desc[:71] + "…"
        lines.append(f"{mark} {words:<16} {key}  ({section})  {printable(desc)}")
        lines.extend(_item_lines(check, notes=result.transcript_path is not None))
    if result.metrics:
        lines.append("")
        lines.extend(_metric_lines(result.metrics))
    missing = result.missing
    summary = (
        f"{len(missing)} item(s) with evidence not found: {', '.join(missing)}"
        if missing
        else "no item's evidence is missing"
    )
    differ = [m.name for m in result.metrics if m.differs]
    if differ:
        summary += f"; metrics differ: {', '.join(differ)}"
    lines.extend(["", summary])
    return "\n".join(lines)


def _item_lines(check: EvidenceCheck, *, notes: bool = True) -> list[str]:
    from store.read.textsafe import printable

    out: list[str] = []
    if check.cited:
        shown = ", ".join(str(n) for n in check.cited[:20])
        more = f" … ({len(check.cited)} turns)" if len(check.cited) > 20 else ""
        out.append(f"    cites turn {shown}{more}")
    for name, turns in check.names.items():
        where = "in turn " + ", ".join(map(str, turns[:10])) if turns else "never in the session"
        if len(turns) > 10:
            where += f" … ({len(turns)} turns)"
        out.append(f"    {printable(name, keep_newlines=False)}: {where}")
    for note in check.notes if notes else []:
        out.append(f"    {printable(note, keep_newlines=False)}")
    return out


def _metric_lines(rows: list[MetricRow]) -> list[str]:
    width = max(len(r.name) for r in rows)
    out = [f"{'metric':<{width}}  {'report':>10}  {'transcript':>10}"]
    for r in rows:
        mark = "  ≠" if r.differs else ""
        out.append(f"{r.name:<{width}}  {_value(r.reported):>10}  {_value(r.counted):>10}{mark}")
    return out


def _value(value: object) -> str:
    if value is None:
        return "—"
    if isinstance(value, list):
        return ", ".join(str(v) for v in value)
    return str(value)
