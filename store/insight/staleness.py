"""Rules that point at what is gone: paths, programs, targets untouched for ``stale_days``
(docs/promotion.md, "What the findings mean"). Another system's path or program is only
"elsewhere": a synced ``~/.claude`` names them."""

from __future__ import annotations

import functools
import os
import re
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

from store.insight.rule_checks import ASSIGN as _ASSIGN
from store.insight.rule_checks import WRAPPERS as _WRAPPERS
from store.insight.rule_checks import program as _program
from store.insight.targets import Rule

DEFAULT_STALE_DAYS = 180

_CODE = re.compile(r"`([^`\n]+)`")
#: a path token; not one that continues a template (``${X}/a``, ``<p>/a``, ``*/a``)
_PATHISH = re.compile(r"(?<![\w:/.\-}>*)\]$%])((?:\.{1,2}/|~/|/)?[\w.@+-]+(?:/[\w.@+-]+)+/?)")
#: a path with spaces, quoted or with its spaces escaped
_QUOTED = re.compile(r"[`\"']((?:~|\.{1,2})?/[^`\"'\n]* [^`\"'\n]*)[`\"']")
_ESCAPED = re.compile(r"((?:~|\.{1,2})?/(?:[\w.@+-]|\\ )+(?:/(?:[\w.@+-]|\\ )+)+)")
_WINDOWS = re.compile(r"(?<![\w])([A-Za-z]:\\[^\s`\"'<>|*?]+)")
#: words saying the rule makes the path (before it, or after it in CJK word order)
_WRITES_BEFORE = re.compile(
    r"(?i)(?:\b(?:save|saved|saving|write|writes|writing|written|output|outputs|create|creates|"
    r"generate|generates|dump|redirect)\b[^.;。]{0,24}"
    r"|(?:^|\s)(?:-o|--output|--out|>>?|tee)\s*[`'\"]?"
    # "logs errors to", "downloaded into"; not "log in to", "download notes go to"
    r"|\b(?:logs?|logged|logging|downloads?|downloaded)"
    r"(?:\s+(?!(?:in|on|out|go|goes|then|see)\b)[\w-]+){0,3}\s+(?:to|into))$"
)
_WRITES_AFTER = re.compile(
    r"^[^.;。]{0,12}?(?:に保存|へ保存|を保存|に出力|へ出力|を作成|を生成|に書き|へ書き|[へに]分離(?!済)|"
    r"저장|생성|출력|작성|保存|输出|写入|创建|生成)"
)
_ABSENT = re.compile(
    r"(?i)^[^.;。]{0,16}?(?:doesn't exist|does not exist|is missing|not found|없으면|없는 경우|"
    r"がなければ|が無ければ|がない場合|存在しない|不存在)"
)
#: a container's mount point (``-v host:/data``): paths under it are the container's
_MOUNTS = re.compile(r"(?:-v|--volume|--mount)[ =]\S*?:(/[\w.-]+)")
_TEMP = ("/tmp/", "/var/tmp/", "/private/tmp/", "/dev/")
_EXT = re.compile(r"\.[A-Za-z][A-Za-z0-9]{0,7}$")
#: a file's name with its type (``spec.json``), not a folder (``.claude``, ``conf.d``)
_FILE_NAME = re.compile(r"[^./][^/]*\.[A-Za-z][A-Za-z0-9]{1,7}")
_CMD_WORD = re.compile(r"^[a-z][a-z0-9_.+-]*$")
_CODE_PUNCT = re.compile(r"[(){};=<>\[\]\"']")
#: First folders of absolute paths that name files on a machine (others are routes, ids,
#: a container's or the project's paths).
_ROOT_DIRS_TEXT = (
    "home Users usr etc opt var tmp mnt srv Volumes private root workspace work Applications "
    "Library System nix snap"
)
_ROOT_DIRS = frozenset(_ROOT_DIRS_TEXT.split())
#: Shell builtins and keywords (bash, zsh, cmd): never a program on ``PATH``.
_SHELL_WORDS_TEXT = (
    "alias bg bind break builtin caller case cd command compgen complete continue coproc "
    "declare dirs disown do done echo elif else enable esac eval exec exit export fc fg "
    "fi for function getopts hash help history if in jobs let local logout mapfile popd "
    "printf pushd pwd read readarray readonly return select set setopt shift shopt source "
    "suspend test then time times trap type typeset ulimit umask unalias unset unsetopt "
    "until wait while autoload bindkey compdef zstyle rehash whence noglob cls dir del "
    "ren"
)
SHELL_WORDS = frozenset(_SHELL_WORDS_TEXT.split())
#: Programs of one system only: missing elsewhere, they are "not on this machine" (info).
_OS_TEXT = {
    "macOS": "brew pbcopy pbpaste osascript launchctl mdfind xcrun",
    "Windows": "winget choco scoop chcp robocopy xcopy msbuild wsl",
    "Linux": "apt apt-get dnf yum pacman systemctl xdg-open",
}
OS_PROGRAMS = {name: system for system, names in _OS_TEXT.items() for name in names.split()}
#: Verbs that are subcommands of a program (``git branch``, ``npm start``), not programs.
_SUBCOMMANDS_TEXT = (
    "add apply archive branch build checkout cherry-pick clean clone commit config create "
    "delete deploy describe diff edit fetch get init install list log login logout merge "
    "new open pull push rebase remote remove reset restart restore revert rm run send "
    "serve set show start stash status stop switch sync tag test update upgrade view "
    "watch worktree"
)
SUBCOMMANDS = frozenset(_SUBCOMMANDS_TEXT.split())
#: First words of code spans that are code, not commands.
_NOT_COMMANDS_TEXT = (
    "orelse import from def class const let var return function export if for while select "
    "use type interface fn pub async await new print console self this true false null none "
    "and or not in is with as try except raise yield lambda package public private static "
    "void int str bool string list dict set go func struct enum impl mod crate where data "
    "record using namespace rescue deferred default extern sealed trait abstract override"
)
_NOT_COMMANDS = frozenset(_NOT_COMMANDS_TEXT.split())


