"""Which sessions to show, in which order, and where the next unreviewed item is."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Literal

from store.index.sessions import Session
from store.index.workspace_index import WorkspaceIndex

ReviewFilter = Literal["all", "unreviewed", "reviewed"]


@dataclass(frozen=True, slots=True)
class SessionFilter:
    """The sessions list's filters; ``None`` means any."""

    outcome: str | None = None
    project: str | None = None
    since: date | None = None
    until: date | None = None
    review: ReviewFilter = "all"

    def matches(self, s: Session, done: int, total: int) -> bool:
        if self.outcome is not None and s.outcome.lower() != self.outcome.lower():
            return False
        if self.project is not None and s.project != self.project:
            return False
        day = s.sort_time.date()
        if self.since is not None and day < self.since:
            return False
        if self.until is not None and day > self.until:
            return False
        if self.review == "unreviewed" and done >= total:
            return False
        return not (self.review == "reviewed" and (total == 0 or done < total))


def ordered(index: WorkspaceIndex, flt: SessionFilter | None = None) -> list[Session]:
    """Sessions with items left to review first, newest first within each group."""
    flt = flt or SessionFilter()
    rows = []
    for s in index.sessions.values():
        done, total = index.review_progress(s)
        if flt.matches(s, done, total):
            rows.append((done < total, s.sort_time, s.key, s))
    rows.sort(key=lambda r: (r[0], r[1], r[2]), reverse=True)
    return [r[3] for r in rows]


def projects(index: WorkspaceIndex) -> list[str]:
    return sorted({s.project for s in index.sessions.values() if s.project})


def next_unreviewed(
    index: WorkspaceIndex, order: list[Session], session_key: str | None, item_key: str | None
) -> tuple[Session, str] | None:
    """The first pending item after ``item_key`` in its session, then in later sessions
    (in ``order``), wrapping around to the start; ``None`` when everything is reviewed."""
    keys = [s.key for s in order]
    start = keys.index(session_key) if session_key in keys else 0
    rotated = order[start:] + order[:start]
    for n, s in enumerate(rotated):
        items = s.item_keys()
        if n == 0 and s.key == session_key and item_key in items:
            after = items.index(item_key) + 1
            items = items[after:]
        for k in items:
            if index.ledger.state(k).state == "pending":
                return s, k
    if session_key in keys:  # items before the cursor in the starting session
        s = order[start]
        for k in s.item_keys():
            if index.ledger.state(k).state == "pending" and k != item_key:
                return s, k
    return None
