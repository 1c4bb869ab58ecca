"""Targets: the files agents load, each against its budget, with its findings and usage.
``m`` merges a group of duplicates (the diff first, one transaction, ``u`` undoes)."""

from __future__ import annotations

import asyncio
from contextlib import suppress

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.widgets import Footer, Header, OptionList, Static, TextArea
from textual.widgets.option_list import Option
from textual.worker import get_current_worker

from screens.list_screen import ListScreen
from screens.messages import FilesWritten
from screens.widgets.keys import HELP
from screens.widgets.literal import literal, visible
from screens.widgets.virtual_table import Column, Row, VirtualTable
from screens.writing import run_write
from store.errors import ReviewError
from store.index.workspace_index import WorkspaceIndex
from store.insight.target_report import Finding, TargetRow, TargetsReport, build_report
from store.insight.targets import Rule
from store.insight.usage import Usage, UsageReport, usage_report
from store.read.counted import counted
from store.read.kinds import Kind
from store.review.dedupe import apply_merge, plan_merge

COLUMNS = (
    Column("path", "Target", min_width=32, path=True),
    Column("kind", "Kind", 14, drop=2),
    Column("lines", "Lines", 6, align="right", drop=4),
    Column("chars", "Chars", 7, align="right", drop=8),
    Column("tokens", "Tokens", 7, align="right", drop=9),
    Column("budget", "Budget", 16, align="right"),
    Column("bullets", "Bullets", 7, align="right", drop=3),
    Column("written", "Written", 10, drop=7),
    Column("findings", "Findings", 24),
    Column("used", "Used", 9, align="right", drop=5),
)
#: Short labels of finding kinds in the list.
SHORT = {
    "budget": "B",
    "duplicate": "dup",
    "stale-path": "path",
    "stale-command": "cmd",
    "elsewhere": "away",
    "untouched": "old",
    "secret": "SECRET",
    "unreadable": "UNREAD",
}


def used_cell(items: list[Usage], sessions: int) -> str | Content:
    """Rules relevant since written / rules that can be matched, ⚑ the number flagged
    unused; ``—`` when nothing can be said yet."""
    # a rule no session came after says nothing yet (a copied file is "written" today)
    known = [u for u in items if u.relevant is not None and u.sessions]
    flagged = sum(1 for u in items if u.flags)
    if not sessions or not (known or flagged):
        return "—"
    used = sum(1 for u in known if u.relevant)
    cell = f"{used}/{len(known)}" if known else "·"
    if flagged:
        return Content.assemble(cell, Content.styled(f" ⚑{flagged}", "$warning"))
    return cell


def target_cells(
    row: TargetRow, display: str, used: str | Content = "—"
) -> tuple[str | Content, ...]:
    t = row.text
    if row.budget is not None:
        said = {f.severity for f in row.findings if f.kind == "budget"}
        style = "$error" if "error" in said else "$warning" if said else ""
        budget: str | Content = Content.styled(
            f"{row.used:,}/{row.budget.limit:,} {row.budget.unit[0]}", style
        )
    else:
        budget = "—"
    counts = row.counts
    found = " ".join(f"{SHORT[k]} {n}" for k, n in counts.items() if n)
    worst = (
        "$error"
        if counts["secret"] or counts["unreadable"]
        else "$warning"
        if any(f.severity != "info" for f in row.findings)
        else "$text-muted"  # information only: a synced home's other machines
    )
    findings: str | Content = Content.styled(found, worst) if found else "—"
    return (
        display,
        row.file.kind,
        f"{len(t.lines):,}",
        f"{t.chars:,}",
        f"{t.tokens:,}",
        budget,
        f"{len(t.rules):,}",
        (row.last_written or "—")[:10],
        findings,
        used,
    )


