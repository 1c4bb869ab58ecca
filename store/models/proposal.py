"""Inbox proposal ``knowledge_base/inbox/<id>.yaml``: our format, since seed 003 asks for
approval but defines no file."""

from __future__ import annotations

from typing import Annotated, Any

from store.models.base import Choice, DateText, Record, Required

PROPOSAL_KINDS = ("skill", "pattern", "anti_pattern", "memory")
PROPOSAL_STATUSES = ("pending", "approved", "rejected")


class Proposal(Record):
    id: Annotated[str | None, Required("the file's name without .yaml")] = None
    created_at: Annotated[str | None, Required("an ISO 8601 time"), DateText()] = None
    proposed_by: str | None = None
    session_id: str | None = None
    kind: Annotated[str | None, Required(), Choice(*PROPOSAL_KINDS)] = None
    title: str | None = None
    rationale: str | None = None
    evidence: list[Any] | None = None
    target: Annotated[str | None, Required("a path inside the workspace root")] = None
    base_version: int | None = None
    payload: Annotated[dict[str, Any] | None, Required("the full proposed document")] = None
    status: Annotated[str | None, Required(), Choice(*PROPOSAL_STATUSES)] = None
    decided_at: Annotated[str | None, DateText()] = None
    decision_note: str | None = None
