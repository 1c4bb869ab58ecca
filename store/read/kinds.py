"""What kind of document a file is: by where it lies in the workspace, else by its content."""

from __future__ import annotations

import re
from enum import StrEnum
from pathlib import PurePath
from typing import Any


class Kind(StrEnum):
    KPT = "kpt"
    FEEDBACK = "feedback"
    SUMMARIES = "summaries"
    LESSONS = "lessons"
    SKILL = "skill"
    PATTERN = "pattern"
    ANTI_PATTERN = "anti_pattern"
    MEMORY = "memory"
    PROPOSAL = "proposal"
    DISCUSSION = "discussion"
    PIECE = "piece"
    WRAPUP = "wrapup"


YAML_SUFFIXES = (".yaml", ".yml")
#: Knowledge-base directories whose name says what their files are.
KB_KIND_DIRS = {"skills": Kind.SKILL, "patterns": Kind.PATTERN, "anti_patterns": Kind.ANTI_PATTERN}
_IGNORED_HEAD = re.compile(r"\.|4913$|#.*#$")
_IGNORED_TAILS = ("~", ".tmp", ".bak", ".orig", *(f".sw{c}" for c in "abcdefghijklmnop"))


def ignored_name(name: str) -> bool:
    """Editor droppings, temporary files and dot-files (ours included) are not documents.
    (One regex searched over the whole name cost 3 µs a file, a third of a search's scan.)"""
    end = name[:-1] if name[-1:] == "\n" else name  # (where a regex's ``$`` matches too)
    return end.endswith(_IGNORED_TAILS) or (
        name[:1] in ".4#" and _IGNORED_HEAD.match(name) is not None
    )


def kind_from_path(path: PurePath) -> Kind | None:
    """Recognise a file by the workspace conventions in its path alone."""
    name = path.name
    parts = path.parts
    suffix = path.suffix.lower()
    if suffix == ".jsonl":
        if name == "summaries.jsonl" or "session-summaries" in parts:
            return Kind.SUMMARIES
        if name == "lessons.jsonl" or "lessons" in parts or "lesson-learned" in parts:
            return Kind.LESSONS
        return None
    if suffix == ".md":
        return Kind.DISCUSSION if "discussions" in parts else None
    if suffix not in YAML_SUFFIXES:
        return None
    if re.fullmatch(r"kpt-\d{8}-\d+\.ya?ml", name):
        return Kind.KPT
    if re.fullmatch(r"fb-\d{8}-\d+\.ya?ml", name):
        return Kind.FEEDBACK
    if name.startswith("project_memory."):
        return Kind.MEMORY
    if "inbox" in parts and "knowledge_base" in parts:
        return Kind.PROPOSAL
    if "knowledge_base" in parts:  # (groups/ and projects/: decided by content)
        return next((KB_KIND_DIRS[p] for p in reversed(parts[:-1]) if p in KB_KIND_DIRS), None)
    if "pieces" in parts or "workflows" in parts:
        return Kind.PIECE
    return None


def kind_from_mapping(data: Any) -> Kind | None:
    """Recognise a YAML/JSON document by its keys."""
    if not isinstance(data, dict):
        return None
    keys = data.keys()
    if "movements" in keys or "initial_movement" in keys:
        return Kind.PIECE
    if keys & {"initial_step", "max_steps", "workflow_config"} or _is_step_list(data.get("steps")):
        return Kind.PIECE  # a TAKT workflow (TAKT ≥ 0.34 renamed piece → workflow)
    if "payload" in keys and "kind" in keys:
        return Kind.PROPOSAL
    if keys & {"keep", "problem", "omission"} or ("session_summary" in keys and "try" in keys):
        return Kind.KPT
    if "task_summary" in keys:
        return Kind.FEEDBACK
    if "skill_id" in keys:
        return Kind.SKILL
    if "pattern_id" in keys:
        if data.get("type") == "failure" or "bad_approach" in keys:
            return Kind.ANTI_PATTERN
        return Kind.PATTERN
    if "learned_behaviors" in keys or ("project_id" in keys and "preferences" in keys):
        return Kind.MEMORY
    if keys & {"user_lessons", "ai_lessons"}:
        return Kind.WRAPUP
    return None


def _is_step_list(value: Any) -> bool:
    """A TAKT workflow's ``steps``: a list of mappings, each with a ``name``."""
    return (
        isinstance(value, list)
        and bool(value)
        and all(isinstance(v, dict) and "name" in v for v in value)
    )


def kind_from_record(data: Any) -> Kind | None:
    """Recognise a JSONL file by one of its records."""
    if not isinstance(data, dict):
        return None
    rid = data.get("id")
    if isinstance(rid, str):
        if rid.startswith("ws-"):
            return Kind.SUMMARIES
        if rid.startswith("ll-"):
            return Kind.LESSONS
    if data.keys() & {"info_summary", "qa_pairs", "conclusions"}:
        return Kind.SUMMARIES
    if "type" in data and "title" in data:
        return Kind.LESSONS
    return None
