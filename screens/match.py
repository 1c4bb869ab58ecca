"""Which knowledge a task would load: seed 003's skill matching, every score explained.

Type a task's objective, the files it touches and its type; the table scores every skill of
the knowledge base as it is typed (keyword, file and type points, times the success rate),
marks the skills an agent would load (score above 0.5, at most five) and those that scored
but stay below the threshold, and the side pane explains the highlighted skill and lists
the patterns and anti-patterns that apply. ``enter`` on a skill opens it in the knowledge
base. Matching runs in a thread worker, a moment after the last key.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
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
from textual.worker import get_current_worker

from store.index.workspace_index import WorkspaceIndex
from store.insight.matching import (
    Knowledge,
    MatchTask,
    PatternHit,
    SkillScore,
    all_scores,
    applicable_patterns,
    load_knowledge,
    match,
)
from store.models.knowledge import Skill
from store.read.textsafe import printable
from tui.messages import WorkspaceChanged
from tui.widgets.document import heading, label, lines
from tui.widgets.literal import literal
from tui.widgets.virtual_table import Column, Row, VirtualTable

THRESHOLD = 0.5
LIMIT = 5
DEBOUNCE = 0.15
KEYWORD_POINTS = 0.3
FILE_POINTS = 0.2
TYPE_POINTS = 0.2

COLUMNS = [
    Column("score", "Score", 5, align="right"),
    Column("kept", "Kept", 8),
    Column("skill", "Skill", None, min_width=16),
    Column("kw", "Keyword", 7, align="right"),
    Column("files", "Files", 5, align="right"),
    Column("type", "Type", 4, align="right"),
    Column("rate", "×Success", 8, align="right"),
]


@dataclass(frozen=True, slots=True)
class Result:
    """One computation: the task, every skill's score, the ones loaded, the patterns."""

    task: MatchTask
    scores: list[SkillScore]
    loaded: list[str]
    hits: list[PatternHit]


def parse_files(text: str) -> tuple[str, ...]:
    """Files separated by commas and/or whitespace."""
    return tuple(p for p in re.split(r"[,\s]+", text.strip()) if p)


def _num(value: float) -> str:
    return f"{value:.2f}".rstrip("0").rstrip(".") if value else "0"


def _points(value: float) -> Content:
    return Content.styled(_num(value), "bold") if value else Content.styled("—", "dim")


