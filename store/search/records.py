"""What the search index holds of each file: one record of strings per thing a person looks
for (a KPT report and each of its items, a summary, a lesson, a memory's behaviour, ...).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from store.models import (
    AntiPattern,
    Feedback,
    KptReport,
    Lesson,
    Pattern,
    Piece,
    ProjectMemory,
    Proposal,
    SessionSummary,
    Skill,
)
from store.models.metablock import MetaBlock
from store.read.kinds import Kind
from store.read.textsafe import first_line
from store.search.model import SearchRecord, Stamp, place_id

if TYPE_CHECKING:
    from store.read.loader import Entry


def text_of(value: Any) -> str:
    """Any field value as readable text (lists one per line, mappings as ``key: value``)."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, BaseModel):
        value = value.model_dump(exclude_none=True, by_alias=True)
    if isinstance(value, dict):
        lines: list[str] = []
        for k, v in value.items():
            text = text_of(v)
            if not text:
                continue
            if "\n" in text or isinstance(v, (dict, BaseModel)):  # nested: indented under k
                lines += [f"{k}:", *(f"  {line}" for line in text.splitlines())]
            else:
                lines.append(f"{k}: {text}")
        return "\n".join(lines)
    if isinstance(value, (list, tuple)):
        out: list[str] = []
        for v in value:
            text = text_of(v)
            if text and isinstance(v, (dict, BaseModel)) and "\n" in text:
                first, *rest = text.splitlines()  # a mapping of a list: one "- " item
                out += [f"- {first}", *(f"  {line}" for line in rest)]
            elif text:
                out.append(text)
        return "\n".join(out)
    return str(value)


def _attrs(obj: Any, *names: str) -> list[tuple[str, Any]]:
    """``(label, value)`` of attributes, each labelled by its name in words."""
    return [(n.replace("_", " "), getattr(obj, n)) for n in names]


def _fields(*pairs: tuple[str, Any]) -> tuple[str, ...]:
    texts = ((label, text_of(value)) for label, value in pairs)
    return tuple(x for label, text in texts if text.strip() for x in (label, text))


def _extra(model: BaseModel) -> list[tuple[str, Any]]:
    return [(str(k), v) for k, v in (model.model_extra or {}).items()]


def _facets(**values: Any) -> tuple[str, ...]:
    out: list[str] = []
    for name, value in values.items():
        items = value if isinstance(value, (list, tuple)) else [value]
        for v in items:
            if isinstance(v, (str, int, float)) and str(v).strip():
                out.append(f"{name}={str(v).strip()}")
    return tuple(out)


def _anchor(key: str, value: str | None) -> str:
    return f"{key}: {value}" if value else ""


def _project_from_path(path: Path) -> str:
    parts = path.parts
    for i, part in enumerate(parts[:-1]):
        if part == "projects" and i + 1 < len(parts) - 1 and "knowledge_base" in parts[:i]:
            return parts[i + 1]
        if part == "memory" and i + 1 < len(parts) - 1:
            return parts[i + 1]
    return ""


def kpt_records(file: Path, doc: KptReport) -> list[SearchRecord]:
    rid, path = doc.id or file.stem, str(file)
    date = doc.created_at or ""
    sid = doc.session_id or ""
    outcome = doc.outcome or ""
    out = [
        SearchRecord(
            "report",
            rid,
            path,
            title=first_line(doc.session_summary) or rid,
            fields=_fields(
                ("summary", doc.session_summary),
                ("goals", doc.task_goals),
                ("outcome", outcome),
                ("session", sid),
                *_extra(doc),
            ),
            date=date,
            session_id=sid,
            facets=_facets(outcome=outcome),
            gist=doc.session_summary or "",
        )
    ]
    for section, item in doc.items():
        data = {k: v for k, v in item if k not in ("id", "description")}
        out.append(
            SearchRecord(
                section,
                f"{rid}/{item.id or '?'}",
                path,
                0,
                _anchor("id", item.id),
                first_line(item.description) or item.id or section,
                _fields(
                    ("description", item.description),
                    *((str(k), v) for k, v in data.items() if k != "persistence_target"),
                    ("target", data.get("persistence_target")),
                ),
                date=date,
                session_id=sid,
                facets=_facets(
                    outcome=outcome,
                    category=data.get("category"),
                    impact=data.get("impact") or data.get("risk_level"),
                    scope=data.get("scope"),
                ),
                gist=item.description or "",
            )
        )
    return out


def summary_record(path: str, line: int, rec: SessionSummary, display: str = "") -> SearchRecord:
    qa = [f"Q: {p.q or ''}\nA: {p.a or ''}" for p in rec.qa_pairs or []]
    concl = [
        " — ".join(x for x in (c.topic, c.decision, c.rationale) if x)
        for c in rec.conclusions or []
    ]
    title = rec.session_name or first_line((rec.info_summary or [""])[0]) or rec.id or "summary"
    return SearchRecord(
        "summary",
        rec.id or place_id(display or path, line),
        path,
        line,
        "",
        first_line(title),
        _fields(
            ("session", rec.session_name),
            ("info", rec.info_summary),
            ("q&a", qa),
            ("conclusions", concl),
            ("work done", rec.work_done),
            ("action items", [a.title for a in rec.action_items or []]),
            ("evaluation", rec.evaluation),
            *_extra(rec),
        ),
        rec.date or "",
        rec.project or "",
        rec.session_id or "",
        gist="\n".join(rec.info_summary or []),
    )


