"""Changes since the last review (issue #45): an agent's Edit of CLAUDE.md, written in a
transcript as Claude Code writes it, listed with its diff and attributed to its session and
turn; kept, reverted whole or one hunk, each undone and redone byte for byte; a new
auto-memory topic file listed; a change made during a revert refused; hurikaeri's own
writes moving the reviewed state."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest

from store.check.secrets import SecretFound
from store.config import Config, default_config_path
from store.ledger import Ledger
from store.read.transcript import read_transcript
from store.review.changes import (
    find,
    first_start_line,
    keep,
    keep_edited,
    list_changes,
    revert,
)
from store.review.items import find_item
from store.review.promote import plan_promotion, promote_plans
from store.tx import transactions
from store.tx.agents import AgentRefused
from store.tx.reviewed import INDEX_NAME
from store.workspace import Workspace
from store.write.atomic import WriteError
from tests.transcript_lines import CORPUS, SID, TranscriptWriter

SLUG = "-home-me-app"
RULES = "".join(f"- rule {n}\n" for n in range(2, 9))
REVIEWED = f"# Rules\n\n- one\n- two\n{RULES}- ten\n"
# the agent's Edit changes two places far apart: two hunks
EDITED = REVIEWED.replace("- two\n", "- two, always\n").replace("- ten\n", "- nine\n- ten\n")
GH_TOKEN = "ghp_" + "zjgHWbmPZe9gwWQaq5mcdkU1gJQV3hDKJnQu"


def _ws(tmp_path: Path) -> Workspace:
    root = tmp_path / "claude"
    (root / "projects" / SLUG / "memory").mkdir(parents=True)
    (root / "CLAUDE.md").write_text(REVIEWED)
    (root / "projects" / SLUG / "memory" / "MEMORY.md").write_text("# Memory\n- [debugging]\n")
    return Workspace(root, Config())


def _session(ws: Workspace, tools: list[tuple[str, dict[str, object]]]) -> Path:
    """A session whose 4th turn makes the tool calls, its lines run in the root (``cwd``)."""
    w = TranscriptWriter()
    w.user("read the rules").assistant(
        "Reading.", [("Read", {"file_path": "CLAUDE.md"}, "…", False)]
    )
    w.user("remember that").assistant("Editing.", [(n, i, "ok", False) for n, i in tools])
    w.lines = [line.replace("/home/me/app", str(ws.root)) for line in w.lines]
    return w.write(ws.root, SLUG)


def _agent_edit(ws: Workspace, old: str, new: str, text: str) -> None:
    """An agent's Edit of CLAUDE.md (a path relative to its cwd), and the file it left."""
    _session(ws, [("Edit", {"file_path": "CLAUDE.md", "old_string": old, "new_string": new})])
    (ws.root / "CLAUDE.md").write_text(text)


def _started(ws: Workspace) -> None:
    changes, recorded = list_changes(ws)
    assert (changes, recorded) == ([], 2)
    assert (
        first_start_line(2) == "reviewed state recorded for 2 files; changes from now on are listed"
    )


def test_an_agents_edit_of_claude_md_is_listed_and_attributed(tmp_path: Path) -> None:
    ws = _ws(tmp_path)
    _started(ws)
    assert list_changes(ws) == ([], None)
    _agent_edit(ws, "- two\n", "- two, always\n", EDITED)
    changes, recorded = list_changes(ws)
    assert recorded is None
    [ch] = changes
    assert (ch.key, ch.status, ch.counts(), ch.hunks) == ("CLAUDE.md", "modified", (2, 1), 2)
    assert "-- two\n+- two, always\n" in ch.diff()
    assert ch.source is not None
    assert (ch.source.session, ch.source.turn, ch.source.tool, ch.source.how) == (
        SID,
        4,
        "Edit",
        "content",
    )
    assert ch.marks == []


def test_keep_makes_it_reviewed_and_undo_redo_move_it_back_and_forth(tmp_path: Path) -> None:
    ws = _ws(tmp_path)
    _started(ws)
    index = ws.state_dir / "reviewed" / INDEX_NAME
    _agent_edit(ws, "- two\n", "- two, always\n", EDITED)
    before = index.read_bytes()
    result = keep(ws, list_changes(ws)[0])
    after = index.read_bytes()
    assert list_changes(ws)[0] == []
    assert (ws.root / "CLAUDE.md").read_text() == EDITED
    transactions.undo(ws, result.id)
    assert index.read_bytes() == before
    assert [c.key for c in list_changes(ws)[0]] == ["CLAUDE.md"]
    transactions.redo(ws, result.id)
    assert index.read_bytes() == after
    assert list_changes(ws)[0] == []


