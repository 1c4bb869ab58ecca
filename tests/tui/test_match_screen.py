"""The skill-matching screen: scores as you type, what loads, what stays below, patterns."""

from __future__ import annotations

import shutil
from pathlib import Path

from textual.widgets import Input, Static

from screens.knowledge import KnowledgeScreen
from screens.match import MatchScreen, parse_files
from screens.widgets.virtual_table import VirtualTable
from tests.conftest import DEMO
from tests.tui.helpers import make_app, ready, until
from tui.app import HurikaeriApp


async def _open(pilot, app: HurikaeriApp) -> MatchScreen:  # type: ignore[no-untyped-def]
    await ready(pilot)
    app.push_screen(MatchScreen(app.index))
    await pilot.pause()
    screen = app.screen
    assert isinstance(screen, MatchScreen)
    await until(pilot, lambda: screen.result is not None)
    return screen


def _cells(table: VirtualTable, skill_id: str) -> list[str]:
    for i in range(len(table.rows)):
        key = table.row_key_at(i) or ""
        if key.startswith(skill_id + "\0"):
            return [str(c) for c in table.rows[i][1]]
    raise AssertionError(f"no row for {skill_id}")


def _text(screen: MatchScreen, selector: str) -> str:
    return str(screen.query_one(selector, Static).render())


def test_files_are_split_on_commas_and_spaces() -> None:
    assert parse_files(" a.ts, b/c.py  d.lua,,") == ("a.ts", "b/c.py", "d.lua")


async def test_every_skill_is_listed_before_typing(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await _open(pilot, app)
        table = screen.query_one("#match-skills", VirtualTable)
        assert len(table.rows) == 6  # 4 global, 1 in groups/, 1 in projects/…/learned/
        assert screen.focused is screen.query_one("#match-objective", Input)
        assert "Would load: nothing" in _text(screen, "#match-summary")


async def test_typing_a_task_keeps_the_matching_skill(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await _open(pilot, app)
        table = screen.query_one("#match-skills", VirtualTable)
        await pilot.press(*"add JWT access token check")
        await until(pilot, lambda: "JWT" in (screen.result.task.objective if screen.result else ""))
        await pilot.press("tab")
        await pilot.press(*"src/auth/session.ts")
        await pilot.press("tab")
        await pilot.press(*"code_impl")
        await pilot.press("right")  # accept the suggestion
        type_input = screen.query_one("#match-type", Input)
        assert type_input.value == "code_implementation"
        await until(
            pilot,
            lambda: (
                screen.result is not None and screen.result.task.task_type == "code_implementation"
            ),
        )
        assert screen.result is not None
        assert screen.result.task.files == ("src/auth/session.ts",)
        assert screen.result.loaded[0] == "jwt_auth_middleware"
        # JWT, jwt, access token: 0.9; src/auth/*.ts: 0.2; the type: 0.2; × 0.91, capped at 1
        score, kept, skill, kw, files, typ, rate = _cells(table, "jwt_auth_middleware")
        assert (score, kept, skill) == ("1.00", "✓ loads", "jwt_auth_middleware")
        assert (kw, files, typ, rate) == ("0.9", "0.2", "0.2", "×0.91")
        assert table.row_key_at(0).startswith("jwt_auth_middleware")  # type: ignore[union-attr]
        # the others share only the task type: scored, but below the threshold
        score, kept, *_ = _cells(table, "redis_rate_limiting")
        assert (score, kept) == ("0.16", "— below")
        assert _cells(table, "windows_utf8_stdio")[1] == "—"
        summary = _text(screen, "#match-summary")
        assert "Would load: jwt_auth_middleware 1.00" in summary
        assert "redis_rate_limiting 0.16" in summary
        why = _text(screen, "#match-why")
        assert "keywords +0.9: JWT, jwt, access token" in why
        assert "src/auth/session.ts ~ src/auth/*.ts" in why
        assert "✓ loads (#1 of at most 5)" in why


async def test_patterns_that_apply_are_listed(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await _open(pilot, app)
        screen.query_one(
            "#match-objective", Input
        ).value = "Redis のレート制限を rate limiting で実装"
        screen.query_one(
            "#match-files", Input
        ).value = "scripts/bucket.lua, src/middleware/rateLimit.ts"
        await until(pilot, lambda: screen.result is not None and bool(screen.result.hits))
        assert screen.result is not None
        assert "redis_rate_limiting" in screen.result.loaded
        patterns = _text(screen, "#match-patterns")
        assert "token_bucket_lua_script" in patterns and "matched: redis, rate_limiting" in patterns
        assert "Anti-patterns (avoid) (0)" in patterns


async def test_enter_on_a_skill_opens_it_in_the_knowledge_base(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await _open(pilot, app)
        table = screen.query_one("#match-skills", VirtualTable)
        table.focus()
        key = table.cursor_key or ""
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, KnowledgeScreen)
        assert app.screen.current == screen.scored[key].path


async def test_knowledge_is_reloaded_when_the_workspace_changes(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await _open(pilot, app)
        new = demo_root / "knowledge_base/global/skills/godot_signals.yaml"
        new.write_text(
            "skill_id: godot_signals\nname: Godot signals\ncontent: x\n"
            "triggers:\n  keywords: [signal, connect]\n",
            encoding="utf-8",
        )
        await app.apply_changes({new})
        table = screen.query_one("#match-skills", VirtualTable)
        await until(pilot, lambda: len(table.rows) == 7)
        screen.query_one("#match-objective", Input).value = "connect a signal"
        await until(
            pilot, lambda: screen.result is not None and screen.result.loaded == ["godot_signals"]
        )


# -- snapshot ---------------------------------------------------------------------------

SNAP_ROOT = Path("/tmp/hurikaeri-snapshot-match/demo")


def _snap_app() -> HurikaeriApp:
    if SNAP_ROOT.exists():
        shutil.rmtree(SNAP_ROOT)
    shutil.copytree(DEMO, SNAP_ROOT)
    return make_app(SNAP_ROOT)


async def _snap_typed(pilot) -> None:  # type: ignore[no-untyped-def]
    await ready(pilot)
    app = pilot.app
    app.push_screen(MatchScreen(app.index))
    await pilot.pause()
    screen = app.screen
    await until(pilot, lambda: screen.result is not None)
    screen.query_one(
        "#match-objective", Input
    ).value = (
        "ノックバックで壁を貫通する（transform.position を直接書いている）、jump の接地判定も直す"
    )
    screen.query_one("#match-files", Input).value = "Assets/Scripts/Player/PlayerController.cs"
    screen.query_one("#match-type", Input).value = "bug_fix"
    await until(
        pilot, lambda: screen.result is not None and screen.result.task.task_type == "bug_fix"
    )
    screen.query_one("#match-skills").focus()  # no blinking text cursor in the picture
    await pilot.pause()


def test_match_screen_snapshot(snap_compare) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(_snap_app(), terminal_size=(120, 40), run_before=_snap_typed)
