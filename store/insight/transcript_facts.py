"""What each session did, in a few facts from its transcript, for :mod:`store.insight.usage`,
kept in ``.hurikaeri/usage-facts-v1.json``: a grown transcript is read from where the last
read stopped, a rewritten one anew (docs/usage.md)."""

from __future__ import annotations

import copy
import hashlib
import json
import os
import re
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from store.read.trace_counts import is_correction, own_text
from store.read.transcript import CODE_CHANGE_TOOLS, raw_lines
from store.write.state_file import read_state, write_state

CACHE_NAME = "usage-facts-v1.json"
CACHE_FORMAT = "hurikaeri-usage-facts"
CACHE_VERSION = 1
#: bytes before the read position hashed to notice a rewritten file
TAIL = 4096
#: distinct commands kept per session (with where each first ran)
MAX_COMMANDS = 2000
#: characters of a command kept
COMMAND_CAP = 300
#: distinct paths kept per session, read and edited each
MAX_PATHS = 2000

READ_TOOLS = frozenset({"Read", "NotebookRead", "Grep", "Glob", "LS"})
_COMMAND_NAME = re.compile(r"<command-name>\s*/?([\w:.-]+)\s*</command-name>")
_SKILL_MD = re.compile(r"(?:^|/)skills/([^/]+)/SKILL\.md$")


@dataclass(slots=True)
class SessionFacts:
    """What one transcript shows a session did (in the file's order where it matters)."""

    session_id: str
    project: str
    first: str | None = None
    last: str | None = None
    #: command (capped) → the place (the count of tool calls before it) where it first ran
    commands: dict[str, int] = field(default_factory=dict)
    tools: list[str] = field(default_factory=list)
    read: list[str] = field(default_factory=list)
    edited: list[str] = field(default_factory=list)
    #: skill name → how it was first invoked (``tool``, ``command``, ``read``)
    skills: dict[str, str] = field(default_factory=dict)
    corrections: int = 0
    calls: int = 0

    def ran_before(self, needle: str, place: int) -> bool:
        """Whether a command holding ``needle`` ran before the tool call at ``place``."""
        return any(needle in c and at < place for c, at in self.commands.items())

    def first_run(self, pattern: re.Pattern[str]) -> int | None:
        """Where a command matching ``pattern`` first ran (``None``: never)."""
        found = [at for c, at in self.commands.items() if pattern.search(c)]
        return min(found) if found else None


class _Reader:
    """Folds parsed lines into one :class:`SessionFacts`."""

    def __init__(self, facts: SessionFacts) -> None:
        self.facts = facts
        self._tools = set(facts.tools)
        self._read = set(facts.read)
        self._edited = set(facts.edited)

    def raw(self, raw: bytes) -> None:
        try:
            data = json.loads(raw)
        except (ValueError, RecursionError):
            return
        if isinstance(data, dict):
            self.line(data)

    def line(self, data: dict[str, Any]) -> None:
        f = self.facts
        stamp = data.get("timestamp")
        if isinstance(stamp, str) and 10 <= len(stamp) <= 40:  # an ISO time, not "" or junk
            if f.first is None or stamp < f.first:
                f.first = stamp
            if f.last is None or stamp > f.last:
                f.last = stamp
        summary = data.get("isCompactSummary") is True
        kind = data.get("type")
        message = data.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        if kind == "assistant" and isinstance(content, list):
            for part in content:
                if isinstance(part, dict) and part.get("type") == "tool_use":
                    self._call(part)
            return
        if kind not in ("user", "human") or summary:
            return
        if is_correction(own_text(content)):  # the hurikaeri skill's (store.read.trace_counts)
            self.facts.corrections += 1
        if kind == "user":
            texts = [content] if isinstance(content, str) else []
            if isinstance(content, list):
                texts = [
                    p["text"]
                    for p in content
                    if isinstance(p, dict)
                    and p.get("type") == "text"
                    and isinstance(p.get("text"), str)
                ]
            for text in texts:
                for name in _COMMAND_NAME.findall(text[:2000]):
                    self.facts.skills.setdefault(name, "command")

    def _call(self, part: dict[str, Any]) -> None:
        f = self.facts
        name = part.get("name")
        name = name if isinstance(name, str) else ""
        place = f.calls
        f.calls += 1
        if name and name not in self._tools:
            self._tools.add(name)
            f.tools.append(name)
        args = part.get("input")
        if not isinstance(args, dict):
            return
        if name == "Bash":
            command = args.get("command")
            if isinstance(command, str) and command.strip():
                key = " ".join(command.split())[:COMMAND_CAP]
                if key not in f.commands and len(f.commands) < MAX_COMMANDS:
                    f.commands[key] = place
        elif name == "Skill":
            skill = args.get("skill") or args.get("command")
            if isinstance(skill, str) and skill.strip():
                f.skills.setdefault(skill.strip().lstrip("/"), "tool")
        path = args.get("file_path") or args.get("notebook_path") or args.get("path")
        if not isinstance(path, str) or not path:
            return
        if name in CODE_CHANGE_TOOLS:
            if path not in self._edited and len(f.edited) < MAX_PATHS:
                self._edited.add(path)
                f.edited.append(path)
        elif name in READ_TOOLS:
            if path not in self._read and len(f.read) < MAX_PATHS:
                self._read.add(path)
                f.read.append(path)
            m = _SKILL_MD.search(path)
            if m and name == "Read":
                f.skills.setdefault(m.group(1), "read")


