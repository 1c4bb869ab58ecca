"""Every write is one transaction (issue 16): do → undo → the files byte-identical to before
→ redo → byte-identical to after, for each action; refusals that block nothing else; and
what a killed process left half done rolled back on the next start."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from store.errors import ReviewError
from store.ledger import Ledger, current_channel, now_iso
from store.read.kinds import Kind
from store.review.external_edit import ExternalEdit, save_external_edit
from store.review.feedback_export import export_feedback
from store.review.inbox import decide_proposals, find_proposal, plan_decision, propose
from store.review.item_edit import edit_item
from store.review.items import decide_keys, find_item
from store.review.lessons import archive_lesson, edit_lesson_tx, find_lesson, remove_lesson
from store.review.person_report import render_report, write_person_report
from store.review.promote import plan_promotion, promote_plans
from store.review.retarget import retarget_items
from store.review.wrapup import import_wrapup
from store.tx import journal, transactions
from store.tx.transactions import (
    TxResult,
    UndoRefused,
    describe_turn,
    history,
    recover,
    redo,
    tx_diff,
    undo,
    undo_last,
)
from store.workspace import Workspace
from store.write.policy import in_place
from tests.ledger_forge import ours, replace_tx, write_lines

RID = "kpt-20261231-901"
BATCH_REPORT = f"""id: {RID}
session_id: s-tx
session_summary: promoting several items
keep:
  - id: keep-001
    description: kept
problem:
  - id: prob-001
    description: a problem
try:
  - id: try-001
    description: run the linter before every commit
    addresses: [prob-001]
    scope: global
    persistence_target: {{type: claude_md, path: CLAUDE.md, section: "## Batch"}}
  - id: try-002
    description: pin the toolchain version in the repository
    addresses: []
    scope: global
    persistence_target: {{type: claude_md, path: CLAUDE.md, section: "## Batch"}}
  - id: try-003
    description: write the migration notes next to the code
    addresses: []
    scope: project
    persistence_target: {{type: claude_md, path: notes/MIGRATIONS.md, section: "## Notes"}}
omission: []
"""
WRAPUP = json.dumps(
    {
        "project": "c:/work/tx-test",
        "date": "2026-12-31T10:00:00",
        "session_id": "tx-session-1",
        "session_name": "transactions",
        "summary": {"info": ["a"], "done": ["b"]},
        "user_lessons": [
            {"type": "user_preference", "category": "c", "title": "short answers", "summary": "s"}
        ],
        "ai_lessons": [
            {"type": "ai_trial_error", "category": "c", "title": "read first", "summary": "s"}
        ],
    }
)
LESSON = "ll-ai-20261028-001"


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file of the workspace, our state apart."""
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".hurikaeri" not in p.relative_to(root).parts
    }


@pytest.fixture
def ws(demo_root: Path) -> Workspace:
    (demo_root / "hurikaeri" / f"{RID}.yaml").write_text(BATCH_REPORT, encoding="utf-8")
    return Workspace(demo_root)


def roundtrip(ws: Workspace, do: Callable[[], TxResult | None]) -> TxResult:
    """do → undo → before → redo → after, checked byte for byte; returns the transaction."""
    before = snapshot(ws.root)
    result = do()
    assert result is not None and result.recorded
    after = snapshot(ws.root)
    assert transactions.get(ws, result.id).state == "done"
    line = describe_turn(ws)
    assert line.startswith(f"Undo: {result.action}"), line
    undone = undo_last(ws)
    assert undone is not None and undone.undoes == result.id
    assert snapshot(ws.root) == before
    assert transactions.get(ws, result.id).state == "undone"
    assert describe_turn(ws, redo=True).startswith(f"Redo: {result.action}")
    redone = redo(ws)
    assert redone is not None and redone.redoes == result.id
    assert snapshot(ws.root) == after
    assert transactions.get(ws, result.id).state == "done"
    return result


def state(ws: Workspace, key: str) -> str:
    return Ledger(ws.state_dir).state(key).state


# -- each action -------------------------------------------------------------------------


def test_item_decisions(ws: Workspace) -> None:
    key = f"{RID}/keep-001"
    r = roundtrip(ws, lambda: decide_keys(ws, [key], "approve", "good"))
    assert r.files == [] and state(ws, key) == "approved"
    roundtrip(ws, lambda: decide_keys(ws, [key], "reject", "no"))
    assert state(ws, key) == "rejected"
    undo_last(ws)
    assert state(ws, key) == "approved"  # the older approval stands again
    roundtrip(ws, lambda: decide_keys(ws, [key], "reopen"))
    assert state(ws, key) == "pending"


