"""Knowledge base documents and project memory (seed 003)."""

from __future__ import annotations

from typing import Annotated, Any

from store.models.base import Choice, DateText, Record, Required


class Triggers(Record):
    keywords: list[str] | None = None
    file_patterns: list[str] | None = None
    task_types: list[str] | None = None


class SkillStats(Record):
    times_loaded: int | None = None
    success_rate: float | None = None
    avg_tokens_saved: float | None = None


class Skill(Record):
    skill_id: Annotated[str | None, Required("an identifier")] = None
    name: Annotated[str | None, Required("a human name")] = None
    version: int | None = None
    created_at: Annotated[str | None, DateText()] = None
    updated_at: Annotated[str | None, DateText()] = None
    triggers: Triggers | None = None
    content: Annotated[str | None, Required("the skill text (Markdown)")] = None
    stats: SkillStats | None = None
    related_skills: list[str] | None = None


class Evidence(Record):
    project: str | None = None
    task: str | None = None
    result: str | None = None
    error: str | None = None


class Pattern(Record):
    pattern_id: Annotated[str | None, Required("an identifier")] = None
    name: Annotated[str | None, Required("a human name")] = None
    type: Annotated[str | None, Choice("success")] = None
    context: str | None = None
    solution: Annotated[str | None, Required("what to do")] = None
    evidence: list[Evidence] | None = None
    tags: list[str] | None = None


class AntiPattern(Record):
    pattern_id: Annotated[str | None, Required("an identifier")] = None
    name: Annotated[str | None, Required("a human name")] = None
    type: Annotated[str | None, Choice("failure")] = None
    context: str | None = None
    bad_approach: Annotated[str | None, Required("what not to do")] = None
    why_bad: str | None = None
    correct_approach: str | None = None
    evidence: list[Evidence] | None = None
    tags: list[str] | None = None


class LearnedBehavior(Record):
    trigger: Annotated[str | None, Required("when it applies")] = None
    behavior: Annotated[str | None, Required("what to do")] = None
    reason: str | None = None


class KnownIssue(Record):
    description: str | None = None
    workaround: str | None = None


class ProjectMemory(Record):
    project_id: Annotated[str | None, Required("the project id")] = None
    last_updated: Annotated[str | None, DateText()] = None
    preferences: dict[str, Any] | None = None
    learned_behaviors: list[LearnedBehavior] | None = None
    known_issues: list[KnownIssue] | None = None