def test_revert_restores_the_reviewed_content_and_undo_brings_the_change_back(
    tmp_path: Path,
) -> None:
    ws = _ws(tmp_path)
    _started(ws)
    claude = ws.root / "CLAUDE.md"
    _agent_edit(ws, "- two\n", "- two, always\n", EDITED)
    result = revert(ws, find(list_changes(ws)[0], ws, "CLAUDE.md"))
    assert claude.read_text() == REVIEWED
    assert list_changes(ws)[0] == []
    transactions.undo(ws, result.id)
    assert claude.read_bytes() == EDITED.encode()
    assert [c.key for c in list_changes(ws)[0]] == ["CLAUDE.md"]  # to review again
    transactions.redo(ws, result.id)
    assert claude.read_bytes() == REVIEWED.encode()


def test_edit_then_keep_writes_the_edit_as_reviewed_and_undo_restores_both(
    tmp_path: Path,
) -> None:
    ws = _ws(tmp_path)
    _started(ws)
    claude, index = ws.root / "CLAUDE.md", ws.state_dir / "reviewed" / INDEX_NAME
    _agent_edit(ws, "- two\n", "- two, always\n", EDITED)
    mine = EDITED.replace("- nine\n", "").encode()  # the person keeps one of the two hunks
    before = index.read_bytes()
    result = keep_edited(ws, list_changes(ws)[0][0], mine)
    after = index.read_bytes()
    assert claude.read_bytes() == mine
    assert list_changes(ws)[0] == []  # the edit is the reviewed state
    transactions.undo(ws, result.id)
    assert (claude.read_bytes(), index.read_bytes()) == (EDITED.encode(), before)
    [ch] = list_changes(ws)[0]
    assert ch.current == EDITED.encode() and ch.reviewed == REVIEWED.encode()
    transactions.redo(ws, result.id)
    assert (claude.read_bytes(), index.read_bytes()) == (mine, after)
    assert list_changes(ws)[0] == []


def test_edit_then_keep_is_refused_when_the_file_changed_meanwhile(tmp_path: Path) -> None:
    ws = _ws(tmp_path)
    _started(ws)
    claude, index = ws.root / "CLAUDE.md", ws.state_dir / "reviewed" / INDEX_NAME
    _agent_edit(ws, "- two\n", "- two, always\n", EDITED)
    [ch] = list_changes(ws)[0]
    before = index.read_bytes()
    claude.write_text(EDITED + "- one more, meanwhile\n")
    with pytest.raises(WriteError, match=r"CLAUDE\.md"):
        keep_edited(ws, ch, REVIEWED.encode())
    assert claude.read_text() == EDITED + "- one more, meanwhile\n"
    assert index.read_bytes() == before


def test_edit_then_keep_refuses_an_added_secret_unless_allowed(tmp_path: Path) -> None:
    ws = _ws(tmp_path)
    _started(ws)
    _agent_edit(ws, "- two\n", "- two, always\n", EDITED)
    [ch] = list_changes(ws)[0]
    mine = (EDITED + f"- deploy with {GH_TOKEN}\n").encode()
    with pytest.raises(SecretFound, match=r"the edited CLAUDE\.md holds what looks like a secret"):
        keep_edited(ws, ch, mine)
    assert (ws.root / "CLAUDE.md").read_text() == EDITED
    keep_edited(ws, ch, mine, allow_secrets=True)
    assert (ws.root / "CLAUDE.md").read_bytes() == mine and list_changes(ws)[0] == []


def test_one_hunk_is_reverted_alone(tmp_path: Path) -> None:
    ws = _ws(tmp_path)
    _started(ws)
    claude = ws.root / "CLAUDE.md"
    _agent_edit(ws, "- two\n", "- two, always\n", EDITED)
    [ch] = list_changes(ws)[0]
    result = revert(ws, ch, 2)
    half = REVIEWED.replace("- two\n", "- two, always\n")
    assert claude.read_text() == half
    [left] = list_changes(ws)[0]
    assert (left.counts(), left.hunks) == ((1, 1), 1)
    transactions.undo(ws, result.id)
    assert claude.read_bytes() == EDITED.encode()
    transactions.redo(ws, result.id)
    assert claude.read_bytes() == half.encode()
    with pytest.raises(Exception, match="no hunk 3"):
        revert(ws, list_changes(ws)[0][0], 3)


