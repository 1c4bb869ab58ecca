"""Pydantic models of every format hurikaeri reads: the single source of truth for them."""

from .feedback import Feedback
from .knowledge import AntiPattern, Pattern, ProjectMemory, Skill
from .kpt import KptReport
from .lessons import Lesson, SessionSummary, WrapupInput
from .metablock import MetaBlock
from .piece import Piece
from .proposal import Proposal

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
