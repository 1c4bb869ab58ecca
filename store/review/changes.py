"""Changes since the last review (#45): what agents, people and pulls wrote into the files
agents load, outside hurikaeri, against each file's reviewed state (:mod:`store.tx.reviewed`).

The first start records every reviewed state and lists nothing. Keep, keep-edited and revert
are transactions, refused naming the file when it changed again since it was shown.
"""

from __future__ import annotations

import difflib
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from store.check.secrets import SecretHit, check_write, scan_added
from store.config import default_config_path
from store.errors import ReviewError
from store.insight.budgets import BudgetCheck, check_budget
from store.insight.targets import list_targets
from store.ledger import Ledger, now_iso
from store.read.counted import counted
from store.read.kinds import ignored_name
from store.tx.journal import FileWrite
from store.tx.reviewed import KEEP, REVERT, Reviewed, key_of, path_of, sha256
from store.tx.transactions import Effect, TxPlan, TxResult, apply
from store.workspace import Workspace
from store.write.policy import action_writes
from store.write.textdiff import bytes_diff

Status = Literal["modified", "new", "deleted"]
#: lines of context around a hunk (as ``diff -u``)
CONTEXT = 3


@dataclass(slots=True)
class Change:
    """One file that differs from its reviewed state."""

    path: Path
    key: str
    status: Status
    reviewed: bytes | None
    current: bytes | None
    reviewed_at: str | None = None
    secrets: list[SecretHit] = field(default_factory=list)
    budget: BudgetCheck | None = None
    #: who made it (:class:`store.insight.change_source.Source`, or the
    #: :class:`store.insight.change_git.Commit` that brought it), when attributed
    source: Any = None

    def diff(self) -> str:
        a = "/dev/null" if self.reviewed is None else f"a/{self.key} (reviewed)"
        b = "/dev/null" if self.current is None else f"b/{self.key} (now)"
        return bytes_diff(self.reviewed, self.current, a, b)

    def counts(self) -> tuple[int, int]:
        """Lines added and removed."""
        added = removed = 0
        for line in self.diff().splitlines():
            if line.startswith("+") and not line.startswith("+++"):
                added += 1
            elif line.startswith("-") and not line.startswith("---"):
                removed += 1
        return added, removed

    @property
    def hunks(self) -> int:
        return len(_hunks(self.reviewed, self.current))

    @property
    def marks(self) -> list[str]:
        out = []
        if self.secrets:
            out.append("secret")
        if self.budget is not None and self.budget.crosses:
            out.append("over budget")
        return out

    def summary(self) -> str:
        """``CLAUDE.md  modified +2 −1  session 3f2c…, turn 37, Edit``."""
        added, removed = self.counts()
        marks = "".join(f"  [{m}]" for m in self.marks)
        src = self.source.describe() if self.source is not None else "unknown"
        return f"{self.key}  {self.status} +{added} −{removed}  {src}{marks}"

    def as_json(self) -> dict[str, Any]:
        added, removed = self.counts()
        return {
            "path": self.key,
            "status": self.status,
            "added": added,
            "removed": removed,
            "hunks": self.hunks,
            "reviewed_sha256": None if self.reviewed is None else sha256(self.reviewed),
            "current_sha256": None if self.current is None else sha256(self.current),
            "reviewed_at": self.reviewed_at,
            "marks": self.marks,
            "secrets": [h.as_json() for h in self.secrets],
            "budget": self.budget.as_json() if self.budget is not None else None,
            "source": self.source.as_json() if self.source is not None else None,
            "diff": self.diff(),
        }


def memory_topics(ws: Workspace) -> list[Path]:
    """Claude Code's auto-memory files: every Markdown file in ``projects/<slug>/memory/``."""
    found = sorted((ws.root / "projects").glob("*/memory/*"))
    return [
        p for p in found if p.suffix.lower() == ".md" and not ignored_name(p.name) and p.is_file()
    ]


