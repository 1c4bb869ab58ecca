"""A discussion reply's metadata rendered (the list's cells, the head, the entries); a value
from the seed's fallbacks (no block, or a broken one) is in italics and marked ``*``."""

from __future__ import annotations

from pathlib import Path

from textual.content import Content
from textual.widgets.option_list import Option

from store.index.discussions import Discussion
from store.read.metadata_block import Reply, findings_by_severity

from .diagnostics import counts, diagnostic_line
from .literal import literal
from .virtual_table import Cell

STATUS_STYLE = {"continue": "$warning", "stop": "$success"}
VERDICT_STYLE = {"pass": "$success", "conditional": "$warning", "fail": "$error"}
VERDICT_SHORT = {"conditional": "cond."}
SEVERITY_STYLE = {"high": "bold $error", "medium": "bold $warning", "low": "$text-muted"}
#: the reply's lists: field, title, bullet, and the prefix of their entries' option ids
REPLY_SECTIONS = [
    ("blockers", "Blockers", "⛔ ", "blocker"),
    ("open_questions", "Open questions", "? ", "question"),
    ("decisions", "Decisions", "✓ ", "decision"),
    ("next_steps", "Next steps", "→ ", "next_step"),
]


def short_name(display: str) -> str:
    parts = Path(display).parts
    if parts and parts[0] == "discussions":
        parts = parts[1:]
    text = "/".join(parts) if parts else display
    return text[:-3] if text.endswith(".md") else text


def findings_cell(reply: Reply | None) -> Content:
    if reply is None or not reply.findings:
        return Content.styled("—", "$text-muted")
    return Content(" ").join(
        Content.styled(
            f"{len(group)}{(sev or '?')[:1].upper()}", SEVERITY_STYLE.get(sev, "$text-muted")
        )
        for sev, group in findings_by_severity(reply.findings)
    )


def count_cell(reply: Reply | None, name: str, style: str) -> Content:
    n = len(reply.texts(name)) if reply is not None else 0
    return Content.styled(str(n), f"bold {style}") if n else Content.styled("·", "$text-muted")


def fallback_cell(
    reply: Reply | None, name: str, styles: dict[str, str], short: dict[str, str] | None = None
) -> Content:
    """The reply's ``status`` or ``verdict``; italic and starred when a fallback gave it."""
    value: str | None = getattr(reply, name) if reply else None
    if not value:
        return Content.styled("—", "$text-muted")
    fallback = reply is not None and name in reply.fallback
    style = styles.get(value, "$text-muted")
    return Content.assemble(
        literal((short or {}).get(value, value), style + (" italic" if fallback else "")),
        Content.styled("*" if fallback else "", "$text-muted"),
    )


def head_view(d: Discussion) -> Content:
    r = d.reply
    out: list[Content] = [literal(d.display, "bold")]
    if r is None:
        out.append(Content.styled("This file could not be read as text.", "$error"))
    else:
        parts = [Content.styled(r.kind, "bold $accent")]
        for name, value in (("status", r.status), ("verdict", r.verdict)):
            if value:
                style = {**STATUS_STYLE, **VERDICT_STYLE}.get(value, "")
                parts += [Content(f" · {name} "), literal(value, f"bold {style}")]
                if name in r.fallback:
                    parts.append(Content.styled(" (fallback)", "$text-muted italic"))
        out.append(Content.assemble(*parts))
        if r.source == "block":
            out.append(Content.styled(f"metadata block at line {r.block_line}", "$text-muted"))
        else:
            why = (
                f"the block at line {r.block_line} could not be read"
                if r.block_line
                else "no metadata block"
            )
            rule = f"status {r.fallback.get('status')} as for a {r.kind}"
            if "verdict" in r.fallback:
                rule += f", verdict from {r.fallback['verdict'].upper()} in the text"
            out.append(Content.styled(f"{why}: the seed's fallbacks apply ({rule})", "$warning"))
    out += [diagnostic_line(diag, code_gap=" ") for diag in d.diagnostics]
    return Content("\n").join(out)