@dataclass(frozen=True, slots=True)
class StaleRef:
    """A rule naming a path that does not exist, or a command not on the machine."""

    rule: Rule
    what: str  # "path", "command" or "elsewhere" (a path of another machine or system)
    ref: str
    resolved: str

    @property
    def message(self) -> str:
        if self.what == "elsewhere":
            if "/" in self.ref or "\\" in self.ref:
                return f"names {self.ref}, a path of {self.resolved}: not on this machine"
            return f"runs `{self.ref}`, a program of {self.resolved}: not on this machine"
        if self.what == "path":
            return f"names {self.ref}, which does not exist ({self.resolved})"
        return f"runs `{self.ref}`, which is not on this machine's PATH"


def _spaced_paths(text: str) -> tuple[list[tuple[int, str]], str]:
    """Paths with spaces (quoted, or spaces escaped) with their offsets, and ``text`` with
    them blanked out so that their pieces are not read as paths too."""
    found: list[tuple[int, str]] = []
    chars = list(text)
    for m in _QUOTED.finditer(text):
        body = m.group(1)
        pieces = body.split()
        if any(p[0] in "-~/<>|&$;" for p in pieces[1:]) or any(c in body for c in "$*{}<>"):
            continue  # a command line, or a template
        if body.startswith("//") or ": " in body:
            continue  # a comment, or a message
        if "/" not in body.split(" ", 1)[1] and not _EXT.search(body):
            continue  # a slash command with arguments (``/babysit 5m``), not a path
        found.append((m.start(1), body))
        chars[m.start(1) : m.end(1)] = " " * (m.end(1) - m.start(1))
    blanked = "".join(chars)
    for m in _ESCAPED.finditer(blanked):
        if "\\ " in m.group(1):
            found.append((m.start(1), m.group(1).replace("\\ ", " ")))
            chars[m.start(1) : m.end(1)] = " " * (m.end(1) - m.start(1))
    return found, "".join(chars)


def _is_path(text: str, start: int, token: str) -> bool:
    end = start + len(token)
    if text[max(0, start - 3) : start] == "://" or "://" in token:
        return False
    if any(c in token for c in "*?{}<>$") or text[end : end + 1] in ("[", "{", "<", "*", "$"):
        return False  # a glob, or a template's beginning (``~/dir/{name}.md``)
    first = token.lstrip("./~").split("/", 1)[0]
    anchored = token.startswith(("./", "../", "~/", "/"))
    last = token.rstrip("/").rsplit("/", 1)[-1]
    if not anchored and ("." in first and not _EXT.search(last)):
        return False  # a host name (github.com/x/y)
    if not anchored and not _EXT.search(last):
        return False  # and/or, CI/CD, read/write
    if not anchored and all(_FILE_NAME.fullmatch(p) for p in token.split("/")):
        return False  # file names joined: spec.json/requirements.md/design.md
    if token.startswith("//") or first in ("foo", "bar", "baz"):
        return False  # a comment, an example's name (``foo/bar.rs``)
    # an absolute path outside the usual roots is a route (/auth/login), an id
    # (/vercel/next.js), a container's (/app/…) or the project's (/src/main.rs)
    return not (token.startswith("/") and first not in _ROOT_DIRS)


