"""Promote then undo gives back the original bytes, for generated Markdown files."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from store.ledger import Ledger
from store.review.items import find_item
from store.review.promote import plan_promotion, promote_plans
from store.tx.transactions import undo_last
from store.workspace import Workspace

words = st.text(
    alphabet=st.characters(whitelist_categories=("L", "N"), max_codepoint=0xAC00),
    min_size=1,
    max_size=8,
)
line = st.one_of(
    words.map(lambda w: f"# {w}"),
    words.map(lambda w: f"## {w}"),
    words.map(lambda w: f"### {w}"),
    words.map(lambda w: f"- {w}"),
    words.map(lambda w: f"  * {w}"),
    words,
    st.just(""),
    st.just("```"),
    st.just("---"),
    words.map(lambda w: f"1. {w}"),
)


@pytest.mark.slow
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    lines=st.lists(line, max_size=25),
    crlf=st.booleans(),
    final_newline=st.booleans(),
    bom=st.booleans(),
    section=st.one_of(words, words.map(lambda w: f"## {w}")),
    text=words,
)
def test_promote_then_undo_restores_bytes(
    lines: list[str], crlf: bool, final_newline: bool, bom: bool, section: str, text: str
) -> None:
    nl = "\r\n" if crlf else "\n"
    body = nl.join(lines) + (nl if final_newline and lines else "")
    raw = (b"\xef\xbb\xbf" if bom else b"") + body.encode()
    with tempfile.TemporaryDirectory() as d:
        root = Path(d)
        (root / "hurikaeri").mkdir()
        (root / "hurikaeri" / "kpt-20260101-001.yaml").write_text(
            "id: kpt-20260101-001\nproblem: []\nomission: []\n"
            f"try:\n  - id: try-001\n    description: {text!r}\n    addresses: []\n    scope: global\n"
            f"    persistence_target: {{type: claude_md, path: CLAUDE.md, section: {section!r}}}\n",
            encoding="utf-8",
        )
        target = root / "CLAUDE.md"
        target.write_bytes(raw)
        ws = Workspace(root)
        ledger = Ledger(ws.state_dir)
        plan = plan_promotion(ws, find_item(ws, "kpt-20260101-001/try-001"), "keep-both")
        promote_plans(ws, [plan], ledger=ledger)
        after = target.read_bytes()
        if plan.writes:
            assert after != raw
            # everything that was there is still there, in order, with the same line endings
            old_lines = raw.split(b"\n")
            new_lines = after.split(b"\n")
            it = iter(new_lines)
            assert all(any(o == n for n in it) for o in old_lines[:-1])
            assert after.startswith(b"\xef\xbb\xbf") == bom
            undo_last(ws, ledger=ledger)
        assert target.read_bytes() == raw
