"""Loading any workspace file into its model plus diagnostics. Never raises for content."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

import store.models
from store.read.diagnostics import Diagnostic, DiagnosticSink
from store.read.jsonl import JsonlRecord, check_duplicate_ids, scan_jsonl
from store.read.kinds import Kind, kind_from_mapping, kind_from_path, kind_from_record
from store.read.textio import (
    MAX_DOCUMENT_BYTES,
    MAX_JSONL_BYTES,
    FileStamp,
    NotReadable,
    open_regular,
    read_text,
)
from store.read.validate import validate_tolerant
from store.read.yamlload import YamlDoc, load_yaml

if TYPE_CHECKING:
    from store.read.metadata_block import Reply


#: Each kind's model by name, imported when first asked for (``show`` of a report builds the
#: KPT models alone, not the eleven formats' 55 classes: about 0.07 s of a small command).
MODEL_NAMES = {
    Kind.KPT: "KptReport",
    Kind.FEEDBACK: "Feedback",
    Kind.SUMMARIES: "SessionSummary",
    Kind.LESSONS: "Lesson",
    Kind.SKILL: "Skill",
    Kind.PATTERN: "Pattern",
    Kind.ANTI_PATTERN: "AntiPattern",
    Kind.MEMORY: "ProjectMemory",
    Kind.PROPOSAL: "Proposal",
    Kind.PIECE: "Piece",
    Kind.WRAPUP: "WrapupInput",
}


def model_of(kind: Kind) -> type[BaseModel]:
    model: type[BaseModel] = getattr(store.models, MODEL_NAMES[kind])
    return model


JSONL_KINDS = (Kind.SUMMARIES, Kind.LESSONS)


@dataclass(slots=True)
class Entry:
    """One JSONL record: its place in the file, its raw object and its model."""

    record: JsonlRecord
    model: BaseModel | None


@dataclass(slots=True)
class Loaded:
    path: Path
    display: str
    kind: Kind | None
    diagnostics: list[Diagnostic] = field(default_factory=list)
    stamp: FileStamp | None = None
    text: str | None = None
    data: Any = None
    yaml: YamlDoc | None = None
    doc: BaseModel | None = None
    entries: list[Entry] = field(default_factory=list)
    reply: Reply | None = None
    pending: bytes = b""


def load_file(path: Path, kind: Kind | None = None, display: str | None = None) -> Loaded:
    """Load ``path`` as ``kind`` (recognised from its path and content when ``None``)."""
    shown = display or str(path)
    sink = DiagnosticSink(shown)
    kind = kind or kind_from_path(path)
    is_jsonl = kind in JSONL_KINDS or path.suffix.lower() == ".jsonl"
    raw = read_text(path, sink, MAX_JSONL_BYTES if is_jsonl else MAX_DOCUMENT_BYTES)
    out = Loaded(path, shown, kind, sink.items, raw.stamp, raw.text)
    if raw.text is None:
        return out
    if is_jsonl:
        _load_jsonl(out, raw.data, sink)
    elif path.suffix.lower() in (".md", ".markdown") or kind is Kind.DISCUSSION:
        out.kind = Kind.DISCUSSION
        from store.read.metadata_block import parse_reply  # (its model: discussions alone)

        out.reply = parse_reply(raw.text, sink)
    elif path.suffix.lower() == ".json":
        _load_json(out, raw.text, sink)
    else:
        _load_yaml_doc(out, raw.text, sink)
    return out


def _load_yaml_doc(out: Loaded, text: str, sink: DiagnosticSink) -> None:
    doc = load_yaml(text, sink)
    if doc is None:
        return
    out.yaml = doc
    out.data = doc.data
    if doc.data is None:
        sink.error("empty-document", "the file holds no document (it is empty or only comments)")
        return
    if out.kind is Kind.PIECE and isinstance(doc.data, dict) and "jobs" in doc.data:
        out.kind = None  # a GitHub Actions workflow in a workflows/ folder, not TAKT's
    if out.kind is None:
        out.kind = kind_from_mapping(doc.data)
    if out.kind is None:
        if isinstance(doc.data, dict):
            sink.warning(
                "unknown-kind", "not recognised as any hurikaeri format; only checked as YAML", 1
            )
        else:
            sink.error("not-a-mapping", "expected a mapping of fields at the top of the file", 1)
        return
    out.doc = validate_tolerant(model_of(out.kind), doc.data, sink, doc.line_of, out.kind.value)


def _load_json(out: Loaded, text: str, sink: DiagnosticSink) -> None:
    try:
        data = json.loads(text)
    except ValueError as exc:
        line = getattr(exc, "lineno", None)
        sink.error("invalid-json", f"not valid JSON: {exc}", line)
        return
    out.data = data
    out.kind = out.kind or kind_from_mapping(data)
    if out.kind is None:
        sink.warning("unknown-kind", "not recognised as any hurikaeri format; only checked as JSON")
        return
    out.doc = validate_tolerant(model_of(out.kind), data, sink, what=out.kind.value)


def _load_jsonl(out: Loaded, data: bytes, sink: DiagnosticSink) -> None:
    scan = scan_jsonl(data, sink)
    out.pending = scan.pending
    if out.kind is None:
        for rec in scan.records:
            out.kind = kind_from_record(rec.data)
            if out.kind is not None:
                break
    check_duplicate_ids(scan.records, sink)
    model = model_of(out.kind) if out.kind in MODEL_NAMES else None
    models = validate_records(model, scan.records, sink) if model else [None] * len(scan.records)
    out.entries.extend(Entry(rec, m) for rec, m in zip(scan.records, models, strict=True))


def validate_records(
    model: type[BaseModel], records: Sequence[JsonlRecord], sink: DiagnosticSink
) -> list[BaseModel | None]:
    """Each JSONL record validated as ``model`` (diagnostics on the record's line)."""
    return [validate_tolerant(model, r.data, sink, fixed_line(r.line), "record") for r in records]


def fixed_line(line: int) -> Callable[[Sequence[str | int]], int | None]:
    """Line lookup for a JSONL record: every field is on the record's (first) line."""

    def line_of(_loc: Sequence[str | int]) -> int | None:
        return line

    return line_of


def load_jsonl_part(
    path: Path, kind: Kind, start: int, end: int, first_line: int, *, last: bool
) -> list[Entry]:
    """The records of one part (:func:`~store.read.jsonl.cut_points`) of a JSONL file,
    validated as :func:`load_file` does, unreported (for search); only the ``last`` part
    may end in a record still being written."""
    sink = DiagnosticSink(str(path))
    try:
        with open_regular(path, MAX_JSONL_BYTES) as (fh, _st):
            data = os.pread(fh.fileno(), end - start, start)
    except (OSError, NotReadable):
        return []
    scan = scan_jsonl(data, sink, base_offset=start, base_line=first_line, growing=last)
    models = validate_records(model_of(kind), scan.records, sink)
    return [Entry(rec, m) for rec, m in zip(scan.records, models, strict=True)]
