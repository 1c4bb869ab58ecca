"""A process writing transactions, killed (SIGKILL) at random moments, 40 times: after each
kill ``recover()`` leaves every file as the last completed transaction left it, and at the
end every transaction done can be undone, back to the workspace byte for byte as it was
(``benchmarks/tx_kill.py`` runs it 300 times and prints the figures)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.hardening.tx_kill_harness import run

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="needs fork and SIGKILL")


@pytest.mark.slow
def test_killed_at_random_moments_nothing_is_left_half_done(tmp_path: Path) -> None:
    fig = run(tmp_path / "ws", runs=40, seed=16)
    assert fig.problems == [], fig.problems[:10]
    assert fig.inconsistent == 0
    assert fig.runs == 40 and fig.committed > 20
    assert fig.identical_at_end, "undoing everything did not give the workspace back"
