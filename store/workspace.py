"""The workspace: one root directory and where each kind of file lives in it."""

from __future__ import annotations

import glob
import os
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

from store import team
from store.config import (
    LOCATIONS,
    Config,
    ConfigError,
    check_allowed_dir,
    default_config_path,
)
from store.read.kinds import YAML_SUFFIXES, Kind, ignored_name, kind_from_path
from store.read.takt_layout import is_support_file, piece_dirs

DEFAULT_ROOT = Path("~/.claude")


#: A document's place in :meth:`Workspace.discover`'s order (:meth:`Workspace.order_key`).
OrderKey = tuple[int, int, tuple[tuple[int, str], ...]]


class Found(NamedTuple):
    """A document discovered in the workspace, with the kind its location implies."""

    path: Path
    kind: Kind | None


class Workspace:
    """Locations of a workspace root, as moved by the config."""

    def __init__(self, root: Path, config: Config | None = None) -> None:
        self.config = config or Config()
        self.root = Path(os.path.abspath(os.path.expanduser(root)))
        for d in self.config.allowed_dirs:  # relative ones mean: against the root
            p = Path(os.path.expanduser(d))
            check_allowed_dir(p if p.is_absolute() else self.root / p, self.config.path or "")
        self.locations: dict[str, list[Path]] = {}
        #: the locations given with glob patterns (``reglob`` expands them again)
        self.patterns: dict[str, list[Path]] = {}
        for key, default in LOCATIONS.items():
            moved = self.config.paths.get(key)
            if moved:
                where = [p if p.is_absolute() else self.root / p for p in moved]
                self.locations[key] = where if key == "state" else _globbed(where)
                if key != "state" and any(glob.has_magic(str(p)) for p in where):
                    self.patterns[key] = where
            else:
                self.locations[key] = [self.root / default]
        if not self.config.paths.get("state"):
            real_root = os.path.realpath(self.root)
            real_state = os.path.realpath(self.root / LOCATIONS["state"])
            if os.path.commonpath([real_root, real_state]) != real_root:
                raise ConfigError(
                    f"{self.root / LOCATIONS['state']} is a link to {real_state}, outside the "
                    "workspace; hurikaeri keeps its state only inside the root (move it with "
                    "[paths] state in the config if you mean to)"
                )
        team.configure(self.state_dir, self.config.reviewer)

    def reglob(self) -> bool:
        """Expand the glob patterns again (a directory a ``git pull`` brought); ``True`` when a
        location changed. Lists are replaced whole: a reader in another thread sees either."""
        changed = False
        for key, where in self.patterns.items():
            now = _globbed(where)
            if now != self.locations[key]:
                self.locations[key] = now
                changed = True
        return changed

    def glob_tops(self) -> list[Path]:
        """The existing directories a pattern's magic parts lead through (``team`` and each
        ``team/<author>`` for ``team/*/hurikaeri``): a directory appearing there may match."""
        out: list[Path] = []
        for where in self.patterns.values():
            for p in where:
                parts = p.parts
                magic = [i for i, part in enumerate(parts) if glob.has_magic(part)]
                if not magic:
                    continue
                top = Path(*parts[: magic[0]])
                # the directories between the top and the last magic part, as they are now
                levels = [top]
                for i in range(magic[0], min(magic[-1] + 1, len(parts) - 1)):
                    pattern = str(Path(*parts[: i + 1]))
                    levels += [Path(h) for h in sorted(glob.glob(pattern)) if os.path.isdir(h)]
                out += [d for d in levels if d.is_dir() and d not in out]
        return out

    @classmethod
    def resolve(cls, root: Path | None, config: Config) -> Workspace:
        chosen = root or config.root or DEFAULT_ROOT
        return cls(chosen, config)

    def loc(self, key: str) -> Path:
        """The first (main) directory or file of a location."""
        return self.locations[key][0]

    @property
    def state_dir(self) -> Path:
        return self.loc("state")

    def display(self, path: Path) -> str:
        """A path as people should read it: relative to the root when inside it."""
        text = str(path)
        cut = self.inside(text)
        if cut:
            return text[cut:]
        try:
            return str(path.relative_to(self.root))
        except ValueError:
            return str(path)

    def inside(self, text: str) -> int:
        """How many characters of the path ``text`` to leave out to show it relative to the
        root, when it is inside (what ``relative_to`` gives); 0 when it is not."""
        root = str(self.root)
        prefix = root if root.endswith(os.sep) else root + os.sep
        return len(prefix) if text.startswith(prefix) and len(text) > len(prefix) else 0

    def found(self, path: Path) -> Found | None:
        """What :meth:`discover` says of ``path`` alone, without walking the workspace."""
        if not path.is_file():
            return None
        placed = self._place(path)
        return None if placed is None else Found(path, placed[0])

    def order_key(self, path: Path) -> OrderKey:
        """Where ``path`` comes in :meth:`discover`'s order, without walking the workspace
        (a path that is no document of it comes last)."""
        placed = self._place(path)
        return (len(RULES), 0, ()) if placed is None else placed[1]

    def _place(self, path: Path) -> tuple[Kind | None, OrderKey] | None:
        """The kind :meth:`discover` gives ``path`` (existing or not) and its order key: the
        location, its directory, then the walk down (files by name before directories)."""
        name = path.name.lower()
        for n, (key, suffixes, recursive, kind) in enumerate(RULES):
            if not name.endswith(suffixes):
                continue
            tops = self.locations[key]
            if key == "pieces":  # a TAKT directory: only its piece directories
                tops = [d for top in tops for d in piece_dirs(top)]
            for i, top in enumerate(tops):
                if key.startswith("lessons_") and path == top:
                    return kind, (n, i, ())
                if key.startswith("lessons_") and not top.is_dir():
                    continue
                if _under(path, top, recursive):
                    if key == "pieces" and is_support_file(path, top):
                        return None  # TAKT's config, categories, fragments: not a piece
                    rel = path.relative_to(top)
                    if key == "knowledge_base":
                        kind = kind_from_path(Path("knowledge_base") / rel)
                    down = (*((1, part) for part in rel.parts[:-1]), (0, rel.name))
                    return kind, (n, i, down)
        return None

    def discover(self, only: Kind | None = None) -> Iterator[Found]:
        """Every document of the workspace, location by location, in a stable order; with
        ``only``, those of that kind, walking only the locations that can give it."""
        seen: set[Path] = set()
        for key, suffixes, recursive, kind in RULES:
            if only is not None and kind not in (only, None):
                continue
            for top in self.locations[key]:
                for d in piece_dirs(top) if key == "pieces" else [top]:
                    one_file = key.startswith("lessons_") and d.is_file()
                    for p in [d] if one_file else walk_files(d, suffixes, recursive):
                        if p in seen or (key == "pieces" and is_support_file(p, d)):
                            continue  # TAKT's config, categories, fragments: not pieces
                        seen.add(p)
                        f = Found(p, kind)
                        if key == "knowledge_base":
                            f = Found(p, kind_from_path(Path("knowledge_base") / p.relative_to(d)))
                        if only is None or (f.kind is only and self.found(p) == f):
                            yield f  # (a location left unwalked may come first for ``p``)

    def nothing_here(self) -> str | None:
        """Why this workspace holds nothing to review, and what to do (``None``: it does):
        else the app shows an empty list and ``lint`` finds no problems."""
        if any(p.exists() for key in CONTENT_LOCATIONS for p in self.locations[key]):
            return None
        if not self.root.is_dir():
            why = f"{self.root} does not exist"
        else:
            names = ", ".join(self.display(self.loc(k)) for k in CONTENT_LOCATIONS[:5])
            why = f"{self.root} holds none of hurikaeri's folders ({names}, …)"
        config = self.config.path or default_config_path()
        return (
            f"{why}: nothing to review. Try 'hurikaeri demo' for a sample workspace, "
            f"'hurikaeri --root DIR' for yours, or root = \"DIR\" in the config ({config})."
        )


