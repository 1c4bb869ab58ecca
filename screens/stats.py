"""Statistics: whether the agents actually improve (the figures of ``hurikaeri stats
--json``), with recurring problems clustered."""

from __future__ import annotations

import asyncio
from typing import Any

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Footer, Header, Label, Sparkline, Static

from screens.messages import EVERY_KIND, Open, ReviewChanged, SessionTarget, WorkspaceChanged
from screens.widgets.document import lines
from screens.widgets.keys import HELP
from screens.widgets.literal import OUTCOME_STYLE, literal
from screens.widgets.virtual_table import Column, Row, VirtualTable
from store.index.workspace_index import WorkspaceIndex
from store.insight.effect import effect_metrics
from store.insight.stats import workspace_stats
from store.read.counted import counted

BAR = "█"
CLUSTER_COLUMNS = [
    Column("count", "×", 3, align="right"),
    Column("sessions", "Sessions", 8, align="right", drop=1),
    Column("promoted", "Promoted", 9, drop=3),
    Column("again", "Came back", 10, drop=2),
    Column("description", "Problem", None, min_width=20),
]


MUTED_NO = Content.styled("no", "$text-muted")
IMPACT = {"high": "$error", "medium": "$warning", "low": "$success"}
TRY_STATES = {
    "approved": "$success",
    "rejected": "$error",
    "pending": "$text-muted",
    "promoted": "$accent",
}


def cluster_row(i: int, c: dict[str, Any]) -> Row:
    """A recurring problem: how often, in how many sessions, promoted, came back after."""
    promoted = Content.styled("yes", "$accent") if c["promoted_items"] else MUTED_NO
    again = c["recurred_after_promotion"]
    came_back = Content.styled("yes", "bold $error") if again else MUTED_NO
    if again is None:
        came_back = Content.styled("—", "$text-muted")
    cells = (str(c["count"]), str(len(c["sessions"])), promoted, came_back)
    return str(i), (*cells, literal(c["description"], keep_newlines=False))


def bars(counts: dict[str, int], width: int = 30, styles: dict[str, str] | None = None) -> Content:
    """One labelled bar per key, scaled to the largest count."""
    if not counts:
        return Content.styled("no data", "$text-muted")
    top = max(counts.values()) or 1
    rows = []
    for key, n in counts.items():
        length = max(1, round(n * width / top)) if n else 0
        style = (styles or {}).get(key, "$accent")
        rows.append(
            Content.assemble(
                literal(f"{key:<18.18} "), Content.styled(BAR * length, style), f" {n}"
            )
        )
    return Content("\n").join(rows)


