"""Where a target path an agent wrote leads: ``~/.claude/...`` means the workspace root;
the result is checked as written and with every symlink followed, so neither ``..`` nor a
link leads a write outside the root or ``allowed_dirs``."""

from __future__ import annotations

import os
from pathlib import Path

from store.workspace import Workspace
from store.write.atomic import PathRefused
from store.write.policy import path_text_problem, write_bases

CLAUDE_HOME = "~/.claude"

__all__ = ["CLAUDE_HOME", "PathRefused", "resolve_target"]


def _inside(path: Path, bases: list[Path]) -> bool:
    return any(path == b or b in path.parents for b in bases)


def _lexical_bases(ws: Workspace) -> list[Path]:
    out = [ws.root]
    for b in ws.config.allowed_dirs:
        p = Path(os.path.expanduser(b))
        out.append(p if p.is_absolute() else ws.root / p)
    return [Path(os.path.normpath(p)) for p in out]


def resolve_target(ws: Workspace, raw: str) -> Path:
    """The absolute file a persistence-target path names, or :class:`PathRefused` (also
    when the file system cannot even look the path up)."""
    try:
        return _resolve(ws, raw)
    except (OSError, ValueError, RecursionError) as exc:
        raise PathRefused(f"refused: {raw[:200]!r} cannot be looked up: {exc}") from exc


def _resolve(ws: Workspace, raw: str) -> Path:
    text = (raw or "").strip()
    if not text:
        raise PathRefused("the target has no path")
    problem = path_text_problem(text)
    if problem:
        raise PathRefused(f"refused: {problem}")
    if text == CLAUDE_HOME or text.startswith(CLAUDE_HOME + "/"):
        candidate = ws.root / text[len(CLAUDE_HOME) :].lstrip("/")
    else:
        p = Path(os.path.expanduser(text))
        candidate = p if p.is_absolute() else ws.root / p
    lexical = Path(os.path.normpath(candidate))
    bases = write_bases(ws)
    if not (_inside(lexical, _lexical_bases(ws)) or _inside(lexical, bases)):
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
