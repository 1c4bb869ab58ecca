"""Extracting the seed-002 metadata block from the end of an agent's reply.

The block is the *last* YAML block between two ``---`` lines at the very end of the text.
A reply without one still works: the fallbacks give ``status`` (``stop`` for a review,
``continue`` for a discussion) and take the verdict from PASS / FAIL / CONDITIONAL in the
text. A broken block is a diagnostic; the body stays readable.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

from .diagnostics import DiagnosticSink
from .models.metablock import MetaBlock
from .validate import validate_tolerant
from .yamlload import load_yaml

ReplyKind = Literal["review", "discussion"]
_VERDICT = re.compile(r"\b(PASS|FAIL|CONDITIONAL)\b")


@dataclass(slots=True)
class Reply:
    body: str
    block: MetaBlock | None
    source: Literal["block", "fallback"]
    block_line: int | None = None
    fallback: dict[str, str] = field(default_factory=dict)

    @property
    def status(self) -> str | None:
        return (
            self.block.status if self.block and self.block.status else self.fallback.get("status")
        )

    @property
    def verdict(self) -> str | None:
        if self.block and self.block.verdict:
            return self.block.verdict
        return self.fallback.get("verdict")


def split_block(text: str) -> tuple[str, str, int] | None:
    """(body, block text, 1-based line of the opening ``---``) or ``None``."""
    lines = text.splitlines()
    end = len(lines) - 1
    while end >= 0 and not lines[end].strip():
        end -= 1
    if end < 1 or lines[end].rstrip() != "---":
        return None
    start = end - 1
    while start >= 0 and lines[start].rstrip() != "---":
        start -= 1
    if start < 0:
        return None
    return "\n".join(lines[:start]).rstrip("\n"), "\n".join(lines[start + 1 : end]), start + 1


def guess_kind(text: str, block: MetaBlock | None) -> ReplyKind:
    if block is not None and (block.verdict or block.findings):
        return "review"
    return "review" if _VERDICT.search(text) else "discussion"


def parse_reply(text: str, sink: DiagnosticSink, kind: ReplyKind | None = None) -> Reply:
    parts = split_block(text)
    block: MetaBlock | None = None
    if parts is not None:
        body, block_text, line = parts
        offset = line  # block content starts on the line after the opening ---
        local = DiagnosticSink(sink.path)
        doc = load_yaml(block_text, local)
        for d in local.items:
            shifted = d.line + offset if d.line is not None else line
            (sink.error if d.severity == "error" else sink.warning)(d.code, d.message, shifted)
        if doc is not None and doc.data is not None:

            def line_of(loc: object) -> int | None:
                got = doc.line_of(loc)  # type: ignore[arg-type]
                return got + offset if got is not None else line

            block = validate_tolerant(MetaBlock, doc.data, sink, line_of, "metadata block")
        if block is not None:
            return Reply(body, block, "block", line)
        text_for_fallback = body
    else:
        text_for_fallback = text
        body = text
    reply_kind = kind or guess_kind(text_for_fallback, block)
    fallback = {"status": "stop" if reply_kind == "review" else "continue"}
    verdicts = _VERDICT.findall(text_for_fallback)
    if verdicts:
        fallback["verdict"] = verdicts[-1].lower()
    return Reply(body, None, "fallback", parts[2] if parts else None, fallback)
