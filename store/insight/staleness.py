"""Rules that point at what is gone: paths no longer in their project, commands not on the
machine, and targets nobody has touched for a long time. Flags only: nothing is removed.

- A *path* is a token with a ``/`` whose last part has an extension
  (``src/middleware/auth.ts``), or one starting with ``./``, ``../``, ``~/`` or ``/``; URLs,
  globs and placeholders (``<slug>``) are not paths. A relative path is looked up in the
  project the target belongs to (global targets: absolute and ``~`` paths only;
  ``~/.claude/…`` is the workspace root).
- A *command* is the first word of a code span that reads like a command line
  (`` `uv run pytest` ``: at least two words, no code punctuation), looked up on ``PATH``.
- A target is *untouched* when neither hurikaeri nor anyone else has written it for
  ``[targets] stale_days`` (default 180) days.
"""

from __future__ import annotations

import os
import re
import shutil
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from store.insight.targets import Rule

DEFAULT_STALE_DAYS = 180

_CODE = re.compile(r"`([^`\n]+)`")
_PATHISH = re.compile(r"(?<![\w:/.-])((?:\.{1,2}/|~/|/)?[\w.@+-]+(?:/[\w.@+-]+)+/?)")
_EXT = re.compile(r"\.[A-Za-z][A-Za-z0-9]{0,7}$")
_CMD_WORD = re.compile(r"^[a-z][a-z0-9_.+-]*$")
_CODE_PUNCT = re.compile(r"[(){};=<>\[\]\"']")
#: First folders of absolute paths that name files (others, without an extension, are
#: more likely URL routes).
_ROOT_DIRS = frozenset(
    [
        "home",
        "Users",
        "usr",
        "etc",
        "opt",
        "var",
        "tmp",
        "mnt",
        "srv",
        "Volumes",
        "private",
        "root",
        "workspace",
        "work",
    ]
)
#: First words of code spans that are code, not commands.
_NOT_COMMANDS = frozenset(
    [
        "import",
        "from",
        "def",
        "class",
        "const",
        "let",
        "var",
        "return",
        "function",
        "export",
        "if",
        "for",
        "while",
        "select",
        "use",
        "type",
        "interface",
        "fn",
        "pub",
        "async",
        "await",
        "new",
        "print",
        "console",
        "self",
        "this",
        "true",
        "false",
        "null",
        "none",
        "and",
        "or",
        "not",
        "in",
        "is",
        "with",
        "as",
        "try",
        "except",
        "raise",
        "yield",
        "lambda",
        "package",
        "public",
        "private",
        "static",
        "void",
        "int",
        "str",
        "bool",
        "string",
        "list",
        "dict",
        "set",
        "go",
        "func",
        "struct",
        "enum",
        "impl",
        "mod",
        "crate",
        "where",
    ]
)


@dataclass(frozen=True, slots=True)
class StaleRef:
    """A rule naming a path that does not exist, or a command not on the machine."""

    rule: Rule
    what: str  # "path" or "command"
    ref: str
    resolved: str

    @property
    def message(self) -> str:
        if self.what == "path":
            return f"names {self.ref}, which does not exist ({self.resolved})"
        return f"runs `{self.ref}`, which is not on this machine's PATH"


def path_refs(text: str) -> list[str]:
    """The path-like tokens of a rule's text."""
    out: list[str] = []
    for m in _PATHISH.finditer(text):
        token = m.group(1).rstrip(".,;:)")
        start = m.start(1)
        if text[max(0, start - 3) : start] == "://" or "://" in token:
            continue
        if any(c in token for c in "*?{}<>$"):
            continue
        first = token.lstrip("./~").split("/", 1)[0]
        anchored = token.startswith(("./", "../", "~/", "/"))
        last = token.rstrip("/").rsplit("/", 1)[-1]
        if not anchored and ("." in first and not _EXT.search(last)):
            continue  # a host name (github.com/x/y)
        if not anchored and not _EXT.search(last):
            continue  # and/or, CI/CD, read/write
        if token.startswith("//"):
            continue
        if token.startswith("/") and not _EXT.search(last) and first not in _ROOT_DIRS:
            continue  # a route (/auth/login), not a file
        out.append(token)
    return out


def command_refs(text: str) -> list[str]:
    """The commands a rule runs: first words of command-like code spans."""
    out: list[str] = []
    for m in _CODE.finditer(text):
        span = m.group(1).strip().removeprefix("$ ").strip()
        words = span.split()
        if len(words) < 2 or _CODE_PUNCT.search(span):
            continue
        word = words[0]
        if _CMD_WORD.match(word) and word not in _NOT_COMMANDS:
            out.append(word)
    return out


class StaleChecker:
    """Looks paths and commands up once per check (many rules name the same ones)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._exists: dict[str, bool] = {}
        self._which: dict[str, bool] = {}

    def resolve(self, ref: str, project: Path | None) -> Path | None:
        if ref == "~/.claude" or ref.startswith("~/.claude/"):
            return self.root / ref[len("~/.claude") :].lstrip("/")
        if ref.startswith("~/"):
            return Path(os.path.expanduser(ref))
        if ref.startswith("/"):
            return Path(ref)
        if project is None:
            return None
        return project / ref

    def exists(self, path: Path) -> bool:
        key = str(path)
        got = self._exists.get(key)
        if got is None:
            got = self._exists[key] = os.path.lexists(path)
        return got

    def on_path(self, command: str) -> bool:
        got = self._which.get(command)
        if got is None:
            got = self._which[command] = shutil.which(command) is not None
        return got

    def check(self, rules: list[Rule], project: Path | None) -> list[StaleRef]:
        out: list[StaleRef] = []
        for r in rules:
            text = r.text
            if "/" in text:
                for ref in path_refs(text):
                    p = self.resolve(ref, project)
                    if p is not None and not self.exists(p):
                        out.append(StaleRef(r, "path", ref, str(p)))
            if "`" in text:
                for cmd in command_refs(text):
                    if not self.on_path(cmd):
                        out.append(StaleRef(r, "command", cmd, cmd))
        return out


def untouched_days(
    mtime: float | None, last_written: str | None, now: datetime | None = None
) -> float | None:
    """Days since the target was last written, by hurikaeri or anyone (``None``: unknown)."""
    now = now or datetime.now(UTC)
    times: list[datetime] = []
    if mtime is not None:
        times.append(datetime.fromtimestamp(mtime, UTC))
    if last_written:
        try:
            t = datetime.fromisoformat(last_written.replace("Z", "+00:00"))
            times.append(t if t.tzinfo else t.replace(tzinfo=UTC))
        except ValueError:
            pass
    if not times:
        return None
    return (now - max(times)).total_seconds() / 86400


__all__ = [
    "DEFAULT_STALE_DAYS",
    "StaleChecker",
    "StaleRef",
    "command_refs",
    "path_refs",
    "untouched_days",
]
