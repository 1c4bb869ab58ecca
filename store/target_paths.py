"""Where promotions may write: inside the workspace root and the config's allowed directories.

``~`` is expanded; ``~/.claude/...`` (how the hurikaeri skill names the Claude home) means the
workspace root, whatever the root is; other relative paths resolve against the root. The
final location is checked twice, as written (``..`` collapsed) and with every symlink
followed, so neither a traversal nor a link can lead a write outside.
"""

from __future__ import annotations

import os
from pathlib import Path

from .workspace import Workspace

CLAUDE_HOME = "~/.claude"


class PathRefused(Exception):
    """A target outside what may be written; the message names the resolved path."""


def allowed_bases(ws: Workspace) -> list[Path]:
    bases = [ws.root, *ws.config.allowed_dirs]
    return [Path(os.path.realpath(os.path.expanduser(b))) for b in bases]


def _inside(path: Path, bases: list[Path]) -> bool:
    return any(path == b or b in path.parents for b in bases)


def resolve_target(ws: Workspace, raw: str) -> Path:
    """The absolute file a persistence-target path names, or :class:`PathRefused`."""
    text = (raw or "").strip()
    if not text:
        raise PathRefused("the target has no path")
    if "\x00" in text:
        raise PathRefused("the target path contains a NUL byte")
    norm = text.replace("\\", "/")
    if norm == CLAUDE_HOME or norm.startswith(CLAUDE_HOME + "/"):
        candidate = ws.root / norm[len(CLAUDE_HOME) :].lstrip("/")
    else:
        p = Path(os.path.expanduser(norm))
        candidate = p if p.is_absolute() else ws.root / p
    lexical = Path(os.path.normpath(candidate))
    bases = allowed_bases(ws)
    lexical_bases = [
        Path(os.path.normpath(os.path.expanduser(b))) for b in [ws.root, *ws.config.allowed_dirs]
    ]
    if not (_inside(lexical, lexical_bases) or _inside(lexical, bases)):
        raise PathRefused(
            f"refused: {lexical} is outside the workspace root {ws.root}"
            + (" and the allowed directories" if ws.config.allowed_dirs else "")
        )
    real = Path(os.path.realpath(lexical))
    if not _inside(real, bases):
        raise PathRefused(
            f"refused: {raw} leads through a symlink to {real}, outside the workspace"
        )
    if real.is_dir():
        raise PathRefused(f"refused: {real} is a directory, not a file")
    return lexical
