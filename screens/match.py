"""Which knowledge a task would load: seed 003's skill matching, every score explained,
matched in a worker a moment after the last key."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import Screen
from textual.suggester import SuggestFromList
from textual.timer import Timer
from textual.widgets import Footer, Header, Input, Label, Static

from screens.messages import Open, ScreenTarget, WorkspaceChanged
from screens.widgets.keys import HELP
from screens.widgets.skill_match import patterns_view, skill_cells, summary_view, why_view
from screens.widgets.virtual_table import Column, Row, VirtualTable
from store.index.workspace_index import WorkspaceIndex
from store.insight.matching import (
    THRESHOLD,
    Knowledge,
    MatchResult,
    MatchTask,
    SkillScore,
    load_knowledge,
    match_task,
)
from store.models.knowledge import Skill
from store.read.counted import counted
from store.read.kinds import Kind
from store.read.textsafe import printable

DEBOUNCE = 0.15

#: the task's fields: label, ``match-<name>`` id, placeholder
FIELDS = (
    ("Objective", "objective", "what the task is about, e.g. JWT の認証ミドルウェアを追加"),
    ("Files", "files", "files it touches, comma- or space-separated"),
    ("Task type", "type", "task type"),
)
COLUMNS = [
    Column("score", "Score", 5, align="right"),
    Column("kept", "Kept", 8, drop=1),
    Column("skill", "Skill", None, min_width=16),
    Column("kw", "Keyword", 7, align="right", drop=4),
    Column("files", "Files", 5, align="right", drop=5),
    Column("type", "Type", 4, align="right", drop=3),
    Column("rate", "×Success", 8, align="right", drop=2),
]


def parse_files(text: str) -> tuple[str, ...]:
    """Files separated by commas and/or whitespace."""
    return tuple(p for p in re.split(r"[,\s]+", text.strip()) if p)


class MatchScreen(Screen[None]):
    TITLE = "Skill matching"

    DEFAULT_CSS = """
    MatchScreen {
        #match-form { height: auto; margin: 1 1 0 1; }
        .match-row { height: 1; }
        .match-label { width: 11; color: $text-muted; text-style: bold; }
        .match-row Input { width: 1fr; }
        #match-summary { height: auto; padding: 0 1; margin-top: 1; }
        #match-panes { height: 1fr; }
        #match-skills { width: 3fr; height: 1fr; }
        #match-side { width: 2fr; height: 1fr; padding: 0 1; }
    }
    """

    BINDINGS = [
        HELP,
        Binding("escape", "app.pop_screen", "Back", id="match.back"),
        Binding("ctrl+o", "focus_task", "Task", id="match.focus_task"),
        Binding("ctrl+t", "focus_table", "Skills", id="match.focus_table"),
    ]

    SHOWS = frozenset(
        {Kind.SKILL, Kind.PATTERN, Kind.ANTI_PATTERN, Kind.MEMORY, Kind.PROPOSAL, None}
    )

    def __init__(self, index: WorkspaceIndex) -> None:
        super().__init__()
        self.index = index
        self.knowledge: Knowledge | None = None
        self.result: MatchResult | None = None
        self._timer: Timer | None = None
        self._skills: dict[Path, Skill] = {}
        self.scored: dict[str, SkillScore] = {}

    def compose(self) -> ComposeResult:
        yield Header()
        with Vertical(id="match-form"):
            for label, name, placeholder in FIELDS:
                with Horizontal(classes="match-row"):
                    yield Label(label, classes="match-label")
                    yield Input(placeholder=placeholder, id=f"match-{name}", compact=True)
        yield Static(id="match-summary")
        with Horizontal(id="match-panes"):
            yield VirtualTable(COLUMNS, id="match-skills", classes="list")
            with VerticalScroll(id="match-side", classes="pane"):
                yield Static(id="match-why")
                yield Static(id="match-patterns")
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one("#match-skills", VirtualTable)
        table.border_title = "Skills"
        self.query_one("#match-side", VerticalScroll).border_title = "Why"
        self.query_one("#match-summary", Static).update(
            Content.styled("Reading the knowledge base…", "$text-muted")
        )
        self.query_one("#match-objective", Input).focus()
        self.load()

    # -- loading -----------------------------------------------------------------

    @work(exclusive=True, group="match-load", exit_on_error=False)
    async def load(self) -> None:
        self.knowledge = k = await asyncio.to_thread(load_knowledge, self.index.ws)
        self._skills = {p: s for s, p in k.skills}
        types = sorted(
            {t for s, _p in k.skills if s.triggers for t in s.triggers.task_types or [] if t}
        )
        type_input = self.query_one("#match-type", Input)
        type_input.suggester = SuggestFromList(types, case_sensitive=False)
        if types:
            type_input.placeholder = printable(
                "task type: " + ", ".join(types), keep_newlines=False
            )
        self.recompute()

    def on_workspace_changed(self, _event: WorkspaceChanged) -> None:
        self.load()

    # -- matching ----------------------------------------------------------------

    def read_task(self) -> MatchTask:
        objective = self.query_one("#match-objective", Input).value
        files = parse_files(self.query_one("#match-files", Input).value)
        task_type = self.query_one("#match-type", Input).value.strip() or None
        return MatchTask(objective=objective, files=files, task_type=task_type)

    @on(Input.Changed)
    def input_changed(self) -> None:
        if self._timer is not None:
            self._timer.stop()
        self._timer = self.set_timer(DEBOUNCE, self.recompute)

    @on(Input.Submitted)
    def input_submitted(self) -> None:
        self.action_focus_table()

    def recompute(self) -> None:
        self._timer = None
        if self.knowledge is not None:
            self.compute(self.knowledge, self.read_task())

    # -- showing -----------------------------------------------------------------

    @work(exclusive=True, group="match", exit_on_error=False)
    async def compute(self, k: Knowledge, task: MatchTask) -> None:
        self.result = result = await asyncio.to_thread(match_task, k, task)
        loaded = set(result.loaded)
        rows: list[Row] = []
        self.scored = {}
        for s in result.scores:
            key = f"{s.skill_id}\0{s.path}"
            self.scored[key] = s
            rows.append((key, skill_cells(s, s.skill_id in loaded)))
        table = self.query_one("#match-skills", VirtualTable)
        table.set_rows(rows)
        if not table.has_focus:
            table.action_first()  # while typing, the best match is the one explained
        table.border_subtitle = (
            f"{len(loaded)} load · {len(result.below)} below {THRESHOLD} · "
            f"{counted(len(result.scores), 'skill')}"
        )
        self.query_one("#match-summary", Static).update(summary_view(result))
        self.show_detail(table.cursor_key)
        self.query_one("#match-patterns", Static).update(patterns_view(result.hits))

    @on(VirtualTable.Highlighted, "#match-skills")
    def highlighted(self, event: VirtualTable.Highlighted) -> None:
        self.show_detail(event.key)

    def show_detail(self, key: str | None) -> None:
        why = self.query_one("#match-why", Static)
        s = self.scored.get(key or "")
        if s is None or self.result is None:
            why.update(Content.styled("No skills in the knowledge base.", "$text-muted"))
            return
        display = self.index.ws.display(s.path)
        why.update(why_view(s, self._skills.get(s.path), self.result, display))

    # -- actions -----------------------------------------------------------------

    @on(VirtualTable.Selected, "#match-skills")
    def skill_selected(self, event: VirtualTable.Selected) -> None:
        s = self.scored.get(event.key)
        if s is not None:
            self.post_message(Open(ScreenTarget("knowledge", s.path)))

    def action_focus_task(self) -> None:
        self.query_one("#match-objective", Input).focus()

    def action_focus_table(self) -> None:
        self.query_one("#match-skills", VirtualTable).focus()