def tracked(ws: Workspace, ledger: Ledger | None = None) -> dict[str, Path]:
    """Every file that has a reviewed state: index key → path."""
    paths = [t.path for t in list_targets(ws, ledger)] + memory_topics(ws)
    # the config read, and the one at its default place (the only one that may let agents
    # decide: a change to it is a change to review)
    for config in (ws.config.path, default_config_path()):
        if config is not None and config.is_file():
            paths.append(config)
    # a link to another tracked file (CLAUDE.md -> AGENTS.md) is that file: one change
    out: dict[str, Path] = {}
    seen: set[str] = set()
    for p in sorted(paths, key=os.path.islink):  # the file before a link to it
        if (real := os.path.realpath(p)) not in seen:
            seen.add(real)
            out[key_of(ws, p)] = p
    return out


class _Unreadable(Exception):
    """A file that is there but cannot be read now (permissions): neither changed nor gone."""


def _read(path: Path) -> bytes | None:
    """The file's bytes; ``None`` when no regular file is there (gone, or a directory, FIFO or
    device in its place: never opened, a FIFO would block for ever)."""
    try:
        return path.read_bytes() if stat.S_ISREG(os.stat(path).st_mode) else None
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:
        raise _Unreadable(str(exc)) from exc


def record_all(ws: Workspace, ledger: Ledger | None = None) -> int:
    """Take the reviewed state of every target (the first start); returns how many."""
    rv = Reviewed.load(ws)
    n = 0
    for key, path in tracked(ws, ledger).items():
        try:
            data = _read(path)
        except _Unreadable:
            continue
        if data is not None:
            rv.set(key, data)
            n += 1
    rv.save(ledger)
    return n


def first_start_line(n: int) -> str:
    return f"reviewed state recorded for {counted(n, 'file')}; changes from now on are listed"


def list_changes(
    ws: Workspace, *, ledger: Ledger | None = None, attribute: bool = True
) -> tuple[list[Change], int | None]:
    """The changes to review, and on the first start how many reviewed states were recorded."""
    led = ledger if ledger is not None else Ledger(ws.state_dir)
    led.refresh()
    rv = Reviewed.load(ws)
    if not rv.exists:
        return [], record_all(ws, led)
    files = tracked(ws, led)
    real = {os.path.realpath(p): k for k, p in files.items()}
    for key in rv.entries:
        twin = real.get(os.path.realpath(path_of(ws, key)))
        # a link to a tracked file is that file, unless what was reviewed under its name
        # was not (an agent replaced AGENTS.md, its own text, by a link to CLAUDE.md)
        if key not in files and (twin is None or rv.sha(key) != rv.sha(twin)):
            files[key] = path_of(ws, key)
    out: list[Change] = []
    for key in sorted(files):
        path = files[key]
        try:
            current = _read(path)
        except _Unreadable:
            continue  # listed once it can be read again
        digest = rv.sha(key)
        if digest is None:
            if current is not None:
                out.append(_change(ws, path, key, "new", None, current, None))
            continue
        if current is not None and sha256(current) == digest:
            continue
        reviewed = rv.blob(digest)
        status: Status = "deleted" if current is None else "modified"
        out.append(_change(ws, path, key, status, reviewed, current, rv.at(key)))
    if attribute and out:
        from store.insight.change_source import attribute as attribute_all

        attribute_all(ws, out)
    return out, None


def _change(
    ws: Workspace,
    path: Path,
    key: str,
    status: Status,
    reviewed: bytes | None,
    current: bytes | None,
    at: str | None,
) -> Change:
    ch = Change(path, key, status, reviewed, current, at)
    if current is not None:
        ch.secrets = scan_added(reviewed, current, key)
        ch.budget = check_budget(ws, path, reviewed, current)
    return ch


def find(changes: list[Change], ws: Workspace, name: str) -> Change:
    """The change of the file ``name`` (as listed, or a path)."""
    key = key_of(ws, Path(os.path.expanduser(name)))
    for ch in changes:
        if name in (ch.key, str(ch.path)) or ch.key == key:
            return ch
    raise ReviewError(f"{name}: no change to review in this file ('hurikaeri changes' lists them)")


