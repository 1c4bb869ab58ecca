"""Pydantic models of every format hurikaeri reads: the single source of truth for them."""

from store.models.feedback import Feedback
from store.models.knowledge import AntiPattern, Pattern, ProjectMemory, Skill
from store.models.kpt import KptReport
from store.models.lessons import Lesson, SessionSummary, WrapupInput
from store.models.metablock import MetaBlock
from store.models.piece import Piece
from store.models.proposal import Proposal

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
