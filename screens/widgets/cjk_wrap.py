"""Wrapping Chinese, Japanese and Korean text by character, as their readers expect.

Textual wraps text at spaces only: a Japanese paragraph with one space in it breaks there
and leaves half a line empty, and Korean breaks only between words. CJK text breaks
between any two characters (never before closing punctuation or small kana, the basic
rule of line breaking in those languages). :func:`install` teaches Textual's wrapper those
break opportunities by its chunk pattern, once, for every widget that wraps text; Latin
text wraps as before.
"""

from __future__ import annotations

import re

#: wide characters a line may break after: CJK ideographs, kana, Hangul, bopomofo, CJK
#: punctuation and full-width forms
CJK = (
    "\u1100-\u11ff\u2e80-\u2fff\u3001-\u303f\u3040-\u30ff\u3100-\u31ff"
    "\u3200-\u9fff\uac00-\ud7af\uf900-\ufaff\ufe30-\ufe4f\uff00-\uffef"
)
#: what never begins a line: closing brackets and punctuation, small kana, the long vowel mark
NO_LINE_START = "、。，．・：；？！）」』】〕〉》〙〗｝］ー…‥〜ゝゞヽヾぁぃぅぇぉっゃゅょゎァィゥェォッャュョヮヵヶ"

_UNIT = rf"(?:[{CJK}][{NO_LINE_START}]*|[^\s{CJK}]+)"
#: Textual's chunks (a word or a CJK character, and the spaces after it; or spaces)
CHUNK = re.compile(rf"{_UNIT}\s*|\s+")
#: Rich's words (spaces before, a word or a CJK character, spaces after), which Textual's
#: ``Content`` (labels, Markdown, Static) wraps with
WORD = re.compile(rf"\s*{_UNIT}\s*")


def install() -> bool:
    """Use these patterns for wrapping text in Textual widgets (``Content``, Markdown and
    the text area); False when a module has no such hook (its wrapping then stays as is)."""
    try:
        from rich import _wrap as rich_wrap
        from textual import _wrap as textual_wrap
    except ImportError:  # pragma: no cover - a Textual or Rich without the module
        return False
    hooks = ((rich_wrap, "re_word", WORD), (textual_wrap, "re_chunk", CHUNK))
    if not all(isinstance(getattr(m, name, None), re.Pattern) for m, name, _p in hooks):
        return False
    for module, name, pattern in hooks:
        setattr(module, name, pattern)
    return True
