"""What each action may write (docs/trust-boundary.md "Written only where allowed"): every
writer calls the *guard* made here for its action on the real file right before writing."""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Callable, Sequence
from pathlib import Path, PurePath, PurePosixPath
from typing import Literal

from store.read.kinds import YAML_SUFFIXES, Kind, kind_from_path
from store.workspace import Workspace
from store.write.atomic import Guard, PathRefused
from store.write.atomic import resolve_target as _real

__all__ = ["CLAUDE_HOME", "Guard", "PathRefused", "resolve_target"]

#: Where a target of each kind may be written.
TargetKind = Literal["skill", "pattern", "anti_pattern", "memory", "markdown", "skill-or-markdown"]

#: Plain Markdown only: ``.txt`` may be a build file (``requirements.txt``) and ``.mdx`` runs
#: code, so neither is ever a target.
MARKDOWN_SUFFIXES = (".md", ".markdown")
#: Locations of files agents write or we own, never a target: what each holds.
PROTECTED = {
    "state": "hurikaeri's own state",
    "kpt": "an agent's KPT report",
    "feedback": "an exported feedback file",
    "summaries": "a session-summary file",
    "lessons_user": "a lesson file",
    "lessons_ai": "a lesson file",
    "discussions": "an agent's discussion",
    "pieces": "a TAKT piece",
    "inbox": "a proposal",
}
_KB_KINDS: dict[str, Kind] = {
    "skill": Kind.SKILL,
    "pattern": Kind.PATTERN,
    "anti_pattern": Kind.ANTI_PATTERN,
}
_DANGEROUS_PARTS = {".git", ".hg", ".svn", ".hurikaeri"}
#: Settings, scripts and programs: never written from agent text, whatever the path says.
_DANGEROUS_SUFFIXES_TEXT = (
    ".json .jsonc .jsonl .toml .ini .cfg .conf .env .sh .bash .zsh .fish .ps1 .bat .cmd .exe .com "
    ".py .pyw .js .mjs .cjs .ts .rb .pl .php .lua .so .dylib .dll .service .plist .desktop"
)
_DANGEROUS_SUFFIXES = frozenset(_DANGEROUS_SUFFIXES_TEXT.split())


def _inside(path: PurePath, base: PurePath) -> bool:
    return path == base or base in path.parents


def write_bases(ws: Workspace, *, lexical: bool = False) -> list[Path]:
    """The only directories anything is written under: the root and ``allowed_dirs``
    (relative ones against the root), symlinks followed (``lexical``: only normalised)."""
    norm = os.path.normpath if lexical else os.path.realpath
    out = [ws.root, *(ws.root / os.path.expanduser(b) for b in ws.config.allowed_dirs)]
    return [Path(norm(p)) for p in out]


def location_dirs(ws: Workspace, key: str) -> list[Path]:
    """The real directories of a location (a file location: its real file); ``inbox`` too."""
    if key == "inbox":
        return [_real(kb) / "inbox" for kb in ws.locations["knowledge_base"]]
    # a location that is one file (``.jsonl``): its real directory, and its name
    return [
        _real(p.parent) / p.name if p.suffix.lower() == ".jsonl" else _real(p)
        for p in ws.locations[key]
    ]


class _NotInLocation(PathRefused):
    """A path outside the locations one guard covers: another guard's reason tells more."""


def _check_base(ws: Workspace, real: Path, shown: Path) -> None:
    if not any(_inside(real, b) for b in write_bases(ws)):
        where = "the workspace root" + (
            " and the allowed directories" if ws.config.allowed_dirs else ""
        )
        raise PathRefused(
            f"refused: {shown} leads to {real}, outside {where} ([write] allowed_dirs)"
            if real != shown
            else f"refused: {real} is outside {where} ([write] allowed_dirs)"
        )


def _check_regular(real: Path) -> None:
    try:
        st = os.stat(real)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise PathRefused(f"refused: {real}: {exc.strerror}") from exc
    if not stat.S_ISREG(st.st_mode):
        raise PathRefused(f"refused: {real} is not a regular file")


