"""The sessions screen (home): list, order, filters, opening, live updates."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Input, Select, Static

from screens import sessions
from screens.session import SessionScreen
from screens.sessions import SessionsScreen
from screens.widgets.virtual_table import VirtualTable
from store.index.workspace_index import WorkspaceIndex
from tests.tui.helpers import kept_page_then_held_reading, make_app, ready, until, watching


async def test_lists_every_session_unreviewed_first(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        table = app.screen.query_one("#sessions", VirtualTable)
        assert isinstance(app.screen, SessionsScreen)
        assert len(table.rows) == 33
        first = app.index.sessions[table.cursor_key or ""]
        done, total = app.index.review_progress(first)
        assert done < total
        assert "122 to review" in app.sub_title and "3 in inbox" in app.sub_title


async def test_the_filters_come_with_the_sessions_they_filter(
    demo_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The filter row is filled once the sessions are listed (its widgets took ~0.1 s of
    CPU from a start before the list, #47): f and Esc meanwhile leave the list focused;
    then f goes to the filters."""
    release = await kept_page_then_held_reading(demo_root, monkeypatch)
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = app.screen
        table = screen.query_one("#sessions", VirtualTable)
        await until(pilot, lambda: "as it was last time" in str(table.border_title))
        assert not screen.query("#filters > *")
        await pilot.press("f", "escape")
        assert table.has_focus
        release.set()
        await ready(pilot)
        await until(pilot, lambda: bool(screen.query("#f-outcome")))
        await pilot.press("f")
        assert screen.query_one("#f-outcome", Select).has_focus


async def test_filters_narrow_the_list(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        screen = app.screen
        table = screen.query_one("#sessions", VirtualTable)
        screen.query_one("#f-outcome", Select).value = "failure"
        await pilot.pause()
        keys = [table.row_key_at(i) for i in range(len(table.rows))]
        assert keys and all(app.index.sessions[k or ""].outcome == "failure" for k in keys)
        await pilot.press("escape")
        await pilot.pause()
        assert len(table.rows) == 33
        await pilot.press("f")  # focus the filters
        screen.query_one("#f-since", Input).value = "2026-11-15"
        screen.query_one("#f-until", Input).value = "2026-11-17"
        await pilot.pause()
        days = {
            app.index.sessions[table.row_key_at(i) or ""].sort_time.date().isoformat()
            for i in range(len(table.rows))
        }
        assert days and all("2026-11-14" <= d <= "2026-11-17" for d in days)
        screen.query_one("#f-until", Input).value = "not a date"
        await pilot.pause()
        assert screen.query_one("#f-until", Input).has_class("-invalid")
        screen.query_one("#f-since", Input).value = ""
        screen.query_one("#f-review", Select).value = "reviewed"
        await pilot.pause()
        for i in range(len(table.rows)):
            d, t = app.index.review_progress(app.index.sessions[table.row_key_at(i) or ""])
            assert d == t


async def test_enter_opens_the_session_and_escape_returns(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        key = app.screen.query_one("#sessions", VirtualTable).cursor_key
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, SessionScreen) and app.screen.session_key == key
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, SessionsScreen)


