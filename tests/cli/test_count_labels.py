"""Counts on the command line read right for one (issue 42): ``1 error``, ``1 match``,
``1 stale finding``, not ``1 error(s)``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tui.cli.main import main


def test_lint_of_one_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "kpt-20260101-001.yaml"
    bad.write_text("id: kpt-20260101-001\nkeep: [\n")
    assert main(["lint", str(bad)]) == 1
    assert capsys.readouterr().err.splitlines()[-1] == "1 error, 0 warnings in 1 file"


def test_search_with_one_hit(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lessons = tmp_path / "lessons" / "user"
    lessons.mkdir(parents=True)
    record = {"id": "ll-user-20260101-001", "date": "2026-01-01T10:00:00", "session_id": "s1"}
    record |= {"type": "user_question_answer", "title": "zanzibar tokens", "summary": "x"}
    (lessons / "lessons.jsonl").write_text(json.dumps(record) + "\n")
    assert main(["search", "zanzibar", "--root", str(tmp_path)]) == 0
    assert capsys.readouterr().err.splitlines()[-1] == "1 of 1 match"


def test_targets_of_one_line_and_one_stale_finding(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "hurikaeri").mkdir()
    (tmp_path / "CLAUDE.md").write_text("- run `no-such-tool-xyz --all`\n")
    main(["targets", "--root", str(tmp_path)])
    row = capsys.readouterr().out.splitlines()[0]
    assert row.startswith("CLAUDE.md  [claude_md]  1 line, ") and ", 1 bullet, " in row
    assert main(["targets", "--root", str(tmp_path), "--stale"]) == 0
    assert capsys.readouterr().err == "1 stale finding\n"
