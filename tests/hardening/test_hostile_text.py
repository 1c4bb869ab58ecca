"""Every screen shows hostile agent text literally and keeps working."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from screens.inbox import InboxScreen
from screens.knowledge import KnowledgeScreen
from screens.lessons import LessonsScreen
from screens.problems import ProblemsScreen
from screens.session import SessionScreen
from screens.stats import StatsScreen
from tests.tui.helpers import make_app, ready, settled, until

HOSTILE = [
    "[bold red]markup[/]",
    "[@click=app.quit]click me[/]",
    "[link=https://evil.example]link[/link]",
    "\x1b[31mred\x1b[0m \x1b]8;;https://x\x07osc\x1b]8;;\x07",
    "\u202eevil\u202c bidi \u2066iso\u2069",
    "zero\u200bwidth e\u0301\u0301\u0301 combining",
    "👩‍👩‍👧‍👦 🏳️‍🌈 emoji",
    "long " + "x" * 10_000,
]


def _q(s: str) -> str:
    return json.dumps(s, ensure_ascii=False)  # a valid YAML double-quoted scalar


def _write_hostile(root: Path) -> None:
    h = HOSTILE
    (root / "hurikaeri" / "kpt-20261121-001.yaml").write_text(
        f"id: kpt-20261121-001\ncreated_at: 2026-11-21T09:00:00+09:00\nsession_id: hostile\n"
        f"session_summary: {_q(' '.join(h[:4]))}\ntask_goals: [{', '.join(_q(x) for x in h)}]\noutcome: success\n"
        "keep:\n"
        + "".join(
            f"  - id: keep-00{i}\n    description: {_q(x)}\n    evidence: {_q(x)}\n    category: {_q(x[:30])}\n"
            for i, x in enumerate(h, 1)
        )
        + f"problem: []\ntry:\n  - id: try-001\n    description: {_q(h[1])}\n    addresses: []\n    scope: global\n"
        f"    persistence_target: {{type: claude_md, path: {_q(h[0])}, section: {_q(h[2])}}}\nomission: []\n",
        encoding="utf-8",
    )
    lesson = {
        "id": "ll-ai-20261121-001",
        "date": "2026-11-21T10:00:00",
        "session_id": "hostile",
        "type": h[0],
        "category": h[3],
        "title": h[1],
        "summary": h[4],
        "context": h[7],
        "tags": h[:3],
    }
    with open(root / "lessons" / "ai" / "lessons.jsonl", "a", encoding="utf-8") as fh:
        fh.write(json.dumps(lesson, ensure_ascii=False) + "\n")
    (root / "knowledge_base" / "inbox" / "prop-20261121-001.yaml").write_text(
        f"id: prop-20261121-001\ncreated_at: 2026-11-21T10:00:00Z\nproposed_by: {_q(h[1])}\nkind: skill\n"
        f"title: {_q(h[0])}\nrationale: {_q(h[3])}\ntarget: knowledge_base/global/skills/hostile.yaml\n"
        f"payload:\n  skill_id: hostile\n  name: {_q(h[2])}\n  content: {_q(h[4] + h[6])}\nstatus: pending\n",
        encoding="utf-8",
    )
    (root / "knowledge_base" / "global" / "skills" / "hostile.yaml").write_text(
        f"skill_id: hostile\nname: {_q(h[1])}\ncontent: {_q(h[0] + h[3])}\nrelated_skills: [{_q(h[2])}]\n",
        encoding="utf-8",
    )


def _dump(app) -> str:  # type: ignore[no-untyped-def]
    return app.export_screenshot()


@pytest.mark.slow
@pytest.mark.parametrize(
    "open_screen",
    [
        lambda app: SessionScreen(app.index, "sid:hostile"),
        lambda app: ProblemsScreen(app.index),
        lambda app: InboxScreen(app.index),
        lambda app: LessonsScreen(app.index),
        lambda app: StatsScreen(app.index),
        lambda app: KnowledgeScreen(
            app.index, select=app.workspace.root / "knowledge_base/global/skills/hostile.yaml"
        ),
    ],
    ids=["session", "problems", "inbox", "lessons", "stats", "knowledge"],
)
async def test_screens_show_hostile_text_literally(demo_root: Path, open_screen) -> None:  # type: ignore[no-untyped-def]
    _write_hostile(demo_root)
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        screen = open_screen(app)
        app.push_screen(screen)
        await until(pilot, lambda: app.screen is screen)
        await settled(pilot)
        for key in ("down", "down", "tab", "down", "enter", "escape"):
            if not app.is_running:
                break
            await pilot.press(key)
            if app.is_running:
                await settled(pilot)
        assert app.is_running, "a hostile [@click=app.quit] must not quit the app"
        shot = _dump(app)
        assert "\x1b]8" not in shot and "\u202e" not in shot


async def test_session_screen_text_is_verbatim(demo_root: Path) -> None:
    _write_hostile(demo_root)
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        app.push_screen(
            SessionScreen(app.index, "sid:hostile", item_key="kpt-20261121-001/keep-002")
        )
        await pilot.pause()
        await until(pilot, lambda: "click me" in str(app.screen.query_one("#item-detail").render()))
        detail = str(app.screen.query_one("#item-detail").render())
        assert "[@click=app.quit]click me[/]" in detail
        app.screen.query_one("#tabs").active = "report"
        await pilot.pause()
        report = str(app.screen.query_one("#report-view").render())
        assert "[bold red]markup[/]" in report and "␛[31mred" in report and "\x1b" not in report
        assert "⟨U+202E⟩" in report
