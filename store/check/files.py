"""Per-file checks: each file against its format and what one document tells about itself
(the ``lint`` command: :mod:`store.insight.lint`)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path, PurePosixPath

from pydantic import BaseModel

from store.check.piece_lint import PieceLinter
from store.models import KptReport, Proposal
from store.models.knowledge import LearnedBehavior
from store.models.kpt import SECTIONS
from store.models.piece import Piece
from store.read.diagnostics import Diagnostic, DiagnosticSink
from store.read.isotime import parse_time
from store.read.kinds import Kind
from store.read.loader import Loaded, load_file, model_of
from store.read.validate import LineOf, validate_tolerant
from store.write.policy import (
    lexical_target_problem,
    promotion_kind,
    proposal_kind,
    section_text_problem,
)

#: A proposal's kind → the model its payload is validated as.
PAYLOAD_MODELS: dict[str, type[BaseModel]] = {
    "skill": model_of(Kind.SKILL),
    "pattern": model_of(Kind.PATTERN),
    "anti_pattern": model_of(Kind.ANTI_PATTERN),
    "memory": LearnedBehavior,
}


def cross_check(loaded: Loaded) -> list[Diagnostic]:
    """Checks that need the whole document (beyond its model)."""
    sink = DiagnosticSink(loaded.display)
    doc, yaml = loaded.doc, loaded.yaml
    if isinstance(doc, KptReport) and yaml is not None:
        check_kpt(doc, loaded.path, sink, yaml.line_of)
    elif isinstance(doc, Piece) and yaml is not None:
        PieceLinter(doc, loaded.path, yaml, sink).run()
    elif isinstance(doc, Proposal) and yaml is not None:
        check_proposal(doc, loaded.path, sink, yaml.line_of)
    for entry in loaded.entries:
        check_id_date(entry.record.data, entry.record.line, sink)
    return sink.items


_ID_DATE = re.compile(r"-(\d{4})(\d{2})(\d{2})-\d+$")


def check_id_date(record: dict[str, object], line: int, sink: DiagnosticSink) -> None:
    """A wrap-up bug once wrote ids with the wrong date: say so, and trust ``date`` (its day
    as written, whatever its time and zone)."""
    rid, written = record.get("id"), parse_time(record.get("date"))
    m = _ID_DATE.search(rid) if isinstance(rid, str) else None
    if m is None or written is None:
        return
    day = written.date().isoformat()
    if "-".join(m.groups()) != day:
        sink.warning(
            "id-date-mismatch",
            f"id '{rid}' carries the date {'-'.join(m.groups())} but the record is dated "
            f"{day}; the date field is what counts",
            line,
        )


def check_id_is_file_name(
    doc_id: str | None, path: Path, sink: DiagnosticSink, line_of: LineOf
) -> None:
    if doc_id is not None and doc_id != path.stem:
        sink.error(
            "id-mismatch",
            f"id '{doc_id}' does not match the file name '{path.name}' (expected '{path.stem}')",
            line_of(("id",)),
        )


def check_kpt(doc: KptReport, path: Path, sink: DiagnosticSink, lo: LineOf) -> None:
    check_id_is_file_name(doc.id, path, sink, lo)
    seen: dict[str, str] = {}
    for section in SECTIONS:
        for i, item in enumerate(doc.section(section)):
            if item.id is None:
                continue
            if item.id in seen:
                sink.error(
                    "duplicate-id",
                    f"item id '{item.id}' is used twice (also in {seen[item.id]})",
                    lo((section, i, "id")),
                )
            seen.setdefault(item.id, section)
    targets = {i.id for s in ("problem", "omission") for i in doc.section(s) if i.id}
    for i, item in enumerate(doc.try_ or []):
        pt = item.persistence_target
        if pt is not None and pt.path:
            field = "path"
            problem = lexical_target_problem(pt.path, promotion_kind(pt.type))
            if not problem:
                field, problem = "section", section_text_problem(pt.section)
            if problem:
                sink.warning(
                    "refused-target",
                    f"try item '{item.id}' cannot be promoted to '{pt.path}': {problem}",
                    lo(("try", i, "persistence_target", field)),
                )
        for j, ref in enumerate(item.addresses or []):
            if ref not in targets:
                sink.error(
                    "unknown-address",
                    f"try item '{item.id}' addresses '{ref}', which is no problem or omission "
                    f"of this report (known: {', '.join(sorted(targets)) or 'none'})",
                    lo(("try", i, "addresses", j)),
                )


def check_proposal(doc: Proposal, path: Path, sink: DiagnosticSink, lo: LineOf) -> None:
    check_id_is_file_name(doc.id, path, sink, lo)
    if doc.target is not None:
        t = PurePosixPath(doc.target.replace("\\", "/"))
        if t.is_absolute() or doc.target.startswith("~") or ".." in t.parts:
            sink.error(
                "target-outside",
                f"target '{doc.target}' must be a path inside the workspace root "
                "(relative, without '..')",
                lo(("target",)),
            )
        else:
            kind = proposal_kind(doc.kind)
            problem = lexical_target_problem(doc.target, kind) if kind else None
            if problem:
                sink.error(
                    "refused-target",
                    f"approving this {doc.kind} proposal would be refused: {problem}",
                    lo(("target",)),
                )
    model = PAYLOAD_MODELS.get(doc.kind or "")
    if doc.payload is not None and model is not None:

        def payload_line(loc: Sequence[str | int]) -> int | None:
            return lo(("payload", *loc))

        validate_tolerant(model, doc.payload, sink, payload_line, "payload")


def check_loaded(loaded: Loaded, *, finished: bool = True) -> list[Diagnostic]:
    """A loaded file's own diagnostics plus the cross-checks. Without ``finished`` an
    unfinished last JSONL line is kept for later (a file still being appended to)."""
    diags = list(loaded.diagnostics)
    line = unfinished_line(loaded)
    if line is not None and finished:
        diags.append(unfinished(loaded.display, line))
    diags.extend(cross_check(loaded))
    return diags


def unfinished_line(loaded: Loaded) -> int | None:
    """The line where an unfinished last JSONL record starts, if there is one."""
    if not loaded.pending:
        return None
    return (loaded.text or "").count("\n") + 1 - loaded.pending.count(b"\n")


def unfinished(display: str, line: int) -> Diagnostic:
    return Diagnostic(
        display,
        line,
        "error",
        "unfinished-line",
        "the last record is unfinished (no closing brace or newline)",
    )


def lint_file(path: Path, kind: Kind | None, display: str) -> list[Diagnostic]:
    return check_loaded(load_file(path, kind, display))
