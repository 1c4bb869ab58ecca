"""Times in the History view and the ``history`` command, in the local zone."""

from __future__ import annotations

import time

import pytest


def test_a_zero_time_in_the_ledger_is_shown_as_written_west_of_utc(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The History view and ``history`` put a time in the local zone: year 1 west of UTC
    raised OverflowError there (found by the outside review)."""
    from screens.history import when
    from tui.cli.history import _at

    monkeypatch.setenv("TZ", "America/New_York")
    time.tzset()
    try:
        zero = "0001-01-01T00:00:00+00:00"
        assert (when(zero), _at(zero)) == (zero[:16], zero)
    finally:
        monkeypatch.undo()
        time.tzset()