def _written(text: str, start: int, token: str) -> bool:
    """Whether the rule makes this path, is about its absence, or names it inside a
    container (``docker run -v $(pwd):/data … /data/in.mmd``)."""
    if token.startswith(_TEMP) or token.startswith("~/tmp/"):
        return True
    before = text[max(0, start - 48) : start].rstrip("`'\" ")
    after = text[start + len(token) :].lstrip("`'\" ")
    if _WRITES_BEFORE.search(before) or _WRITES_AFTER.search(after) or _ABSENT.search(after):
        return True
    return any(token == m or token.startswith(m + "/") for m in _MOUNTS.findall(text))


def path_refs(text: str) -> list[str]:
    """The path-like tokens of a rule's text, each once, without those the rule makes."""
    spaced, rest = _spaced_paths(text)
    out: list[tuple[int, str]] = [(i, t) for i, t in spaced if not _written(text, i, t)]
    for m in _PATHISH.finditer(rest):
        token = m.group(1).rstrip(".,;:)")
        start = m.start(1)
        if _is_path(rest, start, token) and not _written(text, start, token):
            out.append((start, token))
    for m in _WINDOWS.finditer(rest):
        out.append((m.start(1), m.group(1).rstrip(".,;:)")))
    return list(dict.fromkeys(t for _, t in sorted(out)))


#: Where a path is of another machine or system than this one (only said of global targets).
def elsewhere(ref: str) -> str | None:
    """The system a path belongs to when it is not this one (``None``: it could be here)."""
    if re.match(r"[A-Za-z]:\\", ref) or (
        ref.startswith("/mnt/") and ref[5:6].isalpha() and (ref[6:7] in ("/", ""))
    ):
        return "Windows" if not ref.startswith("/mnt/") else "Windows (WSL)"
    if sys.platform == "win32":
        return None
    mac = sys.platform == "darwin"
    if not mac and ref.startswith(
        ("/Users/", "/Volumes/", "/Applications/", "/opt/homebrew/", "/System/", "~/Library/")
    ):
        return "macOS"
    if mac and ref.startswith(("/home/", "/mnt/", "/snap/", "/proc/")):
        return "Linux"
    return None


#: First words never taken for a program
_NEVER = _NOT_COMMANDS | SHELL_WORDS | SUBCOMMANDS
_SEGMENT = re.compile(r"\s*(?:\|\||&&|\|)\s*")
_PROSE = re.compile(r"[^\x00-\u2000]|[.,:!?]$")
#: Words of English a command line never takes bare: a span with one is prose
#: (`` `helps with` ``, `` `should not help with` ``).
_PROSE_WORDS_TEXT = "with the of to as by should would must not can will is are be"
_PROSE_WORDS = frozenset(_PROSE_WORDS_TEXT.split())
_ARITHMETIC = re.compile(r"\s[/×÷]\s+\d")
#: words offered as alternatives (`` `implemented / superseded / kept` ``), not ``find / -x``
#: nor ``cargo check / build`` (a program and its subcommands)
_ALTERNATIVES = re.compile(r"^[a-z][\w-]*\s+/\s+[a-z][\w-]*(?:\s|$)")
#: Utility classes of a CSS framework (Tailwind): ``px-6 py-3``, ``md:grid-cols-3``,
#: ``bg-black/5``; a class list has a size or step (``text-4xl``, ``z-50``), a
#: breakpoint or state (``dark:``) or an opacity (``-white/10``).
_VARIANTS = r"(?:sm|md|lg|xl|2xl|dark|hover|focus|active|disabled|group-hover|first|last|print):"
_UTILITY = re.compile(rf"(?:{_VARIANTS})*-?[a-z]+(?:-[a-z0-9.]+)*(?:/\d+)?")
_SIZED = re.compile(rf"(?:{_VARIANTS})*-?[a-z]+(?:-[a-z]+)*-(?:\d+(?:\.\d+)?|\d?xl)")
_MARKED = re.compile(rf"^{_VARIANTS}|-[a-z0-9]+/\d+$")


def _css_classes(words: list[str]) -> bool:
    """Whether a code span's words are CSS utility classes, not a command line."""
    if not all(_UTILITY.fullmatch(w) and not w.startswith("--") for w in words):
        return False
    if any(_MARKED.search(w) for w in words) or _SIZED.fullmatch(words[0]):
        return True
    return all("-" in w for w in words[1:]) and any(_SIZED.fullmatch(w) for w in words)


