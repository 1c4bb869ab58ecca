"""The Textual app and its factory, shared by the command line and the tests.

The first screen paints at once; the workspace is read in a thread worker with progress
in the header, then a long-lived watcher worker keeps the index in step with the disk and
tells every screen what changed.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from textual import work
from textual.app import App
from textual.binding import Binding
from textual.message import Message
from textual.notifications import SeverityLevel
from textual.timer import Timer
from textual.worker import Worker, WorkerState

from screens.sessions import SessionsScreen
from store.config import Config
from store.index.order import next_unreviewed, ordered
from store.index.workspace_index import WorkspaceIndex
from store.read.textsafe import printable
from store.watch import OwnWrites, watch_workspace
from store.workspace import Workspace
from tui.commands import HurikaeriCommands
from tui.messages import FilesWritten, ReviewChanged, WorkspaceChanged
from tui.search_provider import SearchProvider

#: How often changes seen while running are written to the index cache (seconds).
SAVE_EVERY = 120.0


class HurikaeriApp(App[None]):
    """hurikaeri: the daily review of what AI coding agents learned."""

    CSS_PATH = "app.tcss"
    TITLE = "hurikaeri"
    COMMANDS = App.COMMANDS | {HurikaeriCommands, SearchProvider}
    BINDINGS = [
        Binding("q", "quit", "Quit", id="app.quit"),
        Binding("ctrl+p", "command_palette", "Commands", show=False, id="app.palette"),
        Binding("question_mark", "app.show_help_panel", "Keys", show=False, id="app.help"),
        Binding("I", "inbox", "Inbox", id="app.inbox", show=False),
        Binding("K", "knowledge", "Knowledge", id="app.knowledge", show=False),
        Binding("M", "match", "Match skills", id="app.match", show=False),
        Binding("L", "lessons", "Lessons", id="app.lessons", show=False),
        Binding("S", "stats", "Statistics", id="app.stats", show=False),
        Binding("slash", "search", "Search", id="app.search", show=False),
        Binding("D", "discussions", "Discussions", id="app.discussions", show=False),
        Binding("T", "pieces", "TAKT pieces", id="app.pieces", show=False),
    ]

    def __init__(self, workspace: Workspace, *, watch: bool = True) -> None:
        super().__init__()
        self.workspace = workspace
        self.index = WorkspaceIndex(workspace)
        self.watch_files = watch
        self.own_writes = OwnWrites()
        self.loaded = asyncio.Event()
        self._stop_watch = asyncio.Event()
        self._save_timer: Timer | None = None

    def on_mount(self) -> None:
        if self.workspace.config.keys:
            self.set_keymap(self.workspace.config.keys)
        if self.workspace.config.theme:
            self.theme = self.workspace.config.theme
        self.sub_title = f"{self.workspace.root} · reading…"
        self.push_screen(SessionsScreen(self.index))
        # the first screen is drawn before the reading starts (it holds the interpreter
        # for a while, in bursts)
        self.call_after_refresh(self.load_index)

    # -- loading and watching ----------------------------------------------------

    @work(thread=True, exclusive=True, group="load")
    def load_index(self) -> None:
        last = [-1]

        def progress(done: int, total: int) -> None:
            pct = done * 100 // max(total, 1)
            if pct != last[0]:
                last[0] = pct
                self.call_from_thread(self.show_progress, done, total)

        def publish() -> None:
            self.call_from_thread(self.published)

        self.index.load_all(progress, publish)

    def show_progress(self, done: int, total: int) -> None:
        pct = done * 100 // max(total, 1)
        self.sub_title = f"{self.workspace.root} · reading {pct}%"
        for screen in self.screen_stack:
            if isinstance(screen, SessionsScreen):
                screen.show_progress(done, total)

    def published(self) -> None:
        """The index has more to show (the cache, then files as they are parsed)."""
        self.broadcast(lambda: WorkspaceChanged(initial=True))

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker.group == "load" and event.state == WorkerState.SUCCESS:
            self.loaded.set()
            for screen in self.screen_stack:
                if isinstance(screen, SessionsScreen):
                    screen.show_progress(None, None)
            self.broadcast(lambda: WorkspaceChanged(initial=True))
            if self.watch_files:
                self.watch_workspace_files()
            if self._save_timer is None:  # once, however often the workspace is reloaded
                self._save_timer = self.set_interval(SAVE_EVERY, self.save_index_cache)
        elif event.state == WorkerState.ERROR:
            self.notify(
                f"{event.worker.name}: {event.worker.error}", severity="error", markup=False
            )

    @work(thread=True, exclusive=True, group="save")
    def save_index_cache(self) -> None:
        """Changes seen while running go into the index cache now and then, and at exit."""
        self.index.save_cache()

    @work(exclusive=True, group="watch")
    async def watch_workspace_files(self) -> None:
        async for batch in watch_workspace(
            self.workspace, stop_event=self._stop_watch, own_writes=self.own_writes
        ):
            await self.apply_changes({c.path for c in batch})

    async def apply_changes(self, paths: set[Path]) -> None:
        ledger_path = self.index.ledger.path
        review = False
        if ledger_path in paths:
            paths.discard(ledger_path)
            review = await asyncio.to_thread(self.index.ledger.refresh)
        changed, removed = await asyncio.to_thread(self.index.update, paths)
        for p in removed:
            self.notify(f"{self.workspace.display(p)} was deleted.", title="Removed", markup=False)
        if changed or removed:
            self.broadcast(lambda: WorkspaceChanged(frozenset(changed), frozenset(removed)))
        elif review:
            self.broadcast(ReviewChanged)

    async def on_files_written(self, event: FilesWritten) -> None:
        for p in event.paths:
            self.own_writes.record(p)
        await self.apply_changes(set(event.paths))

    def on_review_changed(self, _event: ReviewChanged) -> None:
        self.broadcast(ReviewChanged)

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None:
        """As Textual's, but literal messages (``markup=False``: they carry ids, paths and
        file names) have their control characters made visible, as everywhere else."""
        if not markup:
            message, title = printable(message), printable(title, keep_newlines=False)
        super().notify(message, title=title, severity=severity, timeout=timeout, markup=markup)

    def broadcast(self, make: Callable[[], Message]) -> None:
        """Tell every screen (modal ones included) with a fresh message each."""
        self.update_counts()
        for screen in self.screen_stack:
            screen.post_message(make())

    def update_counts(self) -> None:
        ix = self.index
        problems = len(ix.problem_files())
        self.sub_title = (
            f"{self.workspace.root} · {ix.unreviewed_count()} to review · "
            f"{ix.inbox_pending()} in inbox · {problems} problem file{'s' if problems != 1 else ''}"
        )

    async def on_unmount(self) -> None:
        self._stop_watch.set()
        if self.loaded.is_set():
            self.index.save_cache()

    # -- actions -----------------------------------------------------------------

    def action_undo(self) -> None:
        self.undo()

    @work(exclusive=True, group="undo")
    async def undo(self) -> None:
        """Undo the last decision; the files it restores are written in a thread."""
        from screens.text_view import TextView
        from store.review.items import ReviewError
        from store.review.journal import entry_path, is_file_write
        from store.review.undo import UndoRefused, undo_last
        from store.write.atomic import WriteError

        try:
            undone = await asyncio.to_thread(undo_last, self.workspace, self.index.ledger)
        except UndoRefused as exc:
            self.push_screen(TextView(str(exc), exc.diff, title="Undo refused"))
            return
        except (ReviewError, WriteError) as exc:
            self.notify(str(exc), severity="error", markup=False)
            return
        if not undone:
            self.notify("Nothing to undo.")
            return
        last = undone[-1]
        more = f" (+{len(undone) - 1} more)" if len(undone) > 1 else ""
        self.notify(f"Undid {last.op} of {last.target}{more}", markup=False, timeout=2)
        written = {entry_path(self.workspace, e) for e in undone if is_file_write(e)}
        for p in written:
            self.own_writes.record(p)
        self.broadcast(ReviewChanged)

    def action_problems(self) -> None:
        from screens.problems import ProblemsScreen

        if not isinstance(self.screen, ProblemsScreen):
            self.push_screen(ProblemsScreen(self.index))

    def action_inbox(self) -> None:
        from screens.inbox import InboxScreen

        if not isinstance(self.screen, InboxScreen):
            self.push_screen(InboxScreen(self.index))

    def action_knowledge(self) -> None:
        from screens.knowledge import KnowledgeScreen

        if not isinstance(self.screen, KnowledgeScreen):
            self.push_screen(KnowledgeScreen(self.index))

    def action_match(self) -> None:
        from screens.match import MatchScreen

        if not isinstance(self.screen, MatchScreen):
            self.push_screen(MatchScreen(self.index))

    def action_lessons(self) -> None:
        from screens.lessons import LessonsScreen

        if not isinstance(self.screen, LessonsScreen):
            self.push_screen(LessonsScreen(self.index))

    def action_stats(self) -> None:
        from screens.stats import StatsScreen

        if not isinstance(self.screen, StatsScreen):
            self.push_screen(StatsScreen(self.index))

    def action_search(self) -> None:
        from screens.search import SearchScreen

        if not isinstance(self.screen, SearchScreen):
            self.push_screen(SearchScreen(self.index))

    def action_discussions(self) -> None:
        from screens.discussions import DiscussionsScreen

        if not isinstance(self.screen, DiscussionsScreen):
            self.push_screen(DiscussionsScreen(self.index))

    def action_pieces(self) -> None:
        from screens.pieces import PiecesScreen

        if not isinstance(self.screen, PiecesScreen):
            self.push_screen(PiecesScreen(self.index))

    def action_sessions(self) -> None:
        while len(self.screen_stack) > 2:
            self.pop_screen()

    def action_next_unreviewed(self) -> None:
        from screens.session import SessionScreen

        found = next_unreviewed(self.index, ordered(self.index), None, None)
        if found is None:
            self.notify("Everything is reviewed.")
            return
        self.push_screen(SessionScreen(self.index, found[0].key, item_key=found[1]))

    def action_reload(self) -> None:
        self.load_index()


def create_app(
    root: Path | None = None, config: Config | None = None, *, watch: bool = True
) -> HurikaeriApp:
    """Build the app for a workspace root (the default root when ``None``)."""
    cfg = config or Config()
    return HurikaeriApp(Workspace.resolve(root, cfg), watch=watch)
