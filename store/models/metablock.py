"""Lightweight metadata block at the end of an agent's reply (seed 002)."""

from __future__ import annotations

from typing import Annotated

from .base import Choice, Record, Required

STATUSES = ("continue", "stop")
VERDICTS = ("pass", "conditional", "fail")
SEVERITIES = ("low", "medium", "high")


class Finding(Record):
    severity: Annotated[str | None, Choice(*SEVERITIES)] = None
    message: Annotated[str | None, Required("what the finding is")] = None
    suggestion: str | None = None


class MetaBlock(Record):
    status: Annotated[str | None, Required("continue or stop"), Choice(*STATUSES)] = None
    verdict: Annotated[str | None, Choice(*VERDICTS)] = None
    findings: list[Finding] | None = None
    open_questions: list[str] | None = None
    decisions: list[str] | None = None
    blockers: list[str] | None = None
    next_steps: list[str] | None = None
