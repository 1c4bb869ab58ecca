"""The Transcript view, mounted in a tiny host app: turns, search inside, jump to a turn,
cited turns, no transcript."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.app import App, ComposeResult
from textual.widgets import Input, Static

from screens.widgets.evidence_marks import evidence_detail, evidence_mark, metrics_comparison
from screens.widgets.transcript_view import TranscriptView
from screens.widgets.virtual_table import LazyRows, VirtualTable
from store.insight.evidence import check_item, compare_metrics
from store.models.kpt import KeepItem, KptMetrics
from store.read.transcript import read_transcript
from store.workspace import Workspace
from tests.transcript_lines import SID, TranscriptWriter, sample_session
from tests.tui.helpers import until


class Host(App[None]):
    def __init__(self, ws: Workspace, sid: str | None) -> None:
        super().__init__()
        self.ws, self.sid = ws, sid

    def compose(self) -> ComposeResult:
        yield TranscriptView(self.ws, self.sid, id="transcript")


async def _ready(app: Host, pilot) -> TranscriptView:  # type: ignore[no-untyped-def]
    """Once every worker has ended: a load started again cancels the one before it (an
    exclusive worker), which ``wait_for_complete`` would raise for on a loaded machine."""
    from textual.worker import WorkerState

    running = (WorkerState.PENDING, WorkerState.RUNNING)
    await until(pilot, lambda: not any(w.state in running for w in app.workers))
    await pilot.pause()
    return app.query_one(TranscriptView)


async def test_turns_search_and_jump(tmp_path: Path) -> None:
    sample_session().write(tmp_path)
    app = Host(Workspace(tmp_path), SID)
    async with app.run_test(size=(100, 30)) as pilot:
        view = await _ready(app, pilot)
        assert view.done and view.turn_count == 10
        table = view.query_one("#transcript-rows", VirtualTable)
        table.focus()
        # the first row is turn 1, the person's message
        first = view.row(table.cursor_row)
        assert first is not None and first.turn is not None and first.turn.number == 1
        # search inside: "/" opens the box, Enter goes to the first match
        await pilot.press("slash")
        box = view.query_one("#transcript-find", Input)
        assert box.has_focus
        await pilot.press(*"src/auth")
        await pilot.press("enter")
        await app.workers.wait_for_complete()  # search reads the file in a worker
        await pilot.pause()
        assert view.current_turn() == 7
        assert len(view.matches) == 2  # the Edit call and its result
        await pilot.press("escape")
        assert table.has_focus and not box.has_class("-shown")
        await pilot.press("right_square_bracket")
        row = view.row(table.cursor_row)
        assert row is not None and row.block.kind == "tool_result"
        # jump: "g", a number, Enter
        await pilot.press("g")
        await pilot.press("4", "enter")
        await pilot.pause()
        assert view.current_turn() == 4 and table.has_focus
        detail = str(view.query_one("#transcript-detail", Static).visual)
        assert "Turn 4" in detail
        # cited turns: marked, and "c" goes from one to the next
        view.set_cited({2, 9})
        await pilot.press("c")
        assert view.current_turn() == 9
        await pilot.press("c")
        assert view.current_turn() == 2
        assert view.jump_to_turn(11) is False


async def test_lines_not_read_are_counted_per_line(tmp_path: Path) -> None:
    """Three lines of a type not known: "3 lines not read", not one per warning (issue 39)."""
    w = TranscriptWriter().user("hi")
    for _ in range(3):
        w.raw('{"type": "future-kind"}')
    w.write(tmp_path)
    app = Host(Workspace(tmp_path), SID)
    async with app.run_test(size=(140, 20)) as pilot:
        view = await _ready(app, pilot)
        status = str(view.query_one("#transcript-status", Static).visual)
        assert "3 lines not read" in status


async def test_no_transcript(tmp_path: Path) -> None:
    app = Host(Workspace(tmp_path), "not-there")
    async with app.run_test(size=(100, 20)) as pilot:
        view = await _ready(app, pilot)
        assert view.done and view.turn_count == 0
        assert "No transcript" in str(view.query_one("#transcript-status", Static).visual)
        assert len(view.table.rows) == 0


async def test_agent_text_is_literal(tmp_path: Path) -> None:
    TranscriptWriter().user("[bold red]hi[/] [@click=app.quit]x[/] \x1b[31m").write(tmp_path)
    app = Host(Workspace(tmp_path), None)
    app.sid = None
    async with app.run_test(size=(100, 20)) as pilot:
        view = app.query_one(TranscriptView)
        view.path = next((tmp_path / "projects").rglob("*.jsonl"))
        view.load()
        view = await _ready(app, pilot)
        text = str(view.query_one("#transcript-detail", Static).visual)
        assert "[bold red]hi[/]" in text and "\x1b" not in text


def test_evidence_marks_render(tmp_path: Path) -> None:
    t = read_transcript(sample_session().write(tmp_path))
    check = check_item(t, "keep", KeepItem(id="k", evidence="Turn 40"))
    assert evidence_mark(check).plain == "✗ "
    assert "not found" in evidence_detail(check).plain
    assert evidence_mark(None).plain == ""
    table = metrics_comparison(compare_metrics(KptMetrics(session_duration_turns=23), t))
    assert "≠" in table.plain and "23" in table.plain


def test_the_detail_pane_says_the_numbering_and_each_fact_once(tmp_path: Path) -> None:
    """The pane names the numbering the cited turns are in, says a turn past the end and
    a name never in the session once each (they were said again as notes), and a list
    metric keeps the table's columns (issue 39 point 3, issue 44 point 14)."""
    t = read_transcript(sample_session().write(tmp_path))
    item = KeepItem(id="k", description="edited lib/jwt.py", evidence="Turn 2, turn 40")
    text = evidence_detail(check_item(t, "keep", item)).plain
    assert "(skill's turns)" in text and "past the end: 40 (the session has 7)" in text
    assert text.count("lib/jwt.py") == 1 and text.count("40") == 2
    tools = ["Read", "Bash", "Edit", "Glob", "Grep", "WebFetch"]
    table = metrics_comparison(compare_metrics(KptMetrics(unique_tools=tools), t)).plain
    row = next(line for line in table.splitlines() if line.startswith("unique_tools"))
    assert row.split() == ["unique_tools", "6", "tools", "3", "tools", "≠"]