def test_approve_section_is_one_transaction(ws: Workspace) -> None:
    keys = [f"{RID}/try-001", f"{RID}/try-002", f"{RID}/try-003"]
    r = roundtrip(ws, lambda: decide_keys(ws, keys, "approve", action="approve-section"))
    assert r.action == "approve-section" and [e.target for e in r.entries] == keys
    undo_last(ws)
    assert [state(ws, k) for k in keys] == ["pending"] * 3


def test_form_edit(ws: Workspace) -> None:
    ref = find_item(ws, f"{RID}/keep-001")
    r = roundtrip(
        ws,
        lambda: edit_item(
            ws,
            ref.path,
            "keep",
            "keep-001",
            {"description": "kept, and said so"},
            None,
            subject=ref.key,
        ),
    )
    assert [f.path for f in r.files] == [f"hurikaeri/{RID}.yaml"]
    assert Ledger(ws.state_dir).state(ref.key).edited


def test_editor_edit(ws: Workspace) -> None:
    path = ws.root / "hurikaeri" / f"{RID}.yaml"

    def do() -> TxResult | None:
        edit = ExternalEdit.start(path, Kind.KPT, ws.state_dir / "edits", in_place(ws, "kpt"))
        edit.work.write_bytes(edit.original.replace(b"promoting several", b"promoting many"))
        return save_external_edit(ws, edit, subject=RID)

    roundtrip(ws, do)
    assert b"promoting many" in path.read_bytes()


def test_an_editor_edit_that_renames_the_report_is_an_error_and_leaves_nothing(
    ws: Workspace,
) -> None:
    path = ws.root / "hurikaeri" / f"{RID}.yaml"
    edit = ExternalEdit.start(path, Kind.KPT, ws.state_dir / "edits", in_place(ws, "kpt"))
    # the copy is checked as the file it stands for: its id is that file's name
    assert "id-mismatch" not in [d.code for d in edit.problems()]
    edit.work.write_bytes(edit.original.replace(RID.encode(), b"kpt-20990101-001", 1))
    assert "id-mismatch" in [d.code for d in edit.problems()]
    edit.discard()
    assert list((ws.state_dir / "edits").iterdir()) == []


def test_retarget(ws: Workspace) -> None:
    ref = find_item(ws, f"{RID}/try-003")
    r = roundtrip(ws, lambda: retarget_items(ws, [ref], "claude_md", "notes/OTHER.md", "## Other"))
    assert r.action == "retarget"


def test_promote_one_item_into_a_new_file(ws: Workspace) -> None:
    ref = find_item(ws, f"{RID}/try-003")
    r = roundtrip(ws, lambda: promote_plans(ws, [plan_promotion(ws, ref)]))
    assert [f.change for f in r.files] == ["created"]
    assert state(ws, ref.key) == "approved" and Ledger(ws.state_dir).state(ref.key).promoted
    undo_last(ws)
    assert not (ws.root / "notes" / "MIGRATIONS.md").exists()
    assert state(ws, ref.key) == "pending" and not Ledger(ws.state_dir).state(ref.key).promoted


def test_promote_several_items_into_one_file_and_another(ws: Workspace) -> None:
    """The case that could never be undone: two items into the same CLAUDE.md (one file
    record from the first *before* to the last *after*), plus a third file."""
    refs = [find_item(ws, f"{RID}/try-00{i}") for i in (1, 2, 3)]
    base: dict[Path, bytes] = {}
    plans = []
    for ref in refs:
        plan = plan_promotion(ws, ref, base=base)
        assert plan.status == "write", plan.message
        assert plan.target is not None and plan.after is not None
        base[plan.target] = plan.after
        plans.append(plan)
    claude = ws.root / "CLAUDE.md"
    original = claude.read_bytes()
    r = roundtrip(ws, lambda: promote_plans(ws, plans))
    assert sorted(f.path for f in r.files) == ["CLAUDE.md", "notes/MIGRATIONS.md"]
    text = claude.read_text(encoding="utf-8")
    assert "run the linter" in text and "pin the toolchain" in text
    undo_last(ws)
    assert claude.read_bytes() == original


