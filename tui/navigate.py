"""The one router: screens post :class:`screens.messages.Open` and never import each other;
a screen's module is imported when it is first opened (a fast start)."""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from textual.app import App
from textual.screen import Screen

from screens.messages import (
    HitTarget,
    NextToReview,
    ScreenTarget,
    SessionTarget,
    Target,
)
from screens.widgets.keys import SCREEN_KEYS
from store.index.order import next_to_review
from store.index.workspace_index import WorkspaceIndex

if TYPE_CHECKING:  # the search engine is imported when a hit is first opened
    from store.search.engine import Hit

#: The screens opened by name (each once on top): ``screens.<name>.<Name>Screen``, imported
#: when first opened and built from the workspace index alone.
SCREENS = {name: (f"screens.{name}", f"{name.title()}Screen") for _, name, _ in SCREEN_KEYS}

#: hit kinds shown in a session: its report and items, its summary, its lessons
SESSION_KINDS = ("report", "keep", "problem", "try", "omission", "summary", "lesson")
ITEM_KINDS = ("keep", "problem", "try", "omission")
KNOWLEDGE_KINDS = ("skill", "pattern", "anti_pattern", "memory")


async def open_target(app: App[Any], index: WorkspaceIndex, target: Target) -> None:
    """Show ``target``."""
    match target:
        case ScreenTarget(name="sessions"):
            while len(app.screen_stack) > 2:  # the default screen, then the sessions list
                app.pop_screen()
        case ScreenTarget(name=name, select=None):
            open_screen(app, index, name)
        case ScreenTarget(name=name, select=select):
            await app.push_screen(screen_class(name)(index, select=select))
        case SessionTarget():
            await open_session(app, index, target)
        case NextToReview(session=session, item=item):
            open_next(app, index, session, item)
        case HitTarget(hit=hit):
            found = hit_target(index, hit)
            if found is None:
                app.notify("This record belongs to no listed session.", severity="warning")
            else:
                await open_target(app, index, found)


def screen_class(name: str) -> type[Any]:
    module, attr = SCREENS[name]
    return cast("type[Screen[None]]", getattr(importlib.import_module(module), attr))


def open_screen(app: App[Any], index: WorkspaceIndex, name: str) -> None:
    """The screen called ``name``, unless it is on top already."""
    cls = screen_class(name)
    if not isinstance(app.screen, cls):
        app.push_screen(cls(index))


async def open_session(app: App[Any], index: WorkspaceIndex, target: SessionTarget) -> None:
    from screens.session import SessionScreen

    session = SessionScreen(index, target.key, item_key=target.item)
    await app.push_screen(session)
    if target.turn is not None:
        turn = target.turn

        async def to_turn() -> None:
            await session.action_tab("transcript")
            (await session.transcript_view()).jump_to_turn(turn)

        session.call_after_refresh(to_turn)
    elif target.tab is not None:
        # after the screen has focused its item list (which would pull the first tab back)
        session.call_after_refresh(session.action_tab, target.tab)


def open_next(
    app: App[Any], index: WorkspaceIndex, session_key: str | None, item_key: str | None
) -> None:
    """The next item to review: the review screen on top moves to it, else one opens."""
    from screens.session import SessionScreen

    found = next_to_review(index, session_key, item_key)
    if found is None:
        app.notify("Everything is reviewed.", title="Nothing left")
        return
    session, key = found
    if isinstance(app.screen, SessionScreen):
        app.screen.go_to(session.key, key)
    else:
        app.push_screen(SessionScreen(index, session.key, item_key=key))


def hit_target(index: WorkspaceIndex, hit: Hit) -> Target | None:
    """Where a search hit lives: its session, the knowledge base, the inbox, or the file
    (in the problems view); ``None`` for a record of no listed session."""
    from store.search.facade import session_key_for

    if hit.kind in SESSION_KINDS:
        key = session_key_for(index, hit)
        if key is None:
            return None
        item = index.located_key(hit.id, hit.path) if hit.kind in ITEM_KINDS else None
        tab = {"lesson": "lessons", "summary": "summary"}.get(hit.kind)
        return SessionTarget(key, item, tab)
    if hit.kind in KNOWLEDGE_KINDS:
        return ScreenTarget("knowledge", Path(hit.path))
    if hit.kind == "proposal":
        return ScreenTarget("inbox", hit.id)
    return ScreenTarget("problems", Path(hit.path))