def in_place(ws: Workspace, *keys: str) -> Guard:
    """Edits and appends of a workspace file of its own kind (``keys``: locations)."""

    def guard(path: Path) -> None:
        real = _real(path)
        _check_base(ws, real, path)
        homes = [d for k in keys for d in location_dirs(ws, k)]
        if not any(_inside(real, h) for h in homes):
            raise _NotInLocation(
                f"refused: {path} leads to {real}, which is not in the "
                f"{' or '.join(keys)} location ({', '.join(map(str, homes))})"
            )
        _check_regular(real)

    return guard


def state(ws: Workspace) -> Guard:
    """hurikaeri's own state (ledger, backups, edit copies)."""
    return in_place(ws, "state")


#: The locations a document of each kind is edited in (in the person's editor).
_HOMES: dict[Kind | None, tuple[str, ...]] = {
    Kind.KPT: ("kpt",),
    Kind.PROPOSAL: ("inbox",),
    Kind.FEEDBACK: ("feedback",),
    Kind.SKILL: ("knowledge_base",),
    Kind.PATTERN: ("knowledge_base",),
    Kind.ANTI_PATTERN: ("knowledge_base",),
    Kind.MEMORY: ("memory", "knowledge_base"),
    Kind.LESSONS: ("lessons_user", "lessons_ai"),
    Kind.SUMMARIES: ("summaries",),
    Kind.DISCUSSION: ("discussions",),
    Kind.PIECE: ("pieces",),
}


def in_place_for(ws: Workspace, kind: Kind | None) -> Guard:
    """The in-place guard for a document of ``kind`` (a kind its content did not tell:
    knowledge-base groups/, projects/)."""
    return in_place(ws, *_HOMES.get(kind, ("knowledge_base", "memory")))


def name_problem(rel: PurePath, kind: TargetKind) -> str | None:
    """Why a file of this name (relative to where it lies) can never be a ``kind`` target,
    whatever the workspace: settings, scripts, dot-files, VCS and hook folders."""
    name = rel.name
    suffix = PurePosixPath(name).suffix.lower()
    if name.startswith("."):
        return f"{name} is a dot-file (settings or start-up files are never written)"
    if suffix in _DANGEROUS_SUFFIXES:
        return f"{name} is a settings file, script or program: agent text never becomes one"
    bad = [p for p in rel.parts[:-1] if p.lower() in _DANGEROUS_PARTS]
    if bad:
        return f"{bad[0]}/ holds version-control data or our own state"
    dot = [p for p in rel.parts[:-1] if p.startswith(".") and p != ".claude"]
    if dot:
        return f"{dot[0]}/ is a hidden folder (CI, editor and tool settings live there)"
    if kind == "markdown" and suffix not in MARKDOWN_SUFFIXES:
        return f"{name} is not a Markdown file ({', '.join(MARKDOWN_SUFFIXES)})"
    if kind in _KB_KINDS and suffix not in YAML_SUFFIXES:
        return f"{name} is not a YAML file"
    return None


def kb_problem(rel_to_kb: PurePath, kind: TargetKind) -> str | None:
    """Whether a path inside the knowledge base is where a ``kind`` document lives."""
    parts = rel_to_kb.parts
    found = kind_from_path(PurePosixPath("knowledge_base", *parts))
    k = "skill" if kind == "skill-or-markdown" else kind
    want = _KB_KINDS.get(k)
    if want is not None and found is want:
        return None
    if found is None and len(parts) > 1 and parts[0] in ("groups", "projects"):
        return None  # groups/** and projects/<id>/learned/ hold every kind, told by content
    folder = {"skill": "skills", "pattern": "patterns", "anti_pattern": "anti_patterns"}[k]
    return (
        f"a {k} document is written only in the knowledge base's {folder}/ folders "
        "(or under groups/ and projects/)"
    )


