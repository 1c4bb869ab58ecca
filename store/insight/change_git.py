"""A git commit as the source of a change no tool call wrote (#45): one ``log --raw`` per
repository; the commit holding the current content wins when newer than the reviewed state.
No git, no repository, a shallow history or a timeout: nothing is said."""

from __future__ import annotations

import hashlib
import os
import subprocess
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Protocol

from store.git import run_git
from store.read.isotime import parse_time

#: how many of a repository's newest commits touching the changed files are looked at
DEPTH = 50
#: seconds one git command may take
TIMEOUT = 5.0
_FORMAT = "%x00%H%x1f%h%x1f%an%x1f%aI%x1f%ct%x1f%s"


class Change(Protocol):
    """What :func:`attribute` reads and sets of a change to review
    (:class:`store.review.changes.Change`, which calls it: named here, not imported)."""

    path: Path
    reviewed: bytes | None
    current: bytes | None
    reviewed_at: str | None
    source: Any


@dataclass(frozen=True, slots=True)
class Commit:
    """The commit a change is attributed to."""

    commit: str
    short: str
    author: str
    at: str
    subject: str
    #: its committer time (epoch s)
    time: int = 0
    how: str = "git"

    def describe(self) -> str:
        return f"commit {self.short}, {self.author}: {self.subject}"

    def as_json(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if k != "time"}


def _git(cwd: Path, *args: str) -> str | None:
    """``git args`` run in ``cwd``: its output (paths kept byte for byte), or ``None`` (no git,
    failed, too slow)."""
    try:
        done = run_git(cwd, "-c", "core.quotePath=false", *args, timeout=TIMEOUT)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout if done.returncode == 0 else None


def _blob(data: bytes | None, algo: str) -> str:
    """The object name git gives ``data`` (zeros: no file)."""
    digest = hashlib.new(algo)
    if data is None:
        return "0" * (digest.digest_size * 2)
    digest.update(b"blob %d\0" % len(data))
    digest.update(data)
    return digest.hexdigest()


def _repo(directory: Path, seen: dict[Path, tuple[Path, str] | None]) -> tuple[Path, str] | None:
    """The work tree holding ``directory`` and its hash (``sha1``, ``sha256``), or ``None``."""
    if directory not in seen:
        out = _git(directory, "rev-parse", "--show-toplevel", "--show-object-format")
        lines = (out or "").splitlines()
        seen[directory] = None
        if lines and os.path.isabs(lines[0]):
            algo = "sha256" if lines[1:2] == ["sha256"] else "sha1"
            seen[directory] = (Path(lines[0]), algo)
    return seen[directory]


def _history(top: Path, rels: list[str]) -> dict[str, list[tuple[str, Commit]]]:
    """Per path, newest first: (the file's object name after the commit, the commit)."""
    out = _git(
        top,
        "log",
        f"-n{DEPTH}",
        "--raw",
        "--no-renames",
        f"--format={_FORMAT}",
        "--",
        *rels,
    )
    found: dict[str, list[tuple[str, Commit]]] = {}
    commit: Commit | None = None
    for line in (out or "").splitlines():
        if line.startswith("\0"):
            # shown text, not a path: bytes that are not UTF-8 become U+FFFD
            parts = (
                line[1:].encode(errors="surrogateescape").decode(errors="replace").split("\x1f", 5)
            )
            if len(parts) == 6 and parts[4].isdigit():
                full, short, author, at, ct, subject = parts
                commit = Commit(full, short, author, at, subject, int(ct))
        elif line.startswith(":") and "\t" in line and commit is not None:
            meta, _, path = line.partition("\t")
            fields = meta.split()
            if len(fields) >= 5:
                found.setdefault(path, []).append((fields[3], commit))
    return found


def commits(changes: Sequence[Change]) -> dict[int, Commit]:
    """The commit that brought each change (by its index in ``changes``), where one did."""
    seen: dict[Path, tuple[Path, str] | None] = {}
    by_repo: dict[tuple[Path, str], list[tuple[int, str]]] = {}
    for i, ch in enumerate(changes):
        where = ch.path.parent
        while not where.is_dir() and where != where.parent:  # a deleted file's folder may be gone
            where = where.parent
        repo = _repo(where, seen)
        if repo is None:
            continue
        rel = os.path.relpath(os.path.realpath(ch.path), os.path.realpath(repo[0]))
        if not rel.startswith(".."):
            by_repo.setdefault(repo, []).append((i, rel))
    found: dict[int, Commit] = {}
    for (work_tree, algo), files in by_repo.items():
        history = _history(work_tree, sorted({rel for _, rel in files}))
        for i, rel in files:
            hit = _match(changes[i], history.get(rel, []), algo)
            if hit is not None:
                found[i] = hit
    return found


def _match(change: Change, history: list[tuple[str, Commit]], algo: str) -> Commit | None:
    """The commit that made the file as it is now, when newer than the reviewed state (the
    object names in the history are git's abbreviations: prefixes)."""
    now = _blob(change.current, algo)
    was = _blob(change.reviewed, algo) if change.reviewed is not None else None
    i = next((k for k, (name, _) in enumerate(history) if now.startswith(name)), None)
    if i is None:
        return None
    if was is not None:
        j = next((k for k, (name, _) in enumerate(history) if was.startswith(name)), None)
        if j is not None:
            return history[i][1] if j > i else None
    since = parse_time(change.reviewed_at)
    return history[i][1] if since is None or history[i][1].time >= since.timestamp() else None
