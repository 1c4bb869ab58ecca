"""Keys that always work (issue 44): the keys panel opens and closes with ``?`` and Esc and
stays with the screen it was opened on; every capital screen key opens its screen from
every screen."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import HelpPanel, Input

from screens.session import SessionScreen
from screens.sessions import SessionsScreen
from tests.tui.helpers import make_app, ready, until
from tui.navigate import SCREEN_KEYS, SCREENS


def panel_open(app: object) -> bool:
    return bool(app.screen.query(HelpPanel))  # type: ignore[attr-defined]


async def test_question_mark_toggles_the_keys_panel_and_escape_closes_it(
    demo_root: Path,
) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await pilot.press("question_mark")
        await until(pilot, lambda: panel_open(app))
        await pilot.press("question_mark")
        await until(pilot, lambda: not panel_open(app))
        await pilot.press("enter")  # a session: Esc closes its panel, not the session
        await until(pilot, lambda: isinstance(app.screen, SessionScreen))
        await pilot.press("question_mark")
        await until(pilot, lambda: panel_open(app))
        await pilot.press("escape")
        await until(pilot, lambda: not panel_open(app))
        assert isinstance(app.screen, SessionScreen)
        await pilot.press("escape")  # with no panel, Esc is the screen's again
        await until(pilot, lambda: isinstance(app.screen, SessionsScreen))


async def test_the_keys_panel_does_not_come_back_on_the_sessions_list(demo_root: Path) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await pilot.press("question_mark")
        await until(pilot, lambda: panel_open(app))
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, SessionScreen))
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, SessionsScreen))
        await pilot.pause()
        assert not panel_open(app)


@pytest.mark.slow
async def test_every_capital_screen_key_works_from_every_screen(demo_root: Path) -> None:
    """From the session screen and each screen opened by name, ``P`` opens Problems, and
    from the session screen every screen key opens its screen."""
    app = make_app(demo_root)
    keys = {name: key for key, name, _ in SCREEN_KEYS}
    assert set(keys) == set(SCREENS)  # every screen of the router has its key
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, SessionScreen))
        typing: list[str] = []
        for name, key in keys.items():
            await pilot.press(key)
            wanted = SCREENS[name][1]
            await until(pilot, lambda: type(app.screen).__name__ == wanted)  # noqa: B023
            if isinstance(app.focused, Input):
                typing.append(name)  # a field to type in takes the letters (said in the docs)
            elif name != "problems":
                await pilot.press("P")
                await until(pilot, lambda: type(app.screen).__name__ == "ProblemsScreen")
                app.pop_screen()
            app.pop_screen()
            await until(pilot, lambda: isinstance(app.screen, SessionScreen))
    assert typing == ["match", "search"]
