"""The seed-002 metadata block: the *last* YAML block between ``---`` lines at the end of
an agent's reply. The body is always readable: a broken block is a diagnostic and the
fallbacks apply (``status`` by the reply's kind, ``verdict`` the last PASS / FAIL /
CONDITIONAL outside code); models' slips are read with a warning, never dropped."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

from store.models.metablock import STATUSES, TEXT_LISTS, VERDICTS, Finding, MetaBlock
from store.models.reply_terms import ReplyKind
from store.read.diagnostics import Diagnostic, DiagnosticSink
from store.read.validate import validate_tolerant
from store.read.yamlload import load_yaml

Source = Literal["block", "fallback"]

_VERDICT = re.compile(r"\b(PASS|FAIL|CONDITIONAL)\b")
_FENCE = re.compile(r"^\s*(```+|~~~+)")
_FENCE_CLOSE = re.compile(r"^\s*(```+|~~~+)\s*$")
_KEY_LINE = re.compile(r"^[\w.-]+\s*:(\s|$)")
#: Order in which findings are shown: the seed's severities, then anything else.
SEVERITY_ORDER = ("high", "medium", "low")


@dataclass(slots=True)
class BlockSpan:
    """Where the closing ``---`` section is: the body before it and the text inside."""

    body: str
    text: str
    line: int
    """1-based line of the opening ``---``."""
    is_yaml: bool
    """Whether the text looks like YAML (its first line is ``key:``), else it is prose."""


@dataclass(slots=True)
class Reply:
    """An agent's reply: the body, the block (or ``None``) and where each value came from."""

    body: str
    block: MetaBlock | None
    source: Source
    block_line: int | None = None
    fallback: dict[str, str] = field(default_factory=dict)
    """Values taken from the fallbacks (``status``, ``verdict``)."""
    kind: ReplyKind = "discussion"

    @property
    def status(self) -> str | None:
        value = self.block.status if self.block is not None else None
        return _canonical(value, STATUSES) if value else self.fallback.get("status")

    @property
    def verdict(self) -> str | None:
        value = self.block.verdict if self.block is not None else None
        return _canonical(value, VERDICTS) if value else self.fallback.get("verdict")

    @property
    def findings(self) -> list[Finding]:
        return list(self.block.findings or []) if self.block is not None else []

    def texts(self, name: str) -> list[str]:
        """One of the lists of texts: ``open_questions``, ``decisions``, ``blockers``,
        ``next_steps``."""
        if self.block is None:
            return []
        return list(getattr(self.block, name) or [])

    @property
    def extra(self) -> dict[str, Any]:
        """Fields of the block the seed does not define, as written."""
        return dict(self.block.model_extra or {}) if self.block is not None else {}


def _canonical(value: str, allowed: tuple[str, ...]) -> str:
    low = value.strip().lower()
    return low if low in allowed else value


def severity_of(f: Finding) -> str:
    """A finding's severity in lower case (``""`` when it has none)."""
    return (f.severity or "").strip().lower()


def findings_by_severity(findings: list[Finding]) -> list[tuple[str, list[tuple[int, Finding]]]]:
    """Findings by severity (high, medium, low, others as written, none), with positions."""
    groups: dict[str, list[tuple[int, Finding]]] = {}
    for i, f in enumerate(findings):
        groups.setdefault(severity_of(f), []).append((i, f))
    order = [s for s in SEVERITY_ORDER if s in groups]
    order += sorted(s for s in groups if s not in SEVERITY_ORDER and s)
    order += [""] if "" in groups else []
    return [(s, groups[s]) for s in order]


# -- finding the block -----------------------------------------------------------


def find_block(text: str) -> BlockSpan | None:
    """The closing ``---`` section of ``text``, or ``None`` when the text does not end
    with one."""
    lines = text.splitlines()
    end = len(lines) - 1
    while end >= 0 and not lines[end].strip():
        end -= 1
    fence_end: int | None = None
    if end >= 0 and _FENCE_CLOSE.match(lines[end]):
        fence_end = end
        end -= 1
        while end >= 0 and not lines[end].strip():
            end -= 1
    if end < 1 or lines[end].strip() != "---":
        return None
    start = end - 1
    while start >= 0 and lines[start].strip() != "---":
        start -= 1
    if start < 0:
        return None
    body_end = start
    if fence_end is not None:
        opener = start - 1
        while opener >= 0 and not lines[opener].strip():
            opener -= 1
        if opener < 0 or not _FENCE.match(lines[opener]):
            return None  # the text ends with code, not with a block
        body_end = opener
    inner = lines[start + 1 : end]
    first = next((ln for ln in inner if ln.strip() and not ln.lstrip().startswith("#")), "")
    return BlockSpan(
        body="\n".join(lines[:body_end]).rstrip("\n"),
        text="\n".join(inner),
        line=start + 1,
        is_yaml=not first or bool(_KEY_LINE.match(first)),
    )


def outside_code(text: str) -> Iterator[tuple[int, str]]:
    """The lines of ``text`` outside fenced code blocks, numbered from 1."""
    fence: str | None = None
    for n, line in enumerate(text.splitlines(), 1):
        m = _FENCE.match(line)
        mark = m.group(1)[0] if m else None  # ` or ~: a fence closes on its own kind
        if mark is not None and fence is None:
            fence = mark
        elif mark is not None and mark == fence:
            fence = None
        elif fence is None:
            yield n, line


