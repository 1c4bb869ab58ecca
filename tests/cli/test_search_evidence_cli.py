"""``hurikaeri search evidence:missing``: the command line checks the reports' evidence
(cached under .hurikaeri/) before searching, as the app does."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.test_search_cli import run


def test_evidence_missing_on_the_command_line(
    demo_root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _err = run(demo_root, "evidence:missing", "--json", capsys=capsys)
    assert status == 0
    assert {h["id"] for h in json.loads(out)} == {"kpt-20261102-001", "kpt-20261102-001/prob-003"}
    status, _out, err = run(demo_root, "evidence:bogus", capsys=capsys)
    assert status == 2 and "unknown evidence state 'bogus'" in err
