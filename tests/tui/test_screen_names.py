"""One name per screen: the command palette, the keys (app-wide and the sessions list's) and
the screen's own title call it the same."""

from __future__ import annotations

import importlib

from screens.sessions import SessionsScreen
from tui.commands import COMMANDS
from tui.navigate import SCREEN_KEYS, SCREENS


def test_each_screen_has_one_name() -> None:
    palette = {action: title for title, _help, action in COMMANDS}
    on_sessions = {
        b.action.removeprefix("app.open_screen('").removesuffix("')"): b.description
        for b in SessionsScreen.BINDINGS
        if b.action.startswith("app.open_screen(")
    }
    for _key, name, description in SCREEN_KEYS:
        module, cls = SCREENS[name]
        title = getattr(importlib.import_module(module), cls).TITLE
        names = {description, palette[name], on_sessions.get(name, description)}
        names |= {title} if title else set()
        assert len(names) == 1, f"{name}: {sorted(names)}"