def text_verdict(text: str) -> str | None:
    """The last PASS / FAIL / CONDITIONAL of the text (outside code blocks: test output
    there is not a verdict), lower case."""
    found = _VERDICT.findall("\n".join(line for _n, line in outside_code(text)))
    return found[-1].lower() if found else None


def guess_kind(text: str, block: MetaBlock | None) -> ReplyKind:
    if block is not None and (block.verdict or block.findings):
        return "review"
    return "review" if text_verdict(text) else "discussion"


# -- reading the block -------------------------------------------------------------


def _as_text(value: Any) -> str:
    if isinstance(value, dict):
        return "; ".join(f"{k}: {_as_text(v)}" for k, v in value.items())
    if isinstance(value, list):
        return ", ".join(_as_text(v) for v in value)
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _tolerate(data: dict[Any, Any], sink: DiagnosticSink, line_of: Any) -> dict[Any, Any]:
    """Read the slips models make instead of dropping the values (each with a warning)."""
    data = dict(data)
    for name in TEXT_LISTS:
        value = data.get(name)
        if isinstance(value, str):
            sink.warning(
                "meta-not-a-list",
                f"{name}: expected a list, found one text; read as a list of one item",
                line_of((name,)),
            )
            data[name] = [value]
        elif isinstance(value, list):
            items: list[Any] = []
            for i, item in enumerate(value):
                if item is None:
                    sink.warning(
                        "meta-empty-item", f"{name}[{i}] is empty; left out", line_of((name, i))
                    )
                    continue
                if isinstance(item, (dict, list)):
                    sink.warning(
                        "meta-item-not-text",
                        f"{name}[{i}] is a {'mapping' if isinstance(item, dict) else 'list'}, "
                        "not a text (a ': ' inside an item makes it a mapping); read as text",
                        line_of((name, i)),
                    )
                    item = _as_text(item)
                items.append(item)
            data[name] = items
    findings = data.get("findings")
    if isinstance(findings, (str, dict)):
        sink.warning(
            "meta-not-a-list",
            "findings: expected a list of findings, found one "
            f"{'text' if isinstance(findings, str) else 'mapping'}; read as a list of one",
            line_of(("findings",)),
        )
        findings = [findings]
    if isinstance(findings, list):
        fixed: list[Any] = []
        for i, item in enumerate(findings):
            if isinstance(item, str):
                sink.warning(
                    "meta-finding-text",
                    f"findings[{i}] is plain text, not a mapping with severity and message; "
                    "read as its message",
                    line_of(("findings", i)),
                )
                item = {"message": item}
            fixed.append(item)
        data["findings"] = fixed
    return data


def parse_reply(text: str, sink: DiagnosticSink, kind: ReplyKind | None = None) -> Reply:
    """Read a reply; never raises. Diagnostics (with lines of ``text``) go to ``sink``."""
    span = find_block(text)
    block: MetaBlock | None = None
    body = text
    block_line: int | None = None
    if span is not None and not span.is_yaml:
        first = next((ln.strip() for ln in span.text.splitlines() if ln.strip()), "")
        sink.warning(
            "meta-not-a-block",
            "the reply ends with a section between '---' lines that is not YAML "
            f"(it starts with {first[:40]!r}); it is read as part of the body",
            span.line,
        )
        span = None
    if span is not None:
        body, block_line = span.body, span.line
        block = _read_block(span, sink)
    reply_kind: ReplyKind = kind or guess_kind(body, block)
    fallback: dict[str, str] = {}
    if block is None or not block.status:
        fallback["status"] = "stop" if reply_kind == "review" else "continue"
    if block is None:
        verdict = text_verdict(body)
        if verdict:
            fallback["verdict"] = verdict
    source: Source = "block" if block is not None else "fallback"
    return Reply(body, block, source, block_line, fallback, reply_kind)


def _read_block(span: BlockSpan, sink: DiagnosticSink) -> MetaBlock | None:
    offset = span.line  # the block's first line is the line after the opening ---
    if not span.text.strip():
        sink.warning(
            "meta-empty-block", "the metadata block is empty; the fallbacks apply", span.line
        )
        return None
    local = DiagnosticSink(sink.path)
    doc = load_yaml(span.text, local)
    for d in local.items:
        shifted = d.line + offset if d.line is not None else span.line
        (sink.error if d.severity == "error" else sink.warning)(d.code, d.message, shifted)
    if doc is None or doc.data is None:
        return None

    def line_of(loc: Any) -> int | None:
        got = doc.line_of(loc)
        return got + offset if got is not None else span.line

    data = doc.data
    if isinstance(data, dict):
        data = _tolerate(data, sink, line_of)
    return validate_tolerant(MetaBlock, data, sink, line_of, "metadata block")


def reply_json(reply: Reply, diagnostics: list[Diagnostic] | None = None) -> dict[str, Any]:
    """The reply's metadata as plain JSON data (what ``hurikaeri meta`` prints)."""
    out: dict[str, Any] = {
        "source": reply.source,
        "kind": reply.kind,
        "status": reply.status,
        "verdict": reply.verdict,
        "findings": [f.model_dump() for f in reply.findings],  # unknown fields last, as written
        **{name: reply.texts(name) for name in TEXT_LISTS},
        "extra": reply.extra,
        "from_fallback": sorted(reply.fallback),
        "block_line": reply.block_line,
    }
    if diagnostics is not None:
        out["diagnostics"] = [
            {"line": d.line, "severity": d.severity, "code": d.code, "message": d.message}
            for d in diagnostics
        ]
    return out