def test_inbox_decisions_and_edit(ws: Workspace) -> None:
    pid = "prop-20261119-001"
    r = roundtrip(
        ws, lambda: decide_proposals(ws, [plan_decision(ws, find_proposal(ws, pid), "approve")])
    )
    assert [f.change for f in r.files] == ["created", "modified"]
    line = describe_turn(ws)
    assert "deletes knowledge_base/global/skills/" in line and "back to pending" in line
    undo_last(ws)
    roundtrip(
        ws,
        lambda: decide_proposals(
            ws, [plan_decision(ws, find_proposal(ws, pid), "reject", "not yet")]
        ),
    )
    roundtrip(
        ws, lambda: decide_proposals(ws, [plan_decision(ws, find_proposal(ws, pid), "reopen")])
    )
    ref = find_proposal(ws, pid)

    def edit() -> TxResult | None:
        e = ExternalEdit.start(
            ref.path, Kind.PROPOSAL, ws.state_dir / "edits", in_place(ws, "inbox")
        )
        e.work.write_bytes(e.original + b"# a note\n")
        return save_external_edit(ws, e, subject=pid)

    roundtrip(ws, edit)


def test_drafting_a_proposal(ws: Workspace) -> None:
    data = {"kind": "pattern", "title": "t", "target": "knowledge_base/global/patterns/t.yaml"}
    r = roundtrip(ws, lambda: propose(ws, data)[1])
    assert r.action == "propose" and r.files[0].change == "created"


def test_lesson_edit_archive_restore_remove(ws: Workspace) -> None:
    path = ws.loc("lessons_ai")
    ref = find_lesson(path, LESSON)
    title = str(ref.record.data["title"])
    roundtrip(ws, lambda: edit_lesson_tx(ws, ref, {"title": title[:5]}))  # shorter: padded
    key = f"lesson:{LESSON}"
    roundtrip(ws, lambda: archive_lesson(ws, LESSON))
    assert Ledger(ws.state_dir).state(key).archived
    roundtrip(ws, lambda: archive_lesson(ws, LESSON, archived=False))
    r = roundtrip(ws, lambda: remove_lesson(ws, None, find_lesson(path, LESSON)))
    assert r.files[0].change == "record removed"
    assert LESSON not in path.read_text(encoding="utf-8")


def test_lesson_edit_that_grows_keeps_the_record_on_undo(ws: Workspace) -> None:
    """A longer record grows the file in place; undo puts the record back byte for byte in
    its place, padded with spaces to the longer length (a file agents append to is never
    shrunk, store.write.jsonl_edit), and redo gives the edited file back byte for byte."""
    path = ws.loc("lessons_ai")
    original = path.read_bytes()
    ref = find_lesson(path, LESSON)
    old_line = original[ref.record.start : ref.record.end]
    edit_lesson_tx(ws, ref, {"title": "a much longer title " * 3})
    after = path.read_bytes()
    undo_last(ws)
    now = path.read_bytes()
    assert len(now) == len(after)
    assert now.startswith(original[: ref.record.start] + old_line[:-1].rstrip(b"\n"))
    assert json.loads(now[ref.record.start :].split(b"\n", 1)[0]) == ref.record.data
    assert now.endswith(original[ref.record.end :])
    redo(ws)
    assert path.read_bytes() == after


def test_import_wrapup_appends_and_undo_takes_them_off(ws: Workspace) -> None:
    r = roundtrip(ws, lambda: import_wrapup(ws, WRAPUP).tx)
    changes = {f.path: f.change for f in r.files}
    assert changes["session-summaries/c--work-tx-test/summaries.jsonl"] == "created"
    assert changes["lessons/ai/lessons.jsonl"] == "appended"
    again = import_wrapup(ws, WRAPUP)  # a retry writes nothing, and records nothing
    assert again.already_imported and again.tx is None


