"""Bad YAML of every kind becomes diagnostics with lines; nothing raises."""

from __future__ import annotations

from pathlib import Path

import pytest

from store.models import KptReport
from store.read.diagnostics import DiagnosticSink
from store.read.loader import load_file
from store.read.yamlload import MAX_EXPANDED_NODES, load_yaml


def _load(text: str) -> tuple[object, list[tuple[str, str, int | None]]]:
    sink = DiagnosticSink("t.yaml")
    doc = load_yaml(text, sink)
    return (doc.data if doc else None), [(d.severity, d.code, d.line) for d in sink.items]


def test_yaml_12_semantics() -> None:
    data, diags = _load("a: yes\nb: 010\nc: 12:30\nd: 0o10\ne: 2026-02-08T15:00:00Z\nf: ~\n")
    assert data == {
        "a": "yes",
        "b": 10,
        "c": "12:30",
        "d": 8,
        "e": "2026-02-08T15:00:00Z",
        "f": None,
    }
    assert diags == []


def test_tabs_are_an_error_with_line_and_hint() -> None:
    sink = DiagnosticSink("t")
    assert load_yaml("a:\n\tb: 1\n", sink) is None
    (d,) = sink.items
    assert (d.code, d.line) == ("yaml-syntax", 2) and "tabs" in d.message


@pytest.mark.parametrize(
    "text", ['a: 1\nb: 2\nc: "x\x1by"\n', "\ufeffa: 1\r\nb: 2\r\nc: x \x07\r\n"]
)
def test_a_forbidden_character_is_an_error_on_its_line(text: str) -> None:
    """ruamel's reader gives an offset, not a line, and a message on two lines."""
    sink = DiagnosticSink("t")
    assert load_yaml(text, sink) is None
    (d,) = sink.items
    assert (d.code, d.line) == ("yaml-syntax", 3) and "\n" not in d.message


def test_unclosed_quote_points_at_its_start() -> None:
    data, diags = _load('a: 1\nb: "never closed\n\n\n')
    assert data is None and diags == [("error", "yaml-syntax", 2)]


def test_duplicate_keys_are_errors_and_last_wins() -> None:
    data, diags = _load("a: 1\nb: 2\na: 3\n")
    assert data == {"a": 3, "b": 2}
    assert diags == [("error", "yaml-duplicate-key", 3)]


@pytest.mark.parametrize(
    "text",
    [
        "a: !!python/object/apply:os.system ['echo pwned']\n",
        "a: !!python/name:os.system x\n",
        "a: !custom {x: 1}\n",
        "a: !!binary aGVsbG8=\n",
    ],
)
def test_tags_are_never_constructed(text: str) -> None:
    data, diags = _load(text)
    assert isinstance(data, dict)
    assert all(isinstance(v, (str, list, dict)) for v in data.values())
    assert [c for _, c, _ in diags] == ["yaml-tag"]


def test_alias_bomb_is_bounded() -> None:
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    prev = "a"
    for name in "bcdefghij":
        lines.append(f"{name}: &{name} [" + ",".join([f"*{prev}"] * 9) + "]")
        prev = name
    data, diags = _load("\n".join(lines) + "\n")
    assert data is None
    assert diags[0][1] == "yaml-too-large"
    assert MAX_EXPANDED_NODES < 9**9


def test_modest_aliases_are_fine() -> None:
    data, diags = _load("base: &b {x: 1}\nuse: *b\nmerged:\n  <<: *b\n  y: 2\n")
    assert data == {"base": {"x": 1}, "use": {"x": 1}, "merged": {"x": 1, "y": 2}}
    assert diags == []


def test_recursive_alias_does_not_hang() -> None:
    _data, diags = _load("a: &a\n  - *a\n")
    assert any(c in ("yaml-recursive-alias", "yaml-too-large") for _, c, _ in diags)


def test_multiple_documents_are_an_error() -> None:
    data, diags = _load("a: 1\n---\nb: 2\n")
    assert data is None and diags == [("error", "yaml-syntax", 2)]


def test_colon_in_plain_value_is_read_as_text_with_warning() -> None:
    data, diags = _load("- id: try-001\n  description: Fix: quote values: always\n")
    assert data == [{"id": "try-001", "description": "Fix: quote values: always"}]
    assert diags == [("warning", "yaml-colon-in-value", 2)]


def _write(tmp_path: Path, name: str, data: bytes) -> Path:
    p = tmp_path / name
    p.write_bytes(data)
    return p


@pytest.mark.parametrize(
    ("data", "code"),
    [
        (b"", "empty-document"),
        (b"# only a comment\n", "empty-document"),
        (b"\x00\x01\x02binary", "binary-file"),
        (b"- just\n- a list\n", "not-a-mapping"),
        (b"plain scalar\n", "not-a-mapping"),
        (b"id: kpt-20260101-001\nsession_summary: \xff\xfe bad\n", "invalid-utf8"),
    ],
)
def test_bad_kpt_files_are_errors(tmp_path: Path, data: bytes, code: str) -> None:
    loaded = load_file(_write(tmp_path, "kpt-20260101-001.yaml", data))
    assert code in [d.code for d in loaded.diagnostics if d.severity == "error"]


def test_bom_and_crlf_are_read(tmp_path: Path) -> None:
    text = "id: kpt-20260101-001\r\nsession_summary: 概要\r\noutcome: success\r\n"
    loaded = load_file(_write(tmp_path, "kpt-20260101-001.yaml", b"\xef\xbb\xbf" + text.encode()))
    assert isinstance(loaded.doc, KptReport)
    assert loaded.doc.session_summary == "概要"
    assert not [d for d in loaded.diagnostics if d.code.startswith("yaml")]


def test_huge_file_is_refused_without_reading_it(tmp_path: Path) -> None:
    p = tmp_path / "kpt-20260101-001.yaml"
    with open(p, "wb") as fh:
        fh.truncate(64 * 1024 * 1024)
    loaded = load_file(p)
    assert [d.code for d in loaded.diagnostics] == ["file-too-large"]


def test_directory_and_missing_file(tmp_path: Path) -> None:
    (tmp_path / "kpt-20260101-001.yaml").mkdir()
    assert load_file(tmp_path / "kpt-20260101-001.yaml").diagnostics[0].code == "not-a-file"
    assert load_file(tmp_path / "nope.yaml").diagnostics[0].code == "unreadable"


def test_wrong_types_are_reported_and_the_rest_is_kept(tmp_path: Path) -> None:
    text = (
        "id: kpt-20260101-001\ncreated_at: 2026-01-01T00:00:00Z\nsession_summary: s\n"
        "task_goals: [a]\noutcome: FAILURE\nkeep: not a list\nproblem: []\n"
        "try:\n  - id: try-001\n    description: d\n    addresses: prob-9\n    scope: global\n"
        "omission: []\nextra_field: kept\n"
    )
    loaded = load_file(_write(tmp_path, "kpt-20260101-001.yaml", text.encode()))
    doc = loaded.doc
    assert isinstance(doc, KptReport)
    assert doc.keep is None and doc.outcome == "FAILURE"
    assert doc.model_extra == {"extra_field": "kept"}
    got = {(d.code, d.line) for d in loaded.diagnostics}
    assert ("wrong-type", 6) in got  # keep
    assert ("wrong-type", 11) in got  # addresses
    assert ("enum-case", 5) in got
    assert ("unknown-field", 14) in got
    assert not any(c == "missing-field" and ln == 6 for c, ln in got)
