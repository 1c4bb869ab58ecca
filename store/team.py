"""A team reviewing one workspace kept in git: who is reviewing, and their ledger file.

Identity, in order: ``who`` when a caller names one, ``$HURIKAERI_REVIEWER``, the config's
``reviewer``, ``git config user.email`` (asked in the workspace's root), the OS login name.

Team mode is on when the state directory holds a ``ledger/`` directory: every reviewer then
appends only to ``ledger/<name>.jsonl`` (``<name>`` is :func:`file_name` of their identity),
one writer per file, so git never has to merge a ledger. Without it (one person, no team)
the single ``ledger.jsonl`` is written, as before. ``hurikaeri sync`` creates the directory.
"""

from __future__ import annotations

import functools
import getpass
import os
import re
import subprocess
from pathlib import Path

#: The environment variable naming the reviewer (ahead of the config and git).
REVIEWER_ENV = "HURIKAERI_REVIEWER"
#: The directory (under the state directory) of the per-reviewer ledgers.
TEAM_DIR = "ledger"

_UNSAFE = re.compile(r"[^a-z0-9._@+-]+")
#: the config's ``reviewer``, per state directory (set by :class:`store.workspace.Workspace`)
_configured: dict[str, str] = {}


def file_name(who: str) -> str:
    """The file name (without ``.jsonl``) of ``who``'s ledger: lower case (two spellings of
    one address are one person, and case-insensitive file systems agree), only letters,
    digits and ``. _ @ + -``, no leading dot, at most 100 characters; ``unknown`` if empty."""
    name = _UNSAFE.sub("_", who.strip().lower()).strip("._")[:100].strip("._")
    return name or "unknown"


def configure(state_dir: Path, reviewer: str | None) -> None:
    """Remember the config's ``reviewer`` for the workspace of ``state_dir``."""
    key = os.path.abspath(state_dir)
    if reviewer and reviewer.strip():
        _configured[key] = reviewer.strip()
    else:
        _configured.pop(key, None)


@functools.lru_cache(maxsize=64)
def _git_email(root: str) -> str:
    try:
        out = subprocess.run(
            ["git", "config", "user.email"],
            cwd=root if os.path.isdir(root) else None,
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return ""
    return out.stdout.strip() if out.returncode == 0 else ""


def _login() -> str:
    try:
        return getpass.getuser() or "unknown"
    except (OSError, KeyError, ImportError):
        return "unknown"


def reviewer(who: str | None = None, state_dir: Path | None = None) -> str:
    """Who is acting (see the module's docstring for the order)."""
    if who:
        return who
    env = os.environ.get(REVIEWER_ENV, "").strip()
    if env:
        return env
    if state_dir is not None:
        configured = _configured.get(os.path.abspath(state_dir))
        if configured:
            return configured
        email = _git_email(os.path.abspath(state_dir.parent))
        if email:
            return email
    return _login()


def team_dir(state_dir: Path) -> Path:
    return state_dir / TEAM_DIR


def is_team(state_dir: Path) -> bool:
    """Whether the workspace is reviewed by a team (its state has a ``ledger/`` directory)."""
    return team_dir(state_dir).is_dir()


def ledger_file(state_dir: Path, who: str) -> Path:
    """``who``'s own ledger in team mode."""
    return team_dir(state_dir) / f"{file_name(who)}.jsonl"


__all__ = [
    "REVIEWER_ENV",
    "TEAM_DIR",
    "configure",
    "file_name",
    "is_team",
    "ledger_file",
    "reviewer",
    "team_dir",
]
