"""One reader of times and dates in agent text; the inputs its callers once read each their
own way, and which way is kept."""

from __future__ import annotations

import time
from datetime import UTC, date, datetime, timedelta, timezone

import pytest

from store.ledger.files import seconds_of
from store.read.isotime import day_number, parse_day, parse_time, utc_time
from store.search.query import QueryError, parse_query

NINE = timezone(timedelta(hours=9))


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("2026-01-02T03:04:05Z", datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)),
        ("2026-01-02T03:04:05z", datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)),
        (" 2026-01-02T03:04:05+09:00\n", datetime(2026, 1, 2, 3, 4, 5, tzinfo=NINE)),
        ("2026-01-02T03:04:05", datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)),  # no zone: UTC
        ("2026-01-02", datetime(2026, 1, 2, tzinfo=UTC)),  # a date alone: its midnight
        ("0001-01-01T00:00:00+01:00", None),  # before the first time UTC holds
        ("0001-01-01T00:00:00Z", None),  # a zero time: out of range in a zone west of UTC
        ("9999-12-31T23:00:00Z", None),
        ("yesterday", None),
        ("", None),
        (None, None),
        (20260102, None),
    ],
)
def test_parse_time(text: object, want: datetime | None) -> None:
    got = parse_time(text)
    assert got == want
    assert got is None or got.utcoffset() == want.utcoffset()  # the zone as written


def test_utc_time_sorts_what_is_no_time_first() -> None:
    # the sessions' own reader raised OverflowError on the first of these
    for text in ("0001-01-01T00:00:00+01:00", "not a time", None):
        assert utc_time(text) == datetime.min.replace(tzinfo=UTC)
    assert utc_time("2026-01-02T08:00:00+09:00") == datetime(2026, 1, 1, 23, tzinfo=UTC)
    assert utc_time("2026-01-02T08:00:00+09:00").tzinfo is UTC  # its date is the UTC day


@pytest.mark.parametrize(
    ("text", "day", "month_day"),
    [
        ("2026-01-31", date(2026, 1, 31), date(2026, 1, 31)),
        (" 2026-01-31 ", date(2026, 1, 31), date(2026, 1, 31)),
        ("2026-01", None, date(2026, 1, 1)),  # a month: only where a query allows it
        ("2026-02-31", None, None),  # search once took it as 20260231
        ("20260102", None, None),  # the sessions' filter once took these two
        ("2026-W01-1", None, None),
        ("2026-00", None, None),
        ("26-01-01", None, None),
        ("", None, None),
    ],
)
def test_parse_day(text: str, day: date | None, month_day: date | None) -> None:
    assert parse_day(text) == day
    assert parse_day(text, month=True) == month_day


def test_day_number() -> None:
    assert day_number("2026-01") == 20260101
    assert day_number("2026-01-31") == 20260131
    assert day_number("2026-13") is None


def test_a_query_refuses_a_day_the_calendar_lacks() -> None:
    with pytest.raises(QueryError, match="expects a date"):
        parse_query("after:2026-02-31")
    assert parse_query("after:2026-02-28").filters


def test_a_ledger_time_without_zone_is_utc_in_any_local_zone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("TZ", "Asia/Tokyo")
    time.tzset()
    try:
        want = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC).timestamp()
        assert seconds_of("2026-01-02T03:04:05") == want
    finally:
        monkeypatch.undo()
        time.tzset()