def hang(prefix: Content, text: Content, width: int | None) -> Content:
    """``prefix`` then ``text``, its wrapped lines indented under the text (not the prefix)."""
    if width is None:
        return Content.assemble(prefix, text)
    indent = prefix.cell_length
    out: list[Content] = []
    for n, part in enumerate(text.split("\n", allow_blank=True)):
        for m, line in enumerate(part.wrap(max(12, width - indent))):
            lead = prefix if n == 0 and m == 0 else Content(" " * indent)
            out.append(Content.assemble(lead, line))
    return Content("\n").join(out) if out else prefix


def entry_options(
    reply: Reply | None, picked: set[str], width: int | None = None
) -> list[Option | None]:
    """The reply's metadata as options; ids ``finding:N``, ``blocker:N``, ``next_step:N``…

    With ``width`` long texts are wrapped under themselves rather than under the markers."""
    if reply is None:
        return []

    def mark(key: str) -> Content:
        return Content.styled("▸ " if key in picked else "  ", "bold $accent")

    out: list[Option | None] = []

    def heading(title: str, count: int) -> None:
        if out:
            out.append(None)
        out.append(Option(Content.styled(f"{title} ({count})", "bold underline"), disabled=True))

    findings = reply.findings
    if findings:
        heading("Findings", len(findings))
        for sev, group in findings_by_severity(findings):
            for i, f in group:
                key = f"finding:{i}"
                label = (sev or "—").upper()
                lines = [
                    hang(
                        Content.assemble(
                            mark(key),
                            Content.styled(
                                f"{label[:6]:<7}", SEVERITY_STYLE.get(sev, "$text-muted")
                            ),
                        ),
                        literal(f.message or "(no message)"),
                        width,
                    )
                ]
                if f.suggestion:
                    lines.append(
                        hang(
                            Content.assemble(Content(" " * 9), Content.styled("→ ", "$success")),
                            literal(f.suggestion, "$text-muted"),
                            width,
                        )
                    )
                for k, v in (f.model_extra or {}).items():
                    lines.append(hang(Content(" " * 11), literal(f"{k}: {v}", "dim"), width))
                out.append(Option(Content("\n").join(lines), id=key))
    for name, title, bullet, prefix in REPLY_SECTIONS:
        items = reply.texts(name)
        if not items:
            continue
        heading(title, len(items))
        for i, text in enumerate(items):
            key = f"{prefix}:{i}"
            lead = Content.assemble(mark(key), Content.styled(bullet, "bold"))
            out.append(Option(hang(lead, literal(text), width), id=key))
    if reply.extra:
        heading("Fields the seed does not define", len(reply.extra))
        for k, v in reply.extra.items():
            out.append(Option(literal(f"  {k}: {v}"), id=f"extra:{k}"))
    if not out:
        text = (
            "The metadata block lists nothing else."
            if reply.block is not None
            else "No metadata block: only the fallback status and verdict above."
        )
        out.append(Option(Content.styled(text, "$text-muted"), disabled=True))
    return out


def discussion_cells(d: Discussion) -> tuple[Cell, ...]:
    """A discussion's row in the list: status, verdict, findings, counts, its name."""
    return (
        fallback_cell(d.reply, "status", STATUS_STYLE),
        fallback_cell(d.reply, "verdict", VERDICT_STYLE, VERDICT_SHORT),
        findings_cell(d.reply),
        count_cell(d.reply, "blockers", "$error"),
        count_cell(d.reply, "open_questions", "$warning"),
        count_cell(d.reply, "decisions", "$success"),
        count_cell(d.reply, "next_steps", "$accent"),
        Content.assemble(
            literal(short_name(d.display), keep_newlines=False), counts(d.errors, 0, lead=" ")
        ),
    )