def command_refs(text: str, subcommands: frozenset[str] | set[str] = frozenset()) -> list[str]:
    """The programs a rule runs, each once: the program of each command of a command-like
    code span. ``subcommands``: words the file runs as a program's subcommand."""
    out: dict[str, None] = {}
    for m in _CODE.finditer(text):
        span = m.group(1).strip().removeprefix("$ ").strip()
        words = span.split()
        if _PROSE_WORDS.intersection(w.lower() for w in words) or _ALTERNATIVES.search(span):
            continue  # prose in backticks (`` `helps with` ``, `` `kept / retired` ``)
        # leading ``VAR=value`` settings are not code punctuation
        bare = " ".join(w for w in words if not _ASSIGN.match(w))
        if len(words) < 2 or _CODE_PUNCT.search(bare):
            continue
        if any(_PROSE.search(w) for w in words if w.strip(".") and "/" not in w):
            continue  # prose or a message in backticks, not a command line
        if _ARITHMETIC.search(span) or _css_classes(words):
            continue  # ``chars / 4``, ``words × 1.3``: a formula; ``px-6 py-3``: classes
        segments = [segment.split() for segment in _SEGMENT.split(span)]
        programs = [_program(segment) for segment in segments]
        first = programs[0]
        if not (first and (_CMD_WORD.match(first) or "/" in first)):
            continue  # ``V | undefined``: a type, not a pipeline (``./check.sh | x`` is one)
        if first in _NOT_COMMANDS and all(len(segment) == 1 for segment in segments):
            continue  # ``string | number``: a type union
        for word in programs:
            if (
                word
                and len(word) > 1  # ``y g j p q``: letters; ``k get pods``: an alias
                and _CMD_WORD.match(word)
                and word not in _NEVER
                and word not in subcommands
            ):
                out[word] = None
    return list(out)


#: First words whose second word is a program they run, not a subcommand.
_NOT_RUNNERS = SHELL_WORDS | set(_WRAPPERS) | {"npx", "uvx", "bunx", "pipx", "pnpx", "which"}
_FENCE_LINE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
_RUN = re.compile(r"^\s*(?:\$\s+)?([A-Za-z][\w.+-]*)\s+([a-z][\w-]*)\b")


def subcommands_in(text: str) -> set[str]:
    """Words a file runs as the second word of a command line (in fenced code or code
    spans): ``agent-deck session add`` makes ``session`` a subcommand there."""
    out: set[str] = set()
    fenced = False
    for line in text.splitlines():
        if _FENCE_LINE.match(line):
            fenced = not fenced
            continue
        candidates = [line] if fenced else _CODE.findall(line)
        for c in candidates:
            m = _RUN.match(c)
            if m and m.group(1) != m.group(2) and m.group(1) not in _NOT_RUNNERS:
                out.add(m.group(2))
    return out


class StaleChecker:
    """Looks paths and commands up once per check (many rules name the same ones)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.exists = functools.cache(os.path.lexists)
        self.on_path = functools.cache(lambda command: shutil.which(command) is not None)

    def resolve(self, ref: str, project: Path | None, here: Path | None = None) -> Path | None:
        """``ref`` looked up from ``here`` (the naming file's folder: a skill names its own
        files) up to the project."""
        if ref == "~/.claude" or ref.startswith("~/.claude/"):
            return self.root / ref[len("~/.claude") :].lstrip("/")
        if ref.startswith("~/"):
            return Path(os.path.expanduser(ref))
        if ref.startswith("/") or re.match(r"[A-Za-z]:\\", ref):
            return Path(ref)
        if project is None:
            return None
        while here is not None and here != project and here.is_relative_to(project):
            if self.exists(here / ref):
                return here / ref
            here = here.parent
        return project / ref

    def check(self, rules: list[Rule], project: Path | None, text: str = "") -> list[StaleRef]:
        out: list[StaleRef] = []
        subs = subcommands_in(text) if "`" in text else set()
        for r in rules:
            body = r.text
            if "/" in body or "\\" in body:
                for ref in path_refs(body):
                    p = self.resolve(ref, project, r.path.parent)
                    if p is None or self.exists(p):
                        continue
                    where = elsewhere(ref) if project is None else None
                    if where is not None:
                        out.append(StaleRef(r, "elsewhere", ref, where))
                    elif not re.match(r"[A-Za-z]:\\", ref):
                        out.append(StaleRef(r, "path", ref, str(p)))
            if "`" in body:
                for cmd in command_refs(body, subs):
                    if self.on_path(cmd):
                        continue
                    system = OS_PROGRAMS.get(cmd)
                    if system is not None and project is None:
                        out.append(StaleRef(r, "elsewhere", cmd, system))
                    else:
                        out.append(StaleRef(r, "command", cmd, cmd))
        return out
