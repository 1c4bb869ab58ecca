"""A transcript counted as the hurikaeri skill's trace script counts it (restated from
sizukutamago/dev-tools-plugin's ``extract_session_trace.py``): reports cite turns and
``metrics`` in its terms (docs/evidence.md)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

#: Tools whose ``file_path`` the skill counts as a code change.
TRACE_CHANGE_TOOLS = frozenset({"Write", "Edit"})

# The skill's correction phrases by weight; a line scoring 3 or more is a correction.
_CORRECTIONS: tuple[tuple[int, re.Pattern[str]], ...] = tuple(
    (weight, re.compile(pattern, re.IGNORECASE))
    for weight, pattern in (
        (
            2,
            r"^(?:いや|違う|違います|そうじゃない|それじゃない|間違|訂正|no[,.]|not "
            r"|that's not|you misunderstood)",
        ),
        (2, r"ではなく|じゃなくて|ではなくて|instead|rather than"),
        (3, r"直して|修正して|やり直して|〜にして|してください|please fix|please change|redo"),
        (3, r"って言った|と言った|って指示した|って頼んだ|told you|said to|asked you|I said"),
        (
            3,
            r"(?:なんで|なぜ|どうして|why).{0,20}"
            r"(?:してる|やってる|している|するの|doing|did you)",
        ),
        (
            3,
            r"聞いてた|聞いてる|わかってる|理解してる|読んだ[?？]|見た[?？]"
            r"|are you listening|did you understand",
        ),
        (3, r"(?:もう一回|何度も|さっきも)(?:言|説明)"),
        (3, r"(?:がない|が足りない|が抜けてる|を忘れてる)(?!か|ことを|ように|ようです|かも)"),
    )
)
_SUFFIX = re.compile(r"\.\w{2,4}\b")
_CAMEL = re.compile(r"[A-Z][a-z]+[A-Z]")


def is_correction(text: str) -> bool:
    """Whether the skill takes a person's line ``text`` for a correction (an empty one or a
    system reminder never is)."""
    if not text or text.startswith("<system-reminder>"):
        return False
    score = sum(weight for weight, pattern in _CORRECTIONS if pattern.search(text))
    score += bool(_SUFFIX.search(text)) + bool(_CAMEL.search(text))
    return score >= 3


def own_text(content: Any) -> str:
    """A user line's own text: a string, or its text blocks joined (tool results left out)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return " ".join(
            str(p.get("text") or "")
            for p in content
            if isinstance(p, dict) and p.get("type") == "text"
        )
    return ""


@dataclass(slots=True)
class TraceCounts:
    """What the skill's trace script would say of a transcript, counted while it is read."""

    #: the current turn (0 before the first ``user`` line); the number of turns at the end
    turn: int = 0
    user_turns: int = 0
    assistant_turns: int = 0
    tool_use_count: int = 0
    #: tool names in the order first used
    tools: list[str] = field(default_factory=list)
    #: file → times written by Write/Edit
    changed: dict[str, int] = field(default_factory=dict)
    error_count: int = 0
    correction_count: int = 0
    _last: object = None

    @property
    def code_changes_count(self) -> int:
        return len(self.changed)

    @property
    def backtrack_count(self) -> int:
        return sum(1 for n in self.changed.values() if n >= 2)

    def line(self, data: dict[str, Any]) -> None:
        """Count one parsed line (call it for every line that is a JSON object)."""
        kind = data.get("type")
        if kind != self._last:
            if kind in ("user", "human"):
                self.user_turns += 1
                self.turn += 1
            elif kind == "assistant":
                self.assistant_turns += 1
        self._last = kind if isinstance(kind, (str, type(None))) else repr(kind)
        message = data.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        if kind == "assistant" and isinstance(content, list):
            for part in content:
                if isinstance(part, dict) and part.get("type") == "tool_use":
                    self._tool_use(part)
        elif kind in ("user", "human"):
            if isinstance(content, list):
                self.error_count += sum(
                    1
                    for p in content
                    if isinstance(p, dict)
                    and p.get("type") == "tool_result"
                    and p.get("is_error")
                    and isinstance(p.get("content"), str)
                )
            if is_correction(own_text(content)):
                self.correction_count += 1

    def _tool_use(self, part: dict[str, Any]) -> None:
        name = part.get("name")
        name = name if isinstance(name, str) else ""
        self.tool_use_count += 1
        if name not in self.tools:
            self.tools.append(name)
        tool_input = part.get("input")
        if name in TRACE_CHANGE_TOOLS and isinstance(tool_input, dict):
            path = tool_input.get("file_path")
            if isinstance(path, str) and path:
                self.changed[path] = self.changed.get(path, 0) + 1