async def test_small_batches_give_the_same_rows(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import screens.widgets.transcript_view as tv

    monkeypatch.setattr(tv, "FIRST_BATCH_LINES", 1)
    monkeypatch.setattr(tv, "BATCH_LINES", 1)
    monkeypatch.setattr(tv, "BATCH_LINES_MAX", 2)
    w = sample_session()
    w.raw('{"type": "system", "content": "x"}')
    w.raw('{"type": "user", "isSidechain": true, "message": {"content": "sub-agent prompt"}}')
    w.write(tmp_path)
    shown: list[int] = []  # the rows the table was given, each time
    set_rows = VirtualTable.set_rows
    monkeypatch.setattr(
        VirtualTable,
        "set_rows",
        lambda t, rows, **kw: shown.append(len(rows)) or set_rows(t, rows, **kw),
    )
    app = Host(Workspace(tmp_path), SID)
    async with app.run_test(size=(100, 30)) as pilot:
        view = await _ready(app, pilot)
        assert len(shown) > 5 and shown == sorted(shown)  # shown batch by batch
        t = read_transcript(next((tmp_path / "projects").rglob("*.jsonl")))
        expected = [(None, b.kind, b.text) for b in t.preamble] + [
            (turn.number, b.kind, b.text) for turn in t.turns for b in turn.blocks
        ]
        rows = [view.row(i) for i in range(len(view.rows))]
        got = [(r.turn.number if r.turn else None, r.block.kind, r.block.text) for r in rows]  # type: ignore[union-attr]
        assert got == expected
        assert view.first_row(7) == [e[0] for e in expected].index(7)


async def test_search_reads_past_the_previews(tmp_path: Path) -> None:
    """Rows keep a short preview; search finds what lies past it, in the file."""
    from screens.widgets.transcript_view import ROW_TEXT_CAP

    long = "x" * (ROW_TEXT_CAP + 300)
    w = TranscriptWriter().user(long + " needle-in-text")
    w.assistant("", [("Bash", {"command": "npm test"}, long + " needle-in-result", True)])
    w.assistant("nothing here")
    w.write(tmp_path)
    app = Host(Workspace(tmp_path), SID)
    async with app.run_test(size=(100, 30)) as pilot:
        view = await _ready(app, pilot)
        assert view.turn_count == 3
        first = view.row(0)
        assert first is not None and len(first.block.text) == ROW_TEXT_CAP
        assert first.block.truncated
        view.find("NEEDLE-in")
        await app.workers.wait_for_complete()
        await pilot.pause()
        kinds = [view.row(i).block.kind for i in view.matches]  # type: ignore[union-attr]
        assert kinds == ["text", "tool_result"]
        assert view.current_turn() == 1
        view.find("absent words")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert view.matches == [] and not view.searching
        # the highlighted row is read again whole
        view.table.cursor_row = 0
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert "needle-in-text" in str(view.query_one("#transcript-detail", Static).visual)


def test_positional_keys_need_no_list_or_dictionary() -> None:
    from screens.widgets.transcript_rows import KeyIndex, PositionalKeys

    keys = PositionalKeys(3)
    assert list(keys) == ["0", "1", "2"] and keys[-1] == "2" and keys[1:] == ["1", "2"]
    index = KeyIndex(3)
    assert index.get("2") == 2 and index.get("3") is None and index.get("x") is None
    assert index.get("²") is None  # a digit, but not an ASCII one
    rows = LazyRows(PositionalKeys(3), lambda key: (key,), KeyIndex(3))
    assert rows[1] == ("1", ("1",)) and rows.key_index.get("1") == 1


async def test_a_table_of_positional_rows_moves_to_a_key() -> None:
    from screens.widgets.table_rows import Column
    from screens.widgets.transcript_rows import KeyIndex, PositionalKeys

    def positional(count: int) -> LazyRows:
        return LazyRows(PositionalKeys(count), lambda key: (key,), KeyIndex(count))

    class TableHost(App[None]):
        def compose(self) -> ComposeResult:
            yield VirtualTable([Column("n", "N", None)])

    app = TableHost()
    async with app.run_test(size=(40, 10)) as pilot:
        table = app.query_one(VirtualTable)
        table.set_rows(positional(100_000))
        assert table.move_to_key("99999") and table.cursor_row == 99_999
        table.set_rows(positional(100_001))  # one more row read
        await pilot.pause()
        assert table.cursor_key == "99999"


def test_a_turn_time_without_zone_is_utc_in_any_local_zone(monkeypatch: pytest.MonkeyPatch) -> None:
    """As every other reader of agent times takes it (it was read in the local zone)."""
    import time
    from datetime import UTC, datetime

    from screens.widgets.transcript_rows import _epoch

    monkeypatch.setenv("TZ", "Asia/Tokyo")
    time.tzset()
    try:
        assert (
            _epoch("2026-01-02T03:04:05") == datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC).timestamp()
        )
    finally:
        monkeypatch.undo()
        time.tzset()
