"""What a rule says checkably: the commands, paths and tools it names, the step a command must
precede, whether it forbids them. A rule naming none is not checkable (docs/usage.md)."""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass, field
from typing import Literal

Guard = Literal["commit", "push", "pr"]

#: Claude Code's tools; the ones that are common words count only when backquoted
TOOLS = frozenset(
    {
        "Bash", "Read", "Write", "Edit", "MultiEdit", "NotebookEdit", "NotebookRead", "Glob",
        "Grep", "LS", "WebFetch", "WebSearch", "Task", "TodoWrite", "Skill", "KillShell",
        "BashOutput", "ExitPlanMode", "SlashCommand",
    }
)  # fmt: skip
_WORDY = frozenset({"Read", "Write", "Edit", "Task", "Skill", "LS", "Bash", "Glob", "Grep"})

GUARD_STEPS: dict[Guard, re.Pattern[str]] = {
    "commit": re.compile(r"\bgit(?:\s+-\S+(?:\s+\S+)?)*\s+commit\b"),
    "push": re.compile(r"\bgit(?:\s+-\S+(?:\s+\S+)?)*\s+push\b"),
    "pr": re.compile(r"\bgh\s+pr\s+create\b"),
}
_GUARDS: tuple[tuple[Guard, re.Pattern[str]], ...] = (
    ("commit", re.compile(r"before\s+(?:each\s+|every\s+|any\s+|a\s+)?commit|コミット(?:する)?前", re.I)),
    ("push", re.compile(r"before\s+(?:each\s+|every\s+|a\s+)?push|プッシュ(?:する)?前", re.I)),
    (
        "pr",
        re.compile(r"before\s+(?:opening|creating|sending)\s+(?:a\s+)?(?:PR|pull request)|PR\s*(?:を作る|作成)?前", re.I),
    ),
)  # fmt: skip
_NEGATION = re.compile(
    r"\b(?:never|do not|don't|dont|must not|mustn't|should not|shouldn't|avoid|no longer)\b"
    r"|禁止|しない|しないこと|するな|しては(?:いけ|なら)ない|ないでください|ないこと",
    re.I,
)
_EDIT_VERB = re.compile(
    r"\b(?:edit|modify|change|touch|write|overwrite|commit)\w*|編集|変更|触|書き換え|書き込",
    re.I,
)
_USE_VERB = re.compile(r"\b(?:use|using|run|call|invoke|execute)\w*|使|実行|呼", re.I)
_TICKS = re.compile(r"`([^`\n]{1,200})`")
_PROGRAM = re.compile(r"^[a-z][\w.+-]*$")
_SUFFIX = re.compile(r"\.[A-Za-z][\w-]{0,7}$")
_BARE_PATH = re.compile(r"(?<![\w/`.-])((?:~|\.{1,2})?/?[\w.*-]+(?:/[\w.*-]+)+/?|[\w*-]+\.(?:json|lock|ya?ml|toml|md|py|ts|tsx|js|jsx|go|rs|sh|env|ini|cfg|sql))(?![\w/`])")  # fmt: skip
_TOOL_WORD = re.compile(r"\b([A-Z][A-Za-z]+)\b")


@dataclass(slots=True)
class RuleChecks:
    commands: list[str] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)
    tools: list[str] = field(default_factory=list)
    guard: Guard | None = None
    forbid_edit: bool = False
    forbid_use: bool = False

    @property
    def programs(self) -> list[str]:
        return list(dict.fromkeys(c.split()[0] for c in self.commands))

    @property
    def names_anything(self) -> bool:
        return bool(self.commands or self.paths or self.tools)

    @property
    def check(self) -> str:
        """How following it is checked: ``command`` (ran before its step), ``path
        prohibition``, ``tool prohibition``, or ``not checkable``."""
        if self.forbid_edit and self.paths:
            return "path prohibition"
        if self.forbid_use and (self.tools or self.commands):
            return "tool prohibition"
        if self.guard is not None and self.commands and not (self.forbid_edit or self.forbid_use):
            return "command"
        return "not checkable"


