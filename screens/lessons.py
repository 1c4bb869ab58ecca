"""Lessons: every user and AI lesson, filtered, grouped, edited in place, archived softly;
a line is removed only on an explicit, confirmed request (undoable)."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.content import Content
from textual.widgets import Footer, Header, Input, Select, Static

from screens.dialogs.lesson_form import LessonForm
from screens.list_screen import ListScreen
from screens.messages import FilesWritten, ReviewChanged
from screens.widgets.cjk_wrap import WrappedText
from screens.widgets.document import field, lines
from screens.widgets.keys import HELP
from screens.widgets.literal import literal
from screens.widgets.virtual_table import Cell, Column, LazyRows, Row, VirtualTable
from screens.writing import run_write, start_write
from store.index.lesson_list import LessonList, Shown
from store.index.order import LessonFilter, LessonRow
from store.index.workspace_index import WorkspaceIndex
from store.ledger import Ledger
from store.models.lessons import LESSON_TYPES
from store.read.counted import counted
from store.read.isotime import parse_day
from store.read.kinds import Kind
from store.read.textsafe import first_line
from store.review.lessons import archive_lesson, find_lesson, lesson_key, remove_lesson

COLUMNS = [
    Column("date", "Date", 10),
    Column("type", "Type", 18, drop=2),
    Column("category", "Category", 14, drop=3),
    Column("title", "Title", None, min_width=34),
]
GROUPS = ("none", "tag", "category")
_NONE = LessonList(())


def archived_ids(ledger: Ledger) -> set[str]:
    """The ids of the archived lessons."""
    prefix = lesson_key("")
    with ledger.lock:
        return {
            k[len(prefix) :]
            for k, st in ledger.states.items()
            if st.archived and k.startswith(prefix)
        }


class LessonsScreen(ListScreen):
    DEFAULT_CSS = """
    LessonsScreen {
        #lessons-filters { height: 1; margin: 0 1; }
        #lessons-filters Select { width: 1fr; margin-right: 1; }
        #lessons-filters Input { width: 16; margin-right: 1; }
        #lessons-list { width: 3fr; }
        #lessons-detail-scroll { width: 2fr; padding: 0 1; }
    }
    """

    BINDINGS = [
        HELP,
        Binding("e", "edit", "Edit", id="lessons.edit"),
        Binding("z", "archive", "Archive/restore", id="lessons.archive"),
        Binding("X", "remove", "Remove line", id="lessons.remove"),
        Binding("g", "group", "Group", id="lessons.group"),
        Binding("h", "toggle_archived", "Show archived", id="lessons.show_archived"),
        Binding("f", "focus_filters", "Filter", id="lessons.filter"),
        Binding("u", "app.undo", "Undo", id="lessons.undo"),
        Binding("escape", "app.pop_screen", "Back", id="lessons.back"),
    ]

    SHOWS = frozenset({Kind.LESSONS})
    SHOWS_REVIEW = True
    LIST = "lessons-list"

    def __init__(self, index: WorkspaceIndex) -> None:
        super().__init__(index)
        self.rows: Mapping[str, LessonRow] = {}
        self.grouping = "none"
        self.show_archived = False
        self._all: tuple[object, LessonList] | None = None

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="lessons-filters"):
            yield Select(
                [(t, t) for t in LESSON_TYPES], prompt="any type", id="lf-type", compact=True
            )
            yield Select([], prompt="any category", id="lf-category", compact=True)
            yield Input(placeholder="tag", id="lf-tag", compact=True)
            yield Select([], prompt="any project", id="lf-project", compact=True)
            yield Input(placeholder="from YYYY-MM-DD", id="lf-since", compact=True)
            yield Input(placeholder="to YYYY-MM-DD", id="lf-until", compact=True)
        with Horizontal():
            yield VirtualTable(COLUMNS, id="lessons-list", classes="list")
            with VerticalScroll(id="lessons-detail-scroll", classes="pane"):
                yield WrappedText(id="lessons-detail")
        yield Footer()

    def on_review_changed(self, _event: ReviewChanged) -> None:
        self.refresh_rows()

    @work(exclusive=True, group="lessons", exit_on_error=False)
    async def reload(self) -> None:
        """Every lesson's head, decoded and sorted in a thread (a hundred thousand lessons
        take about a second) into a few arrays, then the list is filled."""
        files = self.index.files
        if self._all is not None and self._all[0] is files:
            return
        self._all = (files, await asyncio.to_thread(LessonList, files.values()))
        self.refresh_options()
        self.refresh_rows()

    def all_lessons(self) -> LessonList:
        """Every lesson, newest first, as last read by :meth:`reload`."""
        return self._all[1] if self._all is not None else _NONE

    def refresh_options(self) -> None:
        lessons = self.all_lessons()
        for sid, values in (
            ("#lf-category", lessons.categories()),
            ("#lf-project", lessons.projects()),
        ):
            sel = self.query_one(sid, Select)
            current = sel.value
            sel.set_options([(literal(v, keep_newlines=False), v) for v in values])
            if current in values:
                sel.value = current

    def current_filter(self) -> LessonFilter:
        def val(sid: str) -> str | None:
            v = self.query_one(sid, Select).value
            return v if isinstance(v, str) else None

        return LessonFilter(
            type=val("#lf-type"),
            category=val("#lf-category"),
            project=val("#lf-project"),
            tag=self.query_one("#lf-tag", Input).value.strip().casefold(),
            since=parse_day(self.query_one("#lf-since", Input).value),
            until=parse_day(self.query_one("#lf-until", Input).value),
        )

    def refresh_rows(self) -> None:
        flt = self.current_filter()
        lessons = self.all_lessons()
        hidden = set() if self.show_archived else archived_ids(self.index.ledger)
        shown = self.rows = Shown(lessons, lessons.select(flt, hidden))
        # only the rows on screen are made (a hundred thousand lessons, forty drawn)
        headers: dict[str, tuple[Cell, ...]] = {}
        keys: list[str] = []
        if self.grouping != "none":
            groups: dict[str, list[str]] = {}
            for rank in shown.ranks:
                names = (
                    (lessons.tags(rank) or ["(no tag)"])
                    if self.grouping == "tag"
                    else [lessons.category(rank) or "(none)"]
                )
                for n in names:
                    groups.setdefault(n, []).append(lessons.key(rank))
            for name, members in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0])):
                headers[f"group:{name}"] = (
                    Content.styled(f"{len(members)} ×", "bold"),
                    Content.styled(self.grouping, "bold"),
                    "",
                    literal(name, "bold $accent", keep_newlines=False),
                )
                keys.append(f"group:{name}")
                keys += [f"{k}#{name}" for k in members]

        def cells(key: str) -> tuple[Cell, ...]:
            head = headers.get(key)
            return head if head is not None else self.row(shown[key.split("#", 1)[0]])[1]

        grouped = self.grouping != "none"
        rows = LazyRows(keys, cells) if grouped else LazyRows(shown.keys_seq, cells, shown.index)
        self.table.border_subtitle = f"grouped by {self.grouping}" if grouped else ""
        self.show_rows(
            rows,
            "reading the lessons…"
            if self._all is None
            else counted(len(shown), "lesson") + (" (with archived)" if self.show_archived else ""),
        )

    def row(self, r: LessonRow) -> Row:
        les = r.lesson
        archived = self.index.ledger.state(lesson_key(les.id or "")).archived
        title = literal(
            les.title or "(untitled)", "dim strike" if archived else "", keep_newlines=False
        )
        category = literal(les.category or "—", keep_newlines=False)
        return r.key, (literal((les.date or "")[:10]), literal(les.type or "?"), category, title)

    def at_cursor(self) -> LessonRow | None:
        return self.rows.get((self.table.cursor_key or "").split("#", 1)[0])

    def show_detail(self, key: str | None) -> None:
        box = self.query_one("#lessons-detail", Static)
        r = self.rows.get((key or "").split("#", 1)[0])
        if r is None:
            box.update(Content.styled("No lesson selected.", "$text-muted"))
            return
        les = r.full()
        st = self.index.ledger.state(lesson_key(les.id or ""))
        data = les.model_dump(exclude_none=True)
        out = [literal(les.title or first_line(les.shown_title()) or "(untitled)", "bold")]
        if st.archived:
            out.append(Content.styled("archived (z restores)", "$warning"))
        out += [field(k, v) for k, v in data.items() if k != "title"]
        out.append(field("file", f"{self.index.ws.display(r.path)}:{r.line}"))
        box.update(lines(out))

    @on(Select.Changed)
    @on(Input.Changed)
    def filters_changed(self) -> None:
        self.refresh_rows()

    def action_focus_filters(self) -> None:
        self.query_one("#lf-type", Select).focus()

    def action_group(self) -> None:
        self.grouping = GROUPS[(GROUPS.index(self.grouping) + 1) % len(GROUPS)]
        self.refresh_rows()

    def action_toggle_archived(self) -> None:
        self.show_archived = not self.show_archived
        self.refresh_rows()

    def action_archive(self) -> None:
        r = self.at_cursor()
        if r is None or not r.lesson.id:
            return
        lid = r.lesson.id
        archived = self.index.ledger.state(lesson_key(lid)).archived
        ws, led = self.index.ws, self.index.ledger

        def then(_result: object) -> None:
            self.app.post_message(ReviewChanged())
            verb = "Restored " if archived else "Archived "
            self.notify(verb + lid + ". u undoes.", markup=False, timeout=2)

        start_write(
            self,
            ("restore " if archived else "archive ") + lid,
            lambda: archive_lesson(ws, lid, not archived, ledger=led),
            then,
        )

    @work(exclusive=True, group="lesson-remove", exit_on_error=False)
    async def action_remove(self) -> None:
        from screens.dialogs.confirm import ConfirmScreen

        r = self.at_cursor()
        if r is None or not r.lesson.id:
            return
        ok = await self.app.push_screen_wait(
            ConfirmScreen(
                Content.assemble(
                    Content.styled("Remove this lesson's line from the file?\n", "bold $error"),
                    literal(
                        f"{r.lesson.id}: {r.lesson.title or ''}\n{self.index.ws.display(r.path)}:{r.line}"
                    ),
                    "\n\nArchiving (z) hides it without touching the file. u undoes the removal.",
                ),
                "Remove line",
            )
        )
        if not ok:
            return
        ws, led, lid = self.index.ws, self.index.ledger, r.lesson.id
        outcome = await run_write(
            self, f"remove {lid}", lambda: remove_lesson(ws, led, find_lesson(r.path, lid))
        )
        if outcome.ok:
            self.app.post_message(FilesWritten(frozenset({r.path}), review=True))
            self.notify(f"Removed {lid} from its file. u undoes.", markup=False, timeout=3)

    def action_edit(self) -> None:
        r = self.at_cursor()
        if r is None or not r.lesson.id:
            return

        def done(saved: bool | None) -> None:
            if saved:
                self.app.post_message(FilesWritten(frozenset({r.path})))

        self.app.push_screen(LessonForm(self.index, r.path, r.full()), done)
