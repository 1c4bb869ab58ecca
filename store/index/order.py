"""Which sessions and lessons to show, in which order, and where the next unreviewed item is."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from store.index.docs import lesson_ref
from store.index.heads import LessonHead
from store.index.sessions import Session
from store.index.workspace_index import WorkspaceIndex
from store.ledger import UNDECIDED

if TYPE_CHECKING:
    from store.models import Lesson

ReviewFilter = Literal["all", "unreviewed", "reviewed"]


@dataclass(frozen=True, slots=True)
class ListFilter:
    """A project and a range of days (both ends included); ``None`` means any."""

    project: str | None = None
    since: date | None = None
    until: date | None = None

    @property
    def dated(self) -> bool:
        return self.since is not None or self.until is not None

    def covers(self, day: date) -> bool:
        return not (
            (self.since is not None and day < self.since)
            or (self.until is not None and day > self.until)
        )


@dataclass(frozen=True, slots=True)
class SessionFilter(ListFilter):
    """``evidence`` (``missing``, ``found``, ``none``) keeps the sessions ``evidence_states``
    (session key → state) gives it; none until those are known."""

    outcome: str | None = None
    review: ReviewFilter = "all"
    evidence: str | None = None
    evidence_states: Mapping[str, str] | None = field(default=None, compare=False)

    def matches(self, s: Session, done: int, total: int) -> bool:
        if self.outcome is not None and s.outcome.lower() != self.outcome.lower():
            return False
        if self.evidence is not None and (
            self.evidence_states is None or self.evidence_states.get(s.key) != self.evidence
        ):
            return False
        if self.project is not None and s.project != self.project:
            return False
        if self.dated and not self.covers(s.sort_time.date()):
            return False
        if self.review == "unreviewed" and done >= total:
            return False
        return not (self.review == "reviewed" and (total == 0 or done < total))


@dataclass(frozen=True, slots=True)
class LessonFilter(ListFilter):
    """``tag``: a casefolded part of a tag (``""``: any); applied by
    :meth:`store.index.lesson_list.LessonList.select`."""

    type: str | None = None
    category: str | None = None
    tag: str = ""


@dataclass(slots=True)
class LessonRow:
    key: str
    lesson: LessonHead
    path: Path
    line: int

    def full(self) -> Lesson:
        return lesson_ref(self.lesson, self.path).doc


def ordered(index: WorkspaceIndex, flt: SessionFilter | None = None) -> list[Session]:
    """Sessions with items left to review first, newest first within each group."""
    flt = flt or SessionFilter()
    rows = []
    for s in index.sessions.values():
        done, total = index.review_progress(s)
        if flt.matches(s, done, total):
            rows.append((done < total, s.sort_time, s.key, s))
    rows.sort(reverse=True)  # (the keys differ: the sessions are never compared)
    return [r[3] for r in rows]


def projects(index: WorkspaceIndex) -> list[str]:
    return sorted({s.project for s in index.sessions.values() if s.project})


def next_unreviewed(
    index: WorkspaceIndex,
    order: list[Session],
    session_key: str | None,
    item_key: str | None,
    *,
    skip: Collection[str] = (),
) -> tuple[Session, str] | None:
    """The next pending item after ``item_key``: in its session (wrapping), then in later
    sessions of ``order`` (wrapping); ``skip``: decisions being written."""
    keys = [s.key for s in order]
    start = keys.index(session_key) if session_key in keys else 0
    rotated = order[start:] + order[:start]
    for n, s in enumerate(rotated):
        items = index.item_keys(s)
        if n == 0 and s.key == session_key and item_key in items:
            at = items.index(item_key)
            items = items[at + 1 :] + items[:at]
        for k in items:
            if k not in skip and index.ledger.state(k).state in UNDECIDED:
                return s, k
    return None


def next_to_review(
    index: WorkspaceIndex, session_key: str | None = None, item_key: str | None = None
) -> tuple[Session, str] | None:
    """The next item to review in the sessions list's order: the one answer for every
    "next" (the app's command, the sessions list, the review screen)."""
    return next_unreviewed(index, ordered(index), session_key, item_key)