def memory_problem(rel_to_memory: PurePath) -> str | None:
    parts = rel_to_memory.parts
    if (
        len(parts) == 2
        and not parts[0].startswith(".")
        and parts[1] in ("project_memory.yaml", "project_memory.yml")
    ):
        return None
    return "project memory is written only to memory/<project>/project_memory.yaml"


def _located(real: PurePath, dirs: Sequence[PurePath]) -> PurePath | None:
    for d in dirs:
        if _inside(real, d):
            return real.relative_to(d)
    return None


def _located_anycase(real: Path, dirs: list[Path]) -> bool:
    """Inside one of ``dirs`` on a case-insensitive file system too (``Discussions/x.md``
    is ``discussions/x.md`` there)."""
    low = PurePath(str(real).casefold())
    return any(_inside(low, PurePath(str(d).casefold())) for d in dirs)


def target_problem(ws: Workspace, path: Path, kind: TargetKind) -> str | None:
    """Why ``path`` (symlinks followed; it need not exist) may not receive a ``kind`` target."""
    real = _real(path)
    try:
        _check_base(ws, real, path)
        _check_regular(real)
    except PathRefused as exc:
        return str(exc).removeprefix("refused: ")
    for key, what in PROTECTED.items():
        if _located_anycase(real, location_dirs(ws, key)):
            return f"{real} is {what}, never a target"
    base = next((b for b in write_bases(ws) if _inside(real, b)), real.parent)
    problem = name_problem(real.relative_to(base), kind)
    if problem:
        return problem
    try:
        if os.stat(real).st_mode & 0o111:
            return f"{real} is executable: agent text never becomes a program"
    except OSError:
        pass
    kb = _located(real, location_dirs(ws, "knowledge_base"))
    return _place_problem(real, kb, _located(real, location_dirs(ws, "memory")), kind)


def _place_problem(
    path: PurePath, kb: PurePath | None, memory: PurePath | None, kind: TargetKind
) -> str | None:
    """Whether a ``kind`` target may lie at ``path`` (``kb``, ``memory``: its place inside
    those locations, ``None`` when outside)."""
    suffix = path.suffix.lower()
    if kind in _KB_KINDS or (kind == "skill-or-markdown" and suffix in YAML_SUFFIXES):
        return kb_problem(kb if kb is not None else PurePath("x"), kind)
    if kind == "memory":
        return memory_problem(memory if memory is not None else PurePath())
    if kind == "skill-or-markdown" and suffix not in MARKDOWN_SUFFIXES:
        return f"{path.name} is neither a knowledge-base skill YAML nor a Markdown file"
    if kind in ("markdown", "skill-or-markdown") and memory is not None:
        return f"{path} is in the project memory folder, which holds YAML only"
    return None


def target(ws: Workspace, kind: TargetKind) -> Guard:
    """The guard of a promotion or an approved proposal of ``kind``."""

    def guard(path: Path) -> None:
        problem = target_problem(ws, path, kind)
        if problem:
            raise PathRefused(f"refused: {problem}")

    return guard


def promotion_kind(target_type: str | None) -> TargetKind:
    """What a try-item's ``persistence_target.type`` may write: memory entries, skill
    content (knowledge-base YAML or SKILL.md), or a Markdown note (claude_md, hook, …)."""
    t = (target_type or "").strip().lower()
    if t == "memory":
        return "memory"
    if t == "skill":
        return "skill-or-markdown"
    return "markdown"


def proposal_kind(kind: str | None) -> TargetKind | None:
    k = (kind or "").strip().lower()
    return k if k in ("skill", "pattern", "anti_pattern", "memory") else None  # type: ignore[return-value]


_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]")
_DRIVE = re.compile(r"^[A-Za-z]:")


#: Longer paths, or deeper ones, are no target anyone means (and make the OS raise).
MAX_PATH_CHARS = 1024
MAX_PATH_PARTS = 40
MAX_NAME_BYTES = 255


