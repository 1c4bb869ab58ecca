"""Sessions: a report, summary, lessons and proposals joined by ``session_id`` (a report
without one is a session of its own). Review state is read from the ledger, never kept."""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Generic, TypeVar

from store.index.docs import Lessons
from store.models.kpt_terms import SECTIONS
from store.read.isotime import utc_time

if TYPE_CHECKING:
    from store.index.docs import LessonRun, RecordRef, ReportRef
    from store.index.heads import SummaryHead
    from store.models import Proposal, SessionSummary

T = TypeVar("T")


@dataclass(slots=True)
class Located(Generic[T]):
    doc: T
    path: Path
    line: int | None = None


@dataclass(slots=True)
class Session:
    key: str
    session_id: str | None = None
    report: ReportRef | None = None
    summary: RecordRef[SummaryHead, SessionSummary] | None = None
    runs: tuple[LessonRun, ...] = ()
    proposals: tuple[Located[Proposal], ...] = ()
    _sort_time: datetime | None = field(default=None, repr=False, compare=False)
    _project: str | None = field(default=None, repr=False, compare=False)
    #: kept by the index: progress ``(ledger revision, done, total)`` and the located
    #: report key (a session is made anew whenever what it shows changes)
    _progress: tuple[int, int, int] | None = field(default=None, repr=False, compare=False)
    _report_key: str | None = field(default=None, repr=False, compare=False)

    @property
    def lessons(self) -> Lessons:
        """A view of :attr:`runs`, made when asked for (not one per session)."""
        return Lessons(self.runs)

    @property
    def report_id(self) -> str | None:
        return self.report.head.id if self.report else None

    @property
    def when(self) -> str:
        """The report's time as written, else the summary's, else a lesson's."""
        if self.report and self.report.head.created_at:
            return self.report.head.created_at
        if self.summary and self.summary.head.date:
            return self.summary.head.date
        for les in self.lessons:
            if les.head.date:
                return les.head.date
        return ""

    @property
    def sort_time(self) -> datetime:
        if self._sort_time is None:
            self._sort_time = utc_time(self.when)
        return self._sort_time

    @property
    def project(self) -> str:
        """The summary's project, else a lesson's (worked out once)."""
        if self._project is None:
            found = self.summary.project if self.summary else None
            self._project = found or next(
                (p for les in self.lessons if (p := les.head.project)), ""
            )
        return self._project

    @property
    def outcome(self) -> str:
        return (self.report.head.outcome or "") if self.report else ""

    @property
    def title(self) -> str:
        if self.report and self.report.head.title:
            return self.report.head.title
        return self.summary.head.title if self.summary else ""

    def counts(self) -> dict[str, int]:
        counts = self.report.head.counts if self.report else (0, 0, 0, 0)
        return dict(zip(SECTIONS, counts, strict=True))


def session_key(session_id: str | None, fallback: str) -> str:
    """A session's key; one string object however many records name it (interned)."""
    return sys.intern(f"sid:{session_id}") if session_id else fallback
