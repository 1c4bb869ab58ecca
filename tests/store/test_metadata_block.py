"""Seed 002's metadata block: the seed's examples, two blocks, none, a broken one, slips."""

from __future__ import annotations

import pytest

from store.read.diagnostics import DiagnosticSink
from store.read.metadata_block import (
    find_block,
    findings_by_severity,
    parse_reply,
    reply_json,
    text_verdict,
)
from tests.conftest import SEEDS


def parse(text: str, kind: str | None = None):  # type: ignore[no-untyped-def]
    sink = DiagnosticSink("reply.md")
    reply = parse_reply(text, sink, kind)  # type: ignore[arg-type]
    return reply, sink.items


# -- the seed's three examples ------------------------------------------------------


def test_seed_review_example() -> None:
    reply, diags = parse((SEEDS / "reply-review.md").read_text())
    assert reply.source == "block" and reply.kind == "review"
    assert (reply.status, reply.verdict) == ("stop", "conditional")
    assert [(f.severity, f.message) for f in reply.findings] == [
        ("medium", "validate_input() で空文字列チェックが不足"),
        ("low", "エラーメッセージのハードコード"),
    ]
    # the seed's own example has an unquoted ': ' in a value: read as text, with a warning
    assert reply.findings[0].suggestion == "if not input: return False を追加"
    assert [d.code for d in diags] == ["yaml-colon-in-value"]
    assert diags[0].line == 14 and diags[0].severity == "warning"
    assert reply.body.endswith("2. エラーメッセージがハードコードされています")
    assert "---" not in reply.body


def test_seed_discussion_continue_example() -> None:
    reply, diags = parse((SEEDS / "reply-discussion-continue.md").read_text())
    assert diags == []
    assert (reply.status, reply.verdict, reply.source) == ("continue", None, "block")
    assert reply.texts("open_questions") == ["ユーザー規模の想定", "モバイルアプリ対応の有無"]
    assert reply.texts("decisions") == ["REST API で実装する"]
    assert (
        reply.findings == [] and reply.texts("blockers") == [] and reply.texts("next_steps") == []
    )


def test_seed_discussion_stop_example() -> None:
    reply, diags = parse((SEEDS / "reply-discussion-stop.md").read_text())
    assert diags == []
    assert reply.status == "stop" and reply.kind == "discussion"
    assert reply.texts("decisions") == [
        "JWT ベースの認証を採用",
        "Redis でトークン管理",
        "リフレッシュトークン有効期限は7日",
    ]
    assert reply.texts("next_steps") == [
        "認証ミドルウェアの実装",
        "トークン発行エンドポイントの作成",
    ]


def test_seed_format_example_has_every_field_kind() -> None:
    reply, diags = parse((SEEDS / "reply-format.md").read_text())
    assert diags == []
    assert (reply.status, reply.verdict) == ("continue", "conditional")
    assert reply.findings[0].severity == "medium" and reply.findings[0].suggestion is None


# -- which block ------------------------------------------------------------------------

TWO_BLOCKS = """First round.

---
status: continue
open_questions:
  - old question
---

Then I looked again. Everything is fine now.

---
status: stop
verdict: pass
decisions:
  - ship it
---
"""


def test_two_blocks_the_last_wins() -> None:
    reply, diags = parse(TWO_BLOCKS)
    assert diags == []
    assert (reply.status, reply.verdict) == ("stop", "pass")
    assert reply.texts("decisions") == ["ship it"] and reply.texts("open_questions") == []
    assert reply.block_line == 11
    assert "old question" in reply.body  # the earlier block stays part of the body
    assert reply.body.rstrip().endswith("Everything is fine now.")


def test_block_then_trailing_blank_lines_and_crlf() -> None:
    text = "Body\r\n\r\n---\r\nstatus: stop\r\n---\r\n\r\n\r\n"
    reply, diags = parse(text)
    assert (reply.status, reply.source, diags) == ("stop", "block", [])
    assert reply.body == "Body"


def test_block_inside_a_code_fence_as_the_prompt_shows_it() -> None:
    text = "Done.\n\n```yaml\n---\nstatus: stop\nverdict: fail\n---\n```\n"
    reply, _ = parse(text)
    assert (reply.status, reply.verdict, reply.source) == ("stop", "fail", "block")
    assert reply.body == "Done."


def test_text_after_the_block_means_no_block() -> None:
    reply, _ = parse("x\n---\nstatus: stop\n---\nand more text\n")
    assert reply.source == "fallback"


# -- fallbacks ------------------------------------------------------------------------


def test_no_block_review_falls_back_to_stop_and_the_verdict_in_the_text() -> None:
    reply, diags = parse("Looks good overall.\n\nCONDITIONAL: fix the two nits first.\n")
    assert diags == []
    assert reply.source == "fallback" and reply.kind == "review"
    assert (reply.status, reply.verdict) == ("stop", "conditional")
    assert reply_json(reply)["from_fallback"] == ["status", "verdict"]


def test_no_block_discussion_falls_back_to_continue() -> None:
    reply, _ = parse("Let us compare JWT and sessions first.\n")
    assert (reply.status, reply.verdict, reply.kind) == ("continue", None, "discussion")


def test_kind_given_decides_the_fallback_status() -> None:
    assert parse("Some thoughts.", "review")[0].status == "stop"
    assert parse("Tests PASS here.", "discussion")[0].status == "continue"


def test_fallback_verdict_is_the_last_one_outside_code() -> None:
    text = "First pass: FAIL.\n\n```\nFAIL src/a.test.ts\n```\nAfter the fix: PASS\n"
    assert text_verdict(text) == "pass"
    assert text_verdict("```\nPASS\n```\nnothing decided") is None
    assert text_verdict("PASSED and FAILURE are not verdicts") is None


