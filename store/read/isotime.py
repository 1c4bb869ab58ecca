"""Times and dates in agent text (ISO 8601): the store's one reader of them.

Lenient where agents differ: space around the text, ``Z`` or ``z`` for UTC, a time without
a zone (UTC), a date alone (its midnight, UTC). A time UTC cannot hold
(``0001-01-01T00:00+01:00``) is no time. A day typed into a filter is ``YYYY-MM-DD``, and
``YYYY-MM`` (its first day) where the filter allows a month.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime

_DAY = re.compile(r"(\d{4})-(\d{2})(?:-(\d{2}))?")


def parse_time(text: object) -> datetime | None:
    """An aware time in the zone it was written in; ``None`` when ``text`` is no time."""
    if not isinstance(text, str):
        return None
    try:
        t = datetime.fromisoformat(text.strip().upper())
        t = t if t.tzinfo is not None else t.replace(tzinfo=UTC)
    except ValueError:
        return None
    # a zero time (Go's 0001-01-01) or the last year: shown in another zone, out of range
    return t if 1 < t.year < 9999 else None


def utc_time(text: object) -> datetime:
    """The time in UTC, to sort by; text that is no time sorts first (``datetime.min``)."""
    t = parse_time(text)
    return datetime.min.replace(tzinfo=UTC) if t is None else t.astimezone(UTC)


def parse_day(text: str, *, month: bool = False) -> date | None:
    """The day ``YYYY-MM-DD`` names (with ``month``, ``YYYY-MM`` too: its first day);
    ``None`` when empty or not a day of the calendar."""
    m = _DAY.fullmatch(text.strip())
    if not m or (m.group(3) is None and not month):
        return None
    try:
        return date(int(m.group(1)), int(m.group(2)), int(m.group(3) or 1))
    except ValueError:
        return None


def day_number(text: str) -> int | None:
    """``YYYY-MM-DD`` or ``YYYY-MM`` as the number YYYYMMDD (a month: its first day)."""
    d = parse_day(text, month=True)
    return None if d is None else d.year * 10000 + d.month * 100 + d.day
