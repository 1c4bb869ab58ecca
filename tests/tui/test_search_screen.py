"""The search screen and the command-palette provider, driven through the app."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest
from textual import events
from textual.content import Content
from textual.geometry import Region
from textual.pilot import Pilot
from textual.widgets import Input, Static, TabbedContent

from screens.inbox import InboxScreen
from screens.knowledge import KnowledgeScreen
from screens.problems import ProblemsScreen
from screens.search import SearchScreen
from screens.session import SessionScreen
from screens.widgets.hits import hit_key
from screens.widgets.virtual_table import VirtualTable
from store.search.engine import SearchResult
from store.search.facade import WorkspaceSearch
from tests.tui.helpers import make_app, ready, settled, until
from tui.app import HurikaeriApp
from tui.search_provider import SearchProvider


async def open_search(pilot: Pilot[None]) -> SearchScreen:
    app = pilot.app
    assert isinstance(app, HurikaeriApp)
    await ready(pilot)
    await app.push_screen(SearchScreen(app.index))
    screen = app.screen
    assert isinstance(screen, SearchScreen)
    await until(pilot, lambda: screen.result is not None)
    return screen


async def typed(pilot: Pilot[None], screen: SearchScreen, text: str) -> SearchResult:
    """``text`` typed into the emptied box a key at a time: the answer it has first (while
    typing, its count maybe left for the pause)."""
    box = screen.query_one("#search-input", Input)
    box.value = ""
    await pilot.press(*text)
    await until(pilot, lambda: screen.result is not None and screen.result.text == text)
    assert screen.result is not None
    return screen.result


async def counted(pilot: Pilot[None], screen: SearchScreen) -> SearchResult:
    """The answer once the typing paused and its matches were counted."""
    await until(pilot, lambda: screen.result is not None and screen.result.counted)
    assert screen.result is not None
    return screen.result


async def type_query(pilot: Pilot[None], screen: SearchScreen, text: str) -> None:
    await typed(pilot, screen, text)
    await pilot.pause()


def table(screen: SearchScreen) -> VirtualTable:
    return screen.query_one("#search-results", VirtualTable)


async def test_a_new_query_shows_its_best_hit_first_and_the_same_query_keeps_the_row(
    demo_root: Path,
) -> None:
    """Typing on lists the new query's hits from the top, the cursor on the best one (the
    cursor stayed on the row it was on, and the list scrolled down to follow it: ``tes``
    showed its 18th hit first). The same query's results again (counted after the pause,
    or the workspace changed) keep the row the person moved to."""
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_search(pilot)
        rows = table(screen)
        for query in ("t", "te", "tes", "test"):
            result = await typed(pilot, screen, query) if query == "t" else None
            if result is None:
                await pilot.press(query[-1])
                await until(
                    pilot, lambda q=query: screen.result is not None and screen.result.text == q
                )
                result = screen.result
            assert rows.cursor_row == 0 and rows.scroll_y == 0, query
            assert rows.cursor_key == hit_key(result.hits[0])
            await counted(pilot, screen)  # the same query: the row kept
            await settled(pilot)
            assert rows.cursor_row == 0 and rows.scroll_y == 0
        await pilot.press("tab", "down", "down", "down")
        moved = rows.cursor_key
        assert moved is not None and rows.cursor_row == 3
        screen.rerun()  # the same query again (as when the workspace changed)
        await settled(pilot)
        assert rows.cursor_key == moved


async def test_moves_made_before_a_new_querys_results_come_are_kept(demo_root: Path) -> None:
    """``e`` and two ``down`` read from the terminal at once, before the search thread has
    answered ``rate``: the new list starts at its best hit and the cursor is moved two rows
    down it (found by review: the moves were undone by the new list starting at the top)."""
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_search(pilot)
        rows = table(screen)
        await typed(pilot, screen, "rat")
        await counted(pilot, screen)  # (after the preview was drawn)
        await settled(pilot)
        for key, char in (("e", "e"), ("down", None), ("down", None)):
            app.post_message(events.Key(key, char))
        await until(pilot, lambda: screen.result is not None and screen.result.text == "rate")
        await counted(pilot, screen)
        await settled(pilot)
        assert screen.result is not None and rows.cursor_row == 2
        assert rows.cursor_key == hit_key(screen.result.hits[2])
        await pilot.press("backspace")  # a new query, no move: its best hit
        await until(pilot, lambda: screen.result is not None and screen.result.text == "rat")
        await pilot.pause()
        assert len(screen.result.hits) > 2 and rows.cursor_row == 0


@pytest.mark.parametrize("size", [(120, 40), (80, 24)])
async def test_what_a_key_changes_lies_beside_the_preview(
    demo_root: Path, size: tuple[int, int]
) -> None:
    """The query box, the count and the rows (what a key changes) are one column beside the
    preview: a frame redraws what lies in the box around the changes, so the preview,
    drawn when the typing pauses, is not redrawn at every key (it was: the box and the
    count ran the screen's width above both panes)."""
    app = make_app(demo_root)
    async with app.run_test(size=size) as pilot:
        screen = await open_search(pilot)
        await typed(pilot, screen, "rate")
        changing = Region.from_union(
            [screen.query_one(f"#search-{name}").region for name in ("input", "status", "results")]
        )
        preview = screen.query_one("#search-preview-scroll").region
        assert preview.height > 0 and changing.height > 0
        assert not changing.overlaps(preview)


async def test_results_as_you_type_with_the_matches_highlighted(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await open_search(pilot)
        assert screen.result is not None and screen.result.total > 300  # empty query: everything
        await type_query(pilot, screen, "jwks kind:try")
        rows = table(screen).rows
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
    typing_done = threading.Event()
    held_too_long: list[bool] = []

    def slow(self: WorkspaceSearch, text: Any, limit: int = 100, **kw: Any) -> Any:
        calls.append(str(text))
        # a search that lasts until the typing is done (a typing that waited for it would
        # wait for ever: the wait gives up, late, and the test fails)
        held_too_long.append(not typing_done.wait(120))
        return real(self, text, limit, **kw)

    app = make_app(demo_root)
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await open_search(pilot)
        monkeypatch.setattr(WorkspaceSearch, "search", slow)
        box = screen.query_one("#search-input", Input)
        box.value = ""
        await pilot.pause()
        calls.clear()
        try:
            for ch in "rotation":
                await pilot.press(ch)
                assert box.value.endswith(ch)  # the key is in the box at once
        finally:
            typing_done.set()
        await until(pilot, lambda: screen.result is not None and screen.result.text == "rotation")
        assert not any(held_too_long)  # the typing never waited for a search
        assert calls[-1] == "rotation"
        assert len(calls) < len("rotation")  # queries typed in between were skipped
        shown = {screen.hits[key].id for key, _ in table(screen).rows}
        fresh = {h.id for h in real(screen.search, "rotation", 50).hits}
        assert shown == fresh


async def test_a_malformed_query_says_why(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await open_search(pilot)
        await type_query(pilot, screen, "jwt")
        before = len(table(screen).rows)
        box = screen.query_one("#search-input", Input)
        box.value = "jwt colour:red"
        status = screen.query_one("#search-status", Static)
        await until(pilot, lambda: status.has_class("-error"))
        assert "unknown filter 'colour:'" in str(status.render())
        assert len(table(screen).rows) == before  # the last good results stay
        box.value = "jwt"
        await until(pilot, lambda: not status.has_class("-error"))


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
        shown = screen.query_one("#search-preview", Static)
        await until(pilot, lambda: "zeppelin" in str(shown.render()))
        preview = str(shown.render())
        assert "[bold]zeppelin[/bold] [@click=app.quit]markup[/]" in preview
        assert "\x1b" not in preview and "␛[31mliteral" in preview
        assert app.is_running


async def test_a_groups_count_shown_while_typing_is_made_exact_at_the_pause(
    demo_root: Path,
) -> None:
    """A learning recorded three times, twice in the project asked for: once the typing
    pauses, its row says ×2 (while typing it may say how many the group holds)."""
    with open(demo_root / "lessons/ai/lessons.jsonl", "a", encoding="utf-8") as fh:
        for n, project in enumerate(("c:/work/quokka-api", "/srv/web", "c:/work/quokka-api")):
            lesson = {
                "id": f"ll-ai-20261122-00{n + 1}",
                "date": "2026-11-22T10:00:00",
                "type": "ai_trial_error",
                "project": project,
                "title": "Warm the wombat cache before the first request",
            }
            fh.write(json.dumps(lesson) + "\n")
    app = make_app(demo_root)
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await open_search(pilot)
        await typed(pilot, screen, "wombat project:quokka")
        result = await counted(pilot, screen)
        await settled(pilot)
        assert [h.count for h in result.hits] == [2]
        assert [cells[2] for _key, cells in table(screen).rows] == [Content("×2")]


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
        await until(pilot, lambda: isinstance(app.screen, screen_type))
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
        await until(pilot, lambda: isinstance(app.screen, SearchScreen))


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
        )
        assert len(app.screen_stack) > 2


# -- evidence:missing (#20) and the results' columns (#17) ------------------------------------


async def test_evidence_missing_is_checked_only_when_asked(
    demo_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import threading

    from store.insight.evidence_cache import CACHE_NAME, WorkspaceEvidence, evidence_for

    gate = threading.Event()
    real = WorkspaceEvidence.update

    def held(self: WorkspaceEvidence, *args: Any, **kwargs: Any) -> Any:
        gate.wait(20)  # the check takes a while: the screen says so meanwhile
        return real(self, *args, **kwargs)

    monkeypatch.setattr(WorkspaceEvidence, "update", held)
    app = make_app(demo_root)
    async with app.run_test(size=(140, 40)) as pilot:
        try:
            screen = await open_search(pilot)
            # nothing checked at start nor for a query without evidence:
            assert evidence_for(app.index).states is None
            assert not (demo_root / ".hurikaeri" / CACHE_NAME).exists()
            status = screen.query_one("#search-status", Static)
            screen.query_one("#search-input", Input).value = "evidence:missing"
            await until(pilot, lambda: "checking evidence" in str(status.render()))
        finally:
            gate.set()
        await until(
            pilot, lambda: screen.result is not None and screen.result.text == "evidence:missing"
        )
        await pilot.pause()
        assert {h.id for h in screen.hits.values()} == {
            "kpt-20261102-001",
            "kpt-20261102-001/prob-003",  # cites turns 23-30 of a 22-turn session
        }
        assert "checking" not in str(status.render())
        assert (demo_root / ".hurikaeri" / CACHE_NAME).is_file()
        await type_query(pilot, screen, "evidence:missing kind:problem")
        assert [h.id for h in screen.hits.values()] == ["kpt-20261102-001/prob-003"]
        await type_query(pilot, screen, "-evidence:missing kpt-20261102-001 kind:problem")
        ids = {h.id for h in screen.hits.values()}
        assert ids and "kpt-20261102-001/prob-003" not in ids


def _lines(screen: SearchScreen) -> list[str]:
    t = table(screen)
    return [t.render_line(y).text for y in range(min(len(t.rows) + 1, t.size.height))]


@pytest.mark.parametrize("size", [(120, 40), (80, 24)], ids=lambda s: f"{s[0]}x{s[1]}")
async def test_columns_give_way_whole_never_the_title_or_the_date(
    demo_root: Path, size: tuple[int, int]
) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=size) as pilot:
        screen = await open_search(pilot)
        await pilot.pause()
        header, *rows = _lines(screen)
        assert "Title" in header and "Date" in header
        if size[0] >= 120:
            assert all(t in header for t in ("Kind", "×", "State", "Project"))
        else:  # the least needed go first, whole: no cut header
            assert "Project" not in header and "State" not in header and "Proj" not in header
        assert len(rows) > 10
        t = table(screen)
        for n, line in enumerate(rows):
            hit = screen.hits[t.rows[round(t.scroll_y) + n][0]]
            date = hit.record.date[:10]
            assert len(date) == 10 and line.rstrip().endswith(date), line  # never cut


async def test_kpt_items_show_their_sessions_project_and_review_state(demo_root: Path) -> None:
    from store.review.items import decide_keys
    from store.workspace import Workspace

    ws = Workspace(demo_root)
    decide_keys(ws, ["kpt-20261118-001/keep-001"], "approve")
    decide_keys(ws, ["kpt-20261118-001/prob-001"], "reject")
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_search(pilot)
        await type_query(pilot, screen, "kpt-20261118-001 kind:keep,problem")
        t = table(screen)
        lines = dict(zip([k for k, _c in t.rows], _lines(screen)[1:], strict=False))
        by_id = {screen.hits[k].id: line for k, line in lines.items()}
        assert "approved" in by_id["kpt-20261118-001/keep-001"]
        assert "rejected" in by_id["kpt-20261118-001/prob-001"]
        assert "pending" in by_id["kpt-20261118-001/prob-002"]
        # a KPT report names no project: its session's (what project: filters on) is shown
        assert all("harbor-api" in line for line in by_id.values())
        await type_query(pilot, screen, "project:harbor kind:keep,problem kpt-20261118-001")
        assert {screen.hits[k].id for k, _c in t.rows} == set(by_id)
        # proposals show their status too
        await type_query(pilot, screen, "kind:proposal")
        assert any("pending" in line for line in _lines(screen)[1:])


async def test_no_cycle_collection_in_a_keystrokes_frame_until_the_typing_pauses(
    demo_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A full collection of the running app (20–60 ms) waits while keys come, and is done
    once they pause, or when the screen is left."""
    import gc

    import screens.search.screen as search_screen

    # a pause is whatever COLLECT_PAUSE says when the key comes: an hour while the test checks
    # that the collection waits (a loaded machine cannot make a pause of it), a moment to see one
    monkeypatch.setattr(search_screen, "COLLECT_PAUSE", 3600.0)
    while_typing: list[bool] = []
    real = WorkspaceSearch.search

    def recording(self: WorkspaceSearch, text: Any, limit: int = 100, **kw: Any) -> Any:
        while_typing.append(gc.isenabled())
        return real(self, text, limit, **kw)

    app = make_app(demo_root)
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await open_search(pilot)
        await until(pilot, gc.isenabled)  # the workspace loaded (it builds with it off)
        monkeypatch.setattr(WorkspaceSearch, "search", recording)
        await type_query(pilot, screen, "jwks")
        assert while_typing and not any(while_typing)
        assert not gc.isenabled()
        monkeypatch.setattr(search_screen, "COLLECT_PAUSE", 0.05)
        await pilot.press("x")
        await until(pilot, lambda: screen.result is not None and screen.result.text == "jwksx")
        await until(pilot, gc.isenabled)  # the typing paused: on again
        monkeypatch.setattr(search_screen, "COLLECT_PAUSE", 3600.0)
        await pilot.press("y")
        await until(pilot, lambda: screen.result is not None and screen.result.text == "jwksxy")
        assert not gc.isenabled()
        await pilot.press("escape")  # the screen left: on at once
        await until(pilot, lambda: app.screen is not screen)
        assert gc.isenabled()


async def test_counted_groups_put_the_rows_in_again(
    demo_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """When the counting after a pause finds a group standing for fewer records than the
    typed search said, the rows show the counted "×N"."""
    real = WorkspaceSearch.search

    def recount(self: WorkspaceSearch, text: Any, limit: int = 100, **kw: Any) -> Any:
        got = real(self, text, limit, **kw)
        if kw.get("count", True) or not got.hits:
            return got
        hits = [got.hits[0]._replace(count=got.hits[0].count + 5), *got.hits[1:]]
        return got._replace(hits=hits, counted=False)  # typed: the first group over-counted

    app = make_app(demo_root)
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await open_search(pilot)
        monkeypatch.setattr(WorkspaceSearch, "search", recount)
        first = await typed(pilot, screen, "rotation")
        assert not first.counted
        last = await counted(pilot, screen)
        assert [hit_key(h) for h in last.hits] == [hit_key(h) for h in first.hits]
        assert last.hits[0].count == first.hits[0].count - 5
        assert screen.hits[hit_key(last.hits[0])].count == last.hits[0].count


async def test_counting_after_a_pause_never_replaces_a_newer_query(
    demo_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The pause that counts the shown results' matches can come while a newer query is
    still being searched (a slow search): the newer one is answered, not dropped for the
    count of the older."""
    import screens.search.screen as search_screen

    real = WorkspaceSearch.search
    paused = threading.Event()  # the pause came with "rotation" in the box

    def search(self: WorkspaceSearch, text: Any, limit: int = 100, **kw: Any) -> Any:
        got = real(self, text, limit, **kw)
        if kw.get("count", True):
            return got
        if str(text) == "rotation":
            paused.wait(120)  # slower than the pause
        return got._replace(counted=False)  # typed: counted at the pause

    show_preview = SearchScreen.show_preview

    def preview(self: SearchScreen, key: str | None) -> None:
        show_preview(self, key)
        if self.query_one("#search-input", Input).value == "rotation":
            paused.set()

    app = make_app(demo_root)
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await open_search(pilot)
        monkeypatch.setattr(WorkspaceSearch, "search", search)
        monkeypatch.setattr(SearchScreen, "show_preview", preview)
        monkeypatch.setattr(search_screen, "PREVIEW_PAUSE", 3600.0)  # no pause before "n"
        assert not (await typed(pilot, screen, "rotatio")).counted
        monkeypatch.setattr(search_screen, "PREVIEW_PAUSE", 0.05)
        await pilot.press("n")  # searched slowly: the pause (to count "rotatio") comes first
        last = await counted(pilot, screen)
        assert paused.is_set()
        assert last.text == "rotation"
        assert screen.query_one("#search-input", Input).value == "rotation"