def test_demo_reply_without_block() -> None:
    from tests.conftest import DEMO

    text = (DEMO / "discussions/etl-dedup-review/2026-10-30-codex-review.md").read_text()
    reply, diags = parse(text)
    assert (reply.status, reply.verdict, reply.source, diags) == ("stop", "pass", "fallback", [])


# -- broken blocks ---------------------------------------------------------------------

BROKEN = """I reviewed it.

FAIL: the migration has no down step.

---
status: stop
verdict: fail
findings:
  - severity: high
    message: [unclosed
---
"""


def test_broken_block_is_a_diagnostic_and_the_body_stays_readable() -> None:
    reply, diags = parse(BROKEN)
    assert reply.source == "fallback" and reply.block is None
    assert reply.block_line == 5
    errors = [d for d in diags if d.severity == "error"]
    assert len(errors) == 1 and errors[0].code.startswith("yaml")
    assert errors[0].line is not None and 5 <= errors[0].line <= 11
    assert reply.body.startswith("I reviewed it.") and "status:" not in reply.body
    assert (reply.status, reply.verdict) == ("stop", "fail")  # fallbacks from the body


def test_block_that_is_not_a_mapping() -> None:
    reply, diags = parse("text\n---\nstatus\n---\n")
    # 'status' alone is not 'key:' — prose between rules, not a block
    assert reply.source == "fallback"
    assert [d.code for d in diags] == ["meta-not-a-block"]
    reply, diags = parse("text\n---\nstatus: [a, b\n---\n")
    assert any(d.severity == "error" for d in diags)


def test_prose_between_rules_at_the_end_is_not_a_block() -> None:
    reply, diags = parse("Summary.\n\n---\n*Generated by Codex*\n---\n")
    assert reply.source == "fallback"
    assert [d.code for d in diags] == ["meta-not-a-block"]
    assert "Generated by Codex" in reply.body


def test_empty_block_warns_and_falls_back() -> None:
    reply, diags = parse("Hi\n---\n---\n")
    assert reply.source == "fallback"
    assert [d.code for d in diags] == ["meta-empty-block"]


def test_missing_status_is_an_error_and_takes_the_fallback() -> None:
    reply, diags = parse("Looks fine. PASS\n---\nverdict: pass\n---\n")
    assert reply.source == "block"
    assert [d.code for d in diags] == ["missing-field"]
    assert diags[0].line == 3
    assert (reply.status, reply.verdict, sorted(reply.fallback)) == ("stop", "pass", ["status"])


# -- unknown values and slips are kept, with a warning ----------------------------------


def test_unknown_fields_and_severities_are_kept_with_a_warning() -> None:
    text = (
        "Body\n---\nstatus: stop\nconfidence: 0.8\nfindings:\n"
        "  - severity: critical\n    message: SQL injection\n    file: src/db.ts\n---\n"
    )
    reply, diags = parse(text)
    codes = sorted((d.code, d.line) for d in diags)
    assert codes == [("enum-unknown", 6), ("unknown-field", 4), ("unknown-field", 8)]
    assert all(d.severity == "warning" for d in diags)
    assert reply.extra == {"confidence": 0.8}
    assert reply.findings[0].severity == "critical"
    data = reply_json(reply)
    assert data["extra"] == {"confidence": 0.8}
    assert data["findings"][0] == {
        "severity": "critical",
        "message": "SQL injection",
        "suggestion": None,
        "file": "src/db.ts",
    }


def test_wrong_case_is_kept_in_the_file_and_canonical_in_the_reply() -> None:
    reply, diags = parse("x\n---\nstatus: Stop\nverdict: PASS\n---\n")
    assert [d.code for d in diags] == ["enum-case", "enum-case"]
    assert reply.block is not None and reply.block.status == "Stop"
    assert (reply.status, reply.verdict) == ("stop", "pass")


def test_slips_are_read_not_dropped() -> None:
    text = (
        "x\n---\nstatus: continue\nopen_questions: which database?\n"
        "decisions:\n  - 認証方式: JWT\n  -\nfindings:\n  - plain text finding\n---\n"
    )
    reply, diags = parse(text)
    assert reply.texts("open_questions") == ["which database?"]
    assert reply.texts("decisions") == ["認証方式: JWT"]
    assert reply.findings[0].message == "plain text finding"
    assert sorted(d.code for d in diags) == [
        "meta-empty-item",
        "meta-finding-text",
        "meta-item-not-text",
        "meta-not-a-list",
    ]
    assert all(d.severity == "warning" for d in diags)


def test_findings_grouped_high_first() -> None:
    text = (
        "x\n---\nstatus: stop\nfindings:\n  - {severity: low, message: a}\n"
        "  - {severity: high, message: b}\n  - {message: c}\n  - {severity: nit, message: d}\n"
        "  - {severity: High, message: e}\n---\n"
    )
    reply, _ = parse(text)
    groups = [(s, [i for i, _f in g]) for s, g in findings_by_severity(reply.findings)]
    assert groups == [("high", [1, 4]), ("low", [0]), ("nit", [3]), ("", [2])]


@pytest.mark.parametrize(
    "text",
    ["", "---", "---\n---", "\n\n---\n", "---\nstatus: stop", "a\n---\n\tstatus: stop\n---"],
)
def test_odd_inputs_never_raise(text: str) -> None:
    parse(text)


def test_find_block_reports_where_it_starts() -> None:
    span = find_block("a\nb\n---\nstatus: stop\n---\n")
    assert span is not None and (span.line, span.text, span.body) == (3, "status: stop", "a\nb")
