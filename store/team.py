"""A team reviewing one workspace kept in git (docs/team-review.md): who is reviewing, and
their ledger file, ``ledger/<name>.jsonl`` (one writer per file: git never merges a ledger)."""

from __future__ import annotations

import functools
import json
import os
import re
import stat
from pathlib import Path

REVIEWER_ENV = "HURIKAERI_REVIEWER"
TEAM_DIR = "ledger"
LOCAL_LEDGER = "ledger.jsonl"  # one reviewer without a team; never shared
#: what ``ledger.jsonl`` is renamed to once its lines are brought into the reviewer's file
BROUGHT_IN = "ledger.jsonl.brought-in"

_UNSAFE = re.compile(r"[^a-z0-9._@+-]+")
#: the config's ``reviewer`` per state directory (set by :class:`store.workspace.Workspace`)
_configured: dict[str, str] = {}


def file_name(who: str) -> str:
    """The file name (no ``.jsonl``) of ``who``'s ledger: lower case (case-insensitive file
    systems agree), safe characters only, at most 100; ``unknown`` if empty."""
    name = _UNSAFE.sub("_", who.strip().lower()).strip("._")[:100].strip("._")
    return name or "unknown"


def configure(state_dir: Path, reviewer: str | None) -> None:
    key = os.path.abspath(state_dir)
    if reviewer and reviewer.strip():
        _configured[key] = reviewer.strip()
    else:
        _configured.pop(key, None)


@functools.lru_cache(maxsize=64)
def _git_email(root: str) -> str:
    import subprocess  # (here: not imported by every command that opens a workspace)

    from store.git import run_git

    try:
        out = run_git(
            Path(root) if os.path.isdir(root) else Path(), "config", "user.email", timeout=5
        )
    except (OSError, subprocess.SubprocessError):
        return ""
    return out.stdout.strip() if out.returncode == 0 else ""


def _login() -> str:
    import getpass

    try:
        return getpass.getuser() or "unknown"
    except (OSError, KeyError, ImportError):
        return "unknown"


def reviewer(who: str | None = None, state_dir: Path | None = None) -> str:
    """Who is acting (the order: see the module's docstring)."""
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


def linked_dir(state_dir: Path) -> Path | None:
    """The state directory or the team's ``ledger/`` if it is a link (writes would leave the
    workspace; the root may be one: the person chose it)."""
    for d in (state_dir, team_dir(state_dir)):
        try:
            if stat.S_ISLNK(os.lstat(d).st_mode):
                return d
        except OSError:
            return None  # not there (nor anything below it)
    return None


def is_team(state_dir: Path) -> bool:
    return team_dir(state_dir).is_dir()


def ledger_file(state_dir: Path, who: str) -> Path:
    return team_dir(state_dir) / f"{file_name(who)}.jsonl"


def _local_bytes(state_dir: Path) -> bytes:
    """The complete lines of ``ledger.jsonl`` (empty: none, or not a regular file)."""
    path = state_dir / LOCAL_LEDGER
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode):
            return b""
        data = path.read_bytes()
    except OSError:
        return b""
    return data[: data.rfind(b"\n") + 1]


def decision_line(action: str, subjects: list[str], note: object) -> str:
    """A decision as one line of a sync's commit message."""
    more = f" +{len(subjects) - 5} more" if len(subjects) > 5 else ""
    line = f"{action} {', '.join(subjects[:5])}{more}"
    if isinstance(note, str) and note and action not in ("undo", "redo"):
        line += f" — {note}"
    return " ".join(line.split())[:200]


def _line(rec: dict[str, object]) -> str | None:
    """A decision of ``ledger.jsonl`` as one line (``None``: a line that is no decision)."""
    op = str(rec.get("op", ""))
    if op in ("begin", "abort"):
        return None  # a transaction's first line or its abort: its commit says what it did
    subjects = rec.get("subjects")
    names = (
        [str(x) for x in subjects] if isinstance(subjects, list) else [str(rec.get("target", ""))]
    )
    return decision_line(str(rec.get("action") or op), names, rec.get("note"))


def before_joining(state_dir: Path) -> list[str]:
    """One line per decision in ``ledger.jsonl`` (made before joining the team)."""
    out: list[str] = []
    for raw in _local_bytes(state_dir).splitlines():
        try:
            rec = json.loads(raw)
        except ValueError:
            continue
        if isinstance(rec, dict) and (line := _line(rec)) is not None:
            out.append(line)
    return out


def bring_in(state_dir: Path, own: Path) -> int:
    """``ledger.jsonl``'s lines made the start of ``own`` (new), it renamed :data:`BROUGHT_IN`;
    the bytes brought in. The caller holds the transaction lock."""
    data = _local_bytes(state_dir)
    own.parent.mkdir(parents=True, exist_ok=True)
    # whole or not at all: written aside, then linked into place, which fails when the file
    # is there (never over lines already there), so a crash leaves no half file behind
    import tempfile

    fd, tmp = tempfile.mkstemp(prefix=".bring-in-", dir=own.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.link(tmp, own)
    finally:
        os.unlink(tmp)
    dir_fd = os.open(own.parent, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)
    kept = state_dir / BROUGHT_IN
    n = 1
    while kept.exists():
        n += 1
        kept = state_dir / f"{BROUGHT_IN}.{n}"
    os.replace(state_dir / LOCAL_LEDGER, kept)
    return len(data)
