"""Agent text made safe to print, one policy for the CLI and the UI: control characters and
bidi overrides become visible, so no escape sequence from a report reaches a terminal."""

from __future__ import annotations

import re

#: Bidirectional marks, embeddings, overrides and isolates: they reorder the text around them.
_BIDI_CODES = (0x200E, 0x200F, 0x061C, *range(0x202A, 0x202F), *range(0x2066, 0x206A))
_BIDI_CLASS = "".join(chr(c) for c in _BIDI_CODES)
#: ... and lone surrogates (JSON's ``"\\ud800"``), which no UTF-8 output can hold: spelled out
_BIDI = re.compile(f"[{_BIDI_CLASS}\ud800-\udfff]")
#: C0 controls but tab and line feed, DEL, C1 controls.
_CONTROL = re.compile("[\\x00-\\x08\\x0b-\\x1f\\x7f\\x80-\\x9f]")
#: Every character either of the above, tab and line feed included.
_ANY_CONTROL = re.compile(f"[\\x00-\\x1f\\x7f-\\x9f{_BIDI_CLASS}]")


def _picture_of(code: int) -> str:
    """A control's stand-in: its Unicode control picture (ESC shows as ␛), ␡ for DEL,
    U+FFFD for a C1 control."""
    if code == 0x7F:
        return "\u2421"
    if code < 0x20:
        return chr(0x2400 + code)
    return "\ufffd"


def printable(text: str, *, keep_newlines: bool = True) -> str:
    """``text`` with every control made visible (tabs and, optionally, newlines kept)."""
    text = _CONTROL.sub(lambda m: _picture_of(ord(m.group())), text)
    text = _BIDI.sub(lambda m: f"\u27e8U+{ord(m.group()):04X}\u27e9", text)
    if not keep_newlines:
        text = text.replace("\r\n", "\u21b5 ").replace("\n", "\u21b5 ").replace("\r", "\u21b5 ")
    return text


#: :func:`one_for_one`'s stand-ins: line breaks become ↵, a tab a space, a bidi mark U+FFFD.
_ONE_FOR_ONE: dict[int, str] = {
    **{code: _picture_of(code) for code in (*range(0x20), *range(0x7F, 0xA0))},
    0x09: " ",
    0x0A: "\u21b5",
    0x0D: "\u21b5",
    **{code: "\ufffd" for code in _BIDI_CODES},
}


def has_controls(text: str) -> bool:
    """Whether :func:`one_for_one` would change ``text``."""
    return _ANY_CONTROL.search(text) is not None


def one_for_one(text: str) -> str:
    """``text`` on one line, each control character replaced by one visible character."""
    return text.translate(_ONE_FOR_ONE) if _ANY_CONTROL.search(text) else text


#: Longest title a head keeps (lists show one line of it).
TITLE_CHARS = 200


def first_line(text: str | None) -> str:
    """The first non-empty line of ``text``, cut (:func:`cut_title`)."""
    if not text:
        return ""
    for line in text.splitlines():
        if line.strip():
            return cut_title(line.strip())
    return ""


def cut_title(text: str) -> str:
    """At most :data:`TITLE_CHARS` characters, ending in ``…`` when cut."""
    return text if len(text) <= TITLE_CHARS else text[: TITLE_CHARS - 1] + "…"