async def test_mouse_opens_a_session(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        table = app.screen.query_one("#sessions", VirtualTable)
        await pilot.click(VirtualTable, offset=(20, 4))
        await pilot.pause()
        key = table.cursor_key
        assert table.cursor_row == 2
        await pilot.click(VirtualTable, offset=(20, 4))
        await pilot.pause()
        assert isinstance(app.screen, SessionScreen) and app.screen.session_key == key


async def test_new_report_appears_live_without_moving_the_cursor(demo_root: Path) -> None:
    app = make_app(demo_root, watch=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        table = app.screen.query_one("#sessions", VirtualTable)
        await pilot.press("down", "down", "down")
        key = table.cursor_key
        await watching(pilot)
        (demo_root / "hurikaeri" / "kpt-20261121-001.yaml").write_text(
            "id: kpt-20261121-001\ncreated_at: 2026-11-21T09:00:00+09:00\nsession_id: live-1\n"
            "session_summary: ライブで追加されたレポート\ntask_goals: [x]\noutcome: success\n"
            "keep:\n  - id: keep-001\n    description: d\n    evidence: e\n    category: approach\n"
            "problem: []\ntry: []\nomission: []\n",
            encoding="utf-8",
        )
        await until(pilot, lambda: len(table.rows) == 34)
        assert table.cursor_key == key
        assert "123 to review" in app.sub_title
        assert str(screen_arrivals(app).render()) == "1 new session arrived"
        (demo_root / "hurikaeri" / "kpt-20261121-001.yaml").unlink()
        await until(pilot, lambda: len(table.rows) == 33)
        assert table.cursor_key == key


async def test_a_new_session_at_the_top_comes_into_sight(demo_root: Path) -> None:
    app = make_app(demo_root, watch=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        table = app.screen.query_one("#sessions", VirtualTable)
        first = table.cursor_key
        await watching(pilot)
        (demo_root / "hurikaeri" / "kpt-20261125-001.yaml").write_text(
            "id: kpt-20261125-001\ncreated_at: 2026-11-25T09:00:00+09:00\nsession_id: live-2\n"
            "session_summary: 새 세션\ntask_goals: [x]\noutcome: success\n"
            "keep:\n  - id: keep-001\n    description: d\n    evidence: e\n    category: approach\n"
            "problem: []\ntry: []\nomission: []\n",
            encoding="utf-8",
        )
        await until(pilot, lambda: len(table.rows) == 34)
        assert table.cursor_key == first  # the cursor stays on its session …
        assert table.row_key_at(0) == "sid:live-2" and table.scroll_y == 0  # … the new one in sight


async def test_project_names_with_markup_are_literal(demo_root: Path) -> None:
    f = next((demo_root / "session-summaries").glob("*/summaries.jsonl"))
    f.write_text(
        f.read_text(encoding="utf-8")
        + '{"id": "ws-20261121-001", "date": "2026-11-21T10:00:00", "session_id": "mk", '
        '"project": "/x/[bold red]evil[/]", "session_name": "[@click=app.quit]q[/]"}\n',
        encoding="utf-8",
    )
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        sel = app.screen.query_one("#f-project", Select)
        sel.value = "/x/[bold red]evil[/]"  # one of its options (any other value is refused)
        sel.clear()
        table = app.screen.query_one("#sessions", VirtualTable)
        assert table.move_to_key("sid:mk")
        await pilot.pause()
        assert app.is_running


async def test_the_evidence_filter_checks_reports_only_when_chosen(
    demo_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from store.insight.evidence_cache import CACHE_NAME, WorkspaceEvidence, evidence_for

    gate = threading.Event()
    real = WorkspaceEvidence.update

    def held(self: WorkspaceEvidence, *args: Any, **kwargs: Any) -> Any:
        gate.wait(20)  # a check that takes a while: the list says so meanwhile
        return real(self, *args, **kwargs)

    monkeypatch.setattr(WorkspaceEvidence, "update", held)
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        screen = app.screen
        assert isinstance(screen, SessionsScreen)
        table = screen.query_one("#sessions", VirtualTable)
        # never at start
        assert evidence_for(app.index).states is None
        assert not (demo_root / ".hurikaeri" / CACHE_NAME).exists()
        try:
            screen.query_one("#f-evidence", Select).value = "missing"
            await pilot.pause()
            assert "checking evidence" in str(table.border_title)
            assert len(table.rows) == 0  # nothing shown as if it had been checked
        finally:
            gate.set()
        await until(pilot, lambda: len(table.rows) == 1)
        assert (
            table.row_key_at(0) == "sid:92f1c7d3-4a6b-4e85-bc20-7e3d9a15f8c6"
        )  # turns 23-30 of 22
        assert str(table.border_title) == "1 of 33 sessions"
        assert (demo_root / ".hurikaeri" / CACHE_NAME).is_file()
        screen.query_one("#f-evidence", Select).value = "found"
        await until(pilot, lambda: len(table.rows) == 3)
        screen.query_one("#f-evidence", Select).value = "none"
        await until(pilot, lambda: len(table.rows) == 26)
        await pilot.press("escape")  # clears every filter
        await until(pilot, lambda: len(table.rows) == 33)


async def test_the_review_filter_to_review(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        screen = app.screen
        table = screen.query_one("#sessions", VirtualTable)
        screen.query_one("#f-review", Select).value = "unreviewed"
        await until(pilot, lambda: 0 < len(table.rows) < 33)
        for i in range(len(table.rows)):
            d, t = app.index.review_progress(app.index.sessions[table.row_key_at(i) or ""])
            assert d < t


async def test_a_start_from_the_cache_draws_the_sessions_before_it_reads_on(
    demo_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The sessions, once read from the cache, are drawn before the reading goes on to the
    lessons (which would otherwise hold the interpreter in turns with the drawing)."""
    from store.workspace import Workspace

    WorkspaceIndex(Workspace(demo_root)).load_all(parallel=False)  # the cache
    monkeypatch.setattr("tui.app.DRAW_WAIT", 60.0)  # the order, not the time: a busy machine
    app = make_app(demo_root)
    render_line = VirtualTable.render_line
    lessons_when_drawn: list[int] = []

    def lessons() -> int:
        return sum(len(s.lessons) for s in app.index.sessions.values())

    def drawn(table: VirtualTable, y: int) -> Any:
        if table.id == "sessions" and len(table.rows) == 33 and not lessons_when_drawn:
            lessons_when_drawn.append(lessons())
        return render_line(table, y)

    monkeypatch.setattr(VirtualTable, "render_line", drawn)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        assert lessons_when_drawn == [0] and lessons() > 0


async def test_after_choosing_a_filter_value_enter_opens_the_highlighted_session(
    demo_root: Path,
) -> None:
    """Issue 44: focus went back to the filter bar, and Enter opened its dropdown again."""
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        screen = app.screen
        table = screen.query_one("#sessions", VirtualTable)
        await pilot.press("f", "enter")  # the outcome filter, its dropdown open
        await until(pilot, lambda: screen.query_one("#f-outcome", Select).expanded)
        await pilot.press("down", "down", "enter")  # a value chosen
        await until(pilot, lambda: screen.query_one("#f-outcome", Select).value != Select.BLANK)
        await until(pilot, lambda: table.has_focus)
        key = table.cursor_key
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, SessionScreen))
        assert isinstance(app.screen, SessionScreen) and app.screen.session_key == key


def screen_arrivals(app: Any) -> Static:
    notice = app.screen.query_one("#arrivals", Static)
    assert notice.display
    return notice


def live_report(n: int) -> str:
    return (
        f"id: kpt-20261122-{n:03}\ncreated_at: 2026-11-22T09:{n:02}:00+09:00\n"
        f"session_id: live-{n}\nsession_summary: arrived {n}\ntask_goals: [x]\n"
        "outcome: success\nkeep: []\nproblem: []\ntry: []\nomission: []\n"
    )


async def test_arrivals_a_few_seconds_apart_are_one_notice_that_counts(
    demo_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 44: twenty reports arriving live stacked five toasts over the Summary column."""
    monkeypatch.setattr(sessions, "ARRIVALS_SHOWN", 3600.0)  # shown however slow the run
    app = make_app(demo_root)
    told: list[str] = []
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        monkeypatch.setattr(app, "notify", lambda message, **kw: told.append(str(message)))
        table = app.screen.query_one("#sessions", VirtualTable)
        for n in range(1, 6):  # five batches: four reports, then one
            paths = set()
            for m in range(4 if n < 5 else 1):
                path = demo_root / "hurikaeri" / f"kpt-20261122-{n * 10 + m:03}.yaml"
                path.write_text(live_report(n * 10 + m), encoding="utf-8")
                paths.add(path)
            await app.apply_changes(paths)
            await until(pilot, lambda n=n: len(table.rows) == 33 + min(4 * n, 17))
            assert str(screen_arrivals(app).render()) == f"{min(4 * n, 17)} new sessions arrived"
        assert not told  # no toast at all
