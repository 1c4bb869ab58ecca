"""Evidence in the numbering the report's writer used (issue 39, point 3): the hurikaeri
skill's trace turns by default (a turn starts at each run of ``user`` lines, a prompt or tool
results), another only when the report fits it clearly better; metrics by the writer's
definition; sidechains, compaction summaries and the older transcript layout."""

from __future__ import annotations

from pathlib import Path

from store.insight.evidence import check_report, check_session
from store.models.kpt import KeepItem, KptMetrics, KptReport, ProblemItem
from store.read.transcript import read_transcript
from store.workspace import Workspace
from tests.transcript_lines import SID, TranscriptWriter

REAL = Path(__file__).resolve().parents[1] / "fixtures" / "spotter-transcripts"


def three_prompts() -> TranscriptWriter:
    """A 3-prompt session as Claude Code writes it: a snapshot line before each prompt, each
    tool call on its own line, its result right after, hook lines between."""
    w = TranscriptWriter()
    w.snapshot().user("Fix the login redirect")
    w.assistant(
        "Reading the config first", [("Read", {"file_path": "/app/package.json"}, "{}", False)]
    )
    w.assistant("", [("Edit", {"file_path": "/app/src/auth.ts"}, "ok", False)])
    w.assistant("Done.")
    w.system("stop_hook_summary")
    w.snapshot().user("Now run the tests")
    w.assistant("", [("Bash", {"command": "npm test"}, "1 failing", True)])
    w.assistant("One test fails.")
    w.snapshot().user("Thanks")
    w.assistant("You're welcome.")
    return w


def report(*items: KeepItem | ProblemItem, metrics: KptMetrics | None = None) -> KptReport:
    keep = [i for i in items if isinstance(i, KeepItem)]
    problem = [i for i in items if isinstance(i, ProblemItem)]
    return KptReport(
        id="kpt-20260208-001", session_id=SID, keep=keep, problem=problem, metrics=metrics
    )


def test_turn_2_of_a_three_prompt_session_is_the_skills_turn_2(tmp_path: Path) -> None:
    """ "Turn 2: Edit src/auth.ts": the Read's result starts the skill's turn 2, and the Edit
    follows it. One message = one turn put the Edit in turn 3: "partial"."""
    t = read_transcript(three_prompts().write(tmp_path))
    result = check_report(report(KeepItem(id="keep-001", evidence="Turn 2: Edit src/auth.ts")), t)
    check = result.check("keep-001")
    assert check is not None and check.state == "found", check
    assert result.numbering == "trace" and check.numbering == "trace"
    assert check.names == {"src/auth.ts": [2, 3]}  # the call, then its result
    assert check.view_turns == [2, 3]  # where the transcript tab shows turn 2
    # the failed test run: called in the skill's turn 4, failed (its result) in turn 5
    err = check_report(
        report(ProblemItem(id="prob-001", evidence="Turn 5: npm test failed", category="error")), t
    ).check("prob-001")
    assert err is not None and err.state == "found" and not err.notes


def test_metrics_by_the_skills_definitions(tmp_path: Path) -> None:
    """What the skill's trace script prints for this session, taken as the report's
    metrics, is equal everywhere: no ``≠``."""
    w = three_prompts()
    w.user("いや、そうじゃなくて src/auth.ts を直してください")  # a correction, by its phrases
    w.assistant("", [("Edit", {"file_path": "/app/src/auth.ts"}, "ok", False)])
    t = read_transcript(w.write(tmp_path))
    metrics = KptMetrics(
        user_turns=8,
        assistant_turns=7,
        tool_use_count=4,
        unique_tools=["Read", "Edit", "Bash"],
        code_changes_count=1,  # files written, not Edit calls
        error_count=1,
        correction_count=1,
        backtrack_count=1,  # src/auth.ts written twice
    )
    result = check_report(report(KeepItem(id="keep-001", evidence="turn 2"), metrics=metrics), t)
    assert result.numbering == "trace"
    rows = {m.name: m for m in result.metrics}
    assert [n for n, m in rows.items() if m.differs or m.other] == []
    assert rows["code_changes_count"].definition == "files written by Write/Edit"
    # the schema's words, "Write/Edit calls", are another definition: said, not marked ≠
    calls = check_report(
        report(KeepItem(id="k", evidence="turn 2"), metrics=KptMetrics(code_changes_count=2)), t
    )
    row = next(m for m in calls.metrics if m.name == "code_changes_count")
    assert not row.differs and row.other == "Write/Edit/MultiEdit/NotebookEdit calls"


