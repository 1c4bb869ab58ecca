"""``import-wrapup``: the wrap-up skill's save step, done safely (seed 001, wrap-up v1.4).

The input JSON is validated first — invalid input writes nothing and says what is wrong —
then one summary line is appended to ``session-summaries/<slug>/summaries.jsonl`` and one
line per lesson to the user and AI lesson files, each line in a single write; existing bytes
are never touched. The slug is the project path with ``:`` and ``/`` (and ``\\``) replaced by
``-``, as the upstream script makes it. Ids are the prefix, the record's date and the next
free sequence for that prefix and date among the records already there — whatever dates
those records carry (a wrap-up bug once wrote ids with wrong dates).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from .atomic import WriteError, append_bytes
from .diagnostics import Diagnostic, DiagnosticSink
from .jsonl import encode_record, scan_jsonl
from .models.lessons import AI_LESSON_TYPES, USER_LESSON_TYPES, WrapupInput
from .review import ReviewError
from .validate import validate_tolerant
from .workspace import Workspace

_ID_SEQ = re.compile(r"^(?P<prefix>.+)-(?P<date>\d{8})-(?P<seq>\d+)$")


def project_slug(project: str) -> str:
    return re.sub(r"[:/\\]", "-", project)


@dataclass(slots=True)
class WrapupImport:
    summary_path: Path
    user_path: Path
    ai_path: Path
    summary: dict[str, Any]
    user_lessons: list[dict[str, Any]] = field(default_factory=list)
    ai_lessons: list[dict[str, Any]] = field(default_factory=list)

    def lines(self) -> list[tuple[Path, bytes]]:
        out = [(self.summary_path, encode_record(self.summary))]
        out += [(self.user_path, encode_record(r)) for r in self.user_lessons]
        out += [(self.ai_path, encode_record(r)) for r in self.ai_lessons]
        return out


def _existing_ids(path: Path) -> set[str]:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return set()
    scan = scan_jsonl(data, DiagnosticSink(str(path)))
    return {str(r.data.get("id")) for r in scan.records if r.data.get("id")}


def next_id(prefix: str, day: str, taken: set[str]) -> str:
    seqs = [
        int(m.group("seq"))
        for t in taken
        if (m := _ID_SEQ.match(t)) and m.group("prefix") == prefix and m.group("date") == day
    ]
    return f"{prefix}-{day}-{max(seqs, default=0) + 1:03d}"


def parse_input(text: str, source: str) -> tuple[WrapupInput | None, list[Diagnostic]]:
    sink = DiagnosticSink(source)
    try:
        data = json.loads(text)
    except ValueError as exc:
        sink.error("invalid-json", f"not valid JSON: {exc}", getattr(exc, "lineno", None))
        return None, sink.items
    model = validate_tolerant(WrapupInput, data, sink, what="wrap-up input")
    if model is not None:
        for key, allowed in (("user_lessons", USER_LESSON_TYPES), ("ai_lessons", AI_LESSON_TYPES)):
            for i, les in enumerate(getattr(model, key) or []):
                if les.type and les.type not in allowed:
                    sink.warning(
                        "lesson-type-side",
                        f"{key}[{i}].type '{les.type}' is not a {key.split('_')[0]} lesson type",
                    )
        if model.date:
            try:
                datetime.fromisoformat(model.date.replace("Z", "+00:00"))
            except ValueError:
                sink.error("bad-date", f"date '{model.date}' is not an ISO 8601 time")
    return model, sink.items


def plan_import(ws: Workspace, model: WrapupInput) -> WrapupImport:
    assert model.project and model.date
    day = model.date[:10].replace("-", "")
    summary_path = ws.loc("summaries") / project_slug(model.project) / "summaries.jsonl"
    user_path, ai_path = ws.loc("lessons_user"), ws.loc("lessons_ai")
    base = {
        "date": model.date,
        "session_id": model.session_id,
        "session_name": model.session_name,
        "project": model.project,
    }
    s = model.summary
    summary: dict[str, Any] = {
        "id": next_id("ws", day, _existing_ids(summary_path)),
        **base,
        "info_summary": list(s.info or []) if s else [],
        "qa_pairs": [q.model_dump(exclude_none=True) for q in (s.qa or [])] if s else [],
        "conclusions": [c.model_dump(exclude_none=True) for c in (s.conclusions or [])]
        if s
        else [],
        "work_done": list(s.done) if s and s.done is not None else None,
        "action_items": [
            {"title": a.title, "priority": a.priority, "registered_todo": a.registered_todo}
            for a in (s.actions or [])
        ]
        if s
        else [],
    }
    if model.evaluation is not None:
        summary["evaluation"] = model.evaluation.model_dump(exclude_none=True)
    for key, value in (model.model_extra or {}).items():  # newer fields (timing, …) kept
        summary[key] = value
    plan = WrapupImport(summary_path, user_path, ai_path, summary)
    for prefix, lessons, out, path in (
        ("ll-user", model.user_lessons, plan.user_lessons, user_path),
        ("ll-ai", model.ai_lessons, plan.ai_lessons, ai_path),
    ):
        taken = _existing_ids(path)
        for les in lessons or []:
            rid = next_id(prefix, day, taken)
            taken.add(rid)
            out.append(
                {
                    "id": rid,
                    **base,
                    "type": les.type,
                    "category": les.category,
                    "title": les.title,
                    "summary": les.summary,
                    "context": les.context,
                    "detail_ref": les.detail_ref if les.detail_ref is not None else "",
                    "tags": list(les.tags or []),
                    "memory_ref": les.memory_ref,
                    **(les.model_extra or {}),
                }
            )
    return plan


def import_wrapup(ws: Workspace, text: str, source: str = "<input>") -> WrapupImport:
    """Validate, then append. Raises :class:`ReviewError` (with every problem) before any
    write when the input is invalid or a target file cannot take a line right now."""
    model, diags = parse_input(text, source)
    errors = [d for d in diags if d.severity == "error"]
    if model is None or errors:
        raise ReviewError(
            "invalid wrap-up input, nothing written: " + "; ".join(d.message for d in errors)
        )
    plan = plan_import(ws, model)
    for path in {p for p, _ in plan.lines()}:
        if path.exists():
            data = path.read_bytes()
            if data and not data.endswith(b"\n"):
                raise ReviewError(f"{path}: the last line is unfinished; nothing written")
    written: list[Path] = []
    try:
        for path, line in plan.lines():
            append_bytes(path, line)
            written.append(path)
    except WriteError as exc:
        raise ReviewError(f"{exc} ({len(written)} line(s) were already appended)") from exc
    return plan