def test_a_change_made_during_the_revert_is_refused_naming_the_file(tmp_path: Path) -> None:
    ws = _ws(tmp_path)
    _started(ws)
    claude = ws.root / "CLAUDE.md"
    _agent_edit(ws, "- two\n", "- two, always\n", EDITED)
    [ch] = list_changes(ws)[0]
    claude.write_text(EDITED + "- one more, meanwhile\n")
    with pytest.raises(WriteError, match=r"CLAUDE\.md"):
        revert(ws, ch)
    assert claude.read_text() == EDITED + "- one more, meanwhile\n"


def test_a_new_auto_memory_topic_file_is_listed_with_its_writer(tmp_path: Path) -> None:
    ws = _ws(tmp_path)
    _started(ws)
    topic = ws.root / "projects" / SLUG / "memory" / "debugging.md"
    text = "# Debugging\n- run the failing test alone first\n"
    _session(ws, [("Write", {"file_path": str(topic), "content": text})])
    topic.write_text(text)
    [ch] = list_changes(ws)[0]
    assert (ch.key, ch.status, ch.reviewed) == (f"projects/{SLUG}/memory/debugging.md", "new", None)
    assert ch.source is not None and (ch.source.turn, ch.source.tool) == (4, "Write")
    result = revert(ws, ch)  # a new file reverted is removed
    assert not topic.exists()
    transactions.undo(ws, result.id)
    assert topic.read_text() == text


def test_a_deleted_target_is_listed(tmp_path: Path) -> None:
    ws = _ws(tmp_path)
    _started(ws)
    (ws.root / "projects" / SLUG / "memory" / "MEMORY.md").unlink()
    [ch] = list_changes(ws)[0]
    assert (ch.status, ch.current, ch.source) == ("deleted", None, None)
    revert(ws, ch)
    assert (ws.root / "projects" / SLUG / "memory" / "MEMORY.md").read_text().startswith("# Mem")


def test_an_added_secret_is_marked(tmp_path: Path) -> None:
    ws = _ws(tmp_path)
    _started(ws)
    text = REVIEWED + f"- deploy with {GH_TOKEN}\n"
    _agent_edit(ws, "- ten\n", f"- ten\n- deploy with {GH_TOKEN}\n", text)
    [ch] = list_changes(ws)[0]
    assert ch.marks == ["secret"]
    assert GH_TOKEN not in json.dumps(ch.as_json()["secrets"])


def test_a_change_with_no_matching_call_is_unknown(tmp_path: Path) -> None:
    ws = _ws(tmp_path)
    _started(ws)
    (ws.root / "CLAUDE.md").write_text(EDITED)  # a hand edit: no transcript names it
    [ch] = list_changes(ws)[0]
    assert ch.source is None and ch.summary().endswith("unknown")


def test_hurikaeris_own_promotion_moves_the_reviewed_state(tmp_path: Path) -> None:
    ws = _ws(tmp_path)
    (ws.root / "CLAUDE.md").write_text("# Rules\n\n## Ops\n- existing\n")
    (ws.root / "hurikaeri").mkdir()
    (ws.root / "hurikaeri" / "kpt-20260101-001.yaml").write_text(
        "id: kpt-20260101-001\nproblem: []\nomission: []\n"
        "try:\n  - id: try-001\n    description: run the linter first\n"
        "    addresses: []\n    scope: global\n"
        "    persistence_target: {type: claude_md, path: 'CLAUDE.md', section: '## Ops'}\n"
    )
    _started(ws)
    led = Ledger(ws.state_dir)
    result = promote_plans(ws, [plan_promotion(ws, find_item(ws, "kpt-20260101-001/try-001"))])
    assert result is not None and "run the linter first" in (ws.root / "CLAUDE.md").read_text()
    assert list_changes(ws, ledger=led)[0] == []
    transactions.undo(ws, result.id)
    assert list_changes(ws)[0] == []


