"""The inbox: proposals agents (and people) raise, decided by a person.

Approving writes the payload to its target (a new file, or the existing one with ``version``
bumped, changing only what differs) and the decision into the proposal file, so the agent that
asked can read it. A proposal against an older version of its target is *stale*.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

from store.check.files import PAYLOAD_MODELS
from store.check.secrets import SecretHit, refusal, scan_added
from store.index.workspace_index import WorkspaceIndex
from store.ledger import Ledger, now_iso
from store.models import Proposal
from store.read.diagnostics import DiagnosticSink
from store.read.kinds import Kind
from store.read.loader import load_file
from store.read.textio import FileStamp
from store.read.validate import validate_tolerant
from store.review.items import ReviewError
from store.review.promote import new_memory
from store.review.wrapup import next_id
from store.tx.journal import FileWrite
from store.tx.transactions import Effect, TxPlan, TxResult, apply
from store.workspace import Workspace
from store.write.atomic import current_stamp
from store.write.policy import (
    PathRefused,
    in_place,
    proposal_kind,
    resolve_target,
    target,
    target_problem,
)
from store.write.roundtrip import EditError, YamlEditor, new_yaml_document, plain_data
from store.write.textdiff import file_diff

Decision = Literal["approve", "reject", "reopen"]


@dataclass(slots=True)
class ProposalRef:
    path: Path
    doc: Proposal
    raw: bytes
    stamp: FileStamp | None

    @property
    def id(self) -> str:
        return self.doc.id or self.path.stem

    @property
    def status(self) -> str:
        return (self.doc.status or "pending").lower()


def inbox_dir(ws: Workspace) -> Path:
    return ws.loc("knowledge_base") / "inbox"


def list_proposals(ws: Workspace) -> list[ProposalRef]:
    """Every readable proposal, newest first."""
    return _newest_first(_read(f.path) for f in ws.discover(only=Kind.PROPOSAL))


def known_proposals(index: WorkspaceIndex) -> list[ProposalRef]:
    """:func:`list_proposals` without a walk: the files the index knows as proposals."""
    with index.lock:
        paths = [p for p, kind in index.kinds.items() if kind is Kind.PROPOSAL]
    return _newest_first(_read(p) for p in paths)


def _newest_first(refs: Iterable[ProposalRef | None]) -> list[ProposalRef]:
    out = [r for r in refs if r is not None]
    out.sort(key=lambda r: (r.doc.created_at or "", r.id), reverse=True)
    return out


def _read(path: Path) -> ProposalRef | None:
    loaded = load_file(path, Kind.PROPOSAL)
    if not isinstance(loaded.doc, Proposal) or loaded.stamp is None:
        return None
    return ProposalRef(path, loaded.doc, path.read_bytes(), loaded.stamp)


def find_proposal(ws: Workspace, pid: str) -> ProposalRef:
    for ext in (".yaml", ".yml"):
        p = inbox_dir(ws) / f"{pid}{ext}"
        if p.is_file() and (ref := _read(p)) is not None:
            return ref
    for ref in list_proposals(ws):
        if ref.id == pid:
            return ref
    raise ReviewError(f"no proposal with id '{pid}' in {inbox_dir(ws)}")


def is_proposal_id(ws: Workspace, ref: str) -> bool:
    return "/" not in ref and (
        ref.startswith("prop-") or any(r.id == ref for r in list_proposals(ws))
    )


@dataclass(slots=True)
class InboxPlan:
    ref: ProposalRef
    decision: Decision
    note: str | None
    target: Path | None = None
    before: bytes | None = None
    target_stamp: FileStamp | None = None
    after: bytes | None = None
    proposal_after: bytes = b""
    stale: str | None = None
    refused: str | None = None
    #: what looks like a secret in what approving would add (then ``refused``)
    secrets: tuple[SecretHit, ...] = ()

    def diff(self, label: str) -> str:
        return "" if self.after is None else file_diff(self.before, self.after, label)


def check_payload(doc: Proposal) -> list[str]:
    """Errors of the payload validated as its kind (empty when it is valid)."""
    sink = DiagnosticSink("payload")
    if doc.payload is None:
        return ["the proposal has no payload"]
    kind = (doc.kind or "").lower()
    if kind not in PAYLOAD_MODELS:
        return [f"unknown proposal kind '{doc.kind}'"]
    validate_tolerant(PAYLOAD_MODELS[kind], doc.payload, sink, what=f"{kind} payload")
    return [d.message for d in sink.items if d.severity == "error"]


def plan_decision(
    ws: Workspace,
    ref: ProposalRef,
    decision: Decision,
    note: str | None = None,
    *,
    allow_secrets: bool = False,
) -> InboxPlan:
    """What deciding on a proposal writes; approving scans what it adds to the target for
    secrets first (a hit refuses it, unless ``allow_secrets``)."""
    plan = InboxPlan(ref, decision, note or None)
    editor = YamlEditor(ref.path, ref.raw, ref.stamp)
    decided = decision != "reopen"
    editor.set(["status"], {"approve": "approved", "reject": "rejected"}.get(decision, "pending"))
    editor.set(["decided_at"], now_iso() if decided else None)
    editor.set(["decision_note"], plan.note if decided else None)
    plan.proposal_after = editor.render()
    if decision != "approve":
        return plan
    doc = ref.doc
    errors = check_payload(doc)
    if errors:
        plan.refused = f"the payload is not a valid {doc.kind}: " + "; ".join(errors[:3])
        return plan
    try:
        plan.target = resolve_target(ws, doc.target or "")
    except PathRefused as exc:
        plan.refused = str(exc)
        return plan
    kind = proposal_kind(doc.kind)
    problem = (
        target_problem(ws, plan.target, kind) if kind else f"unknown proposal kind '{doc.kind}'"
    )
    if problem:
        plan.refused = f"refused: {problem}"
        return plan
    if plan.target.exists():
        plan.before = plan.target.read_bytes()
        plan.target_stamp = current_stamp(plan.target)
    try:
        if (doc.kind or "").lower() == "memory":
            _plan_memory(plan)
        else:
            _plan_document(plan)
    except (EditError, UnicodeDecodeError) as exc:
        plan.refused = f"{plan.target} cannot be edited safely ({exc})"
    if plan.after is not None and not plan.refused and not allow_secrets:
        hits = scan_added(plan.before, plan.after, str(plan.target))
        if hits:
            plan.refused = refusal(hits, f"{ref.id}'s payload").removeprefix("refused: ")
            plan.secrets = tuple(hits)
    return plan


def _plan_document(plan: InboxPlan) -> None:
    doc = plan.ref.doc
    payload = dict(plain_data(doc.payload or {}))
    is_skill = (doc.kind or "").lower() == "skill"
    if plan.before is None:
        if doc.base_version is not None:
            plan.stale = f"the target was expected at version {doc.base_version} but does not exist"
        if is_skill:
            payload.setdefault("version", 1)
            payload["updated_at"] = now_iso()
        plan.after = new_yaml_document(payload)
        return
    editor = YamlEditor(plan.target or plan.ref.path, plan.before, plan.target_stamp)
    current_version = editor.get(["version"])
    if doc.base_version is None:
        plan.stale = "the target already exists, but the proposal was made for a new file"
    elif current_version != doc.base_version:
        plan.stale = (
            f"the target is at version {current_version}, the proposal was made against "
            f"version {doc.base_version}"
        )
    keep = {k: editor.get([k]) for k in ("version", "updated_at", "created_at") if k in editor.data}
    editor.update(
        [], {**payload, **{k: v for k, v in keep.items() if k not in payload or k != "created_at"}}
    )
    if is_skill or isinstance(current_version, int):
        editor.set(["version"], current_version + 1 if isinstance(current_version, int) else 1)
    editor.set(["updated_at"], now_iso())
    plan.after = editor.render()


def _plan_memory(plan: InboxPlan) -> None:
    entry = dict(plain_data(plan.ref.doc.payload or {}))
    if plan.before is None:
        plan.after = new_memory(plan.target or Path("project_memory.yaml"), entry)
        return
    editor = YamlEditor(plan.target or plan.ref.path, plan.before, plan.target_stamp)
    for b in editor.get(["learned_behaviors"]) or []:
        if plain_data(b) == entry:
            plan.stale = "the same learned behavior is already in the project memory"
    editor.append(["learned_behaviors"], entry)
    editor.set(["last_updated"], now_iso())
    plan.after = editor.render()


def decide_proposals(
    ws: Workspace,
    plans: list[InboxPlan],
    *,
    allow_stale: bool = False,
    ledger: Ledger | None = None,
) -> TxResult:
    """Carry out the plans as one transaction; refused plans and, unless allowed, stale ones
    raise before anything is written."""
    if not plans:
        raise ReviewError("no proposal to decide on")
    for p in plans:
        if p.refused:
            raise ReviewError(f"{p.ref.id}: refused: {p.refused}")
        if p.stale and not allow_stale:
            raise ReviewError(f"{p.ref.id} is stale: {p.stale}; confirm to approve anyway")
    proposal_guard = in_place(ws, "inbox")
    files: list[FileWrite] = []
    for p in plans:  # every write allowed before anything is recorded or written
        proposal_guard(p.ref.path)
        kind = proposal_kind(p.ref.doc.kind)
        if p.decision == "approve" and p.target is not None and kind is not None:
            guard = target(ws, kind)
            guard(p.target)
            if p.after is not None:
                files.append(FileWrite(p.target, p.before, p.after, guard))
        files.append(FileWrite(p.ref.path, p.ref.raw, p.proposal_after, proposal_guard))
    effects = [Effect(p.decision, p.ref.id, p.note, {"kind": "proposal"}) for p in plans]
    decisions = {p.decision for p in plans}
    action = decisions.pop() if len(decisions) == 1 else "decide"
    note = plans[0].note if len({p.note for p in plans}) == 1 else None
    plan = TxPlan(action, [p.ref.id for p in plans], files, effects, note=note)
    return apply(ws, plan, ledger=ledger)


def slug(text: str, limit: int = 40) -> str:
    s = re.sub(r"[^0-9A-Za-z]+", "_", text).strip("_").lower()
    return s[:limit].rstrip("_") or "learning"


def propose(
    ws: Workspace,
    data: dict[str, Any],
    *,
    ledger: Ledger | None = None,
) -> tuple[Path, TxResult]:
    """A person's proposal written into the inbox as a ``propose`` transaction."""
    taken = {r.id for r in list_proposals(ws)} | {p.stem for p in inbox_dir(ws).glob("prop-*")}
    pid = str(data.get("id") or next_id("prop", datetime.now().strftime("%Y%m%d"), taken))
    data = {"id": pid, **{k: v for k, v in data.items() if k != "id"}}
    path = inbox_dir(ws) / f"{pid}.yaml"
    fw = FileWrite(
        path, None, new_yaml_document(data), in_place(ws, "inbox"), created_by="proposal"
    )
    result = apply(ws, TxPlan("propose", [pid], [fw]), ledger=ledger)
    return path, result
