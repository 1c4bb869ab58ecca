"""App-level messages: posted by the app to its screens (a leaf module: textual and store only)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from textual.message import Message


@dataclass
class WorkspaceChanged(Message, bubble=False):
    """Files changed on disk (or the index finished loading): screens refresh what they show."""

    changed: frozenset[Path] = field(default_factory=frozenset)
    removed: frozenset[Path] = field(default_factory=frozenset)
    initial: bool = False


@dataclass
class ReviewChanged(Message, bubble=False):
    """A decision was recorded or undone: counts and review states must be redrawn."""


@dataclass
class FilesWritten(Message, bubble=False):
    """A screen wrote these files: the app re-reads them and tells every screen."""

    paths: frozenset[Path] = field(default_factory=frozenset)
