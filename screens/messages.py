"""App-level messages between the app and its screens (a leaf module: textual and store only).
A screen declares what it shows in ``SHOWS``/``SHOWS_REVIEW`` and asks to see something
with :class:`Open`; the router (``tui.navigate``) picks the screen, so no screen imports
another."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, TypeAlias

from textual.message import Message

from store.read.kinds import Kind

if TYPE_CHECKING:
    from store.search.engine import Hit

EVERY_KIND: frozenset[Kind | None] = frozenset([*Kind, None])
"""What a screen showing the whole workspace declares (``None``: files of no kind)."""


@dataclass
class WorkspaceChanged(Message, bubble=False):
    """Files changed on disk (or the index finished loading): screens refresh what they show.

    ``kinds`` are the kinds of the files changed or removed, before and after the change
    (``None``: a file of no kind); ``review`` says review states changed too."""

    changed: frozenset[Path] = field(default_factory=frozenset)
    removed: frozenset[Path] = field(default_factory=frozenset)
    initial: bool = False
    kinds: frozenset[Kind | None] = field(default_factory=frozenset)
    review: bool = False


@dataclass
class ReviewChanged(Message, bubble=False):
    """A decision was recorded or undone: counts and review states must be redrawn."""


@dataclass
class FilesWritten(Message, bubble=False):
    """A screen wrote these files: the app re-reads them and tells the screens.

    ``review``: a decision was recorded with them (the app then says so in the same
    message, or in a :class:`ReviewChanged` when no file turned out changed)."""

    paths: frozenset[Path] = field(default_factory=frozenset)
    review: bool = False


# -- navigation ------------------------------------------------------------------------


@dataclass(frozen=True)
class ScreenTarget:
    """A screen by its name (``"inbox"``, ``"stats"`` …; ``"sessions"``: back home), on
    ``select`` when given: a proposal's id, a knowledge document's or a problem file's path."""

    name: str
    select: Path | str | None = None


@dataclass(frozen=True)
class SessionTarget:
    """A session, the cursor on ``item`` (a ledger key), on ``tab`` of its screen."""

    key: str
    item: str | None = None
    tab: str | None = None
    #: on the transcript tab, the cursor on this turn (issue #45: the turn that wrote a file)
    turn: int | None = None


@dataclass(frozen=True)
class NextToReview:
    """The next item to review after ``item`` in ``session`` (from the top when ``None``)."""

    session: str | None = None
    item: str | None = None


@dataclass(frozen=True)
class HitTarget:
    """A search hit, where it lives."""

    hit: Hit


Target: TypeAlias = ScreenTarget | SessionTarget | NextToReview | HitTarget


@dataclass
class Open(Message):
    """Show ``target``: posted by a screen (it bubbles to the app), routed by the app."""

    target: Target


# -- writes ------------------------------------------------------------------------------


@dataclass
class WriteFailed(Message, bubble=False):
    """A write did not happen (posted to the app by :mod:`screens.writing`, the one path
    every write of a screen takes): ``what`` names the action in a few words, ``error`` says
    why. The transaction left every file as it was."""

    what: str
    error: BaseException