def test_a_config_file_an_agent_writes_is_a_change_to_review(tmp_path: Path) -> None:
    ws = _ws(tmp_path)
    _started(ws)
    config = default_config_path()
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text('[review]\nagent_decisions = "allow"\n')
    [ch] = list_changes(ws)[0]
    assert (ch.path, ch.status) == (config, "new")
    assert '+agent_decisions = "allow"' in ch.diff()


def test_a_real_transcripts_edit_line_is_matched(tmp_path: Path) -> None:
    """claude-code-log's sample transcript (three lines broken on purpose), its one Edit's
    path pointed at a rules file: read as Claude Code wrote it, matched by content."""
    ws = _ws(tmp_path)
    rules = ws.root / "rules" / "decorator_example.md"
    rules.parent.mkdir()
    rules.write_text("# Decorators\n")
    list_changes(ws)  # the first start
    text = (CORPUS / "representative_messages.jsonl").read_text(encoding="utf-8")
    target = ws.root / "projects" / SLUG / "test_session.jsonl"
    target.write_text(text.replace("/tmp/decorator_example.py", str(rules)), encoding="utf-8")
    edit = next(
        json.loads(line)
        for line in text.splitlines()
        if '"name": "Edit"' in line or '"name":"Edit"' in line
    )
    [call] = [p for p in edit["message"]["content"] if p.get("type") == "tool_use"]
    rules.write_text("# Decorators\n" + call["input"]["new_string"] + "\n")
    [ch] = list_changes(ws)[0]
    assert ch.source is not None
    assert (ch.source.session, ch.source.tool, ch.source.how) == ("test_session", "Edit", "content")
    turns = read_transcript(target, "test_session").turns
    assert any(b.tool_id == call["id"] for b in turns[ch.source.turn - 1].tool_calls())


def test_an_unreadable_target_is_neither_changed_nor_deleted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = _ws(tmp_path)
    _started(ws)
    claude = ws.root / "CLAUDE.md"
    claude.write_text(EDITED)
    real = Path.read_bytes

    def read_bytes(self: Path) -> bytes:
        if self == claude:
            raise PermissionError(13, "Permission denied", str(self))
        return real(self)

    with monkeypatch.context() as m:
        m.setattr(Path, "read_bytes", read_bytes)
        assert list_changes(ws)[0] == []
    assert [c.status for c in list_changes(ws)[0]] == ["modified"]


def test_a_fifo_or_folder_in_place_of_a_target_is_listed_deleted_not_waited_on(
    tmp_path: Path,
) -> None:
    """An agent left a FIFO where CLAUDE.md was: reading it blocked ``changes``, ``keep``,
    ``revert`` and the app's Changes screen for ever (#42). A folder there was skipped as
    unreadable: "no changes", though the reviewed file is gone."""
    ws = _ws(tmp_path)
    _started(ws)
    claude = ws.root / "CLAUDE.md"
    claude.unlink()
    os.mkfifo(claude)
    listed: list[list[tuple[str, str]]] = []
    reader = threading.Thread(
        target=lambda: listed.append([(c.key, c.status) for c in list_changes(ws)[0]]),
        daemon=True,
    )
    reader.start()
    reader.join(timeout=60)  # a bound for a failing run only: it ends at once
    assert listed == [[("CLAUDE.md", "deleted")]]
    claude.unlink()
    claude.mkdir()
    assert [(c.key, c.status) for c in list_changes(ws)[0]] == [("CLAUDE.md", "deleted")]


def test_a_refused_revert_says_why_that_file_is_never_written(tmp_path: Path) -> None:
    """CLAUDE.md made a link to an agent's report: the revert is refused, and the refusal
    named the knowledge-base and memory folders (another kind's home), not the reason (#42)."""
    ws = _ws(tmp_path)
    _started(ws)
    report = ws.root / "hurikaeri" / "kpt-20261101-001.yaml"
    report.parent.mkdir()
    report.write_text("id: kpt-20261101-001\n")
    (ws.root / "CLAUDE.md").unlink()
    (ws.root / "CLAUDE.md").symlink_to(report)
    [ch] = list_changes(ws)[0]
    with pytest.raises(WriteError, match="is an agent's KPT report, never a target"):
        revert(ws, ch)
    assert report.read_text() == "id: kpt-20261101-001\n"


