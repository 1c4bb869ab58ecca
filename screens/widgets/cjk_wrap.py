"""Chinese, Japanese and Korean text wrapped by character, as their readers expect (Textual
wraps at spaces only); never before closing punctuation or small kana. Other text is
wrapped by Textual."""

from __future__ import annotations

import re

from rich.cells import cell_len
from textual.content import Content
from textual.css.styles import RulesMap
from textual.strip import Strip
from textual.style import Style
from textual.visual import RenderOptions, Visual
from textual.widgets import Static

#: zero-width marks that belong to the character before them: combining diacritics,
#: (semi-)voiced sound marks, variation selectors, the zero-width joiner, Hangul jamo
#: vowels and finals
MARKS = (
    "\u0300-\u036f\u1160-\u11ff\u1ab0-\u1aff\u1dc0-\u1dff\u200d\u20d0-\u20ff"
    "\u3099\u309a\ufe00-\ufe0f\ufe20-\ufe2f"
)
#: wide characters a line may break before: CJK ideographs, kana, Hangul, bopomofo, CJK
#: punctuation and full-width forms
CJK = (
    "\u1100-\u115f\u2e80-\u2fff\u3001-\u303f\u3040-\u3098\u309b-\u30ff\u3100-\u31ff"
    "\u3200-\u9fff\uac00-\ud7af\uf900-\ufaff\ufe30-\ufe4f\uff00-\uffef"
)
#: what never begins a line: closing brackets and punctuation, small kana, the long vowel mark
NO_LINE_START = "、。，．・：；？！）」』】〕〉》〙〗｝］ー…‥〜ゝゞヽヾぁぃぅぇぉっゃゅょゎァィゥェォッャュョヮヵヶ"

_TAIL = f"(?:[{NO_LINE_START}]|[{MARKS}])*"
#: a chunk of a line: a CJK character or a word, what may not begin a line after it, and
#: the spaces after it; or spaces
CHUNK = re.compile(rf"(?:[{CJK}]{_TAIL}|[^\s{CJK}]+{_TAIL})\s*|\s+")
HAS_CJK = re.compile(f"[{CJK}]")


def break_offsets(line: str, width: int) -> list[int]:
    """Where ``line`` (no newline) breaks to fit ``width`` cells: before the chunk that
    would overflow, and within a chunk wider than a line (a character at a time)."""
    breaks: list[int] = []
    used = 0
    for match in CHUNK.finditer(line):
        chunk = match.group()
        word = chunk.rstrip()
        cells = cell_len(word)
        if used and used + cells > width:
            breaks.append(match.start())
            used = 0
        if cells > width:
            at = match.start()
            for i, char in enumerate(word):
                size = cell_len(char)
                if used and size and used + size > width:
                    breaks.append(at + i)
                    used = 0
                used += size
            used += cell_len(chunk) - cells
        else:
            used += cell_len(chunk)
    return breaks


def wrap(content: Content, width: int) -> Content:
    """``content`` with a line break wherever its CJK text breaks at ``width`` (the spaces
    before a break dropped); unchanged when it holds no CJK character."""
    if width < 1 or not HAS_CJK.search(content.plain):
        return content
    lines: list[Content] = []
    for line in content.split("\n"):
        offsets = break_offsets(line.plain, width)
        lines += [part.rstrip() for part in line.divide(offsets)] if offsets else [line]
    return Content("\n").join(lines)


class CJKText(Visual):
    """A ``Content`` drawn wrapped by :func:`wrap` (the last width's lines kept)."""

    def __init__(self, content: Content) -> None:
        self.content = content
        self._wrapped: tuple[int, Content] = (-1, content)

    def __str__(self) -> str:
        return str(self.content)

    def at(self, width: int) -> Content:
        if self._wrapped[0] != width:
            self._wrapped = (width, wrap(self.content, width))
        return self._wrapped[1]

    def render_strips(
        self, width: int, height: int | None, style: Style, options: RenderOptions
    ) -> list[Strip]:
        return self.at(width).render_strips(width, height, style, options)

    def get_optimal_width(self, rules: RulesMap, container_width: int) -> int:
        return self.content.get_optimal_width(rules, container_width)

    def get_height(self, rules: RulesMap, width: int) -> int:
        return self.at(width).get_height(rules, width)


class WrappedText(Static):
    """A ``Static`` whose Chinese, Japanese and Korean text wraps by character."""

    _shown: tuple[Visual, CJKText] | None = None

    def render(self) -> Visual:
        visual = self.visual
        if not isinstance(visual, Content):
            return visual
        if self._shown is None or self._shown[0] is not visual:
            self._shown = (visual, CJKText(visual))
        return self._shown[1]
