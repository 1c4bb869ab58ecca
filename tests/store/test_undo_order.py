"""Undo in the order people make changes (issue 40): two growing edits of one lesson undo
one after the other, a refusal shows one record against one record, and an undo without
an id takes back only what its own channel (the app, this terminal, a script) did last."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from store.ledger import Ledger, set_channel
from store.review.items import decide_keys
from store.review.lessons import edit_lesson_tx, find_lesson
from store.tx.transactions import (
    UndoRefused,
    describe_turn,
    history,
    next_turn,
    redo,
    undo,
    undo_last,
)
from store.workspace import Workspace

LESSON = "ll-ai-20261028-001"


@pytest.fixture
def ws(demo_root: Path) -> Iterator[Workspace]:
    yield Workspace(demo_root)
    set_channel(None)


def record(path: Path) -> dict[str, object]:
    """The lesson's record as the file holds it now."""
    for line in path.read_bytes().splitlines():
        if line.strip():
            rec = json.loads(line)
            if rec.get("id") == LESSON:
                return dict(rec)
    raise AssertionError("the lesson is gone")


# -- 7: growing edits of one lesson ----------------------------------------------------


def test_two_growing_edits_of_one_lesson_are_undone_in_turn(ws: Workspace) -> None:
    path = ws.loc("lessons_ai")
    original = record(path)
    others = [ln for ln in path.read_bytes().splitlines() if LESSON.encode() not in ln]
    title = str(original["title"])
    first = edit_lesson_tx(ws, find_lesson(path, LESSON), {"title": title + " (grown)" * 3})
    second = edit_lesson_tx(ws, find_lesson(path, LESSON), {"title": title + " (more)" * 9})
    assert first is not None and second is not None
    undo(ws, second.id)
    assert record(path)["title"] == title + " (grown)" * 3
    undo(ws, first.id)  # was refused: "changed since" (padded otherwise)
    assert record(path) == original
    assert [ln for ln in path.read_bytes().splitlines() if LESSON.encode() not in ln] == others
    views = {v.id: v.state for v in history(ws)}
    assert views[first.id] == views[second.id] == "undone"
    redo(ws, first.id)
    assert record(path)["title"] == title + " (grown)" * 3


def test_a_refused_lesson_undo_shows_one_record_against_one_record(ws: Workspace) -> None:
    path = ws.loc("lessons_ai")
    title = str(record(path)["title"])
    done = edit_lesson_tx(ws, find_lesson(path, LESSON), {"title": title + " (edited)"})
    assert done is not None
    data = path.read_bytes()
    path.write_bytes(data.replace(b" (edited)", b" (by an agent)", 1))  # changed since
    n_lines = len([ln for ln in data.splitlines() if ln.strip()])
    assert n_lines > 2
    with pytest.raises(UndoRefused) as refused:
        undo(ws, done.id)
    diff = refused.value.diff.splitlines()
    removed = [ln for ln in diff if ln.startswith("-") and not ln.startswith("---")]
    added = [ln for ln in diff if ln.startswith("+") and not ln.startswith("+++")]
    assert len(removed) == 1 and "(edited)" in removed[0]
    assert len(added) == 1 and "(by an agent)" in added[0]


# -- 11: an undo without an id takes back only its own channel's last change -----------


def test_a_scripts_undo_takes_back_nothing_the_app_did(ws: Workspace) -> None:
    keys = [f"kpt-20261029-001/{k}" for k in ("keep-001", "prob-001", "try-001")]
    set_channel("script")
    mine = decide_keys(ws, ["kpt-20261028-002/keep-001"], "reject")
    set_channel("app")
    for k in keys:  # the person's edits in the open app meanwhile
        decide_keys(ws, [k], "reject")
    states = {k: Ledger(ws.state_dir).state(k).state for k in keys}
    set_channel("script")
    app_last = next(v for v in history(ws) if v.action == "reject")
    assert app_last.channel == "app"
    line = describe_turn(ws)
    assert line.startswith("Cannot undo without an id") and app_last.id in line
    with pytest.raises(UndoRefused, match=f"undo it by its id .*{app_last.id}"):
        undo_last(ws)
    assert {k: Ledger(ws.state_dir).state(k).state for k in keys} == states
    assert next_turn(ws) is None
    undo(ws, mine.id)  # by its id: as asked
    assert Ledger(ws.state_dir).state("kpt-20261028-002/keep-001").state != "rejected"
    set_channel("app")
    undone = undo_last(ws)  # the app's own last change
    assert undone is not None and undone.undoes == app_last.id
    assert Ledger(ws.state_dir).state(keys[-1]).state != "rejected"


def test_the_channel_is_recorded_and_shown(ws: Workspace) -> None:
    set_channel("terminal")
    done = decide_keys(ws, ["kpt-20261028-002/keep-001"], "reject")
    (view,) = [v for v in history(ws) if v.id == done.id]
    assert view.channel == "terminal" and view.as_json()["channel"] == "terminal"
    assert Ledger(ws.state_dir).txs[done.id].begin.data["channel"] == "terminal"
    undone = undo_last(ws)  # the same terminal: its own last change
    assert undone is not None and undone.undoes == done.id
