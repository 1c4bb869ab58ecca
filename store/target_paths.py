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


def _bases(ws: Workspace) -> list[Path]:
    """The root, the config's allowed directories (relative ones against the root, as the
    workspace's own locations are) and the locations the config moved elsewhere."""
    out = [ws.root]
    for b in ws.config.allowed_dirs:
        p = Path(os.path.expanduser(b))
        out.append(p if p.is_absolute() else ws.root / p)
    out += [p for ps in ws.locations.values() for p in ps]
    return [Path(os.path.normpath(p)) for p in out]


def allowed_bases(ws: Workspace) -> list[Path]:
    return [Path(os.path.realpath(b)) for b in _bases(ws)]


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
    if not (_inside(lexical, _bases(ws)) or _inside(lexical, bases)):
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


def check_write(ws: Workspace, path: Path) -> None:
    """Refuse (:class:`PathRefused`) a write to ``path`` unless, every symlink followed, it
    lands inside what may be written: checked again right before writing, since a file
    found in the workspace (a proposal) may be a link, or one may appear after planning."""
    real = Path(os.path.realpath(path))
    if not _inside(real, allowed_bases(ws)):
        raise PathRefused(f"refused: {path} leads to {real}, outside the workspace")