class StatsScreen(Screen[None]):
    DEFAULT_CSS = """
    StatsScreen {
        .stats-row { height: auto; }
        .stats-panel { width: 1fr; height: auto; padding: 0 1; }
        .stats-title { margin-top: 1; text-style: bold; color: $text-primary; }
        .stats-spark-label { color: $text-muted; }
        #stats-body Sparkline { height: 2; margin-bottom: 1; }
        .spark-success > .sparkline--max-color { color: $success; }
        .spark-failure > .sparkline--max-color { color: $error; }
        #stats-clusters { height: 10; }
        #stats-effect { height: auto; padding: 0 1; }
    }
    """

    BINDINGS = [
        HELP,
        Binding("enter", "open_cluster", "Open session", id="stats.open", show=False),
        Binding("escape", "app.pop_screen", "Back", id="stats.back"),
    ]

    SHOWS = EVERY_KIND
    SHOWS_REVIEW = True

    def __init__(self, index: WorkspaceIndex) -> None:
        super().__init__()
        self.index = index
        self.figures: dict[str, Any] = {}

    def compose(self) -> ComposeResult:
        yield Header()
        with VerticalScroll(id="stats-body"):
            with Horizontal(classes="stats-row"):
                with Vertical(classes="stats-panel pane"):
                    yield Label("Outcomes per week", classes="stats-title")
                    for outcome in ("success", "partial", "failure"):
                        yield Static(id=f"stats-{outcome}-label", classes="stats-spark-label")
                        yield Sparkline([], id=f"stats-{outcome}", classes=f"spark-{outcome}")
                with Vertical(classes="stats-panel pane"):
                    yield Label("Evaluation scores over time (1–5)", classes="stats-title")
                    yield Static(id="stats-eval-ai-label", classes="stats-spark-label")
                    yield Sparkline([], id="stats-eval-ai")
                    yield Static(id="stats-eval-user-label", classes="stats-spark-label")
                    yield Sparkline([], id="stats-eval-user")
            with Horizontal(classes="stats-row"):
                with Vertical(classes="stats-panel pane"):
                    yield Label("Problem categories", classes="stats-title")
                    yield Static(id="stats-categories")
                with Vertical(classes="stats-panel pane"):
                    yield Label("Problem impact", classes="stats-title")
                    yield Static(id="stats-impact")
                with Vertical(classes="stats-panel pane"):
                    yield Label("Try-items", classes="stats-title")
                    yield Static(id="stats-tries")
            yield Label(
                "Recurring problems (most frequent first; Enter opens the latest session)",
                classes="stats-title",
            )
            yield VirtualTable(CLUSTER_COLUMNS, id="stats-clusters", classes="list")
            yield Label("Effect metrics (seed 003)", classes="stats-title")
            yield Static(id="stats-effect")
        yield Footer()

    def on_mount(self) -> None:
        self.load()

    def on_workspace_changed(self, _event: WorkspaceChanged) -> None:
        self.load()

    def on_review_changed(self, _event: ReviewChanged) -> None:
        self.load()

    @work(exclusive=True, group="stats", exit_on_error=False)
    async def load(self) -> None:
        self.figures = figures = await asyncio.to_thread(workspace_stats, self.index)
        metrics = await asyncio.to_thread(effect_metrics, self.index)
        weeks = figures["outcomes_per_week"]
        names = list(weeks)
        span = f"{names[0]} … {names[-1]}" if names else "no reports"
        for outcome in ("success", "partial", "failure"):
            series = [float(weeks[w].get(outcome, 0)) for w in names]
            self.query_one(f"#stats-{outcome}", Sparkline).data = series or [0.0]
            total = int(sum(series))
            self.query_one(f"#stats-{outcome}-label", Static).update(
                Content.assemble(
                    Content.styled(f"{outcome:<8}", OUTCOME_STYLE[outcome]),
                    f" {total} in {counted(len(names), 'week')} ({span})",
                )
            )
        evals = figures["evaluation"]
        ai = [float(e["ai_mean"]) for e in evals if e["ai_mean"] is not None]
        user = [float(e["user"]) for e in evals if e["user"] is not None]
        self.query_one("#stats-eval-ai", Sparkline).data = ai or [0.0]
        self.query_one("#stats-eval-user", Sparkline).data = user or [0.0]
        self.query_one("#stats-eval-ai-label", Static).update(
            f"AI self-assessment: {counted(len(ai), 'session')}, latest {ai[-1]:.1f}"
            if ai
            else "AI self-assessment: no data"
        )
        self.query_one("#stats-eval-user-label", Static).update(
            f"user score: {counted(len(user), 'session')}, latest {user[-1]:.0f}"
            if user
            else "user score: no data"
        )
        self.query_one("#stats-categories", Static).update(bars(figures["problem_categories"], 12))
        self.query_one("#stats-impact", Static).update(bars(figures["problem_impact"], 20, IMPACT))
        self.query_one("#stats-tries", Static).update(bars(figures["try_items"], 12, TRY_STATES))
        rows = [cluster_row(i, c) for i, c in enumerate(figures["recurring_problems"])]
        table = self.query_one("#stats-clusters", VirtualTable)
        table.set_rows(rows)
        table.border_title = counted(len(rows), "recurring problem")
        out = [
            Content.assemble(
                literal(f"{m.name:<38}"),
                Content.styled(f"{m.shown:>10}", "bold" if m.supported else "$text-muted"),
                "  ",
                literal(m.basis, "dim"),
            )
            for m in metrics
        ]
        self.query_one("#stats-effect", Static).update(lines(out) if out else Content(""))

    @on(VirtualTable.Selected, "#stats-clusters")
    def cluster_selected(self, event: VirtualTable.Selected) -> None:
        self.open_cluster(int(event.key))

    def action_open_cluster(self) -> None:
        key = self.query_one("#stats-clusters", VirtualTable).cursor_key
        if key is not None:
            self.open_cluster(int(key))

    def open_cluster(self, i: int) -> None:
        clusters = self.figures.get("recurring_problems", [])
        if not 0 <= i < len(clusters):
            return
        c = clusters[i]
        item = c["items"][-1]
        session = self.index.find_report(item.split("/", 1)[0])
        if session is not None:
            self.post_message(Open(SessionTarget(session.key, item)))
