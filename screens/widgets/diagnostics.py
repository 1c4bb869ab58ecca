"""Diagnostics as every screen shows them: ``✗ line 3: message  [code]`` lines (agent text,
literal) and ``✗2 ⚠1`` counts."""

from __future__ import annotations

from collections.abc import Mapping

from textual.content import Content

from store.read.diagnostics import Diagnostic

from .literal import literal


def severity_style(severity: str) -> str:
    return "$error" if severity == "error" else "$warning"


def severity_mark(severity: str) -> str:
    return "✗" if severity == "error" else "⚠"


def diagnostic_line(
    d: Diagnostic,
    *,
    columns: bool = False,
    mark: bool = True,
    indent: str = "",
    tint: bool = False,
    keep_newlines: bool = False,
    code_gap: str = "  ",
) -> Content:
    """``✗ line 3: message  [code]``; ``columns`` lines them up for a list (``mark``: ✗/⚠
    first, bold); ``tint`` colours the message too."""
    style = severity_style(d.severity)
    where = f"line {d.line}" if d.line else "file"
    if columns:
        lead = f"{severity_mark(d.severity)} " if mark else ""
        head = [
            Content.styled(f"{lead}{d.severity:<7} ", f"bold {style}" if mark else style),
            Content.styled(f"{where:<9} ", "dim"),
        ]
    else:
        head = [
            Content(indent),
            Content.styled(f"{severity_mark(d.severity)} {where}: ", f"bold {style}"),
        ]
    return Content.assemble(
        *head,
        literal(d.message, style if tint else "", keep_newlines=keep_newlines),
        Content.styled(f"{code_gap}[{d.code}]", "dim"),
    )


def count_parts(
    errors: int, warnings: int, *, lead: str = "", bold: bool = False
) -> list[tuple[str, str]]:
    """``[(" ✗2", "$error"), (" ⚠1", "$warning")]``: the counts that are not zero, each
    after ``lead``, with its style (``bold``: errors in bold)."""
    out = []
    if errors:
        out.append((f"{lead}✗{errors}", "bold $error" if bold else "$error"))
    if warnings:
        out.append((f"{lead}⚠{warnings}", "$warning"))
    return out


def counts(
    errors: int, warnings: int, *, lead: str = "", sep: str = "", bold: bool = False
) -> Content:
    """The counts as content: ``✗2 ⚠1`` (each after ``lead``, joined by ``sep``)."""
    return Content(sep).join(
        Content.styled(text, style)
        for text, style in count_parts(errors, warnings, lead=lead, bold=bold)
    )


def counts_for_rich(
    errors: int, warnings: int, theme: Mapping[str, str], *, lead: str = " "
) -> list[tuple[str, str]]:
    """The counts (errors in bold) for a Rich ``Text`` (a tree's labels), with the theme's
    colours in place of its variables."""
    return [
        (
            text,
            style.replace("$error", theme.get("error", "red")).replace(
                "$warning", theme.get("warning", "yellow")
            ),
        )
        for text, style in count_parts(errors, warnings, lead=lead, bold=True)
    ]
