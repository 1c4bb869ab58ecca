"""Property tests: loaders never raise; round-trips are byte-identical; edits stay local."""

from __future__ import annotations

import difflib
import io
import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML

from store.read.diagnostics import DiagnosticSink
from store.read.jsonl import scan_jsonl
from store.read.kinds import Kind
from store.read.loader import load_file
from store.read.metadata_block import parse_reply
from store.read.yamlload import load_yaml
from store.write.roundtrip import YamlEditor

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

text = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=40
)
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**9), 10**9),
    st.floats(allow_nan=False, allow_infinity=False, width=32),
    text,
)
keys = st.text(alphabet="abcdefghijklmnopqrstuvwxyz_", min_size=1, max_size=12).map("k_{}".format)
structures = st.recursive(
    scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=4), st.dictionaries(keys, children, max_size=4)
    ),
    max_leaves=25,
)
documents = st.dictionaries(keys, structures, min_size=1, max_size=6)


@SETTINGS
@given(st.binary(max_size=2000))
def test_arbitrary_bytes_never_raise_from_any_loader(data: bytes) -> None:
    with tempfile.TemporaryDirectory() as d:
        for name, kind in [
            ("kpt-20260101-001.yaml", Kind.KPT),
            ("lessons.jsonl", Kind.LESSONS),
            ("reply.md", Kind.DISCUSSION),
            ("piece.yaml", Kind.PIECE),
            ("unknown.yaml", None),
            ("input.json", None),
        ]:
            p = Path(d) / name
            p.write_bytes(data)
            loaded = load_file(p, kind)
            assert all(x.severity in ("error", "warning") for x in loaded.diagnostics)


@SETTINGS
@given(st.text(max_size=2000))
def test_arbitrary_text_never_raises(s: str) -> None:
    load_yaml(s, DiagnosticSink("t"))
    parse_reply(s, DiagnosticSink("t"))
    scan_jsonl(s.encode("utf-8", "surrogatepass"), DiagnosticSink("t"))


@SETTINGS
@given(documents, st.sampled_from(list(Kind)))
def test_arbitrary_structures_validate_as_any_kind_without_raising(
    doc: dict[str, Any], kind: Kind
) -> None:
    with tempfile.TemporaryDirectory() as d:
        p = Path(d) / "doc.json"
        p.write_text(json.dumps(doc))
        load_file(p, kind if kind not in (Kind.SUMMARIES, Kind.LESSONS, Kind.DISCUSSION) else None)
        j = Path(d) / "x.jsonl"
        j.write_text(json.dumps(doc) + "\n")
        load_file(j, Kind.LESSONS)


def _dump(doc: Any, indent: int, offset: int) -> str:
    y = YAML()
    y.width = 4096
    y.indent(mapping=indent, sequence=indent + offset if offset else indent, offset=offset)
    buf = io.StringIO()
    y.dump(doc, buf)
    return buf.getvalue()


@pytest.mark.slow
@SETTINGS
@given(documents, st.sampled_from([(2, 0), (2, 2), (4, 2), (4, 0)]), st.booleans())
def test_generated_documents_round_trip_byte_identical(
    doc: dict[str, Any], layout: tuple[int, int], crlf: bool
) -> None:
    text = _dump(doc, *layout)
    raw = text.replace("\n", "\r\n").encode() if crlf else text.encode()
    with tempfile.TemporaryDirectory() as d:
        p = Path(d) / "doc.yaml"
        p.write_bytes(raw)
        assert YamlEditor.open(p).render() == raw


@pytest.mark.slow
@SETTINGS
@given(documents, st.sampled_from([(2, 0), (2, 2), (4, 2)]), st.data())
def test_one_field_edit_touches_only_its_lines(
    doc: dict[str, Any], layout: tuple[int, int], data: st.DataObject
) -> None:
    text = _dump(doc, *layout)
    key = data.draw(st.sampled_from(sorted(doc)))
    value = data.draw(st.one_of(text_values, st.integers(0, 999)))
    with tempfile.TemporaryDirectory() as d:
        p = Path(d) / "doc.yaml"
        p.write_text(text)
        e = YamlEditor.open(p)
        e.set([key], value)
        out = e.render().decode()
    reloaded = YAML(typ="safe").load(out)
    assert reloaded[key] == value
    assert {k: v for k, v in reloaded.items() if k != key} == {
        k: v for k, v in YAML(typ="safe").load(text).items() if k != key
    }
    # every changed line lies inside the edited key's block
    old_lines = text.splitlines()
    start = next(i for i, ln in enumerate(old_lines) if ln.startswith(f"{key}:"))
    end = next(
        (i for i in range(start + 1, len(old_lines)) if old_lines[i][:1] not in (" ", "-", "")),
        len(old_lines),
    )
    sm = difflib.SequenceMatcher(None, old_lines, out.splitlines(), autojunk=False)
    for tag, i1, i2, _j1, _j2 in sm.get_opcodes():
        if tag != "equal":
            assert start <= i1 and i2 <= end, (tag, i1, i2, start, end)


text_values = (
    st.text(
        alphabet=st.characters(whitelist_categories=("L", "N", "Zs"), max_codepoint=0x9FFF),
        min_size=1,
        max_size=30,
    )
    .map(str.strip)
    .filter(bool)
)