#: Where :meth:`Workspace.discover` looks, in order: location, suffixes, whether it walks
#: down, and the kind (the knowledge base's depends on the path).
RULES: tuple[tuple[str, tuple[str, ...], bool, Kind | None], ...] = (
    ("kpt", YAML_SUFFIXES, False, Kind.KPT),
    ("feedback", YAML_SUFFIXES, False, Kind.FEEDBACK),
    ("summaries", (".jsonl",), True, Kind.SUMMARIES),
    ("lessons_user", (".jsonl",), True, Kind.LESSONS),
    ("lessons_ai", (".jsonl",), True, Kind.LESSONS),
    ("knowledge_base", YAML_SUFFIXES, True, None),
    ("memory", YAML_SUFFIXES, True, Kind.MEMORY),
    ("discussions", (".md", ".markdown"), True, Kind.DISCUSSION),
    ("pieces", YAML_SUFFIXES, True, Kind.PIECE),
)

#: The locations that hold what is reviewed (not our own state, not the transcripts).
CONTENT_LOCATIONS = (
    "kpt",
    "summaries",
    "lessons_user",
    "knowledge_base",
    "discussions",
    "lessons_ai",
    "feedback",
    "memory",
    "pieces",
)


def _globbed(paths: list[Path]) -> list[Path]:
    """Glob patterns (``team/*/hurikaeri``: one directory per author) expanded in name
    order; a pattern that matches nothing stays as it is (until :meth:`Workspace.reglob`)."""
    out: list[Path] = []
    for p in paths:
        hits = sorted(glob.glob(str(p))) if glob.has_magic(str(p)) else []
        for q in [Path(h) for h in hits] or [p]:
            if q not in out:
                out.append(q)
    return out


def _under(path: Path, top: Path, recursive: bool) -> bool:
    """Whether :func:`walk_files` from ``top`` reaches ``path`` (no dot-dirs, no symlinked dirs)."""
    try:
        rel = path.relative_to(top)
    except ValueError:
        return False
    if not rel.parts or (not recursive and len(rel.parts) != 1):
        return False
    d = top
    for part in rel.parts[:-1]:
        d = d / part
        if ignored_name(part) or d.is_symlink():
            return False
    return not ignored_name(rel.name)


def walk_files(top: Path, suffixes: tuple[str, ...], recursive: bool = True) -> Iterator[Path]:
    """Files under ``top`` with one of ``suffixes``, depth first in name order, without
    dot-dirs, editor droppings or unreadable directories (no recursion: any depth)."""
    stack = [top]
    while stack:
        try:
            entries = sorted(os.scandir(stack.pop()), key=lambda e: e.name)
        except OSError:
            continue
        dirs = []
        for entry in entries:
            if ignored_name(entry.name):
                continue
            try:
                if entry.is_dir(follow_symlinks=False):
                    dirs.append(Path(entry.path))
                elif entry.is_file() and entry.name.lower().endswith(suffixes):
                    yield Path(entry.path)
            except OSError:
                continue
        if recursive:
            stack.extend(reversed(dirs))
