"""``hurikaeri evidence KPT_ID[/ITEM_ID] [--json]``: a KPT report's evidence and metrics
checked against its session's transcript; the exit statuses: docs/evidence.md."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from store.read.counted import counted
from store.read.textsafe import printable
from tui.cli.errors import PROG, dump_json, flags

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
    p.set_defaults(run=cmd_evidence)
    p.add_argument("id", metavar="KPT_ID", help="KPT_ID, or KPT_ID/ITEM_ID for one item")
    flags(p, json="print the check as JSON")


def cmd_evidence(args: argparse.Namespace, ws: Workspace) -> int:
    from store.errors import ReviewError
    from store.insight.evidence import check_session
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
        dump_json(_report_dict(result))
    else:
        print(render_evidence(result, ws))
    if result.missing or not result.checked:  # exit 1: said in one line on stderr too
        print(f"{PROG}: {printable(_summary(result))}", file=sys.stderr)
        return 1
    return 0


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
        "numbering_why": result.numbering_why or None,
    }


def _report_dict(result: ReportEvidence) -> dict[str, Any]:
    data = result.as_dict()
    data["missing"] = result.missing
    data["metrics_differ"] = [m.name for m in result.metrics if m.differs]
    return data


def render_evidence(result: ReportEvidence, ws: Workspace) -> str:
    """The check as plain text: a header, one block per item, the metrics table."""
    from store.insight.turn_numbering import LABELS

    lines = [f"{result.report_id or '(no id)'}  session {result.session_id or '(none)'}"]
    if result.transcript_path is None:
        lines.append("transcript: none found in the transcripts location")
    else:
        skipped = result.diagnostics
        problems = f", {counted(skipped, 'line')} not read (broken or unknown)" if skipped else ""
        lines.append(
            f"transcript: {ws.display(result.transcript_path)} "
            f"({counted(result.turns or 0, 'turn')}{problems})"
        )
        lines.append(f"turns: {LABELS[result.numbering]}")
        if result.numbering != "trace":
            lines.append(f"  because {result.numbering_why}")
    lines.append("")
    for key, (section, item, check) in result.items.items():
        mark, words = STATES[check.state]
        desc = " ".join(str(getattr(item, "description", "") or "").split())
        if len(desc) > 72:
            desc = desc[:71] + "…"
        lines.append(f"{mark} {words:<16} {key}  ({section})  {printable(desc)}")
        lines.extend(_item_lines(check))
    if result.metrics:
        lines.append("")
        lines.extend(_metric_lines(result.metrics))
    lines.extend(["", _summary(result)])
    return "\n".join(lines)


def _summary(result: ReportEvidence) -> str:
    if not result.checked:
        sid = result.session_id or "(none)"
        return (
            f"nothing could be checked: no transcript of session {sid} was found "
            f"({counted(len(result.items), 'item')} unchecked)"
        )
    missing = result.missing
    summary = (
        f"{counted(len(missing), 'item')} with evidence not found: {', '.join(missing)}"
        if missing
        else "no item's evidence is missing"
    )
    differ = [m.name for m in result.metrics if m.differs]
    if differ:
        summary += f"; metrics differ: {', '.join(differ)}"
    return summary


def _turn_list(turns: list[int], limit: int) -> str:
    shown = ", ".join(str(n) for n in turns[:limit])
    return shown + (f" … ({len(turns)} turns)" if len(turns) > limit else "")


def _item_lines(check: EvidenceCheck) -> list[str]:
    out: list[str] = []
    if check.cited:
        line = f"    cites turn {_turn_list(check.cited, 20)}"
        if check.missing_turns:
            line += (
                f"; past the end: {_turn_list(check.missing_turns, 8)}"
                f" (the session has {check.turns})"
            )
        out.append(line)
    for name, turns in check.names.items():
        where = "in turn " + _turn_list(turns, 10) if turns else "never in the session"
        if name in check.outside:
            where += ", not in the cited turns"
        out.append(f"    {printable(name, keep_newlines=False)}: {where}")
    for note in check.notes:
        out.append(f"    {printable(note, keep_newlines=False)}")
    return out


def _metric_lines(rows: list[MetricRow]) -> list[str]:
    width = max(len(r.name) for r in rows)
    out = [f"{'metric':<{width}}  {'report':>10}  {'transcript':>10}"]
    notes: list[str] = []
    for r in rows:
        mark = "  ≠" if r.differs else "  ~" if r.other else ""
        out.append(f"{r.name:<{width}}  {r.shown(r.reported):>10}  {r.shown(r.counted):>10}{mark}")
        if r.other:
            notes.append(
                f"~ {r.name}: the report's {r.shown(r.reported)} is the count of {r.other}; "
                f"counted as {r.definition}: {r.shown(r.counted)}"
            )
        if isinstance(r.reported, list) and isinstance(r.counted, list) and r.differs:
            notes.append(f"≠ {r.name}: {_list_difference(r.reported, r.counted)}")
    uncounted = [r.name for r in rows if r.counted is None and r.reported is not None]
    if uncounted:
        notes.append(
            f"— {', '.join(uncounted)}: the writer's own definition (not the skill's), not counted"
        )
    return out + notes


def _list_difference(reported: list[object], counted: list[object]) -> str:
    said = {str(x).casefold(): str(x) for x in reported}
    seen = {str(x).casefold(): str(x) for x in counted}
    parts = []
    only_said = [v for k, v in said.items() if k not in seen]
    only_seen = [v for k, v in seen.items() if k not in said]
    if only_said:
        parts.append("named by the report, not used: " + ", ".join(only_said))
    if only_seen:
        parts.append("used, not named by the report: " + ", ".join(only_seen))
    return printable("; ".join(parts), keep_newlines=False)