def keep(ws: Workspace, changes: list[Change], *, ledger: Ledger | None = None) -> TxResult:
    """The files as shown become their reviewed state: one transaction for them all."""
    if not changes:
        raise ReviewError("nothing to keep: no change to review")
    rv = Reviewed.load(ws)
    effects = [_kept(rv, ch.key, ch.current) for ch in changes]
    plan = TxPlan(KEEP, [ch.key for ch in changes], [], effects)
    return apply(ws, plan, ledger=ledger)


def keep_edited(
    ws: Workspace,
    change: Change,
    after: bytes,
    *,
    allow_secrets: bool = False,
    ledger: Ledger | None = None,
) -> TxResult:
    """Write the person's edit of the file as shown and make it the reviewed state (one ``keep``
    transaction); secrets refused unless allowed, a file changed since shown refused."""
    check_write(change.reviewed, after, change.key, f"the edited {change.key}", allow=allow_secrets)
    rv = Reviewed.load(ws)
    fw = FileWrite(change.path, change.current, after, action_writes(ws, KEEP))
    plan = TxPlan(KEEP, [f"{change.key} (edited)"], [fw], [_kept(rv, change.key, after)])
    return apply(ws, plan, ledger=ledger)


def _kept(rv: Reviewed, key: str, data: bytes | None) -> Effect:
    """The keep of ``key`` as ``data``: the reviewed state before and after, for undo."""
    to = rv.put_blob(data) if data is not None else None
    return Effect(
        KEEP,
        key,
        data={
            "path": key,
            "from": rv.sha(key),
            "from_at": rv.at(key),
            "to": to,
            "to_at": now_iso(),
        },
    )


def revert(
    ws: Workspace,
    change: Change,
    hunk: int | None = None,
    *,
    ledger: Ledger | None = None,
) -> TxResult:
    """Put the reviewed content back (``hunk``: only that 1-based hunk) as one transaction."""
    if change.status == "modified" and change.reviewed is None:
        raise ReviewError(f"{change.key}: the reviewed copy is missing; keep it or edit it")
    after = change.reviewed
    subject = change.key
    if hunk is not None:
        groups = _hunks(change.reviewed, change.current)
        if not 1 <= hunk <= len(groups):
            raise ReviewError(f"{change.key}: no hunk {hunk} (the diff has {len(groups)})")
        after = _revert_hunk(change.reviewed, change.current, groups[hunk - 1])
        subject = f"{change.key} hunk {hunk}"
    fw = FileWrite(change.path, change.current, after, action_writes(ws, REVERT))
    return apply(ws, TxPlan(REVERT, [subject], [fw]), ledger=ledger)


def _lines(data: bytes | None) -> list[str]:
    """Lines as bytes_diff splits them (hunks numbered as shown), undecodable bytes kept."""
    return (data or b"").decode("utf-8", "surrogateescape").splitlines(keepends=True)


def _hunks(
    reviewed: bytes | None, current: bytes | None
) -> list[list[tuple[str, int, int, int, int]]]:
    sm = difflib.SequenceMatcher(None, _lines(reviewed), _lines(current))
    return list(sm.get_grouped_opcodes(CONTEXT))


def _revert_hunk(
    reviewed: bytes | None, current: bytes | None, group: list[tuple[str, int, int, int, int]]
) -> bytes:
    """``current`` with the changes of one hunk taken back."""
    a, b = _lines(reviewed), _lines(current)
    chosen = {op for op in group if op[0] != "equal"}
    sm = difflib.SequenceMatcher(None, a, b)
    out: list[str] = []
    for op in sm.get_opcodes():
        tag, i1, i2, j1, j2 = op
        out += a[i1:i2] if tag != "equal" and op in chosen else b[j1:j2]
    return "".join(out).encode("utf-8", "surrogateescape")