def _is_path(span: str) -> bool:
    return (
        " " not in span and ("/" in span or bool(_SUFFIX.search(span))) and not span.endswith(".")
    )


def parse_rule(text: str) -> RuleChecks:
    """The checkable parts of a rule's text."""
    out = RuleChecks()
    spans = _TICKS.findall(text)
    for span in spans:
        span = span.strip()
        if span in TOOLS:
            out.tools.append(span)
        elif _is_path(span):
            out.paths.append(span)
        elif _PROGRAM.match(span.split()[0] if span.split() else ""):
            out.commands.append(" ".join(span.split()))
    outside = _TICKS.sub(" ", text)
    for m in _BARE_PATH.finditer(outside):
        p = m.group(1)
        if p not in out.paths and not p.startswith("http"):
            out.paths.append(p)
    for m in _TOOL_WORD.finditer(outside):
        word = m.group(1)
        if word in TOOLS and word not in _WORDY and word not in out.tools:
            out.tools.append(word)
    out.guard = next((g for g, rx in _GUARDS if rx.search(text)), None)
    if _NEGATION.search(text):
        out.forbid_edit = bool(_EDIT_VERB.search(text)) and bool(out.paths)
        out.forbid_use = bool(_USE_VERB.search(text)) and bool(out.tools or out.commands)
    return out


#: Words that run another program, each with its options that take a value: the program
#: is the first word after them and their options (``sudo -u postgres psql`` runs ``psql``).
WRAPPERS: dict[str, frozenset[str]] = {
    w: frozenset(opts.split())
    for w, opts in {
        "sudo": "-u -g -h -p -C -D -r -t -T -U", "doas": "-u -C", "env": "-u -C",
        "time": "-o -f", "nice": "-n", "nohup": "", "xargs": "-I -P -L -d -s -E -n -a",
        "command": "", "exec": "-a", "timeout": "-s -k", "stdbuf": "-i -o -e",
        "ionice": "-c -n -p", "chrt": "", "taskset": "-c", "caffeinate": "-t -w",
        "unbuffer": "", "watch": "-n",
    }.items()
}  # fmt: skip
ASSIGN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=[^\s=()\"'<>|;&]*$")


def program(words: list[str]) -> str | None:
    """The program of one command's words: past ``VAR=…`` and wrappers with their options."""
    i = 0
    while i < len(words):
        w = words[i]
        if ASSIGN.match(w):
            i += 1
        elif w in WRAPPERS:
            i += 1
            while i < len(words) and words[i].startswith("-"):
                i += 2 if words[i] in WRAPPERS[w] else 1
            if w == "timeout" and i < len(words):
                i += 1  # its duration
        else:
            return w
    return None


def program_of(command: str) -> list[str]:
    """The programs of each ``&&``, ``||``, ``;``, ``|`` part of a shell command (by name)."""
    out = []
    for part in re.split(r"&&|\|\||[;|\n]|\$\(", command):
        if word := program([w for w in part.split() if w != "("]):
            out.append(word.rsplit("/", 1)[-1])
    return out


def path_matches(rule_path: str, path: str) -> bool:
    """Whether a session's ``path`` (absolute, as the tool got it) is the one a rule names
    (relative to any directory; ``*`` patterns; a trailing ``/``: anything under it)."""
    want = rule_path.removeprefix("./").removeprefix("~/")
    if not want:
        return False
    if any(c in want for c in "*?["):
        return fnmatch.fnmatch(path, want if want.startswith("/") else "*/" + want) or (
            fnmatch.fnmatch(path.rsplit("/", 1)[-1], want)
        )
    if want.endswith("/"):
        return f"/{want}" in path or path.startswith(want)
    return path == want or path.endswith("/" + want) or f"/{want}/" in path