def test_a_real_session_numbered_and_counted_as_the_skill_does() -> None:
    """marot/spotter's real transcript (progress, snapshot, system lines, a Task): the
    skill's script said user_turns 15, assistant_turns 14, tool uses 16, …; its Glob ran in
    its turn 2 (one message = one turn: turn 3)."""
    t = read_transcript(REAL / "subagent.jsonl")
    metrics = KptMetrics(
        user_turns=15,
        assistant_turns=14,
        tool_use_count=16,
        unique_tools=[
            "AskUserQuestion",
            "Bash",
            "ExitPlanMode",
            "Glob",
            "Read",
            "Task",
            "WebFetch",
            "WebSearch",
            "Write",
        ],
        code_changes_count=1,
        error_count=0,
        correction_count=2,
        backtrack_count=0,
    )
    items = (
        KeepItem(id="keep-001", evidence="Turn 2: `Glob` for the project's mix.exs"),
        KeepItem(id="keep-002", evidence="turn 8: wrote plan.md before creating beads"),
    )
    result = check_report(report(*items, metrics=metrics), t)
    assert result.numbering == "trace" and result.turns == 15
    assert {k: c.state for k, (_s, _i, c) in result.items.items()} == {
        "kpt-20260208-001/keep-001": "found",
        "kpt-20260208-001/keep-002": "found",
    }
    assert [m.name for m in result.metrics if m.differs] == []
    heavy = read_transcript(REAL / "tool_heavy.jsonl").trace
    assert (heavy.user_turns, heavy.assistant_turns, heavy.tool_use_count) == (8, 5, 6)


def test_a_report_written_one_message_per_turn_is_checked_so(tmp_path: Path) -> None:
    """The report's own counts and citations fit one message = one turn clearly better:
    checked in it, and said."""
    t = read_transcript(three_prompts().write(tmp_path))
    items = (
        KeepItem(id="keep-001", evidence="Turn 3: Edit src/auth.ts"),
        KeepItem(id="keep-002", evidence="Turn 6: npm test"),
    )
    metrics = KptMetrics(session_duration_turns=9, user_turns=3, assistant_turns=6)
    result = check_report(report(*items, metrics=metrics), t)
    assert result.numbering == "message" and result.turns == 9
    assert "one message = one turn" in str(result.as_dict()["numbering"])
    assert all(c.state == "found" for _s, _i, c in result.items.values())
    assert [m.name for m in result.metrics if m.differs] == []


def test_sidechain_lines_are_turns_to_the_skill(tmp_path: Path) -> None:
    """A sub-agent's lines in the session's file: the skill's script counts them (turns,
    tool uses); one message = one turn does not."""
    w = TranscriptWriter()
    w.user("Explore the repo")
    w.assistant(
        "", [("Task", {"description": "explore", "prompt": "find auth"}, "found it", False)]
    )
    w.sidechain("find auth", [("Grep", {"pattern": "auth", "path": "src/session.ts"}, "src/a.ts")])
    w.assistant("", [("Edit", {"file_path": "/app/src/auth.ts"}, "ok", False)])
    t = read_transcript(w.write(tmp_path))
    metrics = KptMetrics(user_turns=4, assistant_turns=3, tool_use_count=3)
    item = KeepItem(id="keep-001", evidence="Turn 3: the sub-agent grepped src/session.ts")
    result = check_report(report(item, metrics=metrics), t)
    assert result.numbering == "trace"
    assert result.check("keep-001").state == "found"  # type: ignore[union-attr]
    assert [m.name for m in result.metrics if m.differs] == []


def test_a_compaction_summary_is_no_prompt_and_no_evidence(tmp_path: Path) -> None:
    """``/compact`` leaves a summary as a ``user`` line: no prompt of the person, and what
    it retells (lib/jwt.py) was not done in the session's lines."""
    w = three_prompts()
    w.compact("This session is being continued... Earlier we edited lib/jwt.py.")
    w.user("Go on")
    w.assistant("Continuing.")
    t = read_transcript(w.write(tmp_path))
    assert t.user_turns == 4  # the three prompts and "Go on"
    # the skill counts the summary's line as a turn ("Go on" right after it: the same run)
    assert t.trace.user_turns == 7 and t.trace.turn == 7
    result = check_report(report(KeepItem(id="keep-001", description="edited lib/jwt.py")), t)
    assert result.check("keep-001").state == "not_found"  # type: ignore[union-attr]


def test_the_older_layout_the_skill_looks_in(tmp_path: Path) -> None:
    """``projects/<slug>/sessions/<dir>/<session>.jsonl`` (the skill's ``ls`` pattern)."""
    text = three_prompts().text()
    older = tmp_path / "projects" / "-app" / "sessions" / "2026-02-08" / f"{SID}.jsonl"
    older.parent.mkdir(parents=True)
    older.write_text(text, encoding="utf-8")
    by_dir = tmp_path / "projects" / "-app" / "sessions" / "abc-123" / "transcript.jsonl"
    by_dir.parent.mkdir(parents=True)
    by_dir.write_text(text, encoding="utf-8")
    ws = Workspace(tmp_path)
    item = KeepItem(id="keep-001", evidence="Turn 2: Edit src/auth.ts")
    found = check_session(ws, report(item))
    assert found.transcript_path == older and found.check("keep-001").state == "found"  # type: ignore[union-attr]
    other = KptReport(id="kpt-20260208-002", session_id="abc-123", keep=[item])
    assert check_session(ws, other).transcript_path == by_dir


def test_a_report_written_one_prompt_per_turn_is_checked_so(tmp_path: Path) -> None:
    """Counts of prompts and a citation of the second prompt's work: one prompt = one turn."""
    t = read_transcript(three_prompts().write(tmp_path))
    metrics = KptMetrics(session_duration_turns=3, user_turns=3)
    result = check_report(
        report(KeepItem(id="keep-001", evidence="Turn 2: npm test"), metrics=metrics), t
    )
    assert result.numbering == "prompt" and result.turns == 3
    assert result.check("keep-001").state == "found"  # type: ignore[union-attr]