def lesson_record(path: str, line: int, rec: Lesson, display: str = "") -> SearchRecord:
    return SearchRecord(
        "lesson",
        rec.id or place_id(display or path, line),
        path,
        line,
        "",
        first_line(rec.title) or first_line(rec.shown_title()) or rec.id or "lesson",
        _fields(
            *_attrs(rec, "title", "summary", "context", "type", "category"),
            ("tags", ", ".join(rec.tags or [])),
            ("session", rec.session_name),
            ("detail", rec.detail_ref),
            ("memory", rec.memory_ref),
            *_extra(rec),
        ),
        rec.date or "",
        rec.project or "",
        rec.session_id or "",
        _facets(category=rec.category, tag=rec.tags or []),
        f"{rec.title or ''}\n{rec.summary or ''}",
    )


def skill_record(path: Path, doc: Skill) -> SearchRecord:
    sid = doc.skill_id or path.stem
    trig = doc.triggers
    return SearchRecord(
        "skill",
        sid,
        str(path),
        title=first_line(doc.name) or sid,
        fields=_fields(
            ("name", doc.name),
            ("keywords", ", ".join(trig.keywords or []) if trig else ""),
            ("files", ", ".join(trig.file_patterns or []) if trig else ""),
            ("task types", ", ".join(trig.task_types or []) if trig else ""),
            *_attrs(doc, "content"),
            ("related", ", ".join(doc.related_skills or [])),
            *_extra(doc),
        ),
        date=doc.updated_at or doc.created_at or "",
        project=_project_from_path(path),
        facets=_facets(tag=(trig.keywords or []) if trig else []),
        gist=doc.name or sid,
    )


def pattern_record(path: Path, doc: Pattern | AntiPattern) -> SearchRecord:
    pid = doc.pattern_id or path.stem
    evidence = [e for e in doc.evidence or []]
    if isinstance(doc, AntiPattern):
        kind, body = "anti_pattern", _attrs(doc, "bad_approach", "why_bad", "correct_approach")
    else:
        kind, body = "pattern", _attrs(doc, "solution")
    project = _project_from_path(path) or next((e.project for e in evidence if e.project), "")
    return SearchRecord(
        kind,
        pid,
        str(path),
        title=first_line(doc.name) or pid,
        fields=_fields(
            *_attrs(doc, "name", "context"),
            *body,
            ("evidence", evidence),
            ("tags", ", ".join(doc.tags or [])),
            *_extra(doc),
        ),
        project=project or "",
        facets=_facets(tag=doc.tags or []),
        gist=doc.name or pid,
    )


def memory_records(path: Path, doc: ProjectMemory) -> list[SearchRecord]:
    project = doc.project_id or _project_from_path(path) or path.parent.name
    date = doc.last_updated or ""

    def part(rid: str, anchor: str, title: str, fields: tuple[str, ...], gist: str | None) -> None:
        rec = SearchRecord("memory", f"{project}/{rid}", str(path), 0, anchor, title, fields)
        out.append(rec._replace(date=date, project=project, gist=gist or ""))

    out: list[SearchRecord] = []
    if doc.preferences:
        prefs = _fields(("preferences", doc.preferences))
        part("preferences", "preferences:", f"preferences of {project}", prefs, "")
    for k, b in enumerate(doc.learned_behaviors or [], 1):
        title = first_line(b.behavior) or first_line(b.trigger) or f"behavior {k}"
        fields = _fields(*_attrs(b, "trigger", "behavior", "reason"))
        part(f"behavior-{k}", _anchor("trigger", (b.trigger or "")[:40]), title, fields, b.behavior)
    for k, issue in enumerate(doc.known_issues or [], 1):
        title = first_line(issue.description) or f"known issue {k}"
        fields = _fields(("known issue", issue.description), ("workaround", issue.workaround))
        anchor = _anchor("description", (issue.description or "")[:40])
        part(f"issue-{k}", anchor, title, fields, issue.description)
    return out


def proposal_record(path: Path, doc: Proposal) -> SearchRecord:
    pid = doc.id or path.stem
    return SearchRecord(
        "proposal",
        pid,
        str(path),
        title=first_line(doc.title) or pid,
        fields=_fields(
            *_attrs(doc, "title", "kind", "proposed_by", "rationale", "evidence", "target"),
            *_attrs(doc, "payload", "decision_note"),
        ),
        date=doc.created_at or "",
        session_id=doc.session_id or "",
        facets=_facets(status=(doc.status or "pending").lower()),
        gist=doc.title or "",
    )


