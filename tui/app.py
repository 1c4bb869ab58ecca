"""The Textual app and :func:`create_app`. The first screen paints at once; the workspace
is read in a thread worker, then a watcher keeps the index in step with the disk."""

from __future__ import annotations

import asyncio
import gc
import os
import select
import sys
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from textual import work
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.notifications import SeverityLevel
from textual.screen import Screen
from textual.theme import Theme
from textual.timer import Timer
from textual.worker import Worker, WorkerState

from screens.messages import (
    FilesWritten,
    NextToReview,
    Open,
    ReviewChanged,
    ScreenTarget,
    WriteFailed,
)
from screens.sessions import SessionsScreen
from screens.widgets.keys import SCREEN_KEYS
from screens.widgets.virtual_table import VirtualTable
from store.check.secrets import warm_up
from store.config import Config
from store.index.parallel import start_helpers
from store.index.workspace_index import WorkspaceIndex
from store.read.counted import counted
from store.read.kinds import Kind
from store.read.textsafe import printable
from store.watch import OwnWrites, watch_workspace
from store.workspace import Workspace
from tui import log_notices
from tui.commands import HurikaeriCommands
from tui.config_check import check_config
from tui.navigate import open_target
from tui.refresh import Change, concerns, on_show
from tui.screenshot import take_screenshot
from tui.search_provider import SearchProvider

if TYPE_CHECKING:  # imported when first polled: starting stays fast
    from store.review.change_watch import ChangeWatch

SAVE_EVERY = 120.0  # s: changes seen while running go into the index cache
DRAW_WAIT = 0.5  # s: the reading waits at most this for what it published to be drawn
THEME_SETTLES = 1.0  # s: a theme chosen this long is remembered (the palette previews each)
TERMINAL_CHECK_EVERY = 1.0  # s: is the terminal still there?
CHANGES_EVERY = 1.0  # s: the files agents load looked at for changes to review (#45)


