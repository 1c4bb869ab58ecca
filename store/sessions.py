"""Sessions: what one agent session left behind, joined by ``session_id``.

A session gathers its KPT report, its session summary, its lessons and the proposals it
raised. A report without a ``session_id`` is a session of its own. Review state is never
stored here: it is read from the ledger each time (one source of truth).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Generic, TypeVar

from .models import KptReport, Lesson, Proposal, SessionSummary

T = TypeVar("T")


@dataclass(slots=True)
class Located(Generic[T]):
    """A document and where it lives (``line`` for JSONL records)."""

    doc: T
    path: Path
    line: int | None = None


@dataclass(slots=True)
class Session:
    key: str
    session_id: str | None = None
    report: Located[KptReport] | None = None
    summary: Located[SessionSummary] | None = None
    lessons: list[Located[Lesson]] = field(default_factory=list)
    proposals: list[Located[Proposal]] = field(default_factory=list)

    @property
    def report_id(self) -> str | None:
        return self.report.doc.id if self.report else None

    @property
    def when(self) -> str:
        """The session's time as written (the report's, else the summary's, else a lesson's)."""
        if self.report and self.report.doc.created_at:
            return self.report.doc.created_at
        if self.summary and self.summary.doc.date:
            return self.summary.doc.date
        for les in self.lessons:
            if les.doc.date:
                return les.doc.date
        return ""

    @property
    def sort_time(self) -> datetime:
        return parse_time(self.when)

    @property
    def project(self) -> str:
        if self.summary and self.summary.doc.project:
            return self.summary.doc.project
        for les in self.lessons:
            if les.doc.project:
                return les.doc.project
        return ""

    @property
    def outcome(self) -> str:
        return (self.report.doc.outcome or "") if self.report else ""

    @property
    def title(self) -> str:
        """First line of what the session was about."""
        text = ""
        if self.report and self.report.doc.session_summary:
            text = self.report.doc.session_summary
        elif self.summary:
            s = self.summary.doc
            text = s.session_name or (s.info_summary[0] if s.info_summary else "")
        return text.strip().splitlines()[0] if text.strip() else ""

    def counts(self) -> dict[str, int]:
        doc = self.report.doc if self.report else None
        return {
            sec: len(doc.section(sec)) if doc else 0
            for sec in ("keep", "problem", "try", "omission")
        }

    def item_keys(self) -> list[str]:
        """``KPT_ID/ITEM_ID`` of every item of the report, in report order."""
        if not self.report or not self.report.doc.id:
            return []
        rid = self.report.doc.id
        return [f"{rid}/{item.id}" for _sec, item in self.report.doc.items() if item.id]


def parse_time(text: str) -> datetime:
    """A sortable UTC time from ISO text; unparsable text sorts first (oldest)."""
    if not text:
        return datetime.min.replace(tzinfo=UTC)
    try:
        t = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        return datetime.min.replace(tzinfo=UTC)
    return t.replace(tzinfo=UTC) if t.tzinfo is None else t.astimezone(UTC)


def session_key(session_id: str | None, fallback: str) -> str:
    return f"sid:{session_id}" if session_id else fallback
