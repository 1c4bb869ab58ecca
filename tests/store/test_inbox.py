"""Inbox decisions: the target written (new, bumped, stale), the decision in the proposal."""

from __future__ import annotations

from pathlib import Path

import pytest

import store.review.inbox as inbox
from store.config import parse_config
from store.index.workspace_index import WorkspaceIndex
from store.ledger import Ledger
from store.models import Proposal, Skill
from store.read.kinds import Kind
from store.read.loader import load_file
from store.review.inbox import (
    decide_proposals,
    find_proposal,
    known_proposals,
    list_proposals,
    plan_decision,
)
from store.review.items import ReviewError
from store.tx.transactions import undo_last
from store.workspace import Workspace

NOW = "2026-11-22T10:00:00+09:00"


@pytest.fixture(autouse=True)
def _clock(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(inbox, "now_iso", lambda: NOW)


def _proposal(path: Path) -> Proposal:
    doc = load_file(path).doc
    assert isinstance(doc, Proposal)
    return doc


def test_list_is_newest_first(demo_root: Path) -> None:
    refs = list_proposals(Workspace(demo_root))
    assert [r.id for r in refs] == sorted((r.id for r in refs), reverse=True)
    assert {r.status for r in refs} == {"pending", "approved", "rejected"}


def test_approve_new_target(demo_root: Path) -> None:
    ws = Workspace(demo_root)
    ref = find_proposal(ws, "prop-20261119-001")
    target = demo_root / "knowledge_base/global/skills/duckdb_larger_than_memory.yaml"
    assert not target.exists()
    plan = plan_decision(ws, ref, "approve", "looks right")
    assert plan.stale is None and plan.before is None
    decide_proposals(ws, [plan], ledger=Ledger(ws.state_dir))
    skill = load_file(target).doc
    assert isinstance(skill, Skill) and skill.skill_id == "duckdb_larger_than_memory"
    assert skill.version == 1 and skill.updated_at == NOW
    assert "memory_limit" in (skill.content or "")
    p = _proposal(ref.path)
    assert (p.status, p.decided_at, p.decision_note) == ("approved", NOW, "looks right")


def test_approve_existing_target_bumps_version_and_changes_only_what_differs(
    demo_root: Path,
) -> None:
    ws = Workspace(demo_root)
    ref = find_proposal(ws, "prop-20261118-001")
    target = demo_root / "knowledge_base/global/skills/jwt_auth_middleware.yaml"
    before = target.read_text(encoding="utf-8")
    plan = plan_decision(ws, ref, "approve")
    assert plan.stale is None
    decide_proposals(ws, [plan], ledger=Ledger(ws.state_dir))
    after = target.read_text(encoding="utf-8")
    skill = load_file(target).doc
    assert isinstance(skill, Skill) and skill.version == 3 and skill.updated_at == NOW
    assert '    - "JWT"' in after  # unchanged list items keep their quotes
    assert before.splitlines()[0] == after.splitlines()[0]
    assert _proposal(ref.path).status == "approved"


def test_stale_target_needs_confirmation(demo_root: Path) -> None:
    ws = Workspace(demo_root)
    target = demo_root / "knowledge_base/global/skills/jwt_auth_middleware.yaml"
    target.write_text(
        target.read_text(encoding="utf-8").replace("version: 2", "version: 5"), encoding="utf-8"
    )
    ref = find_proposal(ws, "prop-20261118-001")
    plan = plan_decision(ws, ref, "approve")
    assert plan.stale and "version 5" in plan.stale and "version 2" in plan.stale
    before = target.read_bytes()
    with pytest.raises(ReviewError, match="stale"):
        decide_proposals(ws, [plan], ledger=Ledger(ws.state_dir))
    assert target.read_bytes() == before and _proposal(ref.path).status == "pending"
    decide_proposals(ws, [plan], allow_stale=True, ledger=Ledger(ws.state_dir))
    skill = load_file(target).doc
    assert isinstance(skill, Skill) and skill.version == 6


def test_reject_writes_only_the_decision(demo_root: Path) -> None:
    ws = Workspace(demo_root)
    ref = find_proposal(ws, "prop-20261119-001")
    before = ref.raw.decode()
    decide_proposals(
        ws, [plan_decision(ws, ref, "reject", "まだ早い")], ledger=Ledger(ws.state_dir)
    )
    after = ref.path.read_text(encoding="utf-8")
    p = _proposal(ref.path)
    assert (p.status, p.decision_note) == ("rejected", "まだ早い")
    changed = [a for a, b in zip(before.splitlines(), after.splitlines(), strict=True) if a != b]
    assert len(changed) == 3  # status, decided_at, decision_note
    assert not (demo_root / "knowledge_base/global/skills/duckdb_larger_than_memory.yaml").exists()


def test_memory_proposal_appends_a_learned_behavior(demo_root: Path) -> None:
    ws = Workspace(demo_root)
    ref = find_proposal(ws, "prop-20261116-001")
    target = demo_root / "memory/harbor-api/project_memory.yaml"
    n = target.read_text(encoding="utf-8").count("- trigger:")
    decide_proposals(ws, [plan_decision(ws, ref, "approve")], ledger=Ledger(ws.state_dir))
    assert target.read_text(encoding="utf-8").count("- trigger:") == n + 1


def test_edit_then_approve(demo_root: Path) -> None:
    ws = Workspace(demo_root)
    ref = find_proposal(ws, "prop-20261119-001")
    ref.path.write_text(ref.raw.decode().replace("name: ", "name: Edited — ", 1), encoding="utf-8")
    ref = find_proposal(ws, "prop-20261119-001")
    decide_proposals(ws, [plan_decision(ws, ref, "approve")], ledger=Ledger(ws.state_dir))
    skill = load_file(demo_root / "knowledge_base/global/skills/duckdb_larger_than_memory.yaml").doc
    assert isinstance(skill, Skill) and (skill.name or "").startswith("Edited — ")


def test_invalid_payload_is_refused(demo_root: Path) -> None:
    ws = Workspace(demo_root)
    ref = find_proposal(ws, "prop-20261119-001")
    ref.path.write_text(ref.raw.decode().replace("skill_id:", "not_an_id:", 1), encoding="utf-8")
    plan = plan_decision(ws, find_proposal(ws, "prop-20261119-001"), "approve")
    assert plan.refused and "skill_id" in plan.refused
    with pytest.raises(ReviewError):
        decide_proposals(ws, [plan], ledger=Ledger(ws.state_dir))


def test_batch_decision_and_undo_restore_every_file(demo_root: Path) -> None:
    ws = Workspace(demo_root)
    ledger = Ledger(ws.state_dir)
    refs = [find_proposal(ws, p) for p in ("prop-20261119-001", "prop-20261116-001")]
    memory = demo_root / "memory/harbor-api/project_memory.yaml"
    before = {r.path: r.raw for r in refs} | {memory: memory.read_bytes()}
    decide_proposals(ws, [plan_decision(ws, r, "approve") for r in refs], ledger=ledger)
    assert all(_proposal(r.path).status == "approved" for r in refs)
    undone = undo_last(ws, ledger=ledger)
    assert undone is not None and len(undone.files) == 4
    assert {(e.op, e.target) for e in ledger.folded if e.tx == undone.undoes} == {
        ("approve", r.id) for r in refs
    }
    assert all(p.read_bytes() == b for p, b in before.items())
    assert not (demo_root / "knowledge_base/global/skills/duckdb_larger_than_memory.yaml").exists()


def test_reopen(demo_root: Path) -> None:
    ws = Workspace(demo_root)
    ref = find_proposal(ws, "prop-20261109-001")
    assert ref.status == "rejected"
    decide_proposals(ws, [plan_decision(ws, ref, "reopen")], ledger=Ledger(ws.state_dir))
    p = _proposal(ref.path)
    assert (p.status, p.decided_at, p.decision_note) == ("pending", None, None)


def test_a_symlinked_proposal_is_never_written_through(demo_root: Path, tmp_path: Path) -> None:
    """A file in the inbox that links outside the workspace: deciding on it writes nothing
    there (found while reviewing: the decision used to be written through the link)."""
    from store.write.atomic import WriteError

    ws = Workspace(demo_root)
    ref = find_proposal(ws, "prop-20261119-001")
    outside = tmp_path / "outside.yaml"
    outside.write_bytes(ref.path.read_bytes())
    ref.path.unlink()
    ref.path.symlink_to(outside)
    before = outside.read_bytes()
    linked = find_proposal(ws, "prop-20261119-001")
    plan = plan_decision(ws, linked, "reject", "no")
    with pytest.raises(WriteError, match="outside the workspace"):
        decide_proposals(ws, [plan], ledger=Ledger(ws.state_dir))
    assert outside.read_bytes() == before


def test_undo_refuses_a_ledger_entry_that_points_outside(demo_root: Path, tmp_path: Path) -> None:
    """The ledger lies in the workspace: an entry naming a path outside it, or a backup
    outside the backups, restores and deletes nothing."""
    import json

    from store.tx.journal import sha256
    from store.tx.transactions import UndoRefused
    from tests.ledger_forge import ours

    victim = tmp_path / "victim.txt"
    victim.write_text("keep me\n")
    ws = Workspace(demo_root)
    forged = {
        "id": "forged000001",
        "at": "2026-11-22T00:00:00+00:00",
        "op": "promote",
        "target": "kpt-20261110-002/try-001",
        "path": str(victim),
        "created": True,
        "after_sha256": sha256(victim.read_bytes()),
        "written": "../../victim-copy",
        "channel": "script",
    }
    with (ws.state_dir / "ledger.jsonl").open("a", encoding="utf-8") as f:
        # signed as this machine's: even an own line leads nowhere its action cannot go
        f.write(json.dumps(ours(ws.state_dir, forged)) + "\n")
    with pytest.raises(UndoRefused, match="outside the workspace"):
        undo_last(ws, ledger=Ledger(ws.state_dir))
    assert victim.read_text() == "keep me\n"


@pytest.mark.parametrize("digits", [250, 5000])
def test_an_agents_proposal_with_a_huge_id_does_not_stop_a_persons(
    demo_root: Path, digits: int
) -> None:
    """Agents write proposal ids: one whose number is longer than a file name may be (or
    than Python reads as a number) leaves the person's new proposal a short free id."""
    from datetime import datetime

    ws = Workspace(demo_root)
    day = datetime.now().strftime("%Y%m%d")
    (inbox.inbox_dir(ws) / "prop-by-agent.yaml").write_text(
        f"id: prop-{day}-{'9' * digits}\nkind: pattern\nstatus: pending\n"
        "target: knowledge_base/global/patterns/x.yaml\npayload: {name: x}\n"
    )
    path, _tx = inbox.propose(ws, {"kind": "pattern", "target": "x.yaml", "payload": {"name": "y"}})
    assert path.is_file() and path.name.startswith(f"prop-{day}-") and len(path.name) < 30


def test_proposals_are_the_files_discover_calls_proposals(tmp_path: Path) -> None:
    """With the reports' folder set to the inbox, the files at its top are reports (the
    earlier location gives the kind): the CLI's walk and the app's index agree."""
    inbox_dir = tmp_path / "knowledge_base" / "inbox"
    text = "id: {}\nkind: skill\ncreated_at: '2026-11-2{}'\n"
    for n, name in enumerate(["prop-a", "later/prop-b", "now/prop-c"]):
        (inbox_dir / name).parent.mkdir(parents=True, exist_ok=True)
        (inbox_dir / f"{name}.yaml").write_text(text.format(Path(name).name, n))
    ws = Workspace(
        tmp_path, parse_config({"paths": {"kpt": "knowledge_base/inbox"}}, tmp_path / "c.toml")
    )
    proposals = {f.path for f in ws.discover() if f.kind is Kind.PROPOSAL}
    assert {p.name for p in proposals} == {"prop-b.yaml", "prop-c.yaml"}
    assert {f.path for f in ws.discover(only=Kind.PROPOSAL)} == proposals
    assert [r.id for r in list_proposals(ws)] == ["prop-c", "prop-b"]
    index = WorkspaceIndex(ws, use_cache=False)
    index.load_all(parallel=False)
    assert [r.id for r in known_proposals(index)] == ["prop-c", "prop-b"]
