"""The app's one refresh policy: a change reaches only the screens on show that show what
changed (a screen's ``SHOWS``: the kinds of file it shows, ``None`` for no kind;
``SHOWS_REVIEW``: whether it shows review states; declaring nothing, it is told
everything). Any other screen it concerns is marked stale and told all at once when shown."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from textual.message import Message
from textual.screen import ModalScreen, Screen

from screens.messages import ReviewChanged, WorkspaceChanged
from store.read.kinds import Kind


@dataclass(frozen=True)
class Change:
    """What changed, or what changed while a screen was hidden (:meth:`then`)."""

    changed: frozenset[Path] = field(default_factory=frozenset)
    removed: frozenset[Path] = field(default_factory=frozenset)
    kinds: frozenset[Kind | None] = field(default_factory=frozenset)
    initial: bool = False
    review: bool = False

    def then(self, later: Change) -> Change:
        """This change followed by ``later``: a file removed then written again is
        changed, one written then removed is removed."""
        return Change(
            (self.changed - later.removed) | later.changed,
            (self.removed - later.changed) | later.removed,
            self.kinds | later.kinds,
            self.initial or later.initial,
            self.review or later.review,
        )

    def message(self) -> Message | None:
        """The one message telling a screen of this change (review states are redrawn
        by every screen's ``on_workspace_changed``)."""
        if self.initial or self.changed or self.removed:
            return WorkspaceChanged(
                self.changed, self.removed, self.initial, self.kinds, self.review
            )
        return ReviewChanged() if self.review else None


def concerns(screen: Screen[object], change: Change) -> bool:
    """Whether ``screen`` shows anything ``change`` touches."""
    shows: frozenset[Kind | None] | None = getattr(screen, "SHOWS", None)
    if shows is None or change.initial or not change.kinds:
        return True
    if change.review and getattr(screen, "SHOWS_REVIEW", False):
        return True
    return not shows.isdisjoint(change.kinds)


def on_show(stack: Iterable[Screen[object]]) -> list[Screen[object]]:
    """The screens on show: the top one, and below it while the one above is modal."""
    shown: list[Screen[object]] = []
    for screen in reversed(list(stack)):
        shown.append(screen)
        if not isinstance(screen, ModalScreen):
            break
    return shown