def path_text_problem(text: str) -> str | None:
    """Why an agent's target path is refused as text: control characters, Windows paths, length."""
    if len(text) > MAX_PATH_CHARS or text.count("/") >= MAX_PATH_PARTS:
        return f"the target path is too long ({len(text)} characters, {text.count('/') + 1} parts)"
    if any(len(part.encode("utf-8", "surrogatepass")) > MAX_NAME_BYTES for part in text.split("/")):
        return f"a name in the target path is longer than {MAX_NAME_BYTES} bytes"
    if _CONTROL.search(text):
        return "the target path contains control or direction-changing characters"
    if _DRIVE.match(text) or text.startswith("\\\\") or "\\" in text:
        return "the target path looks like a Windows path (drive letter or backslash)"
    return None


def section_text_problem(text: str | None) -> str | None:
    """Why an agent's target section is refused: a line break or control character in it
    would write lines of agent text beside the heading, outside any bullet."""
    if text and _CONTROL.search(text):
        return "the target section contains line breaks or control characters"
    return None


CLAUDE_HOME = "~/.claude"


def resolve_target(ws: Workspace, raw: str) -> Path:
    """The file a persistence-target path an agent wrote names (``~/.claude/...``: the root),
    refused when, as written or with symlinks followed, it leads outside the write bases."""
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
    else:  # (an absolute path stays as it is)
        candidate = ws.root / os.path.expanduser(text)
    lexical = Path(os.path.normpath(candidate))
    bases = write_bases(ws)
    if not any(_inside(lexical, b) for b in [*write_bases(ws, lexical=True), *bases]):
        raise PathRefused(
            f"refused: {lexical} is outside the workspace root {ws.root}"
            + (" and the allowed directories" if ws.config.allowed_dirs else "")
        )
    real = _real(lexical)
    if not any(_inside(real, b) for b in bases):
        raise PathRefused(
            f"refused: {raw} leads through a symlink to {real}, outside the workspace"
        )
    if real.is_dir():
        raise PathRefused(f"refused: {real} is a directory, not a file")
    return lexical


#: What each action writes: the locations it edits in place and the kinds of target it
#: writes; undo, redo and recovery write only what the action may write now.
_IN_KPT = ("kpt",)
_LESSONS = ("lessons_user", "lessons_ai")
_PROPOSAL_TARGETS: tuple[TargetKind, ...] = ("skill", "pattern", "anti_pattern", "memory")
ACTION_WRITES: dict[str, tuple[tuple[str, ...], tuple[TargetKind, ...]]] = {
    "promote": ((), ("memory", "skill-or-markdown", "markdown")),
    "approve": (("inbox",), _PROPOSAL_TARGETS),
    "decide": (("inbox",), _PROPOSAL_TARGETS),
    "reject": (("inbox",), ()),
    "reopen": (("inbox",), ()),
    "propose": (("inbox",), ()),
    "person-report": (_IN_KPT, ()),
    "retarget": (_IN_KPT, ()),
    "edit": ((*_IN_KPT, *_LESSONS), ()),
    "export-feedback": (("feedback", *_IN_KPT), ()),
    "edit-lesson": (_LESSONS, ()),
    "remove-lesson": (_LESSONS, ()),
    "import-wrapup": (("summaries", *_LESSONS), ()),
    "merge-duplicates": ((), ("markdown", "skill")),
    # a change to review put back: the files agents load (store.review.changes)
    "revert": (("knowledge_base", "memory"), ("markdown", "skill")),
    # a change to review edited, then kept (store.review.changes.keep_edited)
    "keep": (("knowledge_base", "memory"), ("markdown", "skill")),
    "edit-file": (
        (
            "kpt",
            "inbox",
            "feedback",
            "knowledge_base",
            "memory",
            *_LESSONS,
            "summaries",
            "discussions",
            "pieces",
        ),
        (),
    ),
    # older decision lines that wrote files were promotions and approved proposals
    "write": ((), ("memory", "skill-or-markdown", "markdown", *_PROPOSAL_TARGETS)),
}


