"""Evidence: turn references as agents write them, names, each item's state, metrics."""

from __future__ import annotations

from pathlib import Path

import pytest

from store.insight.evidence import (
    check_item,
    check_report,
    compare_metrics,
    names_in,
    parse_turn_refs,
)
from store.insight.evidence import (
    check_item as check,
)
from store.insight.turn_numbering import by_message
from store.models.kpt import KeepItem, KptMetrics, KptReport, ProblemItem, TryItem
from store.read.transcript import read_transcript
from tests.transcript_lines import CORPUS, sample_session


def transcript_metrics(t, nb):  # type: ignore[no-untyped-def]
    """The metrics as counted from the transcript in numbering ``nb``."""
    return {row.name: row.counted for row in compare_metrics(None, t, nb)}


def spans(text: str, plain: bool = False) -> list[tuple[int, int]]:
    return [(r.first, r.last) for r in parse_turn_refs(text, plain=plain)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("turn 12", [(12, 12)]),
        ("Turn 5-8: tests first", [(5, 8)]),
        ("ターン3-10でテスト先行、以降の修正指示ゼロ", [(3, 10)]),
        ("ターン12でnpm install実行", [(12, 12)]),
        ("턴 4에서 실패", [(4, 4)]),
        ("4턴에서", [(4, 4)]),
        ("3번째 턴", [(3, 3)]),
        ("T12", [(12, 12)]),
        ("see T3 and T7", [(3, 3), (7, 7)]),
        ("turns 3, 5 and 7", [(3, 3), (5, 5), (7, 7)]),
        ("Turns 10–12", [(10, 12)]),
        ("第3ターン", [(3, 3)]),
        ("3ターン目で", [(3, 3)]),
        ("ターン３〜１０", [(3, 10)]),  # full-width digits
        ("ターン8~5", [(5, 8)]),  # reversed
        ("2026-02-08 HTTP2 JWT1 v1.2", []),  # dates, versions, names: no turns
        ("턴 12, 2026-11-02 파티션", [(12, 12)]),  # a date after a list's comma
        ("턴 5, 01:58~02:40 동안", [(5, 5)]),  # a time
        ("ran 42 tools", []),
        ("", []),
    ],
)
def test_turn_references(text: str, expected: list[tuple[int, int]]) -> None:
    assert spans(text) == expected


def test_turn_range_field_takes_plain_ranges() -> None:
    assert spans("5-8", plain=True) == [(5, 8)]
    assert spans("12", plain=True) == [(12, 12)]
    assert spans("5〜8", plain=True) == [(5, 8)]
    assert spans("ターン5-8", plain=True) == [(5, 8)]
    assert spans("5-8") == []  # in free text a bare range is not a turn
    huge = parse_turn_refs("1-999999", plain=True)[0]
    assert huge.turns() == [1, 999999]  # a typo does not cost memory


def test_names() -> None:
    assert [
        (n.kind, n.text) for n in names_in("ターン12でnpm install実行、package.jsonを確認せず")
    ] == [
        ("file", "package.json"),
        ("command", "npm install"),
    ]
    assert [n.text for n in names_in("edited src/auth/middleware.ts; ran `uv run pytest`")] == [
        "uv run pytest",
        "src/auth/middleware.ts",
    ]
    assert names_in("Node.js v1.2.3 e.g. make sure to go to https://example.com/a/b") == []
    assert [n.text for n in names_in("~/.claude/CLAUDE.md を更新")] == ["~/.claude/CLAUDE.md"]


@pytest.fixture
def transcript(tmp_path: Path):  # type: ignore[no-untyped-def]
    return read_transcript(sample_session().write(tmp_path))


def test_found_partial_not_found(tmp_path: Path) -> None:
    """In one message = one turn (the sample's turns are listed in its docstring)."""
    t = read_transcript(sample_session().write(tmp_path))
    msg = by_message(t)

    def check_item(t, section, item):  # type: ignore[no-untyped-def]
        return check(t, section, item, msg)

    transcript = t
    found = check_item(
        transcript,
        "problem",
        ProblemItem(id="prob-001", evidence="ターン4でnpm install実行、失敗", category="error"),
    )
    assert found.state == "found" and found.cited == [4]
    assert found.names == {"npm install": [4]}

    beyond = check_item(
        transcript, "keep", KeepItem(id="keep-001", evidence="Turn 40: tests first")
    )
    assert beyond.state == "not_found" and beyond.missing_turns == [40] and beyond.turns == 10

    never = check_item(
        transcript,
        "keep",
        KeepItem(id="keep-002", description="edited lib/jwt.py", evidence="good"),
    )
    assert never.state == "not_found" and never.names == {"lib/jwt.py": []}

    elsewhere = check_item(
        transcript, "keep", KeepItem(id="keep-003", description="src/auth.ts を編集", evidence="T2")
    )
    assert elsewhere.state == "partial" and elsewhere.names == {"src/auth.ts": [7]}

    some_beyond = check_item(
        transcript, "problem", ProblemItem(id="p", evidence="turn 2", turn_range="9-14")
    )
    assert some_beyond.state == "partial" and some_beyond.missing_turns == [11, 12, 13, 14]

    no_error = check_item(
        transcript, "problem", ProblemItem(id="p2", evidence="turn 2", category="error")
    )
    assert no_error.state == "partial" and "no tool call failed" in no_error.notes[0]

    only_turns = check_item(transcript, "keep", KeepItem(id="k", evidence="ターン1-3"))
    assert only_turns.state == "found"

    nothing = check_item(transcript, "try", TryItem(id="try-001", description="be careful"))
    assert nothing.state == "unchecked" and not nothing.missing

    none = check_item(None, "keep", KeepItem(id="k", evidence="turn 3"))
    assert none.state == "no_transcript" and none.cited == [3]


