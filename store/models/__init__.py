"""Pydantic models of every format hurikaeri reads, each imported when first named (a small
command does not pay for every format's models)."""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from store.models.feedback import Feedback
    from store.models.knowledge import AntiPattern, Pattern, ProjectMemory, Skill
    from store.models.kpt import KptReport
    from store.models.lessons import Lesson, SessionSummary, WrapupInput
    from store.models.metablock import MetaBlock
    from store.models.piece import Piece
    from store.models.proposal import Proposal

#: each model's module, under this package
_WHERE = {
    "AntiPattern": "knowledge",
    "Feedback": "feedback",
    "KptReport": "kpt",
    "Lesson": "lessons",
    "MetaBlock": "metablock",
    "Pattern": "knowledge",
    "Piece": "piece",
    "ProjectMemory": "knowledge",
    "Proposal": "proposal",
    "SessionSummary": "lessons",
    "Skill": "knowledge",
    "WrapupInput": "lessons",
}


def __getattr__(name: str) -> Any:
    where = _WHERE.get(name)
    if where is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f"{__name__}.{where}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_WHERE])


__all__ = [
    "AntiPattern",
    "Feedback",
    "KptReport",
    "Lesson",
    "MetaBlock",
    "Pattern",
    "Piece",
    "ProjectMemory",
    "Proposal",
    "SessionSummary",
    "Skill",
    "WrapupInput",
]
