"""Agent text shown literally: never parsed as markup, no control sequence reaches the terminal.

Textual's ``Content`` built from a plain string is not markup-parsed. What is left to do
is to make control characters visible instead of letting them act: C0/C1 controls and
escape sequences become their Unicode control pictures (``␛``), bidirectional overrides
and isolates become ``⟨U+202E⟩`` tags, so a report cannot rearrange or recolour the
screen.
"""

from __future__ import annotations

import re

from textual.content import Content

_BIDI = re.compile("[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]")
_C0 = re.compile("[\x00-\x08\x0b-\x1f\x7f\x80-\x9f]")


def _c0(m: re.Match[str]) -> str:
    code = ord(m.group())
    if code == 0x7F:
        return "\u2421"
    if code < 0x20:
        return chr(0x2400 + code)
    return "\ufffd"


def visible(text: str, *, keep_newlines: bool = True) -> str:
    """``text`` with every control made visible (tabs and, optionally, newlines kept)."""
    text = _C0.sub(_c0, text)
    text = _BIDI.sub(lambda m: f"\u27e8U+{ord(m.group()):04X}\u27e9", text)
    if not keep_newlines:
        text = text.replace("\r\n", "\u21b5 ").replace("\n", "\u21b5 ").replace("\r", "\u21b5 ")
    return text


def literal(text: str, style: str = "", *, keep_newlines: bool = True) -> Content:
    """A ``Content`` that shows ``text`` exactly as typed."""
    return Content.styled(visible(text, keep_newlines=keep_newlines), style)