class HurikaeriApp(App[None]):
    """hurikaeri: the daily review of what AI coding agents learned."""

    CSS_PATH = "app.tcss"
    TITLE = "hurikaeri"
    COMMANDS = App.COMMANDS | {HurikaeriCommands, SearchProvider}
    BINDINGS = [
        Binding("q", "quit", "Quit", id="app.quit"),
        Binding("ctrl+p", "command_palette", "Commands", show=False, id="app.palette"),
        Binding("question_mark", "toggle_help_panel", "Keys", show=False, id="app.help"),
        # before any screen's Esc (Back, Clear filters), and only while the panel is open
        Binding("escape", "hide_help_panel", "Hide keys", show=False, priority=True),
        *(
            Binding(key, f"open_screen('{name}')", description, id=f"app.{name}", show=False)
            for key, name, description in SCREEN_KEYS
        ),
    ]

    def __init__(self, workspace: Workspace, *, watch: bool = True) -> None:
        if not gc.get_freeze_count():  # the first app of the process: what the imports
            gc.freeze()  # built lives on; the full collection its first screen starts
            # would walk all of it (~20 ms of CPU before the first row)
        super().__init__()
        check_config(workspace.config, self.available_themes, self.BINDINGS)
        start_helpers()  # before Textual captures standard error: see its docstring
        self.workspace = workspace
        self.index = WorkspaceIndex(workspace)
        self.watch_files = watch
        self.own_writes = OwnWrites()
        self.loaded = asyncio.Event()
        #: set once the watcher is in place
        self.watching = asyncio.Event()
        self._stop_watch = asyncio.Event()
        self._save_timer: Timer | None = None
        self._theme_timer: Timer | None = None
        self._theme_kept = ""
        #: what changed while a screen was hidden, told when it is shown again
        self._stale: dict[Screen[object], Change] = {}
        #: files agents load changed since the last review (the header's count, #45)
        self.changed_count = 0
        self._change_watch: ChangeWatch | None = None
        #: the ledger as last told (transactions, revision): the changes poll may read a
        #: new line before the watcher's batch comes
        self._told: tuple[set[str], int] = (set(), 0)
        self._polling = threading.Lock()

    def on_mount(self) -> None:
        self._notices = log_notices.attach(self)
        tty = _input_terminal()
        if tty is not None and not self.is_headless:
            self.set_interval(TERMINAL_CHECK_EVERY, lambda: self._exit_if_hung_up(tty))
        self.screen_change_signal.subscribe(self, self.screen_shown)
        if self.workspace.config.keys:
            self.set_keymap(self.workspace.config.keys)
        if self.workspace.config.theme:
            self.theme = self.workspace.config.theme
        self._theme_kept = self.theme
        self.theme_changed_signal.subscribe(self, self.theme_chosen)
        self.sub_title = f"{self.workspace.root} · reading…"
        self.push_screen(SessionsScreen(self.index))
        why = self.workspace.nothing_here()  # an empty list would not say why
        if why is not None:
            self.notify(
                why, title="Nothing to review", severity="warning", timeout=3600, markup=False
            )
        # the first screen is drawn before the reading holds the interpreter in bursts
        self.call_after_refresh(self.load_index)

    @work(thread=True, exclusive=True, group="load", exit_on_error=False)
    def load_index(self) -> None:
        last = [-1]

        def progress(done: int, total: int) -> None:
            pct = done * 100 // max(total, 1)
            if pct != last[0]:
                last[0] = pct
                self.call_from_thread(self.show_progress, done, total)

        first = True

        def publish() -> None:
            nonlocal first
            if not first:  # (a cold start's parsing: its workers would wait too)
                self.call_from_thread(self.published)
                return
            first = False
            drawn = threading.Event()
            self.call_from_thread(self.published, drawn)
            # the first list drawn before the reading goes on (else it would show later)
            drawn.wait(DRAW_WAIT)

        self.index.load_all(progress, publish)

    def show_progress(self, done: int | None, total: int | None) -> None:
        if done is not None and total is not None:  # (None: read; the counts follow)
            self.sub_title = f"{self.workspace.root} · reading {done * 100 // max(total, 1)}%"
        for screen in self.screen_stack:
            if isinstance(screen, SessionsScreen):
                screen.show_progress(done, total)

    def published(self, drawn: threading.Event | None = None) -> None:
        """The index has more to show; ``drawn`` is set once the screens have drawn it."""
        self.broadcast(Change(initial=True))
        if drawn is not None:  # asked of the screen: after what it was just told
            stack = self.screen_stack
            if not (stack and stack[-1].call_after_refresh(self.when_drawn, drawn)):
                drawn.set()  # nothing to draw (closing): the reading goes on

    def when_drawn(self, drawn: threading.Event, tries: int = 20) -> None:
        """Set ``drawn`` once the top screen's tables have painted their rows (retried: a
        refresh can come before a table has told its screen it changed)."""
        stack = self.screen_stack
        done = not stack or not tries or all(t.drawn for t in stack[-1].query(VirtualTable))
        if done or not stack[-1].call_after_refresh(self.when_drawn, drawn, tries - 1):
            drawn.set()

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker.group == "load" and event.state == WorkerState.SUCCESS:
            self.loaded.set()
            # the secret scanner's rules (~0.3 s of CPU) for promotions typed; not while the
            # sessions are read (listed at 10k, warm: 0.97 → 1.35 s of CPU)
            warm_up()
            self.show_progress(None, None)
            self.broadcast(Change(initial=True))
            if self.watch_files:
                self._told = (self.index.ledger.tx_ids(), self.index.ledger.revision)
                self.watch_workspace_files()
            if self._save_timer is None:  # once, however often the workspace is reloaded
                self._save_timer = self.set_interval(SAVE_EVERY, self.save_index_cache)
                if self.watch_files:
                    self.set_interval(CHANGES_EVERY, self.poll_changes)
        elif event.state == WorkerState.ERROR:
            self.notify(
                f"{event.worker.name}: {event.worker.error}", severity="error", markup=False
            )

    @work(thread=True, exclusive=True, group="save", exit_on_error=False)
    def save_index_cache(self) -> None:
        self.index.save_cache()

    @work(exclusive=True, group="watch", exit_on_error=False)
    async def watch_workspace_files(self) -> None:
        async for batch in watch_workspace(
            self.workspace,
            stop_event=self._stop_watch,
            own_writes=self.own_writes,
            started=self.watching,
        ):
            await self.apply_changes({c.path for c in batch})

    @work(thread=True, group="changes-poll", exit_on_error=False)
    def poll_changes(self) -> None:
        """Count the changes to review when a file they depend on moved (#45); the first
        time, record the reviewed state silently. A poll still running is not joined."""
        from store.review.change_watch import ChangeWatch
        from store.review.changes import list_changes

        if not self._polling.acquire(blocking=False):
            return
        try:
            watch = self._change_watch
            if watch is None:
                watch = self._change_watch = ChangeWatch(self.workspace, self.index.ledger)
            if watch.poll():
                found, _ = list_changes(self.workspace, ledger=self.index.ledger, attribute=False)
                self.call_from_thread(self.changes_counted, len(found))
        finally:
            self._polling.release()

    def changes_counted(self, count: int) -> None:
        self.changed_count = count
        self.update_counts()
        for screen in self.screen_stack:
            moved = getattr(screen, "changes_moved", None)
            if moved is not None:
                moved()

    async def apply_changes(self, paths: set[Path], *, review: bool = False) -> None:
        """Re-read ``paths`` and tell the screens (``review``: a decision came with them)."""
        ledger = self.index.ledger
        ledger_paths = {p for p in paths if ledger.is_ledger_file(p)}
        if ledger_paths:  # ledger.jsonl, or any reviewer's ledger a sync brought
            paths -= ledger_paths
            known, revision = self._told
            news, self._told = await asyncio.to_thread(self._read_news, known)
            review = review or self._told[1] != revision
            if news:
                self.notify("\n".join(news), title="From your team", markup=False)
        before = self.index.kinds  # replaced, never changed, by the update
        changed, removed = await asyncio.to_thread(self.index.update, paths)
        after = self.index.kinds
        kinds: set[Kind | None] = {before[p] for p in changed | removed if p in before}
        kinds |= {after.get(p) for p in changed}
        for p in removed:
            self.notify(f"{self.workspace.display(p)} was deleted.", title="Removed", markup=False)
        if changed or removed or review:
            self.broadcast(
                Change(frozenset(changed), frozenset(removed), frozenset(kinds), review=review)
            )

    def _read_news(self, known: set[str]) -> tuple[list[str], tuple[set[str], int]]:
        """The ledger read on (in a thread: it may read every line): what teammates did
        that ``known`` does not hold, and the ledger as told now."""
        ledger = self.index.ledger
        with ledger.lock:
            ledger.refresh()
            return ledger.news(known), (ledger.tx_ids(), ledger.revision)

    async def on_files_written(self, event: FilesWritten) -> None:
        for p in event.paths:
            self.own_writes.record(p)
        await self.apply_changes(set(event.paths), review=event.review)

    def on_review_changed(self, _event: ReviewChanged) -> None:
        self.broadcast(Change(review=True))

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None:
        """Literal messages (``markup=False``) have their control characters made visible."""
        if not markup:
            message, title = printable(message), printable(title, keep_newlines=False)
        super().notify(message, title=title, severity=severity, timeout=timeout, markup=markup)

    def broadcast(self, change: Change) -> None:
        self.update_counts()
        shown = on_show(self.screen_stack)
        for screen in self.screen_stack:
            if not concerns(screen, change):
                continue
            if screen in shown:
                self.tell(screen, change)
            else:
                stale = self._stale.get(screen)
                self._stale[screen] = change if stale is None else stale.then(change)

    def screen_shown(self, _screen: Screen[object]) -> None:
        """Tell a screen come on show what changed while it was hidden; close the keys panel
        of a screen left behind."""
        stack = self.screen_stack
        self._stale = {s: c for s, c in self._stale.items() if s in stack}
        shown = on_show(stack)
        for screen in stack:
            if screen not in shown:
                screen.query("HelpPanel").remove()
        for screen in shown:
            stale = self._stale.pop(screen, None)
            if stale is not None:
                self.tell(screen, stale)

    @staticmethod
    def tell(screen: Screen[object], change: Change) -> None:
        message = change.message()
        if message is not None:
            screen.post_message(message)

    def update_counts(self) -> None:
        """The header's counts, each from the function the list it counts uses."""
        ix = self.index
        problems = len(ix.problem_files())
        n = self.changed_count
        changed = f"{counted(n, 'changed file')} · " if n else ""
        # the counts first: a narrow terminal cuts the end of the line, the root's path
        self.sub_title = (
            f"{ix.unreviewed_count()} to review · {ix.inbox_pending()} in inbox · "
            f"{counted(problems, 'problem file')} · {changed}"
            f"{self.workspace.root}"
        )

    def _exit_if_hung_up(self, tty: select.poll) -> None:
        """The terminal went away without a hang-up signal (not the session's leader):
        Textual's input thread would spin on the dead descriptor for ever."""
        if any(ev & (select.POLLHUP | select.POLLERR | select.POLLNVAL) for _, ev in tty.poll(0)):
            self.exit(return_code=1)

    async def on_unmount(self) -> None:
        log_notices.detach(self._notices)
        self._stop_watch.set()
        if self.loaded.is_set():
            self.index.save_cache()

    def theme_chosen(self, _theme: Theme) -> None:
        if self.workspace.config.save_to is None:
            return
        if self._theme_timer is not None:
            self._theme_timer.stop()
        self._theme_timer = self.set_timer(THEME_SETTLES, self.remember_theme)

    @work(exclusive=True, group="theme", exit_on_error=False)
    async def remember_theme(self) -> None:
        from screens.writing import run_write
        from store.write.theme import save_theme

        name, path = self.theme, self.workspace.config.save_to
        if path is None or name == self._theme_kept:
            return
        done = await run_write(self, f"remember the theme {name}", lambda: save_theme(path, name))
        if done.ok:
            self._theme_kept = name

    def get_system_commands(self, screen: Screen[object]) -> Iterable[SystemCommand]:
        """Textual's, "Screenshot" ours (:mod:`tui.screenshot`)."""
        for command in super().get_system_commands(screen):
            if command.title == "Screenshot" and not self.is_web:
                help_text = "Save an SVG picture of the screen (in Downloads, else here)"
                yield SystemCommand(command.title, help_text, lambda: take_screenshot(self))
            else:
                yield command

    def action_screenshot(self, filename: str | None = None, path: str | None = None) -> None:
        take_screenshot(self, filename, path)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "hide_help_panel":  # Esc goes on to the screen when no panel is open
            return bool(self.screen.query("HelpPanel"))
        return True

    def action_toggle_help_panel(self) -> None:
        if self.screen.query("HelpPanel"):
            self.action_hide_help_panel()
        else:
            self.action_show_help_panel()

    @work(exclusive=True, group="undo", exit_on_error=False)
    async def action_undo(self, tx_id: str = "") -> None:
        from screens.dialogs.undo_flow import turn

        await turn(self, self.index, tx_id or None, redo=False)

    @work(exclusive=True, group="undo", exit_on_error=False)
    async def action_redo(self, tx_id: str = "") -> None:
        from screens.dialogs.undo_flow import turn

        await turn(self, self.index, tx_id or None, redo=True)

    def on_write_failed(self, event: WriteFailed) -> None:
        """The one place a failed write ends: one line on what did not happen (a refused undo
        or redo shows what changed since); the screens re-read the review state."""
        from store.tx.transactions import UndoRefused

        error = event.error
        if isinstance(error, UndoRefused) and error.diff:
            from screens.dialogs.text_view import TextView

            self.push_screen(TextView(str(error), error.diff, title=f"Not done: {event.what}"))
        else:
            why = str(error) or type(error).__name__
            self.notify(
                f"Not done: {event.what} — {why}", severity="error", markup=False, timeout=8
            )
        self.broadcast(Change(review=True))

    async def action_open_screen(self, name: str) -> None:
        await open_target(self, self.index, ScreenTarget(name))

    async def action_next_unreviewed(self) -> None:
        await open_target(self, self.index, NextToReview())

    async def on_open(self, event: Open) -> None:
        await open_target(self, self.index, event.target)

    def action_reload(self) -> None:
        self.load_index()


def _input_terminal() -> select.poll | None:
    """A poll object watching standard input for a hang-up, when it is a terminal."""
    stdin = sys.__stdin__
    if stdin is None or not hasattr(select, "poll"):
        return None
    try:
        fd = stdin.fileno()
        if not os.isatty(fd):
            return None
    except (OSError, ValueError):
        return None
    tty = select.poll()
    tty.register(fd, 0)  # no events asked: a hang-up and errors are always reported
    return tty


def create_app(
    root: Path | Workspace | None = None, config: Config | None = None, *, watch: bool = True
) -> HurikaeriApp:
    """The app for a workspace, or a root (``None``: the default) read with ``config``."""
    if isinstance(root, Workspace):
        return HurikaeriApp(root, watch=watch)
    return HurikaeriApp(Workspace.resolve(root, config or Config()), watch=watch)