@dataclass(slots=True)
class _Entry:
    ident: list[int]
    offset: int
    tail: str
    facts: SessionFacts


def _tail_hash(fh: Any, offset: int) -> str:
    start = max(0, offset - TAIL)
    fh.seek(start)
    return hashlib.sha256(fh.read(offset - start)).hexdigest()[:32]


def _read_from(
    path: Path, entry: _Entry | None, session_id: str, project: str
) -> tuple[_Entry | None, int]:
    """``entry`` brought up to date with ``path``, and the bytes read (``None``: unreadable)."""
    try:
        fh = open(path, "rb")  # noqa: SIM115 - closed below
    except OSError:
        return None, 0
    with fh:
        st = os.fstat(fh.fileno())
        ident = [st.st_dev, st.st_ino]
        if entry is not None and (
            entry.ident != ident
            or st.st_size < entry.offset
            or _tail_hash(fh, entry.offset) != entry.tail
        ):
            entry = None  # replaced, truncated or rewritten: read anew
        if entry is not None and st.st_size == entry.offset:
            return entry, 0
        if entry is None:
            entry = _Entry(ident, 0, "", SessionFacts(session_id, project))
        else:  # the cached entry changes only once the new bytes are read whole
            entry = _Entry(ident, entry.offset, entry.tail, copy.deepcopy(entry.facts))
        reader = _Reader(entry.facts)
        fh.seek(entry.offset)
        offset = start = entry.offset
        for _at, raw in raw_lines(fh, start):  # a line too long to read: skipped (None)
            if raw is not None and not raw.endswith(b"\n"):
                break  # an unfinished last line: read it next time
            offset = fh.tell()
            if raw is not None:
                reader.raw(raw)
        entry.offset = offset
        entry.tail = _tail_hash(fh, offset)
        return entry, offset - start


class FactsCache:
    """Session facts of every transcript, kept up to date incrementally (one worker at a
    time)."""

    def __init__(self, state_dir: Path) -> None:
        self.path = state_dir / CACHE_NAME
        self._entries: dict[str, _Entry] | None = None
        self._dirty = False
        self.bytes_read = 0  # by the last update
        self.complete = True  # whether the last update went through every file

    def _load(self) -> dict[str, _Entry]:
        if self._entries is None:
            out: dict[str, _Entry] = {}
            for key, raw in read_state(self.path, CACHE_FORMAT, CACHE_VERSION).items():
                try:
                    facts = SessionFacts(**raw["facts"])
                    out[key] = _Entry(
                        list(raw["ident"]), int(raw["offset"]), str(raw["tail"]), facts
                    )
                except (KeyError, TypeError, ValueError):
                    continue
            self._entries = out
        return self._entries

    def update(
        self,
        files: Iterable[tuple[str, Path]],
        progress: Callable[[int, int], bool] | None = None,
    ) -> list[SessionFacts]:
        """The facts of each ``(session id, path)``, reading only what changed; ``progress``
        returning ``False`` stops (what was read is returned and kept)."""
        entries = self._load()
        todo = list(files)
        out: list[SessionFacts] = []
        self.bytes_read, self.complete = 0, True
        for done, (sid, path) in enumerate(todo, 1):
            key = str(path)
            new, read = _read_from(path, entries.get(key), sid, path.parent.name)
            if new is None:
                self._dirty |= entries.pop(key, None) is not None
            else:
                if read or entries.get(key) is not new:
                    self._dirty = True
                    self.bytes_read += read
                entries[key] = new
                out.append(new.facts)
            if progress is not None and progress(done, len(todo)) is False:
                self.complete = False
                break  # what was read is kept (and saved by save())
        return out

    def cached(self) -> list[SessionFacts]:
        """The facts as last read, of the transcripts still there (nothing is read)."""
        return [e.facts for k, e in self._load().items() if os.path.exists(k)]

    def save(self) -> bool:
        """Write the cache when something was read (files gone are dropped)."""
        if not self._dirty or self._entries is None:
            return True
        live = {
            k: {"ident": e.ident, "offset": e.offset, "tail": e.tail, "facts": asdict(e.facts)}
            for k, e in self._entries.items()
            if os.path.exists(k)
        }
        ok = write_state(self.path, CACHE_FORMAT, CACHE_VERSION, live)
        self._dirty = not ok
        return ok
