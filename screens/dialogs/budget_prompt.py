"""Size budgets at the moment of writing: a write that leaves its target over budget *and*
larger than before asks first, naming the lines that would fall outside what the agent loads."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from pathlib import Path

from textual.app import ComposeResult
from textual.binding import Binding
from textual.content import Content
from textual.dom import DOMNode
from textual.widgets import Static, TextArea

from screens.dialogs.confirm import ConfirmScreen
from screens.widgets.literal import literal, visible
from store.insight.budgets import BudgetCheck, check_budget
from store.read.counted import counted
from store.workspace import Workspace

Write = tuple[Path, bytes | None, bytes]


def merge_writes(items: Iterable[tuple[Path | None, bytes | None, bytes | None]]) -> list[Write]:
    """One write per file, in order: the first item's bytes before, the last one's after
    (items with no path or nothing after are left out)."""
    out: dict[Path, Write] = {}
    for path, before, after in items:
        if path is None or after is None:
            continue
        first = out[path][1] if path in out else before
        out[path] = (path, first, after)
    return list(out.values())


def budget_checks(ws: Workspace, writes: Iterable[Write]) -> list[BudgetCheck]:
    """Each write measured against its target's budget (blocking: call it in a thread)."""
    return [check_budget(ws, path, before, after) for path, before, after in writes]


def falling_out(checks: Iterable[BudgetCheck]) -> str:
    """The lines that would fall outside the budget, per target, numbered as in the new file."""
    out: list[str] = []
    for c in checks:
        if not c.crosses:
            continue
        what = (
            "the agent no longer loads these lines"
            if c.kind == "memory_md"
            else "these lines lie past the budget"
        )
        out.append(f"{c.path.name}: {what} ({c.falls_out_total}):")
        out += [f"{n:>6}  {text}" for n, text in c.falls_out]
        if c.falls_out_total > len(c.falls_out):
            out.append(f"        … and {c.falls_out_total - len(c.falls_out)} more")
    return "\n".join(out)


def what_to_cut(ws: Workspace, checks: Iterable[BudgetCheck], shown: int = 8) -> str:
    """Per target crossing its budget, its rules least relevant first, from the usage last
    cached (empty until measured once; blocking: call it in a thread)."""
    from store.insight.usage import usage_report

    out: list[str] = []
    for c in checks:
        if not c.crosses:
            continue
        report = usage_report(ws, only=c.path, read=False)
        rules = report.what_to_cut(c.path)[:shown]
        if not report.sessions or not rules:
            continue
        out.append(
            f"{c.path.name}: least relevant first ({counted(report.sessions, 'session')} known):"
        )
        for u in rules:
            seen = "not checkable" if u.relevant is None else f"{u.relevant}/{u.sessions}"
            out.append(f"{u.line:>6}  [{seen}] {u.text}")
    return "\n".join(out)


class BudgetPrompt(ConfirmScreen):
    """Dismissed with True when the person writes anyway."""

    DEFAULT_CSS = """
    BudgetPrompt {
        #budget-lines { height: auto; max-height: 14; }
        #budget-cut { height: auto; max-height: 10; }
    }
    """

    BINDINGS = [
        Binding("y", "answer('yes')", "Write anyway", id="budget.write"),
        Binding("n,escape", "answer('no')", "Cancel", id="budget.cancel"),
    ]
    AUTO_FOCUS = "#no"
    YES_VARIANT = "warning"
    QUESTION_ID = "budget-head"

    def __init__(self, checks: list[BudgetCheck], cut: str = "") -> None:
        self.crossing = [c for c in checks if c.crosses]
        memory = any(c.kind == "memory_md" for c in self.crossing)
        head = Content.assemble(
            Content.styled("Over budget\n", "bold $warning"),
            literal("\n".join(c.summary for c in self.crossing)),
            "\n",
            literal(
                "Claude Code loads only the first lines of MEMORY.md; past a CLAUDE.md, rules or "
                "skill budget every session pays for the lines and follows them less. "
                "Write anyway?"
                if memory
                else "Every session pays for the lines past the budget, and follows them less. "
                "Write anyway?"
            ),
        )
        super().__init__(head, "Write anyway", wide=True)
        #: the target's rules least relevant first (:func:`what_to_cut`)
        self.cut = cut

    def body(self) -> ComposeResult:
        lines = falling_out(self.crossing)
        if lines:
            area = TextArea(visible(lines), read_only=True, id="budget-lines", soft_wrap=False)
            area.can_focus = False
            yield area
        if self.cut:
            yield Static(Content.styled("What to cut", "bold"), classes="dialog-text")
            area = TextArea(visible(self.cut), read_only=True, id="budget-cut", soft_wrap=False)
            area.can_focus = False
            yield area


async def confirm_budgets(node: DOMNode, ws: Workspace, writes: list[Write]) -> bool:
    """True when no write crosses its target's budget, or the person says write anyway."""
    if not writes:
        return True
    checks = await asyncio.to_thread(budget_checks, ws, writes)
    if not any(c.crosses for c in checks):
        return True
    cut = await asyncio.to_thread(what_to_cut, ws, checks)
    answer = await node.app.push_screen_wait(BudgetPrompt(checks, cut))
    return bool(answer)
