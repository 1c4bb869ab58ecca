"""Size budgets of the files agents load (docs/promotion.md), and what a planned write does to
them: size before → after, whether it crosses (the dialogs ask first), the lines falling out."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from store.config import BUDGET_KINDS
from store.insight.targets import MARKDOWN, estimate_tokens, kind_of_name
from store.read.textio import as_text
from store.workspace import Workspace

DEFAULT_BUDGETS: dict[str, int] = {
    "memory_md": 200,
    "claude_md": 2500,
    "rules": 2500,
    "agents_md": 2500,
    "skill_md": 5000,
    "skill_yaml": 2500,
    "project_memory": 2500,
}
#: Anthropic's advice for files loaded whole: under 200 lines. Within it but over the token
#: budget (CJK costs more tokens a line) is a warning, not an error.
ADVICE_LINES = 200
ADVICE_KINDS = frozenset({"claude_md", "rules", "agents_md"})
#: At this share of its budget a target is "near" it.
NEAR = 0.9
#: How many of the lines falling out are listed.
MAX_LINES = 50


@dataclass(frozen=True, slots=True)
class Budget:
    kind: str
    limit: int
    unit: str  # "lines" or "tokens"

    def measure(self, text: str) -> int:
        return len(text.splitlines()) if self.unit == "lines" else estimate_tokens(text)

    def describe(self, value: int) -> str:
        return f"{value:,}/{self.limit:,} {self.unit}"


def budget_for(ws: Workspace, kind: str) -> Budget | None:
    """The budget of a target kind (the config's, else the default); ``None``: none."""
    unit = BUDGET_KINDS.get(kind)
    if unit is None:
        return None
    limit = ws.config.budgets.get(kind, DEFAULT_BUDGETS[kind])
    return Budget(kind, limit, unit)


def kind_of_path(path: Path) -> str:
    """The target kind a planned write's path has (by name; YAML: skill or memory)."""
    if path.suffix.lower() in MARKDOWN:
        return kind_of_name(path)
    if path.name.startswith("project_memory."):
        return "project_memory"
    return "skill_yaml"


def past_budget(budget: Budget, lines: list[str]) -> int:
    """The index of the first line past the budget (``len(lines)``: all within)."""
    if budget.unit == "lines":
        return min(budget.limit, len(lines))
    total = 0
    for i, line in enumerate(lines):
        total += estimate_tokens(line + "\n") if line else 0
        if total > budget.limit:
            return i
    return len(lines)


@dataclass(slots=True)
class BudgetCheck:
    """A write's effect on its target's budget."""

    path: Path
    kind: str
    budget: Budget | None
    before: int = 0
    after: int = 0
    #: (1-based line in the new file, its text) of lines past the budget that were within
    #: it before (pushed out) or are new there — what the agent would no longer load
    falls_out: list[tuple[int, str]] = field(default_factory=list)
    falls_out_total: int = 0

    @property
    def over_after(self) -> bool:
        return self.budget is not None and self.after > self.budget.limit

    @property
    def crosses(self) -> bool:
        """The write leaves the target over its budget and makes it larger: ask first."""
        return self.over_after and self.after > self.before

    @property
    def summary(self) -> str:
        """``CLAUDE.md: 2,410 → 2,530/2,500 tokens (over budget)``."""
        if self.budget is None:
            return f"{self.path.name}: no budget for this kind of file"
        return f"{self.path.name}: {self.before:,} → {self.budget.describe(self.after)} ({self._state})"

    @property
    def figures(self) -> str:
        """The summary short, without the file's name (a narrow pane's title):
        ``2,410 → 2,530/2,500 t, over budget``."""
        if self.budget is None:
            return "no budget"
        b = self.budget
        return f"{self.before:,} → {self.after:,}/{b.limit:,} {b.unit[0]}, {self._state}"

    @property
    def _state(self) -> str:
        assert self.budget is not None
        if self.over_after:
            return "over budget"
        return "near budget" if self.after >= NEAR * self.budget.limit else "within budget"

    def as_json(self) -> dict[str, Any]:
        return {
            "path": str(self.path),
            "kind": self.kind,
            "budget": self.budget.limit if self.budget else None,
            "unit": self.budget.unit if self.budget else None,
            "before": self.before,
            "after": self.after,
            "crosses": self.crosses,
            "falls_out": [{"line": n, "text": t} for n, t in self.falls_out],
            "falls_out_total": self.falls_out_total,
        }


def check_budget(
    ws: Workspace,
    path: Path,
    before: bytes | str | None,
    after: bytes | str | None,
    kind: str | None = None,
) -> BudgetCheck:
    """Size before → after of a planned write against the target's budget, and the lines
    that would fall outside it (those that were inside before, and new ones)."""
    kind = kind or kind_of_path(path)
    budget = budget_for(ws, kind)
    check = BudgetCheck(path, kind, budget)
    if budget is None or after is None:
        return check
    old, new = as_text(before), as_text(after)
    check.before, check.after = budget.measure(old), budget.measure(new)
    old_lines, new_lines = old.splitlines(), new.splitlines()
    outside_before = Counter(old_lines[past_budget(budget, old_lines) :])
    out: list[tuple[int, str]] = []
    for i in range(past_budget(budget, new_lines), len(new_lines)):
        line = new_lines[i]
        if outside_before[line] > 0:  # was already left out: not this write's doing
            outside_before[line] -= 1
            continue
        if line.strip():
            out.append((i + 1, line))
    check.falls_out_total = len(out)
    check.falls_out = out[:MAX_LINES]
    return check
