"""Who made a change to review (#45): the session and turn whose tool call wrote it, matched
by content, then by the git commit (:mod:`store.insight.change_git`), then by time. Only
transcripts written since the oldest reviewed state that name a changed file are parsed."""

from __future__ import annotations

import os
import re
from dataclasses import asdict, dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from store.index.transcript_locator import TranscriptLocator
from store.insight.change_git import Change, commits
from store.read.isotime import parse_time
from store.read.transcript import CODE_CHANGE_TOOLS, load_record, read_transcript

if TYPE_CHECKING:
    from collections.abc import Sequence

    from store.workspace import Workspace


@dataclass(frozen=True, slots=True)
class Source:
    """The tool call a change is attributed to."""

    session: str
    turn: int
    tool: str
    at: str | None
    #: ``content`` (what it wrote is in the file) or ``time`` (only when it came)
    how: str
    transcript: Path
    #: the transcript line of the call (to open it there)
    line: int

    def describe(self) -> str:
        by = "" if self.how == "content" else ", by time"
        return f"session {self.session[:8]}…, turn {self.turn}, {self.tool}{by}"

    def as_json(self) -> dict[str, Any]:
        return {**asdict(self), "transcript": str(self.transcript)}


def _written(name: str, tool_input: Any) -> list[str]:
    """The texts a file-changing call wrote."""
    if not isinstance(tool_input, dict):
        return []
    texts = [
        tool_input.get({"Write": "content", "NotebookEdit": "new_source"}.get(name, "new_string"))
    ]
    edits = tool_input.get("edits")
    if name == "MultiEdit" and isinstance(edits, list):
        texts += [e.get("new_string") for e in edits if isinstance(e, dict)]
    return [t for t in texts if isinstance(t, str) and t.strip()]


def _resolved(target: str, cwd: str | None) -> str:
    path = os.path.expanduser(target)
    if not os.path.isabs(path) and cwd:
        path = os.path.join(cwd, path)
    return os.path.normpath(path)


def attribute(ws: Workspace, changes: Sequence[Change]) -> None:
    """Set each change's ``source`` (left ``None``: unknown)."""
    todo = [c for c in changes if c.current is not None or c.reviewed is not None]
    if not todo:
        return
    since = [parse_time(c.reviewed_at) for c in todo]
    oldest = min((s for s in since if s is not None), default=None)
    needles = {c.path.name.encode() for c in todo}
    best: dict[int, tuple[int, float, Source]] = {}  # change → (rank, call's time, call)
    # the ways a call may name a file: its path as it is, and with links followed
    names = [{os.path.normpath(c.path), os.path.realpath(c.path)} for c in todo]
    for sid, paths in TranscriptLocator(ws).files().items():
        for tpath in paths:
            if not _may_hold(tpath, oldest, needles):
                continue
            _scan(sid, tpath, todo, names, best)
    # a call that wrote it by content, else the commit git brought it with, else a call by time
    rest = [i for i in range(len(todo)) if i not in best or best[i][0] < 2]
    brought = commits([todo[i] for i in rest]) if rest else {}
    for k, i in enumerate(rest):
        todo[i].source = brought.get(k)
    for i, found in best.items():
        if todo[i].source is None:
            todo[i].source = found[2]


#: how a file-changing call's name shows in a transcript line (with or without spaces)
_TOOL_NAMES = tuple(f'"{t}"'.encode() for t in sorted(CODE_CHANGE_TOOLS))


def _may_hold(path: Path, oldest: datetime | None, needles: set[bytes]) -> bool:
    """Whether a line of the transcript may hold a file-changing call on a changed file:
    it was written to since the oldest reviewed state, and one line names both."""
    try:
        if oldest is not None and path.stat().st_mtime < oldest.timestamp():
            return False  # written to before the reviewed state: no later call in it
        data = path.read_bytes()
    except OSError:
        return False
    pattern = re.compile(b"|".join(re.escape(n) for n in sorted(needles)))
    pos = 0
    while (found := pattern.search(data, pos)) is not None:
        start = data.rfind(b"\n", 0, found.start()) + 1
        end = data.find(b"\n", found.end())
        end = len(data) if end < 0 else end
        if any(t in data[start:end] for t in _TOOL_NAMES):
            return True
        pos = end + 1
    return False


def _scan(
    sid: str,
    tpath: Path,
    todo: list[Change],
    names: list[set[str]],
    best: dict[int, tuple[int, float, Source]],
) -> None:
    transcript = read_transcript(tpath, sid)
    for turn in transcript.turns:
        for block in turn.tool_calls():
            if block.name not in CODE_CHANGE_TOOLS or not block.target:
                continue
            record = load_record(tpath, block.offset) or {}
            cwd = record.get("cwd") if isinstance(record.get("cwd"), str) else transcript.cwd
            target = _resolved(block.target, cwd)
            hits = [i for i, n in enumerate(names) if target in n]
            if not hits:
                continue
            tool_input = _input(record, block.tool_id)
            when = parse_time(turn.timestamp)
            stamp = when.timestamp() if when is not None else 0.0
            for i in hits:
                rank = _rank(todo[i], block.name, tool_input, when)
                if rank == 0:
                    continue
                how = "content" if rank == 2 else "time"
                src = Source(sid, turn.number, block.name, turn.timestamp, how, tpath, block.line)
                if i not in best or (rank, stamp) >= best[i][:2]:
                    best[i] = (rank, stamp, src)


def _input(record: dict[str, Any], tool_id: str) -> Any:
    message = record.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, list):
        for part in content:
            if isinstance(part, dict) and part.get("id") == tool_id:
                return part.get("input")
    return None


def _rank(change: Change, tool: str, tool_input: Any, when: datetime | None) -> int:
    """2: what the call wrote is in the file (more than in the reviewed copy); 1: it came
    after the reviewed state was taken; 0: neither."""
    now = (change.current or b"").decode("utf-8", "replace")
    before = (change.reviewed or b"").decode("utf-8", "replace")
    texts = _written(tool, tool_input)
    if texts and change.current is not None:
        if tool == "Write" and texts[0].strip() == now.strip():
            return 2
        if all(t in now for t in texts) and any(now.count(t) > before.count(t) for t in texts):
            return 2
    since = parse_time(change.reviewed_at)
    if when is not None and since is not None and when >= since:
        return 1
    return 0
