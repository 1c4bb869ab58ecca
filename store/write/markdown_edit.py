"""Adding a bullet under a Markdown heading without touching anything else.

Headings are found by a CommonMark parser (never inside code, HTML or front matter); the edit
stays line-based, keeping line endings, a BOM and the final newline. A section matches by text
at any level, case and spaces ignored, or after a leading number (``### 4. 鍵ローテーション``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from typing import Literal

from markdown_it import MarkdownIt
from mdit_py_plugins.front_matter import front_matter_plugin
from rapidfuzz import fuzz

from store.write.roundtrip import EditError

_NUMBERED = re.compile(r"^\d+(?:\.\d+)*[.)]?\s+")
_BULLET = re.compile(r"^(\s*)([-*+]|\d+[.)])\s+(.*)$")
#: Similarity (rapidfuzz ratio, 0–100) from which an existing bullet counts as the same idea.
NEAR_DUPLICATE = 88.0

Outcome = Literal["insert", "identical", "near-duplicate"]


@dataclass(frozen=True, slots=True)
class Heading:
    line: int  # 0-based, the heading's first line
    level: int
    text: str
    end: int  # the line after the heading (a setext heading takes two)


@cache
def _parser() -> MarkdownIt:
    return MarkdownIt("commonmark").use(front_matter_plugin)


@dataclass(slots=True)
class MarkdownDoc:
    lines: list[str]
    newline: str
    final_newline: bool
    bom: bool

    @classmethod
    def parse(cls, data: bytes) -> MarkdownDoc:
        bom = data.startswith(b"\xef\xbb\xbf")
        text = data[3:].decode("utf-8") if bom else data.decode("utf-8")
        first = text.find("\n")
        newline = "\r\n" if first > 0 and text[first - 1] == "\r" else "\n"
        final = text.endswith(newline) or not text
        body = text[: -len(newline)] if final and text else text
        lines = body.split(newline) if text else []
        return cls(lines, newline, final, bom)

    def render(self) -> bytes:
        text = self.newline.join(self.lines)
        if self.final_newline and self.lines:
            text += self.newline
        return (b"\xef\xbb\xbf" if self.bom else b"") + text.encode("utf-8")

    def ends_in_open_block(self) -> bool:
        """Whether text added at the end would land inside a code block or an HTML block
        (an unclosed fence or comment runs to the end of the file)."""
        if not self.lines:
            return False
        probe = "\n".join([*self.lines, "", "# probe"])
        return not any(
            t.type == "heading_open" and t.map is not None and t.map[0] == len(self.lines) + 1
            for t in _parser().parse(probe)
        )

    def headings(self) -> list[Heading]:
        tokens = _parser().parse("\n".join(self.lines))
        out: list[Heading] = []
        for i, tok in enumerate(tokens):
            if tok.type != "heading_open" or tok.map is None:
                continue
            inline = tokens[i + 1] if i + 1 < len(tokens) else None
            text = inline.content.strip() if inline is not None else ""
            start, end = tok.map
            out.append(Heading(start, int(tok.tag[1]), text, end))
        return out


def split_section(section: str | None) -> tuple[int | None, str]:
    """``"## パッケージ管理"`` → (2, "パッケージ管理"); a bare title has no level."""
    s = (section or "").strip()
    m = re.match(r"^(#{1,6})\s*(.*)$", s)
    if m:
        return len(m.group(1)), m.group(2).strip()
    return None, s


def bullet_text(description: str) -> str:
    """One bullet line's text from an item description (newlines folded)."""
    return " ".join(description.split())


def _norm(text: str) -> str:
    return bullet_text(text).casefold()


@dataclass(slots=True)
class BulletPlan:
    outcome: Outcome
    existing_line: int | None = None
    existing_text: str | None = None
    score: float = 0.0


def closest(texts: Iterable[tuple[int, str]], text: str) -> BulletPlan:
    """The first of ``texts`` (place, text) equal to ``text`` once normalised, else the most
    alike at :data:`NEAR_DUPLICATE` or more; ``insert`` when none is."""
    want, best = _norm(text), BulletPlan("insert")
    for i, existing in texts:
        if _norm(existing) == want:
            return BulletPlan("identical", i, existing, 100.0)
        score = fuzz.ratio(_norm(existing), want)
        if score >= NEAR_DUPLICATE and score > best.score:
            best = BulletPlan("near-duplicate", i, existing, score)
    return best


class MarkdownTarget:
    """A Markdown file (or text) to which a bullet is added under a heading."""

    def __init__(self, doc: MarkdownDoc, section: str | None) -> None:
        self.doc = doc
        self.level, self.title = split_section(section)
        self.title = self.title or "Learned"

    def find_heading(self) -> Heading | None:
        want = _norm(self.title)
        bare = _NUMBERED.sub("", want)
        headings = self.doc.headings()
        exact = next((h for h in headings if _norm(h.text) == want), None)
        return exact or next(
            (h for h in headings if _NUMBERED.sub("", _norm(h.text)) == bare), None
        )

    def section_range(self, h: Heading) -> tuple[int, int]:
        """The section's body: after the heading up to the next of the same or a higher level."""
        later = (o.line for o in self.doc.headings() if o.line > h.line and o.level <= h.level)
        return h.end, next(later, len(self.doc.lines))

    def plan(self, text: str) -> BulletPlan:
        h = self.find_heading()
        if h is None:
            return BulletPlan("insert")
        start, end = self.section_range(h)
        lines = self.doc.lines
        return closest(
            ((i, m.group(3)) for i in range(start, end) if (m := _BULLET.match(lines[i]))), text
        )

    def _marker(self, start: int, end: int) -> tuple[str, str]:
        for i in range(start, end):
            m = _BULLET.match(self.doc.lines[i])
            if m and not m.group(2)[0].isdigit():
                return m.group(1), m.group(2)
        return "", "-"

    def insert(self, text: str) -> int:
        """Add ``- text`` at the end of the section (created at the end when missing);
        returns the 0-based line of the new bullet."""
        lines = self.doc.lines
        h = self.find_heading()
        if h is None:
            if self.doc.ends_in_open_block():
                raise EditError(
                    "the file ends inside an unclosed code block or HTML comment; a new "
                    "section there would be part of it — close the block or add the section"
                )
            level = self.level or 2
            if lines and lines[-1].strip():
                lines.append("")
            lines += [f"{'#' * level} {self.title}", "", f"- {text}"]
            return len(lines) - 1
        start, end = self.section_range(h)
        indent, marker = self._marker(start, end)
        last = max((i for i in range(start, end) if lines[i].strip()), default=h.end - 1)
        lines.insert(last + 1, f"{indent}{marker} {text}")
        return last + 1

    def replace(self, line: int, text: str) -> None:
        m = _BULLET.match(self.doc.lines[line])
        indent, marker = (m.group(1), m.group(2)) if m else ("", "-")
        self.doc.lines[line] = f"{indent}{marker} {text}"

    def heading_names(self) -> list[str]:
        return [f"{'#' * h.level} {h.text}" for h in self.doc.headings()]
