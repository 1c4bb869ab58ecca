"""The search screen and the command-palette provider, driven through the app."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from textual.content import Content
from textual.pilot import Pilot
from textual.widgets import Input, Static, TabbedContent

from screens.inbox import InboxScreen
from screens.knowledge import KnowledgeScreen
from screens.problems import ProblemsScreen
from screens.search import SearchScreen
from screens.session import SessionScreen
from screens.widgets.virtual_table import VirtualTable
from store.search.facade import WorkspaceSearch
from tests.tui.helpers import make_app, ready, until
from tui.app import HurikaeriApp
from tui.search_provider import SearchProvider


async def open_search(pilot: Pilot[None]) -> SearchScreen:
    app = pilot.app
    assert isinstance(app, HurikaeriApp)
    await ready(pilot)
    await app.push_screen(SearchScreen(app.index))
    screen = app.screen
    assert isinstance(screen, SearchScreen)
    await until(pilot, lambda: screen.result is not None, 30)
    return screen


async def type_query(pilot: Pilot[None], screen: SearchScreen, text: str) -> None:
    box = screen.query_one("#search-input", Input)
    box.value = ""
    await pilot.press(*text)
    await until(pilot, lambda: screen.result is not None and screen.result.text == text, 15)
    await pilot.pause()


def table(screen: SearchScreen) -> VirtualTable:
    return screen.query_one("#search-results", VirtualTable)


async def test_results_as_you_type_with_the_matches_highlighted(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await open_search(pilot)
        assert screen.result is not None and screen.result.total > 300  # empty query: everything
        await type_query(pilot, screen, "jwks kind:try")
        rows = table(screen)._rows
        assert rows and all(screen.hits[key].kind == "try" for key, _cells in rows)
        title = rows[0][1][1]
        assert isinstance(title, Content) and title.spans  # "jwks" is highlighted
        marked = [title.plain[s.start : s.end].lower() for s in title.spans]
        assert "jwks" in marked
        status = str(screen.query_one("#search-status", Static).render())
        assert "match" in status


async def test_typing_stays_responsive_while_a_slow_search_runs(
    demo_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[str] = []
    real = WorkspaceSearch.search

    def slow(self: WorkspaceSearch, text: Any, limit: int = 100) -> Any:
        calls.append(str(text))
        time.sleep(0.4)  # a search that takes far longer than a keystroke
        return real(self, text, limit)

    app = make_app(demo_root)
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await open_search(pilot)
        monkeypatch.setattr(WorkspaceSearch, "search", slow)
        box = screen.query_one("#search-input", Input)
        box.value = ""
        await pilot.pause()
        calls.clear()
        started = time.perf_counter()
        for ch in "rotation":
            await pilot.press(ch)
            assert box.value.endswith(ch)  # the key is in the box at once
        typing = time.perf_counter() - started
        assert typing < 0.4 * len("rotation") / 2, typing  # never waited for a search
        await until(
            pilot, lambda: screen.result is not None and screen.result.text == "rotation", 15
        )
        assert calls[-1] == "rotation"
        assert len(calls) < len("rotation")  # queries typed in between were skipped
        shown = {screen.hits[key].id for key, _ in table(screen)._rows}
        fresh = {h.id for h in real(screen.search, "rotation", 50).hits}
        assert shown == fresh


async def test_a_malformed_query_says_why(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await open_search(pilot)
        await type_query(pilot, screen, "jwt")
        before = table(screen).row_count
        box = screen.query_one("#search-input", Input)
        box.value = "jwt colour:red"
        status = screen.query_one("#search-status", Static)
        await until(pilot, lambda: status.has_class("-error"), 10)
        assert "unknown filter 'colour:'" in str(status.render())
        assert table(screen).row_count == before  # the last good results stay
        box.value = "jwt"
        await until(pilot, lambda: not status.has_class("-error"), 10)


async def test_the_preview_shows_the_record_literally(demo_root: Path) -> None:
    lessons = demo_root / "lessons/ai/lessons.jsonl"
    with open(lessons, "a", encoding="utf-8") as fh:
        fh.write(
            json.dumps(
                {
                    "id": "ll-ai-20261121-001",
                    "date": "2026-11-21T10:00:00",
                    "type": "ai_trial_error",
                    "title": "[bold]zeppelin[/bold] [@click=app.quit]markup[/]",
                    "summary": "stays \x1b[31mliteral",
                }
            )
            + "\n"
        )
    app = make_app(demo_root)
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await open_search(pilot)
        await type_query(pilot, screen, "zeppelin")
        # the preview is drawn once typing pauses, not on every key
        await until(pilot, lambda: screen._preview_timer is None, 5)
        preview = str(screen.query_one("#search-preview", Static).render())
        assert "[bold]zeppelin[/bold] [@click=app.quit]markup[/]" in preview
        assert "\x1b" not in preview and "␛[31mliteral" in preview
        assert app.is_running


@pytest.mark.parametrize(
    ("query", "screen_type"),
    [
        ("kind:try kid JWKS", SessionScreen),
        ("kind:lesson kid JWKS", SessionScreen),
        ("kind:skill jwt", KnowledgeScreen),
        ("kind:proposal duckdb", InboxScreen),
        ("kind:discussion refresh", ProblemsScreen),
    ],
)
async def test_enter_opens_the_record(demo_root: Path, query: str, screen_type: type) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await open_search(pilot)
        await type_query(pilot, screen, query)
        hit = screen.hits[table(screen).cursor_key or ""]
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, screen_type), 10)
        opened = app.screen
        if hit.kind == "try":
            assert isinstance(opened, SessionScreen)
            await until(
                pilot, lambda: opened.query_one("#items", VirtualTable).cursor_key == hit.id
            )
        elif hit.kind == "lesson":
            tabs = opened.query_one("#tabs", TabbedContent)
            await until(pilot, lambda: tabs.active == "lessons")
        elif screen_type is ProblemsScreen:
            from textual.widgets import OptionList

            files = opened.query_one("#files", OptionList)
            assert files.highlighted_option is not None and files.highlighted_option.id == hit.path
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, SearchScreen), 10)


async def test_the_command_palette_finds_records(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(140, 40)) as pilot:
        await ready(pilot)
        provider = SearchProvider(app.screen)
        await provider.startup()
        hits = [hit async for hit in provider.search("duckdb spill")]
        assert hits and all(0 < h.score <= 1 for h in hits)
        assert "[" not in (hits[0].help or "").replace("\\[", "")
        await hits[0].command()
        await until(
            pilot,
            lambda: (
                not isinstance(app.screen, type(app.screen_stack[0])) or len(app.screen_stack) > 2
            ),
            10,
        )
        assert len(app.screen_stack) > 2
