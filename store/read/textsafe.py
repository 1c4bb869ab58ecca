"""Agent text made safe to print: control characters and bidi overrides become visible.

Used by the CLI (which writes to a terminal too) and by the UI's literal display, so that
no escape sequence from a report ever reaches a terminal.
"""

from __future__ import annotations

import re

_BIDI = re.compile("[\\u202a-\\u202e\\u2066-\\u2069\\u200e\\u200f\\u061c]")
_CONTROL = re.compile("[\\x00-\\x08\\x0b-\\x1f\\x7f\\x80-\\x9f]")


def _picture(m: re.Match[str]) -> str:
    code = ord(m.group())
    if code == 0x7F:
        return "\u2421"
    if code < 0x20:
        return chr(0x2400 + code)
    return "\ufffd"


def printable(text: str, *, keep_newlines: bool = True) -> str:
    """``text`` with every control made visible (tabs and, optionally, newlines kept)."""
    text = _CONTROL.sub(_picture, text)
    text = _BIDI.sub(lambda m: f"\u27e8U+{ord(m.group()):04X}\u27e9", text)
    if not keep_newlines:
        text = text.replace("\r\n", "\u21b5 ").replace("\n", "\u21b5 ").replace("\r", "\u21b5 ")
    return text