class TargetsScreen(ListScreen):
    DEFAULT_CSS = """
    TargetsScreen {
        #targets-list { height: 2fr; }
        #target-detail { height: 3fr; }
        #target-title { height: 1; padding: 0 1; color: $text-muted; }
        #target-text { width: 3fr; }
        #target-findings { width: 2fr; }
    }
    """

    BINDINGS = [
        HELP,
        Binding("r", "reload", "Reload", id="targets.reload"),
        Binding("m", "merge", "Merge duplicate", id="targets.merge"),
        Binding("U", "measure_usage", "Measure usage", id="targets.usage"),
        Binding("u", "app.undo", "Undo", id="targets.undo"),
        Binding("escape", "app.pop_screen", "Back", id="targets.back"),
    ]

    #: Targets live in the knowledge base, project memory and Markdown files of no kind.
    SHOWS = frozenset({Kind.SKILL, Kind.MEMORY, None})
    LIST = "targets-list"

    def __init__(self, index: WorkspaceIndex) -> None:
        super().__init__(index)
        self.report: TargetsReport | None = None

    def compose(self) -> ComposeResult:
        yield Header()
        yield VirtualTable(COLUMNS, id="targets-list", classes="list")
        with Vertical(id="target-detail"):
            yield Static(id="target-title")
            with Horizontal():
                yield TextArea(
                    id="target-text", read_only=True, show_line_numbers=True, soft_wrap=False
                )
                yield OptionList(id="target-findings", classes="list")
        yield Footer()

    def on_mount(self) -> None:
        self.table.border_title = "Targets (reading…)"
        self.query_one("#target-findings", OptionList).border_title = "Findings"

    def action_reload(self) -> None:
        self.reload()

    @work(thread=True, exclusive=True, group="targets-load", exit_on_error=False)
    def reload(self, read: bool = False) -> None:
        """The report, and the usage cached so far (``read``: read what was appended)."""
        ws, led = self.index.ws, self.index.ledger
        worker = get_current_worker()
        report = build_report(ws, ledger=led)

        def progress(done: int, total: int) -> bool:
            """Told in the title; a closed screen or a new load stops the reading (kept)."""
            if worker.is_cancelled:
                return False
            if done == total or done % 25 == 0:
                self.app.call_from_thread(self.reading, done, total)
            return True

        usage = usage_report(ws, ledger=led, read=read, progress=progress if read else None)
        if not worker.is_cancelled:
            self.app.call_from_thread(self.show_report, report, usage)

    def reading(self, done: int, total: int) -> None:
        self.table.border_subtitle = f"reading transcripts {done}/{total} (Esc stops)"

    def action_measure_usage(self) -> None:
        self.notify("Reading the transcripts for each rule's usage…", timeout=3, markup=False)
        self.reload(read=True)

    def show_report(self, report: TargetsReport, usage: UsageReport | None = None) -> None:
        self.report = report
        ws = self.index.ws
        by_path: dict[str, list[Usage]] = {}
        for u in usage.items if usage is not None else []:
            by_path.setdefault(str(u.path), []).append(u)
        sessions = usage.sessions if usage is not None else 0
        rows: list[Row] = []
        for r in report.rows:
            items = by_path.get(str(r.path), [])
            r.findings.extend(  # shown with the target's findings, for information
                Finding("unused", u.path, u.line or None, "; ".join(u.flags), "info")
                for u in items
                if u.flags and sessions
            )
            rows.append(
                (str(r.path), target_cells(r, ws.display(r.path), used_cell(items, sessions)))
            )
        self.table.border_subtitle = ""
        n, groups = len(report.findings), len(report.duplicates)
        found = f"{counted(n, 'finding')} · {counted(groups, 'duplicate group')}"
        self.show_rows(rows, f"Targets ({len(rows)}) · {found}")

    @on(VirtualTable.Selected, "#targets-list")
    def selected(self, _event: VirtualTable.Selected) -> None:
        self.query_one("#target-findings", OptionList).focus()

    def show_detail(self, key: str | None) -> None:
        title = self.query_one("#target-title", Static)
        text = self.query_one("#target-text", TextArea)
        findings = self.query_one("#target-findings", OptionList)
        findings.clear_options()
        row = self.row(key)
        if row is None:
            title.update(
                Content.styled(
                    "No targets: CLAUDE.md, rules, MEMORY.md, AGENTS.md, skills and project "
                    "memory appear here ([projects] in the config adds projects).",
                    "$text-muted",
                )
            )
            text.load_text("")
            return
        budget = f" · {row.budget.describe(row.used)}" if row.budget is not None else " · no budget"
        title.update(literal(f"{row.path}{budget}", keep_newlines=False))
        text.load_text(visible(row.text.text) if row.text.text else (row.text.error or ""))
        options: list[Option] = []
        for i, f in enumerate(row.findings):
            where = f"{f.line:>5}" if f.line else "    —"
            style = {"error": "$error", "info": "$text-muted"}.get(f.severity, "$warning")
            label = Content.assemble(
                (where + "  ", "$text-muted"),
                (f"{f.kind:<13} ", style),
                literal(f.message, keep_newlines=False),
            )
            options.append(Option(label, id=str(i)))
        if not options:
            options.append(Option(Content.styled("No findings.", "$success"), disabled=True))
        findings.add_options(options)

    def row(self, key: str | None) -> TargetRow | None:
        rows = self.report.rows if self.report is not None else []
        return next((r for r in rows if str(r.path) == key), None)

    @on(OptionList.OptionSelected, "#target-findings")
    def finding_selected(self, event: OptionList.OptionSelected) -> None:
        row = self.row(self.current)
        if row is None or event.option.id is None:
            return
        with suppress(ValueError, IndexError):
            f = row.findings[int(event.option.id)]
            if f.line:
                text = self.query_one("#target-text", TextArea)
                text.move_cursor((f.line - 1, 0), center=True)
                text.focus()

    # -- merging duplicates ------------------------------------------------------------

    def duplicate_at_cursor(self) -> tuple[list[Rule], Rule] | None:
        """The duplicate group of the highlighted duplicate finding (else the target's first
        one) and its rule, the one to keep."""
        row = self.row(self.current)
        if self.report is None or row is None:
            return None
        dups = [f for f in row.findings if f.kind == "duplicate"]
        at = self.query_one("#target-findings", OptionList).highlighted
        chosen: Finding | None = None
        if at is not None and 0 <= at < len(row.findings):
            chosen = row.findings[at] if row.findings[at].kind == "duplicate" else None
        chosen = chosen or (dups[0] if dups else None)
        if chosen is None:
            return None
        return self.report.duplicates_of(chosen.path, chosen.line)

    def action_merge(self) -> None:
        found = self.duplicate_at_cursor()
        if found is None:
            self.notify(
                "No duplicate here: highlight a target with a duplicate finding (dup); m keeps "
                "that finding's wording and removes the others.",
                markup=False,
                timeout=4,
            )
            return
        self.merge(*found)

    @work(exclusive=True, group="targets-merge", exit_on_error=False)
    async def merge(self, rules: list[Rule], keep: Rule) -> None:
        """Keep ``keep``'s wording, take the other rules out of their files: the diff first,
        then one transaction (``u`` undoes it)."""
        from screens.dialogs.confirm import ConfirmScreen

        ws, led = self.index.ws, self.index.ledger
        try:
            plan = await asyncio.to_thread(plan_merge, ws, rules, keep)
        except ReviewError as exc:
            self.notify(f"Cannot merge: {exc}", severity="error", markup=False, timeout=6)
            return
        removed = "\n".join(f"  − {ws.display(r.path)}:{r.line}  {r.text}" for r in plan.remove)
        question = Content.assemble(
            Content.styled("Merge duplicates\n", "bold"),
            "Keep ",
            literal(f"{ws.display(keep.path)}:{keep.line}  {keep.text}", "$success"),
            "\nand remove:\n",
            literal(removed, "$warning"),
        )
        if not await self.app.push_screen_wait(
            ConfirmScreen(question, "Merge", diff=plan.diff(ws))
        ):
            return
        outcome = await run_write(
            self,
            f"merge duplicates of '{keep.text[:40]}'",
            lambda: apply_merge(ws, plan, ledger=led),
        )
        if not outcome.ok or outcome.value is None:
            return
        self.app.post_message(FilesWritten(frozenset(outcome.value.paths)))
        self.notify(
            f"Merged: {counted(len(plan.remove), 'duplicate')} removed. u undoes.", timeout=3
        )
        self.action_reload()
