"""Drafting a proposal from a reviewed item, so people's proposals go through the same
approval as agents' (a skill from a try-item, an anti-pattern from a problem and its root
cause, a pattern from a keep-item)."""

from __future__ import annotations

from typing import Any

from store.index.sessions import Session
from store.ledger import now_iso
from store.models import KptReport
from store.models.kpt import KeepItem, KptItem, ProblemItem, TryItem
from store.read.metadata_block import Reply
from store.review.inbox import slug
from store.review.rule_text import rule_text
from store.review.skill_draft import file_patterns, keywords, skill_name, task_types
from store.write.markdown_edit import bullet_text

DEFAULT_KIND = {
    "try": "skill",
    "problem": "anti_pattern",
    "omission": "anti_pattern",
    "keep": "pattern",
}
KIND_DIRS = {"skill": "skills", "pattern": "patterns", "anti_pattern": "anti_patterns"}


def draft_proposal(
    session: Session, section: str, item: KptItem, kind: str | None = None, note: str | None = None
) -> dict[str, Any]:
    """A complete proposal document (without id) prefilled from the item."""
    report: KptReport | None = session.report.doc if session.report else None
    kind = kind or DEFAULT_KIND.get(section, "pattern")
    # a try-item starts from the rule it carries, as a promotion does (#41)
    text = (
        rule_text(item.description or "")
        if section == "try"
        else bullet_text(item.description or "")
    )
    name = skill_name(text) if kind == "skill" else text[:60]
    ident = slug(name)
    if ident == "learning":  # a name without ASCII letters: its keywords, or the item
        ascii_words = "_".join(k for k in keywords(text) if k.isascii())
        ident = slug(ascii_words or f"{report.id if report else ''}_{item.id}")
    project = session.project or ""
    task = f"{report.id}/{item.id}" if report and report.id else (item.id or "")
    addressing = [
        t
        for t in (report.section("try") if report else [])
        if item.id in (getattr(t, "addresses", None) or [])
    ]
    payload: dict[str, Any]
    if kind == "skill":
        target = getattr(item, "persistence_target", None)
        heading = (target.section if target and target.section else "## Learned").strip()
        if not heading.startswith("#"):
            heading = f"## {heading}"
        said = (
            " ".join([*(report.task_goals or []), report.session_summary or ""]) if report else ""
        )
        payload = {
            "skill_id": ident,
            "name": name,
            "version": 1,
            "created_at": now_iso(),
            "triggers": {
                "keywords": keywords(text),
                "file_patterns": file_patterns(text),
                "task_types": task_types(said),
            },
            "content": f"{heading}\n\n- {text}\n",
            "stats": {"times_loaded": 0, "success_rate": 0.0, "avg_tokens_saved": 0},
            "related_skills": [],
        }
    elif kind == "anti_pattern":
        why = item.root_cause if isinstance(item, ProblemItem) and item.root_cause else note or ""
        payload = {
            "pattern_id": ident,
            "name": text[:60],
            "type": "failure",
            "context": bullet_text(report.session_summary or "") if report else "",
            "bad_approach": text,
            "why_bad": why,
            "correct_approach": "\n".join(
                f"- {bullet_text(t.description or '')}" for t in addressing
            ),
            "evidence": [
                {
                    "project": project,
                    "task": task,
                    "error": bullet_text(getattr(item, "evidence", "") or ""),
                }
            ],
        }
    else:
        payload = {
            "pattern_id": ident,
            "name": text[:60],
            "type": "success",
            "context": bullet_text(report.session_summary or "") if report else "",
            "solution": text,
            "evidence": [{"project": project, "task": task, "result": "success"}],
            "tags": [],
        }
    return {
        "created_at": now_iso(),
        "proposed_by": "person",
        "session_id": session.session_id,
        "kind": kind,
        "title": name if kind == "skill" else text[:80],
        "rationale": note or f"From the review of {task}",
        "evidence": [{"kpt_id": report.id if report else None, "item": item.id, "note": note}],
        "target": f"knowledge_base/global/{KIND_DIRS[kind]}/{ident}.yaml",
        "base_version": None,
        "payload": payload,
        "status": "pending",
        "decided_at": None,
        "decision_note": None,
    }


#: The entries of a discussion's reply a proposal can be drafted from.
REPLY_ENTRIES = ("finding", "blocker", "decision", "next_step")


def item_from_reply(reply: Reply, display: str, entry: str, i: int) -> tuple[str, KptItem, str]:
    """Entry ``i`` of a reply as ``(section, KPT item, note)`` a proposal is drafted from."""
    ref = f"{display}#{entry.replace('_', '-')}-{i + 1}"
    if entry == "finding":
        f = reply.findings[i]
        note = f"From {display}, finding {i + 1} (severity {f.severity or 'not given'})"
        if f.suggestion:
            note += f". Suggested: {f.suggestion}"
        return "problem", ProblemItem(id=ref, description=f.message or "", evidence=ref), note
    if entry == "blocker":
        note = f"From {display}, blocker {i + 1}"
        return (
            "problem",
            ProblemItem(id=ref, description=reply.texts("blockers")[i], evidence=ref),
            note,
        )
    if entry == "decision":
        note = f"From {display}, decision {i + 1}"
        return "keep", KeepItem(id=ref, description=reply.texts("decisions")[i], evidence=ref), note
    note = f"From {display}, next step {i + 1}"
    return "try", TryItem(id=ref, description=reply.texts("next_steps")[i]), note