def feedback_record(path: Path, doc: Feedback) -> SearchRecord:
    fid = doc.id or path.stem
    issues = [
        " — ".join(x for x in (i.issue_id, i.type, i.description) if x) for i in doc.issues or []
    ]
    return SearchRecord(
        "feedback",
        fid,
        str(path),
        title=first_line(doc.task_summary) or fid,
        fields=_fields(
            ("task", doc.task_summary),
            ("outcome", doc.outcome.rationale if doc.outcome else None),
            ("issues", issues),
            ("user feedback", doc.user_feedback),
            ("suggested", doc.suggested_improvement),
            ("actions", [a.change_summary for a in doc.proposed_actions or []]),
        ),
        date=doc.created_at or "",
        session_id=doc.session_id or "",
        facets=_facets(impact=[i.severity for i in doc.issues or []]),
        gist=doc.task_summary or "",
    )


def piece_records(path: Path, doc: Piece) -> list[SearchRecord]:
    name = doc.name or path.stem
    out = [
        SearchRecord(
            "piece",
            name,
            str(path),
            title=name + (f" — {first_line(doc.description)}" if doc.description else ""),
            fields=_fields(*_attrs(doc, "name", "description")),
        )
    ]
    for mv in doc.movements or []:
        for m in [mv, *(sub for sub, _at in mv.substeps())]:
            rules = [" → ".join(x for x in (r.condition, r.next) if x) for r, _at in m.own_rules()]
            out.append(
                SearchRecord(
                    "movement",
                    f"{name}/{m.name or '?'}",
                    str(path),
                    0,
                    _anchor("name", m.name),
                    f"{m.name or '?'}" + (f" ({text_of(m.persona)})" if m.persona else ""),
                    _fields(
                        *_attrs(m, "persona", "policy", "knowledge"),
                        ("instruction", m.instruction or m.instruction_template),
                        ("rules", rules),
                    ),
                )
            )
    return out


_HEADING = re.compile(r"^\s*#+\s*")


def discussion_record(path: Path, display: str, body: str, block: MetaBlock | None) -> SearchRecord:
    title = _HEADING.sub("", first_line(body)) or display
    pairs: list[tuple[str, Any]] = [("reply", body)]
    if block is not None:
        findings = [
            " — ".join(x for x in (f.message, f.suggestion) if x) for f in block.findings or []
        ]
        pairs += [*_attrs(block, "status", "verdict"), ("findings", findings)]
        pairs += _attrs(block, "open_questions", "decisions", "blockers", "next_steps")
    return SearchRecord("discussion", display, str(path), title=title, fields=_fields(*pairs))


#: The records of a document, by its model.
BUILDERS: dict[type[BaseModel], Callable[[Path, Any], SearchRecord | list[SearchRecord]]] = {
    KptReport: kpt_records,
    Skill: skill_record,
    Pattern: pattern_record,
    AntiPattern: pattern_record,
    ProjectMemory: memory_records,
    Proposal: proposal_record,
    Feedback: feedback_record,
    Piece: piece_records,
}
#: The record of a JSONL record, by its model.
ROW_BUILDERS: dict[type, Callable[[str, int, Any, str], SearchRecord]] = {
    Lesson: lesson_record,
    SessionSummary: summary_record,
}


def records_for(
    path: Path, doc: BaseModel | None, entries: Iterable[Entry] = (), display: str = ""
) -> list[SearchRecord]:
    """The search records of a loaded document, or of its JSONL ``entries`` (a discussion's:
    :func:`discussion_record`)."""
    if doc is None:
        rows = [(e.record.line, e.model, ROW_BUILDERS.get(type(e.model))) for e in entries]
        return [build(str(path), n, m, display) for n, m, build in rows if build]
    got = BUILDERS[type(doc)](path, doc) if type(doc) in BUILDERS else []
    return got if isinstance(got, list) else [got]


def load_records(
    path: Path, kind: Kind | None, display: str, part: tuple[int, int, int, Stamp] | None = None
) -> tuple[Stamp | None, list[SearchRecord]]:
    """Parse one file (no lint), or one ``part`` of a big JSONL file (first byte, end, first
    line, the file's identity: :func:`store.read.jsonl.cut_points`): its identity (size,
    mtime_ns) as read, and its records."""
    from store.read.loader import load_file, load_jsonl_part

    if part is not None and kind is not None:
        start, end, line, st = part
        rows = load_jsonl_part(path, kind, start, end, line, last=end >= st[0])
        return st, records_for(path, None, rows, display)
    loaded = load_file(path, kind, display)
    stamp = (loaded.stamp.size, loaded.stamp.mtime_ns) if loaded.stamp else None
    if loaded.kind is Kind.DISCUSSION and loaded.reply is not None:
        r = loaded.reply
        return stamp, [discussion_record(path, display, r.body, r.block)]
    return stamp, records_for(path, loaded.doc, loaded.entries, display)