def test_a_change_that_pushes_memory_md_past_its_budget_is_marked(tmp_path: Path) -> None:
    ws = _ws(tmp_path)
    memory = ws.root / "projects" / SLUG / "memory" / "MEMORY.md"
    lines = "".join(f"- [topic {n}](topic-{n}.md)\n" for n in range(199))
    memory.write_text(lines)  # 199 of the 200 lines Claude Code loads
    _started(ws)
    memory.write_text(lines + "- [late](late.md)\n- [later](later.md)\n")
    [ch] = list_changes(ws)[0]
    assert ch.marks == ["over budget"]
    assert ch.budget is not None and (ch.budget.before, ch.budget.after) == (199, 201)
    assert [text for _, text in ch.budget.falls_out] == ["- [later](later.md)"]


def test_one_hunk_reverted_keeps_a_bom_and_crlf_lines_byte_for_byte(tmp_path: Path) -> None:
    ws = _ws(tmp_path)
    claude = ws.root / "CLAUDE.md"
    crlf = b"\xef\xbb\xbf" + REVIEWED.replace("\n", "\r\n").encode()
    claude.write_bytes(crlf)
    _started(ws)
    edited = b"\xef\xbb\xbf" + EDITED.replace("\n", "\r\n").encode()
    claude.write_bytes(edited)
    [ch] = list_changes(ws)[0]
    result = revert(ws, ch, 1)
    assert claude.read_bytes() == crlf.replace(b"- ten\r\n", b"- nine\r\n- ten\r\n")
    transactions.undo(ws, result.id)
    assert claude.read_bytes() == edited


def test_keep_and_revert_are_refused_inside_an_agents_session(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = _ws(tmp_path)
    _started(ws)
    index = ws.state_dir / "reviewed" / INDEX_NAME
    _agent_edit(ws, "- two\n", "- two, always\n", EDITED)
    [ch] = list_changes(ws)[0]
    before = index.read_bytes()
    monkeypatch.setenv("CLAUDECODE", "1")
    with pytest.raises(AgentRefused, match="keep refused"):
        keep(ws, [ch])
    with pytest.raises(AgentRefused, match="revert refused"):
        revert(ws, ch)
    assert index.read_bytes() == before
    assert (ws.root / "CLAUDE.md").read_text() == EDITED
    assert [c.key for c in list_changes(ws)[0]] == ["CLAUDE.md"]  # agents may look


def test_an_edit_of_a_file_linked_as_agents_md_is_one_change(tmp_path: Path) -> None:
    """obra/superpowers' AGENTS.md is a link to its CLAUDE.md: an edit of it is one change,
    also where the reviewed state was taken of both names (before this was one file)."""
    import shutil

    from store.review.changes import tracked
    from store.tx.reviewed import Reviewed
    from tests.conftest import FIXTURES

    proj = tmp_path / "superpowers"
    shutil.copytree(FIXTURES / "superpowers-agents-link", proj, symlinks=True)
    ws = Workspace(tmp_path / "claude", Config(projects=[str(proj)]))
    assert [p.name for p in tracked(ws).values()] == ["CLAUDE.md"]
    changes, recorded = list_changes(ws)
    assert (changes, recorded) == ([], 1)
    rv = Reviewed.load(ws)  # as recorded before: the link's name too
    rv.set(str(proj / "AGENTS.md"), (proj / "CLAUDE.md").read_bytes())
    rv.save(None)
    with (proj / "CLAUDE.md").open("a", encoding="utf-8") as f:
        f.write("- Always run the tests\n")
    assert [(c.path.name, c.status) for c in list_changes(ws)[0]] == [("CLAUDE.md", "modified")]


def test_an_agents_md_replaced_by_a_link_to_claude_md_is_a_change(tmp_path: Path) -> None:
    """An agent replaces a reviewed AGENTS.md, its own text, by a link to CLAUDE.md: what was
    there is gone, and the change is listed."""
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "CLAUDE.md").write_text("# Claude\n- Always run the tests\n", encoding="utf-8")
    (proj / "AGENTS.md").write_text("# Agents\n- Never push to main\n", encoding="utf-8")
    ws = Workspace(tmp_path / "claude", Config(projects=[str(proj)]))
    assert list_changes(ws)[1] == 2
    (proj / "AGENTS.md").unlink()
    (proj / "AGENTS.md").symlink_to("CLAUDE.md")
    changes = list_changes(ws, attribute=False)[0]
    assert [(c.path.name, c.status) for c in changes] == [("AGENTS.md", "modified")]
    assert b"Never push to main" in (changes[0].reviewed or b"")
