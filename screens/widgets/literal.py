"""Agent text shown literally: never parsed as markup, its control characters, escape
sequences and bidi overrides made visible, so a report cannot rearrange the screen."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from textual.content import Content

from store.read.diagnostics import DiagnosticSink
from store.read.textio import read_text
from store.read.textsafe import printable

visible = printable


def literal(text: str, style: str = "", *, keep_newlines: bool = True) -> Content:
    """A ``Content`` that shows ``text`` exactly as typed."""
    return Content.styled(printable(text, keep_newlines=keep_newlines), style)


def file_text(path: Path, display: str) -> str:
    """A file's text as shown (read whole: call it in a thread), or that it cannot be."""
    raw = read_text(path, DiagnosticSink(display))
    return visible(raw.text) if raw.text is not None else "(this file cannot be shown as text)"


OUTCOME_STYLE = {"success": "$success", "partial": "$warning", "failure": "$error"}


def outcome_content(outcome: str) -> Content:
    """A session's outcome, coloured by how it went."""
    return Content.styled(outcome or "—", OUTCOME_STYLE.get(outcome.lower(), "$text-muted"))


@lru_cache(maxsize=1024)
def short_project(project: str) -> str:
    """A project path's last part (the slug people recognise)."""
    return Path(project.replace("\\", "/")).name or project
