"""Store documents rendered as Textual ``Content``: labelled fields, lists and scores, every
agent string literal."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel
from textual.content import Content

from store.index.sessions import Session
from store.ledger import ItemState
from store.models import KptReport, Lesson, Proposal, SessionSummary
from store.models.kpt import SECTION_TITLES, KptItem
from store.read.counted import counted
from store.read.textsafe import printable
from store.review.promote import promoted_label
from store.write.markdown_edit import bullet_text

from .literal import literal, outcome_content

STATE_STYLE = {
    "pending": "$text-muted",
    "approved": "$success",
    "rejected": "$error",
    "contested": "bold $warning",
}
STATE_MARK = {"pending": "-", "approved": "✓", "rejected": "✗", "contested": "≠"}


def label(text: str) -> Content:
    return Content.styled(f"{printable(text, keep_newlines=False)}: ", "bold $text-primary")


def heading(text: str) -> Content:
    return Content.styled(text, "bold underline")


def value_text(value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (list, tuple)):
        return ", ".join(value_text(v) for v in value)
    if isinstance(value, BaseModel):
        value = value.model_dump(exclude_none=True, by_alias=True)
    if isinstance(value, dict):
        return ", ".join(f"{k}={value_text(v)}" for k, v in value.items())
    return str(value)


def field(name: str, value: Any) -> Content:
    return Content.assemble(label(name), literal(value_text(value)))


def lines(parts: Iterable[Content]) -> Content:
    return Content("\n").join(list(parts))


def state_content(st: ItemState) -> Content:
    if st.promoted and st.state == "approved":
        return Content.styled("✓ promoted", "bold $accent")
    return Content.styled(f"{STATE_MARK[st.state]} {st.state}", STATE_STYLE[st.state])


def item_detail(section: str, item: KptItem, st: ItemState, report_id: str) -> Content:
    """Every field of one KPT item, its review state and note."""
    out = [
        Content.assemble(
            Content.styled(f"{SECTION_TITLES.get(section, section)} ", "bold"),
            literal(f"{report_id}/{item.id or '?'}", "bold"),
            "  ",
            state_content(st),
            Content.styled("  (edited)", "$text-muted") if st.edited else Content(""),
        )
    ]
    if st.note:
        out.append(Content.assemble(label("review note"), literal(st.note, "italic")))
    if st.at:
        by = f"  by {st.who}" if st.who else ""
        out.append(Content.assemble(label("decided"), literal(f"{st.at}{by}")))
    if len(st.decisions) > 1:  # a team: each reviewer's decision (differing: contested)
        for d in sorted(st.decisions.values(), key=lambda d: (d.at, d.who)):
            note = f" — {d.note}" if d.note else ""
            text = f"{STATE_MARK[d.state]} {d.state} by {d.who} at {d.at}{note}"
            out.append(Content.assemble(label("  decision"), literal(text, STATE_STYLE[d.state])))
    for p in st.promoted:
        out.append(
            Content.assemble(label("promoted"), literal(f"→ {promoted_label(p)}", "$accent"))
        )
        worded = p.get("text")  # the person's wording, when it is not the description's
        if isinstance(worded, str) and worded != bullet_text(item.description or ""):
            out.append(Content.assemble(label("promoted as"), literal(worded)))
    out.append(Content(""))
    data = item.model_dump(by_alias=True, exclude_none=True)
    data.pop("id", None)
    for key, value in data.items():
        if key == "persistence_target" and isinstance(value, dict):
            where = f"{value.get('type', '?')} → {value.get('path', '?')}"
            value = f"{where}  {value.get('section') or ''}"
        out.append(field(key, value))
    return lines(out)


def report_overview(report: KptReport, display: str) -> Content:
    out = [
        Content.assemble(
            label("report"), literal(report.id or "?", "bold"), "  ", literal(display, "dim")
        ),
        Content.assemble(label("created"), literal(report.created_at or "—")),
        Content.assemble(label("outcome"), outcome_content(report.outcome or "")),
        field("session", report.session_id),
        Content(""),
        heading("Summary"),
        literal(report.session_summary or "—"),
        Content(""),
        heading("Goals"),
    ]
    out += [literal(f"• {g}") for g in (report.task_goals or [])] or [Content("—")]
    if report.metrics:
        out += [Content(""), heading("Metrics")]
        out += [field(k, v) for k, v in report.metrics.model_dump(exclude_none=True).items()]
    if report.feedback_integration:
        fi = report.feedback_integration
        out += [Content(""), heading("Feedback integration"), field("enabled", fi.enabled)]
        out.append(field("generated_feedback_id", fi.generated_feedback_id))
    if report.model_extra:
        out += [Content(""), heading("Other fields")]
        out += [field(k, v) for k, v in report.model_extra.items()]
    return lines(out)


def summary_view(summary: SessionSummary | None) -> Content:
    if summary is None:
        return Content.styled("No session summary was saved for this session.", "$text-muted")
    s = summary
    out = [
        Content.assemble(
            label("summary"), literal(s.id or "?", "bold"), "  ", literal(s.date or "", "dim")
        ),
        field("name", s.session_name),
        field("project", s.project),
    ]
    if s.info_summary:
        out += [Content(""), heading("Information")] + [literal(f"• {x}") for x in s.info_summary]
    if s.qa_pairs:
        out += [Content(""), heading("Q&A")]
        for qa in s.qa_pairs:
            out += [literal(f"Q. {qa.q or ''}", "bold"), literal(f"A. {qa.a or ''}")]
    if s.conclusions:
        out += [Content(""), heading("Conclusions")]
        for c in s.conclusions:
            out += [
                literal(f"• {c.topic or ''} — {c.decision or ''}"),
                literal(f"  ({c.rationale or ''})", "dim"),
            ]
    if s.work_done:
        out += [Content(""), heading("Work done")] + [literal(f"• {x}") for x in s.work_done]
    if s.action_items:
        out += [Content(""), heading("Action items")]
        out += [literal(f"• [{a.priority or '-'}] {a.title or ''}") for a in s.action_items]
    ev = s.evaluation
    if ev and ev.ai and ev.ai.sub_scores:
        out += [Content(""), heading("Evaluation (AI self-assessment)")]
        for name, sc in ev.ai.sub_scores.items():
            score = f"{sc.score}/5" if sc.score is not None else "—"
            out.append(
                Content.assemble(
                    literal(f"{name:<26}"),
                    Content.styled(score, "bold $accent"),
                    "  ",
                    literal(sc.reason or "", "dim"),
                )
            )
        for imp in ev.ai.improvements or []:
            out.append(literal(f"↗ [{imp.tag or ''}] {imp.text or ''}"))
    if ev and ev.user:
        u = ev.user
        out += [Content(""), heading("Evaluation (user)"), field("score", u.score)]
        out += [literal(f"+ {x}") for x in u.good_points or []]
        out += [literal(f"- {x}") for x in u.bad_points or []]
        out += [literal(f"↗ {x}") for x in u.improvements or []]
    return lines(out)


def session_head(s: Session, done: int, total: int) -> Content:
    """A session's title, when, project, review progress (``done`` of ``total`` items) and id."""
    head = [literal(s.title, "bold"), Content("\n"), literal(s.when or "—"), Content("  ")]
    if s.project:
        head += [literal(s.project, "$accent"), Content("  ")]
    head.append(
        Content.styled(f"reviewed {done}/{total}", "$success" if done == total else "$warning")
    )
    if s.report is not None:  # not counted above: they cannot be decided on
        doc = s.report.doc
        missing = sum(1 for _sec, i in doc.items() if not (doc.id and i.id))
        if missing:
            head.append(
                Content.styled(
                    f"  {counted(missing, 'item')} without an id (e: edit)", "bold $warning"
                )
            )
    if s.session_id:
        head += [Content("  "), literal(s.session_id, "dim")]
    return Content.assemble(*head)


def lessons_view(session: Session) -> Content:
    out: list[Content] = []
    for loc in session.lessons:
        les: Lesson = loc.doc
        out += [
            Content.assemble(
                literal(les.title or "(untitled)", "bold"), "  ", literal(les.id or "", "dim")
            ),
            literal(
                f"{les.type or '?'} · {les.category or '-'} · {', '.join(les.tags or [])}",
                "$text-muted",
            ),
        ]
        if les.summary:
            out.append(literal(les.summary))
        if les.context:
            out.append(literal(les.context, "dim"))
        out.append(Content(""))
    if session.proposals:
        out.append(heading("Proposals raised in this session"))
        for ploc in session.proposals:
            p: Proposal = ploc.doc
            out.append(
                literal(
                    f"• [{p.status or 'pending'}] {p.kind or '?'}: {p.title or p.id or ''} → {p.target or ''}"
                )
            )
    return (
        lines(out)
        if out
        else Content.styled("No lessons were recorded for this session.", "$text-muted")
    )
