"""JSONL scanning and line-preserving edits."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from store.read.diagnostics import DiagnosticSink
from store.read.jsonl import encode_record, scan_jsonl
from store.read.loader import load_file
from store.write.atomic import ConflictError, WriteError, append_bytes
from store.write.jsonl_edit import prefix_digest, replace_span
from tests.guards import anywhere

MESSY = (
    b'{"id": "ll-ai-20260101-001", "type": "ai_trial_error", "title": "a", "date": "2026-01-01"}\n'
    b"\n"
    b"[1, 2]\n"
    b"{\n"
    b'  "id": "ll-ai-20260101-002",\n'
    b'  "type": "ai_user_guided",\n'
    b'  "title": "pretty",\n'
    b'  "date": "2026-01-01",\n'
    b'  "tags": [{"x": 1}]\n'
    b"}\n"
    b'{"id": broken\n'
    b'{"id": "ll-ai-20260101-001", "type": "ai_new_type", "title": "dup", "date": "2026-01-02"}\r\n'
    b'{"id": "ll-ai-20260101-003", "ti'
)


def test_scan_messy_file() -> None:
    sink = DiagnosticSink("f")
    scan = scan_jsonl(MESSY, sink)
    assert [(r.line, r.end_line) for r in scan.records] == [(1, 1), (4, 10), (12, 12)]
    assert scan.pending == b'{"id": "ll-ai-20260101-003", "ti'
    assert scan.complete_until == len(MESSY) - len(scan.pending)
    codes = [(d.code, d.line) for d in sink.items]
    assert codes == [("not-an-object", 3), ("multiline-record", 4), ("invalid-json", 11)]


def test_loader_reports_duplicates_and_unknown_types(tmp_path: Path) -> None:
    p = tmp_path / "lessons.jsonl"
    p.write_bytes(MESSY)
    loaded = load_file(p)
    codes = [(d.code, d.line) for d in loaded.diagnostics]
    assert ("duplicate-id", 12) in codes
    assert ("enum-unknown", 12) in codes
    assert len(loaded.entries) == 3 and loaded.pending


def test_pending_pretty_record_being_written() -> None:
    sink = DiagnosticSink("f")
    scan = scan_jsonl(b'{"id": "a"}\n{\n  "id": "b",\n', sink)
    assert len(scan.records) == 1 and scan.pending.startswith(b"{") and sink.items == []


def test_finished_file_reports_unfinished_line() -> None:
    sink = DiagnosticSink("f")
    scan_jsonl(b'{"id": "a"}\n{"id": "b', sink, growing=False)
    assert [d.code for d in sink.items] == ["invalid-json"]


def test_replace_one_record_keeps_every_other_byte(tmp_path: Path) -> None:
    p = tmp_path / "lessons.jsonl"
    p.write_bytes(MESSY)
    scan = scan_jsonl(MESSY, DiagnosticSink("f"))
    rec = scan.records[1]
    obj = dict(rec.data, title="edited タイトル")
    new = encode_record(obj)
    replace_span(
        p,
        rec.start,
        rec.end,
        new,
        prefix_len=scan.complete_until,
        prefix_sha256=prefix_digest(MESSY, scan.complete_until),
        guard=anywhere,
    )
    out = p.read_bytes()
    assert out == MESSY[: rec.start] + new + MESSY[rec.end :]
    assert json.loads(new)["title"] == "edited タイトル"


def test_replace_tolerates_appends_but_not_changes(tmp_path: Path) -> None:
    p = tmp_path / "lessons.jsonl"
    data = b'{"id": "a"}\n{"id": "b"}\n'
    p.write_bytes(data)
    scan = scan_jsonl(data, DiagnosticSink("f"))
    digest = prefix_digest(data, len(data))
    with open(p, "ab") as fh:
        fh.write(b'{"id": "c"}\n')  # an agent appends meanwhile
    rec = scan.records[0]
    replace_span(
        p,
        rec.start,
        rec.end,
        b'{"id": "A"}\n',
        prefix_len=len(data),
        prefix_sha256=digest,
        guard=anywhere,
    )
    assert p.read_bytes() == b'{"id": "A"}\n{"id": "b"}\n{"id": "c"}\n'
    p.write_bytes(b'{"id": "X"}\n{"id": "b"}\n')  # someone rewrote it
    with pytest.raises(ConflictError):
        replace_span(
            p,
            rec.start,
            rec.end,
            b'{"id": "Y"}\n',
            prefix_len=len(data),
            prefix_sha256=digest,
            guard=anywhere,
        )
    assert p.read_bytes() == b'{"id": "X"}\n{"id": "b"}\n'


def test_append_is_one_whole_line(tmp_path: Path) -> None:
    p = tmp_path / "sub" / "lessons.jsonl"
    append_bytes(p, encode_record({"id": "a", "title": "한국어"}), guard=anywhere)
    append_bytes(p, encode_record({"id": "b"}), guard=anywhere)
    assert p.read_bytes().decode().splitlines() == ['{"id": "a", "title": "한국어"}', '{"id": "b"}']
    with open(p, "ab") as fh:
        fh.write(b'{"id": "unfinished')
    with pytest.raises(WriteError, match="unfinished"):
        append_bytes(p, encode_record({"id": "c"}), guard=anywhere)