class MatchScreen(Screen[None]):
    """Try a task against the knowledge base: what would an agent load?"""

    TITLE = "Skill matching"

    BINDINGS = [
        Binding("escape", "app.pop_screen", "Back", id="match.back"),
        Binding("ctrl+o", "focus_task", "Task", id="match.focus_task"),
        Binding("ctrl+t", "focus_table", "Skills", id="match.focus_table"),
    ]

    def __init__(self, index: WorkspaceIndex) -> None:
        super().__init__()
        self.index = index
        self.knowledge: Knowledge | None = None
        self.result: Result | None = None
        self._timer: Timer | None = None
        self._skills: dict[Path, Skill] = {}
        self._rows: dict[str, SkillScore] = {}

    def compose(self) -> ComposeResult:
        yield Header()
        with Vertical(id="match-form"):
            with Horizontal(classes="match-row"):
                yield Label("Objective", classes="match-label")
                yield Input(
                    placeholder="what the task is about, e.g. JWT の認証ミドルウェアを追加",
                    id="match-objective",
                    compact=True,
                )
            with Horizontal(classes="match-row"):
                yield Label("Files", classes="match-label")
                yield Input(
                    placeholder="files it touches, comma- or space-separated",
                    id="match-files",
                    compact=True,
                )
            with Horizontal(classes="match-row"):
                yield Label("Task type", classes="match-label")
                yield Input(placeholder="task type", id="match-type", compact=True)
        yield Static(id="match-summary")
        with Horizontal(id="match-panes"):
            yield VirtualTable(COLUMNS, id="match-skills")
            with VerticalScroll(id="match-side"):
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

    @work(thread=True, exclusive=True, group="match-load")
    def load(self) -> None:
        k = load_knowledge(self.index.ws)
        if not get_current_worker().is_cancelled:
            self.app.call_from_thread(self.loaded, k)

    def loaded(self, k: Knowledge) -> None:
        self.knowledge = k
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

    @work(thread=True, exclusive=True, group="match")
    def compute(self, k: Knowledge, task: MatchTask) -> None:
        scores = all_scores(k, task)
        loaded = [s.skill_id for s in match(k, task, LIMIT)]
        hits = applicable_patterns(k, task)
        if not get_current_worker().is_cancelled:
            self.app.call_from_thread(self.show, Result(task, scores, loaded, hits))

    # -- showing -----------------------------------------------------------------

    def show(self, result: Result) -> None:
        self.result = result
        loaded = set(result.loaded)
        rows: list[Row] = []
        self._rows = {}
        for s in result.scores:
            key = f"{s.skill_id}\0{s.path}"
            self._rows[key] = s
            rows.append((key, self.row(s, s.skill_id in loaded)))
        table = self.query_one("#match-skills", VirtualTable)
        table.set_rows(rows)
        if not table.has_focus:
            table.action_first()  # while typing, the best match is the one explained
        table.border_subtitle = (
            f"{len(loaded)} load · {sum(1 for s in result.scores if s.score > 0 and not s.kept)}"
            f" below {THRESHOLD} · {len(result.scores)} skills"
        )
        self.query_one("#match-summary", Static).update(self.summary(result))
        self.show_why(table.cursor_key)
        self.query_one("#match-patterns", Static).update(self.patterns_view(result.hits))

    @staticmethod
    def row(s: SkillScore, loads: bool) -> tuple[Content, ...]:
        if loads:
            kept = Content.styled("✓ loads", "bold $success")
            skill_style = "bold $success"
        elif s.kept:
            kept = Content.styled("✓ over 5", "$warning")
            skill_style = "$warning"
        elif s.score > 0:
            kept = Content.styled("— below", "$warning")
            skill_style = ""
        else:
            kept = Content.styled("—", "dim")
            skill_style = "dim"
        rate = Content.styled(
            f"×{_num(s.success_rate)}{'?' if s.success_rate_assumed else ''}",
            "dim" if s.success_rate_assumed else "",
        )
        return (
            Content.styled(
                f"{s.score:.2f}", "bold $success" if loads else "" if s.score else "dim"
            ),
            kept,
            literal(s.skill_id, skill_style, keep_newlines=False),
            _points(KEYWORD_POINTS * len(s.keywords)),
            _points(FILE_POINTS * len(s.file_matches)),
            _points(TYPE_POINTS if s.type_matched else 0.0),
            rate,
        )

    @staticmethod
    def summary(result: Result) -> Content:
        by_id = {s.skill_id: s for s in result.scores}
        parts: list[Content] = [Content.styled("Would load: ", "bold")]
        if result.loaded:
            for i, sid in enumerate(result.loaded):
                if i:
                    parts.append(Content(", "))
                parts += [
                    literal(sid, "bold $success", keep_newlines=False),
                    Content.styled(f" {by_id[sid].score:.2f}", "dim"),
                ]
        else:
            parts.append(Content.styled("nothing", "$text-muted"))
        below = [s for s in result.scores if s.score > 0 and not s.kept]
        parts.append(Content.styled(f"   Scored ≤ {THRESHOLD}: ", "bold"))
        if below:
            for i, s in enumerate(below):
                if i:
                    parts.append(Content(", "))
                parts += [
                    literal(s.skill_id, "$warning", keep_newlines=False),
                    Content.styled(f" {s.score:.2f}", "dim"),
                ]
        else:
            parts.append(Content.styled("none", "$text-muted"))
        return Content.assemble(*parts)

    @on(VirtualTable.Highlighted, "#match-skills")
    def skill_highlighted(self, event: VirtualTable.Highlighted) -> None:
        self.show_why(event.key)

    def show_why(self, key: str | None) -> None:
        why = self.query_one("#match-why", Static)
        s = self._rows.get(key or "")
        if s is None or self.result is None:
            why.update(Content.styled("No skills in the knowledge base.", "$text-muted"))
            return
        skill = self._skills.get(s.path)
        triggers = skill.triggers if skill else None
        loaded = self.result.loaded
        out = [
            literal(s.skill_id, "bold"),
            literal(s.name or "", "dim"),
            literal(self.index.ws.display(s.path), "dim italic"),
            Content(""),
        ]
        kw_all = (triggers.keywords if triggers else None) or []
        out.append(
            Content.assemble(
                label(f"keywords +{_num(KEYWORD_POINTS * len(s.keywords))}"),
                literal(", ".join(s.keywords), "$success")
                if s.keywords
                else Content.styled("none found", "dim"),
            )
        )
        if kw_all:
            out.append(literal(f"  of: {', '.join(kw_all)}", "dim"))
        out.append(label(f"files +{_num(FILE_POINTS * len(s.file_matches))}"))
        out += [
            Content.assemble(
                Content("  "),
                literal(f, "$success"),
                Content.styled(" ~ ", "dim"),
                literal(p),
            )
            for p, f in s.file_matches
        ]
        fp_all = (triggers.file_patterns if triggers else None) or []
        if not s.file_matches:
            out.append(
                literal(f"  none of: {', '.join(fp_all)}", "dim")
                if fp_all
                else Content.styled("  no file patterns", "dim")
            )
        types = (triggers.task_types if triggers else None) or []
        out.append(
            Content.assemble(
                label(f"type +{_num(TYPE_POINTS if s.type_matched else 0.0)}"),
                literal(self.result.task.task_type or "", "$success")
                if s.type_matched
                else literal(f"not matched; one of: {', '.join(types) or '—'}", "dim"),
            )
        )
        rate = (
            f"{_num(s.success_rate)} (no success_rate: assumed)"
            if s.success_rate_assumed
            else _num(s.success_rate)
        )
        out += [
            Content(""),
            Content.assemble(
                label("score"),
                Content(f"{_num(s.raw)} × {rate} = "),
                Content.styled(f"{s.score:.2f}", "bold"),
                Content.styled(" (capped at 1)" if s.raw * s.success_rate > 1 else "", "dim"),
            ),
        ]
        if s.skill_id in loaded:
            verdict = Content.styled(
                f"✓ loads (#{loaded.index(s.skill_id) + 1} of at most {LIMIT})", "bold $success"
            )
        elif s.kept:
            verdict = Content.styled(f"kept, but only the best {LIMIT} are loaded", "bold $warning")
        elif s.score > 0:
            verdict = Content.styled(
                f"— below the threshold (needs more than {THRESHOLD})", "$warning"
            )
        else:
            verdict = Content.styled("— no trigger matched", "dim")
        out.append(verdict)
        why.update(lines(out))

    @staticmethod
    def patterns_view(hits: list[PatternHit]) -> Content:
        out: list[Content] = []
        for kind, title, mark, style in (
            ("pattern", "Patterns", "✓", "$success"),
            ("anti_pattern", "Anti-patterns (avoid)", "✗", "$error"),
        ):
            group = [h for h in hits if h.kind == kind]
            out += [Content(""), heading(f"{title} ({len(group)})")]
            if not group:
                out.append(Content.styled("none apply", "$text-muted"))
            for h in group:
                out.append(
                    Content.assemble(
                        Content.styled(f"{mark} ", f"bold {style}"),
                        literal(h.pattern_id, "bold", keep_newlines=False),
                    )
                )
                if h.name:
                    out.append(Content.assemble(Content("  "), literal(h.name, "dim")))
                out.append(
                    Content.assemble(
                        Content.styled("  matched: ", "dim"),
                        literal(", ".join(h.reasons), "$accent"),
                    )
                )
        return lines(out)

    # -- actions -----------------------------------------------------------------

    @on(VirtualTable.Selected, "#match-skills")
    def skill_selected(self, event: VirtualTable.Selected) -> None:
        s = self._rows.get(event.key)
        if s is None:
            return
        from screens.knowledge import KnowledgeScreen

        self.app.push_screen(KnowledgeScreen(self.index, s.path))

    def action_focus_task(self) -> None:
        self.query_one("#match-objective", Input).focus()

    def action_focus_table(self) -> None:
        self.query_one("#match-skills", VirtualTable).focus()