def action_writes(ws: Workspace, action: str) -> Guard:
    """What an ``action`` may write (:data:`ACTION_WRITES`), checked again by undo and redo."""
    homes, kinds = ACTION_WRITES.get(action, ((), ()))
    guards = ([in_place(ws, *homes)] if homes else []) + [target(ws, k) for k in kinds]

    def guard(path: Path) -> None:
        if not guards:
            raise PathRefused(f"refused: {path}: no {action or 'such'} action writes files")
        first = _first_refusal(guards, path)
        if first is not None:
            raise PathRefused(f"{first} (what {action} may write)") from first

    return guard


def _first_refusal(guards: Sequence[Guard], path: Path) -> PathRefused | None:
    """``None`` when one of ``guards`` lets ``path`` be written, else the first refusal that
    says why this path may not be written, before "not in that location" (another guard's)."""
    refusals: list[PathRefused] = []
    for g in guards:
        try:
            g(path)
            return None
        except PathRefused as exc:
            refusals.append(exc)
    telling = [r for r in refusals if not isinstance(r, _NotInLocation)]
    return next(iter(telling or refusals), None)


def export_file(ws: Workspace) -> Guard:
    """A file the person names for an export: never over a workspace file or in a location."""
    from store.config import LOCATIONS

    def guard(path: Path) -> None:
        real = _real(path)
        for key in (*LOCATIONS, "inbox"):
            if _located(real, location_dirs(ws, key)) is not None:
                raise PathRefused(
                    f"refused: {real} is inside the workspace's {key} location; "
                    "exports never go among the files agents and hurikaeri keep"
                )
        if real.exists() and any(_inside(real, b) for b in write_bases(ws)):
            raise PathRefused(f"refused: {real} is a file of the workspace; it is not overwritten")
        _check_regular(real)

    return guard


def lexical_target_problem(text: str, kind: TargetKind) -> str | None:
    """What :func:`target_problem` would say of a path as written, against the default layout
    without touching the disk (for lint)."""
    from store.config import LOCATIONS

    problem = path_text_problem(text)
    if problem:
        return problem
    t = text.strip()
    if t == "~/.claude" or t.startswith("~/.claude/"):
        t = t[len("~/.claude") :].lstrip("/")
    rel = PurePosixPath(t)
    if rel.is_absolute() or t.startswith("~") or ".." in rel.parts or not rel.parts:
        return None  # where it leads depends on the machine: checked when it is written
    protected = {LOCATIONS[k] for k in PROTECTED if k in LOCATIONS}
    protected.add(f"{LOCATIONS['knowledge_base']}/inbox")
    for p in protected:
        if _inside(PurePosixPath(t.casefold()), PurePosixPath(p.casefold())):
            return f"{t} is among the files agents and hurikaeri keep ({p}), never a target"
    problem = name_problem(rel, kind)
    if problem:
        return problem
    kb, memory = PurePosixPath(LOCATIONS["knowledge_base"]), PurePosixPath(LOCATIONS["memory"])
    return _place_problem(rel, _located(rel, [kb]), _located(rel, [memory]), kind)


#: What each kind of action that creates a file in a location of its own may create (the
#: ``created_by`` of its file record): a person's report, a person's proposal, a feedback
#: export, the files an import appends to.
CREATED_IN = {
    "person": ("kpt",),
    "proposal": ("inbox",),
    "feedback": ("feedback",),
    "wrapup": ("summaries", "lessons_user", "lessons_ai"),
}


def created_by_an_action(ws: Workspace) -> Callable[..., None]:
    """Whether a file an undo would delete is one an action creates (:data:`CREATED_IN`); an
    agent's file is never deleted."""
    targets = [target(ws, k) for k in ("skill", "pattern", "anti_pattern", "memory", "markdown")]

    def guard(path: Path, *, kind: str | None = None) -> None:
        own = [in_place(ws, *CREATED_IN[kind])] if kind in CREATED_IN else []
        first = _first_refusal([*targets, *own], path)
        if first is not None:
            raise PathRefused(
                f"refused: undo would delete {path}, which no action creates"
            ) from first

    return guard
