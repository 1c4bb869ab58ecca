"""A session as Markdown: report, summary, lessons and the review decisions."""

from __future__ import annotations

from store.index.sessions import Session
from store.index.workspace_index import WorkspaceIndex
from store.ledger import ItemState, item_key
from store.models.kpt import SECTION_TITLES, SECTIONS


def _md(text: str | None) -> str:
    return (text or "").replace("\r", "").strip()


def session_markdown(index: WorkspaceIndex, s: Session) -> str:
    out: list[str] = [f"# {_md(s.title) or s.key}", ""]
    meta = [
        ("when", s.when),
        ("project", s.project),
        ("session", s.session_id or ""),
        ("outcome", s.outcome),
    ]
    out += [f"- **{k}**: {v}" for k, v in meta if v]
    rep = s.report.doc if s.report else None
    if rep:
        out += ["", "## KPT report", "", f"`{rep.id}`", "", _md(rep.session_summary), ""]
        if rep.task_goals:
            out += ["### Goals", ""] + [f"- {_md(g)}" for g in rep.task_goals] + [""]
        for sec in SECTIONS:
            items = rep.section(sec)
            if not items:
                continue
            out += [f"### {SECTION_TITLES[sec]}", ""]
            for item in items:
                key = item_key(index.report_key(s), item.id)
                st = index.ledger.state(key) if key else ItemState()
                state = st.state + (" (promoted)" if st.promoted else "")
                label = item.id or "(no id)"
                out.append(f"- **{label}** [{state}] {_md(item.description)}")
                extra = item.model_dump(exclude_none=True, by_alias=True)
                for key in ("id", "description"):
                    extra.pop(key, None)
                out += [f"  - {k}: {v}" for k, v in extra.items()]
                if st.note:
                    out.append(f"  - review note: {_md(st.note)}")
            out.append("")
        if rep.metrics:
            out += ["### Metrics", ""]
            out += [f"- {k}: {v}" for k, v in rep.metrics.model_dump(exclude_none=True).items()] + [
                ""
            ]
    if s.summary:
        sm = s.summary.doc
        out += ["## Session summary", "", f"`{sm.id}` {sm.session_name or ''}", ""]
        out += [f"- {_md(x)}" for x in sm.info_summary or []]
        for qa in sm.qa_pairs or []:
            out += ["", f"**Q.** {_md(qa.q)}", "", f"**A.** {_md(qa.a)}"]
        if sm.conclusions:
            out += ["", "### Conclusions", ""]
            out += [
                f"- {_md(c.topic)} — {_md(c.decision)} ({_md(c.rationale)})" for c in sm.conclusions
            ]
        if sm.work_done:
            out += ["", "### Work done", ""] + [f"- {_md(w)}" for w in sm.work_done]
        if sm.action_items:
            out += ["", "### Action items", ""] + [
                f"- [{a.priority or '-'}] {_md(a.title)}" for a in sm.action_items
            ]
        out.append("")
    if s.lessons:
        out += ["## Lessons", ""]
        for les in s.lessons:
            d = les.doc
            out.append(f"- **{_md(d.title)}** (`{d.id}`, {d.type}, {d.category}): {_md(d.summary)}")
        out.append("")
    return "\n".join(out).rstrip() + "\n"