@pytest.mark.parametrize("case", ["unchanged", "changed after planning"])
def test_an_append_records_the_hashes_of_the_file_before_and_after(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch, case: str
) -> None:
    """The hashes recorded are those of the file the append found under the lock, however
    long ago it was planned (issue #18)."""
    from store.review import wrapup

    lessons = ws.loc("lessons_ai")
    other = b'{"id": "ll-ai-20261231-090", "title": "appended meanwhile"}\n'
    if case == "changed after planning":  # another program appends, once, meanwhile

        def meanwhile(*args: object, **kwargs: object) -> None:
            if other not in lessons.read_bytes():
                with open(lessons, "ab") as fh:
                    fh.write(other)

        monkeypatch.setattr(wrapup, "check_write", meanwhile)
    before = lessons.read_bytes()
    imported = import_wrapup(ws, WRAPUP).tx
    assert imported is not None
    after = lessons.read_bytes()
    assert len(after) > len(before) > 0
    if case == "changed after planning":
        assert after.startswith(before + other)
        before += other  # the file as the append found it
    rec = next(
        f
        for f in Ledger(ws.state_dir).txs[imported.id].files
        if f["path"] == "lessons/ai/lessons.jsonl"
    )
    assert (rec["how"], rec["before_size"], rec["after_size"]) == (
        "append",
        len(before),
        len(after),
    )
    assert rec["before_sha256"] == hashlib.sha256(before).hexdigest()
    assert rec["after_sha256"] == hashlib.sha256(after).hexdigest()


