"""Hypothesis-generated documents through the loaders *and* the screens: no exception escapes."""

from __future__ import annotations

import asyncio
import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from screens.inbox import InboxScreen
from screens.lessons import LessonsScreen
from screens.problems import ProblemsScreen
from screens.session import SessionScreen
from screens.stats import StatsScreen
from tui.app import create_app

text = st.text(max_size=60)
scalar = st.one_of(
    st.none(), st.booleans(), st.integers(-5, 10**6), st.floats(allow_nan=True), text
)
value = st.recursive(
    scalar,
    lambda c: st.one_of(st.lists(c, max_size=3), st.dictionaries(text, c, max_size=3)),
    max_leaves=8,
)
item = st.fixed_dictionaries(
    {"id": st.one_of(text, st.integers()), "description": value},
    optional={
        "evidence": value,
        "category": value,
        "impact": value,
        "addresses": value,
        "scope": value,
        "persistence_target": value,
        "root_cause": value,
        "risk_level": value,
    },
)
report = st.fixed_dictionaries(
    {"id": st.just("kpt-20261121-001"), "session_id": st.just("fuzz")},
    optional={
        "session_summary": value,
        "task_goals": value,
        "outcome": value,
        "created_at": value,
        "keep": st.lists(item, max_size=3) | value,
        "problem": st.lists(item, max_size=3) | value,
        "try": st.lists(item, max_size=3) | value,
        "omission": st.lists(item, max_size=2),
        "metrics": value,
        "feedback_integration": value,
    },
)
lesson = st.dictionaries(
    st.sampled_from(
        ["id", "date", "session_id", "type", "category", "title", "summary", "tags", "project"]
    ),
    value,
    max_size=9,
)


async def _drive(root: Path) -> None:
    app = create_app(root, watch=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await asyncio.wait_for(app.loaded.wait(), 30)
        await pilot.pause()
        for make in (
            lambda: SessionScreen(app.index, "sid:fuzz"),
            lambda: ProblemsScreen(app.index),
            lambda: LessonsScreen(app.index),
            lambda: StatsScreen(app.index),
            lambda: InboxScreen(app.index),
        ):
            app.push_screen(make())
            await pilot.pause()
            await pilot.press("down", "tab", "down", "1", "2", "3", "4")
            await pilot.pause()
            assert app.is_running
            app.pop_screen()
            await pilot.pause()


@pytest.mark.slow
@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(report, st.lists(lesson, max_size=4))
def test_generated_documents_through_every_screen(
    doc: dict[str, Any], lessons: list[dict[str, Any]]
) -> None:
    with tempfile.TemporaryDirectory() as d:
        root = Path(d)
        (root / "hurikaeri").mkdir()
        (root / "hurikaeri" / "kpt-20261121-001.yaml").write_text(
            json.dumps(doc, allow_nan=True), encoding="utf-8"
        )
        (root / "lessons" / "ai").mkdir(parents=True)
        (root / "lessons" / "ai" / "lessons.jsonl").write_text(
            "".join(json.dumps(x, allow_nan=True) + "\n" for x in lessons), encoding="utf-8"
        )
        asyncio.run(_drive(root))
