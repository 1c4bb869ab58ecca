"""``hurikaeri evidence`` and the evidence in ``show --json``, on the demo's transcripts
(issue 20): one report all found, one whose metrics disagree, one citing turns past the
session's end."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tui.cli.main import main

FOUND = "kpt-20261028-001"  # every claim in its transcript, metrics equal
METRICS = "kpt-20261029-001"  # evidence found, tool uses / changes / errors differ
MISSING = "kpt-20261102-001"  # prob-003 cites turns 23-30 of a 22-turn session
NO_TRANSCRIPT = "kpt-20261030-001"


def _json(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict]:  # type: ignore[type-arg]
    code = main(list(args))
    return code, json.loads(capsys.readouterr().out)


def test_a_report_whose_evidence_is_found(demo_root: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    code, data = _json(capsys, "evidence", FOUND, "--root", str(demo_root), "--json")
    assert code == 0 and data["turns"] == 23 and data["missing"] == []
    assert data["metrics_differ"] == []
    states = {k.split("/")[1]: v["state"] for k, v in data["items"].items()}
    assert states["keep-001"] == "found" and states["prob-001"] == "found"
    assert states["try-003"] == "unchecked"
    prob = data["items"][f"{FOUND}/prob-001"]
    assert prob["cited_turns"] == [12, 13, 14]
    assert prob["names"] == {"pnpm add express-jwt": [12], "package.json": [13, 14]}


def test_metrics_that_disagree_are_marked(demo_root: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    code = main(["evidence", METRICS, "--root", str(demo_root)])
    out = capsys.readouterr().out
    assert code == 0  # differing metrics are shown, not a failure
    assert "tool_use_count" in out and "57" in out and "27  ≠" in out
    assert "session_duration_turns          26          26\n" in out
    assert "metrics differ: tool_use_count, unique_tools, code_changes_count, error_count" in out


def test_cited_turns_past_the_end_exit_1(demo_root: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    code, data = _json(capsys, "evidence", MISSING, "--root", str(demo_root), "--json")
    assert code == 1 and data["missing"] == [f"{MISSING}/prob-003"]
    assert data["items"][f"{MISSING}/prob-003"]["missing_turns"] == list(range(23, 31))
    assert data["items"][f"{MISSING}/prob-001"]["state"] == "found"  # turn 22 is there
    code = main(["evidence", f"{MISSING}/prob-001", "--root", str(demo_root)])
    out = capsys.readouterr().out
    assert code == 0 and "prob-001" in out and "prob-003" not in out
    assert main(["evidence", f"{MISSING}/nope", "--root", str(demo_root)]) == 1
    assert "has no item 'nope'" in capsys.readouterr().err


def test_no_transcript_says_nothing_could_be_checked(demo_root: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    """Without a transcript nothing was checked: not "no item's evidence is missing" and
    exit 0, which a script takes for a pass (issue 44, point 14)."""
    code = main(["evidence", NO_TRANSCRIPT, "--root", str(demo_root)])
    out = capsys.readouterr().out
    assert code == 1 and "transcript: none found" in out
    assert "– no transcript" in out and "no transcript of this session" not in out
    assert "no item's evidence is missing" not in out
    assert out.rstrip().splitlines()[-1].startswith("nothing could be checked: no transcript")
    code, data = _json(capsys, "evidence", NO_TRANSCRIPT, "--root", str(demo_root), "--json")
    assert code == 1 and data["checked"] is False and data["numbering"] is None
    assert main(["evidence", "--root", str(demo_root)]) == 2  # usage: KPT_ID missing


def test_show_json_includes_the_evidence(demo_root: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    code, data = _json(capsys, "show", MISSING, "--root", str(demo_root), "--json")
    assert code == 0 and data["evidence"]["missing"] == [f"{MISSING}/prob-003"]
    assert data["evidence"]["turns"] == 22
    code, item = _json(capsys, "show", f"{MISSING}/prob-003", "--root", str(demo_root), "--json")
    assert item["evidence"]["state"] == "not_found" and item["evidence"]["turns"] == 22
    assert item["evidence"]["transcript"].endswith(".jsonl")
    # text output is unchanged: no transcript is read for it
    assert main(["show", MISSING, "--root", str(demo_root)]) == 0
    assert "evidence" not in capsys.readouterr().out.split("\n  [")[0]


def test_show_json_without_a_transcripts_location_is_cheap(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    root = tmp_path / "ws"
    (root / "hurikaeri").mkdir(parents=True)
    (root / "hurikaeri" / "kpt-20260101-001.yaml").write_text(
        "id: kpt-20260101-001\nsession_id: abc\nkeep:\n  - id: keep-001\n    evidence: turn 3\n"
    )
    code, data = _json(capsys, "show", "kpt-20260101-001/keep-001", "--root", str(root), "--json")
    assert code == 0 and data["evidence"]["state"] == "no_transcript"
    assert data["evidence"]["transcript"] is None and not (root / "projects").exists()


def _workspace(tmp_path: Path, transcript: str, report: str) -> Path:
    from tests.transcript_lines import SID

    root = tmp_path / "ws"
    path = root / "projects" / "-app" / f"{SID}.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text(transcript, encoding="utf-8")
    (root / "hurikaeri").mkdir()
    (root / "hurikaeri" / "kpt-20260208-001.yaml").write_text(
        f"id: kpt-20260208-001\nsession_id: {SID}\n" + report, encoding="utf-8"
    )
    return root


def test_the_numbering_lines_not_read_and_each_fact_once(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    """The numbering used is said; three unreadable lines are "3 lines not read" (not 1:
    one warning per unknown type); a name never in the session is said once, not again as
    a note; ``unique_tools`` keeps the table's columns (issue 39 point 3, issue 44 point 14)."""
    from tests.transcript_lines import TranscriptWriter

    w = TranscriptWriter().user("Fix the login")
    w.assistant("", [("Read", {"file_path": "/app/package.json"}, "{}", False)])
    w.assistant("", [("Edit", {"file_path": "/app/src/auth.ts"}, "ok", False)])
    for _ in range(3):
        w.raw('{"type": "future-kind", "x": 1}')
    report = (
        "keep:\n  - id: keep-001\n    description: edited src/auth.ts and lib/jwt.py\n"
        "    evidence: 'Turn 2: Edit src/auth.ts'\n"
        "metrics:\n  unique_tools: [Read, Edit, Glob, WebSearch, TodoWrite, Bash]\n"
    )
    root = _workspace(tmp_path, w.text(), report)
    code = main(["evidence", "kpt-20260208-001", "--root", str(root)])
    out = capsys.readouterr().out
    assert code == 0
    assert "3 lines not read" in out
    assert "turns: the hurikaeri skill's turns" in out
    assert out.count("lib/jwt.py") == 2  # the description, and one line saying where it is
    assert "lib/jwt.py: never in the session" in out
    table = [line for line in out.splitlines() if line.startswith(("metric ", "unique_tools"))]
    assert len(table[1]) <= len(table[0]) + 3  # "6 tools", not the list
    assert "named by the report, not used: Glob, WebSearch, TodoWrite, Bash" in out
    code, data = _json(capsys, "show", "kpt-20260208-001", "--root", str(root), "--json")
    assert data["evidence"]["numbering"]["name"] == "trace"
    assert data["evidence"]["transcript_problems"] == 3
    _code, item = _json(capsys, "show", "kpt-20260208-001/keep-001", "--root", str(root), "--json")
    assert item["evidence"]["numbering"] == "trace" and item["evidence"]["state"] == "partial"


def test_the_demo_reports_written_one_message_per_turn(demo_root: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    """The demo's reports count and cite one message = one turn: checked so, and said."""
    code, data = _json(capsys, "evidence", FOUND, "--root", str(demo_root), "--json")
    assert (
        code == 0
        and data["numbering"]["name"] == "message"
        and "clearly better" in data["numbering"]["why"]
    )
    rows = {m["name"]: m for m in data["metrics"]}
    assert rows["correction_count"]["counted"] is None  # its writer's own definition
    assert not rows["correction_count"]["differs"]