def test_an_append_refuses_a_last_line_begun_after_planning(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another program starts a line after the import was planned: nothing is appended to it
    (the ledger's own torn line is ended instead: tests/store/test_ledger.py)."""
    from store.review import wrapup

    lessons = ws.loc("lessons_ai")
    before = lessons.read_bytes() + b'{"id": "ll-ai-20261231-090", "title": "half'

    def meanwhile(*args: object, **kwargs: object) -> None:
        lessons.write_bytes(before)

    monkeypatch.setattr(wrapup, "check_write", meanwhile)
    with pytest.raises(ReviewError, match=r"the last line is unfinished.*nothing was appended"):
        import_wrapup(ws, WRAPUP)
    assert lessons.read_bytes() == before
    assert not ws.loc("lessons_user").read_bytes().endswith(b'"half')


def test_import_undo_refuses_when_lines_were_appended_after_and_keeps_them(
    ws: Workspace,
) -> None:
    imported = import_wrapup(ws, WRAPUP).tx
    assert imported is not None
    lessons = ws.loc("lessons_user")
    agent_line = b'{"id": "ll-user-20261231-099", "title": "an agent appended this"}\n'
    with open(lessons, "ab") as fh:
        fh.write(agent_line)
    with pytest.raises(UndoRefused, match=r"lessons/user/lessons\.jsonl.*appended") as exc:
        undo_last(ws)
    assert "an agent appended this" in exc.value.diff
    assert lessons.read_bytes().endswith(agent_line)
    assert transactions.get(ws, imported.id).state == "blocked"


def test_export_feedback(ws: Workspace) -> None:
    r = roundtrip(ws, lambda: export_feedback(ws, "kpt-20261028-001", force=True).tx)
    assert [f.change for f in r.files] == ["created", "modified"]


def test_person_report(ws: Workspace) -> None:
    doc = {
        "id": "kpt-20261231-950",
        "created_at": "2026-12-31T10:00:00+09:00",
        "session_summary": "follow-up",
        "keep": [],
        "problem": [],
        "try": [],
        "omission": [],
    }
    text = render_report(doc)

    def do() -> TxResult | None:
        write_person_report(ws, None, "kpt-20261231-950", text)
        return _last(ws)

    r = roundtrip(ws, do)
    assert r.action == "person-report" and r.files[0].change == "created"


def _last(ws: Workspace) -> TxResult:
    v = history(ws, limit=1)[0]
    return TxResult(v.id, v.action, v.who or "", v.at, v.subjects, v.files, [])


# -- refusals never block other transactions --------------------------------------------


def test_a_refused_undo_names_the_file_and_blocks_nothing_older(ws: Workspace) -> None:
    ref = find_item(ws, f"{RID}/try-003")
    older = promote_plans(ws, [plan_promotion(ws, ref)])
    assert older is not None
    newer = decide_proposals(
        ws, [plan_decision(ws, find_proposal(ws, "prop-20261119-001"), "approve")]
    )
    skill = ws.root / "knowledge_base/global/skills/duckdb_larger_than_memory.yaml"
    skill.write_bytes(skill.read_bytes() + b"# changed by hand\n")
    with pytest.raises(UndoRefused, match=r"duckdb_larger_than_memory\.yaml") as exc:
        undo_last(ws)
    assert "+# changed by hand" in exc.value.diff
    assert transactions.get(ws, newer.id).state == "blocked"
    assert "Cannot undo" in describe_turn(ws, newer.id)
    undo(ws, older.id)  # the older, independent promotion still can be undone
    assert not (ws.root / "notes" / "MIGRATIONS.md").exists()
    assert skill.read_bytes().endswith(b"# changed by hand\n")


def test_the_dry_run_makes_the_checks_the_undo_makes(ws: Workspace) -> None:
    """What ``undo --dry-run`` says is what the undo does: a missing kept copy refuses
    both (not "Undo: …" then a refusal), an undone one is said undone in the same words."""
    ref = find_item(ws, f"{RID}/try-001")
    done = promote_plans(ws, [plan_promotion(ws, ref)])
    assert done is not None
    for kept in (ws.state_dir / "backups" / done.id).iterdir():
        kept.unlink()
    line = describe_turn(ws, done.id)
    with pytest.raises(UndoRefused) as exc:
        undo(ws, done.id)
    why = str(exc.value).removeprefix("refused: ").removesuffix("; nothing was changed")
    assert line == f"Cannot undo promote {RID}/try-001: {why}."
    second = decide_keys(ws, [f"{RID}/keep-001"], "approve")
    undo(ws, second.id)
    line = describe_turn(ws, second.id)
    assert line.startswith("Cannot undo ") and "is already undone" in line


def test_a_later_write_of_the_same_file_is_named(ws: Workspace) -> None:
    first = find_item(ws, f"{RID}/try-001")
    second = find_item(ws, f"{RID}/try-002")
    a = promote_plans(ws, [plan_promotion(ws, first)])
    b = promote_plans(ws, [plan_promotion(ws, second)])
    assert a is not None and b is not None
    with pytest.raises(UndoRefused, match=f"undo promote .*{b.id}.* first"):
        undo(ws, a.id)
    undo(ws, b.id)
    undo(ws, a.id)
    assert "run the linter" not in (ws.root / "CLAUDE.md").read_text(encoding="utf-8")


def test_undo_of_an_undo_is_a_redo(ws: Workspace) -> None:
    key = f"{RID}/keep-001"
    done = decide_keys(ws, [key], "approve")
    u = undo(ws, done.id)
    assert state(ws, key) == "pending"
    again = undo(ws, u.id)
    assert again.redoes == done.id and state(ws, key) == "approved"


def test_history_lists_newest_first_with_states(ws: Workspace) -> None:
    key = f"{RID}/keep-001"
    a = decide_keys(ws, [key], "approve", ledger=Ledger(ws.state_dir, who="alice"))
    b = decide_keys(ws, [key], "reject", ledger=Ledger(ws.state_dir, who="bob"))
    undo(ws, b.id)
    views = history(ws, limit=3)
    assert [v.action for v in views] == ["undo", "reject", "approve"]
    assert [v.state for v in views] == ["done", "undone", "done"]
    assert views[2].who == "alice" and views[2].id == a.id
    assert views[0].undoes == b.id
    diff = tx_diff(ws, a.id)
    assert "review state: approve" in diff


def test_reviewer_from_the_environment(ws: Workspace, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HURIKAERI_REVIEWER", "reviewer-7")
    r = decide_keys(ws, [f"{RID}/keep-001"], "approve")
    assert r.who == "reviewer-7"


def test_tx_diff_shows_each_file(ws: Workspace) -> None:
    ref = find_item(ws, f"{RID}/try-001")
    r = promote_plans(ws, [plan_promotion(ws, ref)])
    assert r is not None
    diff = tx_diff(ws, r.id)
    assert "a/CLAUDE.md" in diff and "+- run the linter before every commit" in diff


# -- older ledgers -----------------------------------------------------------------------


def test_an_older_batch_into_one_file_is_migrated_and_undone(ws: Workspace) -> None:
    """Before transactions, two items promoted into one file left two entries, the first
    with an intermediate hash: undo always refused. Migrated to one transaction, signed
    again as the lines were, it is undone and redone."""
    claude = ws.root / "CLAUDE.md"
    v0 = claude.read_bytes()
    v1, v2 = v0 + b"\n- one\n", v0 + b"\n- one\n- two\n"
    backups = ws.state_dir / "backups"
    for name, data in (("b-00-CLAUDE.md", v0), ("b-00-CLAUDE.md.after", v1)):
        (backups / name).write_bytes(data)
    for name, data in (("b-01-CLAUDE.md", v1), ("b-01-CLAUDE.md.after", v2)):
        (backups / name).write_bytes(data)
    claude.write_bytes(v2)

    def sha(b: bytes) -> str:
        return hashlib.sha256(b).hexdigest()

    lines: list[dict[str, Any]] = []
    for i, (a, b) in enumerate(((v0, v1), (v1, v2))):
        lines.append(
            {
                "id": f"old00000000{i}",
                "at": "2026-11-20T10:00:00+09:00",
                "op": "promote",
                "target": f"kpt-20261028-001/try-00{i + 1}",
                "batch": "oldbatch0001",
                "path": "CLAUDE.md",
                "created": False,
                "before_sha256": sha(a),
                "after_sha256": sha(b),
                "backup": f"backups/b-0{i}-CLAUDE.md",
                "written": f"backups/b-0{i}-CLAUDE.md.after",
                "section": "## x",
                "type": "claude_md",
                "channel": "script",
            }
        )
    with open(ws.state_dir / "ledger.jsonl", "a", encoding="utf-8") as fh:
        for rec in lines:  # written by this machine (signed), in the older shape
            fh.write(json.dumps(ours(ws.state_dir, rec)) + "\n")
    (v,) = [v for v in history(ws) if v.id == "oldbatch0001"]
    assert v.trusted and v.state == "done" and [f.path for f in v.files] == ["CLAUDE.md"]
    undone = undo_last(ws)
    assert undone is not None and undone.undoes == "oldbatch0001"
    assert claude.read_bytes() == v0
    assert not Ledger(ws.state_dir).state("kpt-20261028-001/try-002").promoted
    redo(ws)
    assert claude.read_bytes() == v2


def test_older_decision_lines_fold_and_undo_as_before(ws: Workspace) -> None:
    led = Ledger(ws.state_dir)
    before = dict(led.states)
    line = {
        "id": "old000000009",
        "at": now_iso(),
        "op": "approve",
        "target": f"{RID}/keep-001",
        "channel": current_channel(),
    }
    with open(ws.state_dir / "ledger.jsonl", "a", encoding="utf-8") as fh:
        fh.write(json.dumps(ours(ws.state_dir, line)) + "\n")  # this machine's, older shape
    assert undo_last(ws) is not None
    assert state(ws, f"{RID}/keep-001") == "pending"
    assert Ledger(ws.state_dir).states.keys() >= before.keys()


# -- recovery ----------------------------------------------------------------------------


def _die_after_first_file(monkeypatch: pytest.MonkeyPatch) -> None:
    """The process 'dies' after writing one file: nothing is rolled back or aborted."""
    real = journal.perform
    calls = {"n": 0}

    def perform(ws: Workspace, p: journal.Prepared) -> None:
        calls["n"] += 1
        if calls["n"] == 2:
            raise SystemExit("killed")
        real(ws, p)

    monkeypatch.setattr(transactions, "perform", perform)
    monkeypatch.setattr(transactions, "_abort", lambda *a, **k: ([], []))


def test_recover_rolls_back_a_transaction_killed_half_way(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = snapshot(ws.root)
    plan = plan_decision(ws, find_proposal(ws, "prop-20261119-001"), "approve")
    with monkeypatch.context() as m:
        _die_after_first_file(m)
        with pytest.raises(SystemExit):
            decide_proposals(ws, [plan])
    assert snapshot(ws.root) != before  # the new skill file is there, the proposal not
    led = Ledger(ws.state_dir)
    (open_tx,) = led.open_transactions()
    assert state(ws, "prop-20261119-001") == "pending"  # never counted in the fold
    (rec,) = recover(ws)
    assert rec.id == open_tx.id and rec.left == []
    assert snapshot(ws.root) == before
    view = transactions.get(ws, open_tx.id)
    assert view.state == "aborted"
    assert recover(ws) == []
    assert undo_last(ws) is None or True  # nothing of it is undoable
    assert all(v.id != open_tx.id or v.state == "aborted" for v in history(ws))


def test_recover_after_every_file_but_before_commit(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = snapshot(ws.root)
    real_append = Ledger.append

    def append(self: Ledger, record: dict[str, Any]) -> None:
        if record.get("op") == "commit" and "action" not in record:
            raise SystemExit("killed before the commit")
        real_append(self, record)

    ref = find_item(ws, f"{RID}/try-003")
    with monkeypatch.context() as m:
        m.setattr(Ledger, "append", append)
        with pytest.raises(SystemExit):
            promote_plans(ws, [plan_promotion(ws, ref)])
    assert (ws.root / "notes" / "MIGRATIONS.md").exists()
    (rec,) = recover(ws)
    assert rec.action == "promote"
    assert snapshot(ws.root) == before
    assert state(ws, ref.key) == "pending"


def test_recover_by_hand_written_begin_line(ws: Workspace) -> None:
    """A begin line and a file written by hand, as a killed process leaves them."""
    target = ws.root / "CLAUDE.md"
    old = target.read_bytes()
    new = old + b"- half done\n"
    tx = "deadbeef0001"
    begin = replace_tx(ws.state_dir, tx, "CLAUDE.md", old, new, sig=None)
    begin["effects"] = [{"op": "approve", "target": "k/t"}]
    write_lines(ws.state_dir / "ledger.jsonl", ours(ws.state_dir, begin))  # this machine's
    target.write_bytes(new)
    assert state(ws, "k/t") == "pending"
    assert [r.id for r in recover(ws)] == [tx]
    assert target.read_bytes() == old
    assert state(ws, "k/t") == "pending"


def test_a_failed_write_puts_back_what_was_written(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    from store.write.atomic import WriteError

    before = snapshot(ws.root)
    real = journal.perform
    calls = {"n": 0}

    def perform(w: Workspace, p: journal.Prepared) -> None:
        calls["n"] += 1
        if calls["n"] == 2:
            raise WriteError("the disk is full; nothing was changed")
        real(w, p)

    plan = plan_decision(ws, find_proposal(ws, "prop-20261119-001"), "approve")
    monkeypatch.setattr(transactions, "perform", perform)
    with pytest.raises(WriteError):
        decide_proposals(ws, [plan])
    assert snapshot(ws.root) == before
    (v,) = [v for v in history(ws, limit=1)]
    assert v.state == "aborted" and "disk is full" in v.reason


def test_a_dry_run_of_an_undo_whose_transaction_is_gone_says_so(ws: Workspace) -> None:
    """An undo's line kept, the transaction it undid taken out of the ledger (a hand edit,
    a merge gone wrong): the dry run says what is missing, in one line, raising nothing."""
    done = decide_keys(ws, [f"{RID}/keep-001"], "approve")
    back = undo(ws, done.id)
    ledger = ws.state_dir / "ledger.jsonl"
    lines = ledger.read_text(encoding="utf-8").splitlines()
    kept = [x for x in lines if done.id not in (json.loads(x).get("tx"), json.loads(x).get("id"))]
    assert len(kept) < len(lines)
    ledger.write_text("".join(f"{x}\n" for x in kept), encoding="utf-8")
    line = describe_turn(ws, back.id, ledger=Ledger(ws.state_dir))
    assert done.id in line and "\n" not in line


# -- two processes turning the same transaction -------------------------------------------


@pytest.mark.parametrize("with_files", [False, True])
def test_a_transaction_undone_meanwhile_is_not_undone_again(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch, with_files: bool
) -> None:
    """Another process undoes (then redoes) the very transaction between this one's choice
    and its write: the second undo (redo) is refused, not recorded twice."""
    if with_files:
        done = promote_plans(ws, [plan_promotion(ws, find_item(ws, f"{RID}/try-003"))])
    else:
        done = decide_keys(ws, [f"{RID}/keep-001"], "approve")
    assert done is not None
    real = transactions.apply
    other = {"turn": undo}

    def apply(ws_: Workspace, plan: transactions.TxPlan, **kw: Any) -> TxResult:
        turn = other.pop("turn", None)
        if turn is not None:  # the other process, with a ledger of its own
            with monkeypatch.context() as m:
                m.setattr(transactions, "apply", real)
                turn(ws, done.id)
        return real(ws_, plan, **kw)

    monkeypatch.setattr(transactions, "apply", apply)
    with pytest.raises(UndoRefused, match="undone meanwhile"):
        undo_last(ws)
    other["turn"] = redo
    with pytest.raises(UndoRefused, match="redone meanwhile"):
        redo(ws, done.id)
    turns = [v.action for v in history(ws) if done.id in (v.undoes, v.redoes)]
    assert turns == ["redo", "undo"]