def test_metrics_beside_the_report(transcript) -> None:  # type: ignore[no-untyped-def]
    counted = transcript_metrics(transcript, by_message(transcript))
    assert counted == {
        "session_duration_turns": 10,
        "user_turns": 4,
        "assistant_turns": 6,
        "tool_use_count": 4,
        "unique_tools": ["Read", "Bash", "Edit"],
        "code_changes_count": 1,
        "error_count": 1,
        "correction_count": None,  # another writer's definitions: not counted
        "backtrack_count": None,
    }
    report = KptReport(
        id="kpt-20260208-001",
        session_id="s",
        keep=[KeepItem(id="keep-001", evidence="Turn 40")],
        problem=[ProblemItem(id="prob-001", evidence="ターン2でnpm install")],
        metrics=KptMetrics(
            session_duration_turns=23, tool_use_count=4, unique_tools=["bash", "read", "edit"]
        ),
    )
    result = check_report(report, transcript)
    assert result.missing == ["kpt-20260208-001/keep-001"]
    assert result.check("prob-001").state == "found"  # type: ignore[union-attr]
    rows = {m.name: m for m in result.metrics}
    assert rows["session_duration_turns"].differs
    assert not rows["tool_use_count"].differs
    assert not rows["unique_tools"].differs  # case and order do not matter
    assert not rows["error_count"].differs  # not reported: nothing to compare
    data = result.as_dict()
    assert data["turns"] == 7  # the skill's numbering: nothing fits another clearly better
    assert data["numbering"]["name"] == "trace"  # type: ignore[index]
    assert data["items"]["kpt-20260208-001/keep-001"]["state"] == "not_found"  # type: ignore[index]


def test_turn_numbering_agrees_with_the_metrics_convention() -> None:
    """session_duration_turns = user_turns + assistant_turns on every corpus sample."""
    for path in sorted(CORPUS.glob("*.jsonl")):
        t = read_transcript(path)
        m = transcript_metrics(t, by_message(t))
        assert m["session_duration_turns"] == m["user_turns"] + m["assistant_turns"]  # type: ignore[operator]


def test_check_session_finds_the_transcript(tmp_path: Path) -> None:
    from store.insight.evidence import check_session
    from store.workspace import Workspace
    from tests.transcript_lines import SID

    sample_session().write(tmp_path)
    ws = Workspace(tmp_path)
    report = KptReport(
        id="kpt-20260208-001", session_id=SID, keep=[KeepItem(id="keep-001", evidence="T2")]
    )
    result = check_session(ws, report)
    assert result.turns == 7 and result.check("keep-001").state == "found"  # type: ignore[union-attr]
    orphan = check_session(
        ws, KptReport(id="kpt-20260208-002", session_id="gone", keep=[KeepItem(id="k")])
    )
    assert orphan.transcript_path is None and orphan.check("k").state == "no_transcript"  # type: ignore[union-attr]


def test_windows_paths_match_the_files_an_item_names(tmp_path: Path) -> None:
    """Claude Code on Windows writes ``C:\\work\\app\\src\\auth.ts``; an item says ``src/auth.ts``."""
    from tests.transcript_lines import TranscriptWriter

    w = TranscriptWriter().user("fix it")
    w.assistant("", [("Edit", {"file_path": "C:\\work\\app\\src\\auth.ts"}, "ok", False)])
    t = read_transcript(w.write(tmp_path))
    check = check_item(t, "keep", KeepItem(id="k", description="edited src/auth.ts", evidence="T1"))
    assert check.state == "found" and check.names == {"src/auth.ts": [1, 2]}  # call, result


def test_an_omission_naming_what_was_never_done_is_not_missing(tmp_path: Path) -> None:
    from store.models.kpt import OmissionItem

    t = read_transcript(sample_session().write(tmp_path))
    item = OmissionItem(id="omit-001", description="settings.py was never checked")
    check = check_item(t, "omission", item)
    assert check.state == "unchecked" and check.names == {"settings.py": []}
    assert not check.missing


def test_a_try_item_naming_a_file_for_next_time_is_not_missing(tmp_path: Path) -> None:
    from store.models.kpt import TryItem

    t = read_transcript(sample_session().write(tmp_path))
    plan = TryItem(id="try-001", description="add a check to scripts/release.sh next time")
    assert check_item(t, "try", plan).state == "unchecked"
    cited = TryItem(id="try-002", description="guard scripts/release.sh", evidence="turn 4")
    check = check_item(t, "try", cited)
    assert check.state == "partial" and not check.missing  # the turn exists, the file is new
    beyond = TryItem(id="try-003", description="x", evidence="turn 40")
    assert check_item(t, "try", beyond).missing  # a turn past the end is still not found
