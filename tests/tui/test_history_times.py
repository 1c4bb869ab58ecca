"""Times in the History view and the ``history`` command, in the local zone."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

from store.review.items import decide_keys
from store.workspace import Workspace
from tui.cli.main import main

ZERO = "0001-01-01T00:00:00+00:00"


def test_a_zero_time_in_the_ledger_is_shown_as_written_west_of_utc(
    demo_root: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The History view and ``history`` put a time in the local zone: year 1 (Go's zero
    time, or a hand-edited line) west of UTC raised OverflowError there (the outside
    review)."""
    from screens.history import when

    decide_keys(Workspace(demo_root), ["kpt-20261110-002/keep-001"], "approve")
    ledger = demo_root / ".hurikaeri" / "ledger.jsonl"
    text = ledger.read_text(encoding="utf-8")
    ledger.write_text(re.sub(r'"at": "[^"]+"', f'"at": "{ZERO}"', text), encoding="utf-8")
    monkeypatch.setenv("TZ", "America/New_York")
    time.tzset()
    try:
        assert when(ZERO) == ZERO[:16]
        assert main(["history", "--root", str(demo_root)]) == 0
        assert ZERO in capsys.readouterr().out
    finally:
        monkeypatch.undo()
        time.tzset()
