"""Adding a bullet under a Markdown heading without touching anything else.

Headings are ATX headings (``## Title``) outside fenced code blocks and front matter, and a
section is matched by its text at any level. Line endings (CRLF stays CRLF), a BOM and the
presence of the final newline are kept; every other line stays as it was.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from rapidfuzz import fuzz

_HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)[ \t]*#*[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_BULLET = re.compile(r"^(\s*)([-*+]|\d+[.)])\s+(.*)$")
#: Similarity (rapidfuzz ratio, 0–100) from which an existing bullet counts as the same idea.
NEAR_DUPLICATE = 88.0

Outcome = Literal["insert", "identical", "near-duplicate"]


@dataclass(frozen=True, slots=True)
class Heading:
    line: int  # 0-based
    level: int
    text: str


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

    def headings(self) -> list[Heading]:
        out: list[Heading] = []
        fence: str | None = None
        start = 0
        if self.lines and self.lines[0].strip() == "---":  # YAML front matter
            for i in range(1, len(self.lines)):
                if self.lines[i].strip() in ("---", "..."):
                    start = i + 1
                    break
        for i in range(start, len(self.lines)):
            line = self.lines[i]
            m = _FENCE.match(line)
            if m:
                marker = m.group(1)[0]
                if fence is None:
                    fence = marker
                elif fence == marker:
                    fence = None
                continue
            if fence is not None:
                continue
            h = _HEADING.match(line)
            if h:
                out.append(Heading(i, len(h.group(1)), h.group(2).strip()))
        return out


def split_section(section: str | None) -> tuple[int | None, str]:
    """``"## パッケージ管理"`` → (2, "パッケージ管理"); a bare title has no level."""
    s = (section or "").strip()
    m = re.match(r"^(#{1,6})\s*(.*)$", s)
    if m:
        return len(m.group(1)), m.group(2).strip()
    return None, s


def _norm(text: str) -> str:
    return " ".join(text.split()).casefold()


def bullet_text(description: str) -> str:
    """One bullet line's text from an item description (newlines folded)."""
    return " ".join(description.split())


@dataclass(slots=True)
class BulletPlan:
    outcome: Outcome
    existing_line: int | None = None
    existing_text: str | None = None
    score: float = 0.0


class MarkdownTarget:
    """A Markdown file (or text) to which a bullet is added under a heading."""

    def __init__(self, doc: MarkdownDoc, section: str | None) -> None:
        self.doc = doc
        self.level, self.title = split_section(section)
        self.title = self.title or "Learned"

    def find_heading(self) -> Heading | None:
        want = _norm(self.title)
        for h in self.doc.headings():
            if _norm(h.text) == want:
                return h
        return None

    def section_range(self, h: Heading) -> tuple[int, int]:
        """Lines of the section's body: after the heading up to the next heading of the
        same or a higher level."""
        end = len(self.doc.lines)
        for other in self.doc.headings():
            if other.line > h.line and other.level <= h.level:
                end = other.line
                break
        return h.line + 1, end

    def plan(self, text: str) -> BulletPlan:
        h = self.find_heading()
        if h is None:
            return BulletPlan("insert")
        start, end = self.section_range(h)
        want = _norm(text)
        best: tuple[float, int, str] | None = None
        for i in range(start, end):
            m = _BULLET.match(self.doc.lines[i])
            if not m:
                continue
            existing = m.group(3)
            if _norm(existing) == want:
                return BulletPlan("identical", i, existing, 100.0)
            score = fuzz.ratio(_norm(existing), want)
            if score >= NEAR_DUPLICATE and (best is None or score > best[0]):
                best = (score, i, existing)
        if best is not None:
            return BulletPlan("near-duplicate", best[1], best[2], best[0])
        return BulletPlan("insert")

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
            level = self.level or 2
            if lines and lines[-1].strip():
                lines.append("")
            lines += [f"{'#' * level} {self.title}", "", f"- {text}"]
            return len(lines) - 1
        start, end = self.section_range(h)
        indent, marker = self._marker(start, end)
        last = h.line
        for i in range(start, end):
            if lines[i].strip():
                last = i
        lines.insert(last + 1, f"{indent}{marker} {text}")
        return last + 1

    def replace(self, line: int, text: str) -> None:
        m = _BULLET.match(self.doc.lines[line])
        indent, marker = (m.group(1), m.group(2)) if m else ("", "-")
        self.doc.lines[line] = f"{indent}{marker} {text}"

    def heading_names(self) -> list[str]:
        return [f"{'#' * h.level} {h.text}" for h in self.doc.headings()]
