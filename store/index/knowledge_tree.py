"""The knowledge base as a tree in the order people look for it: ``global/``, ``groups/``,
``projects/``, the rest by name (the inbox has its own screen)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from store.index.entries import IndexedFile
from store.index.workspace_index import WorkspaceIndex
from store.models.knowledge import Skill
from store.read.kinds import KB_KIND_DIRS, Kind

KB_KINDS = (Kind.SKILL, Kind.PATTERN, Kind.ANTI_PATTERN, Kind.MEMORY)
KIND_NAMES = {
    Kind.SKILL: "skill",
    Kind.PATTERN: "pattern",
    Kind.ANTI_PATTERN: "anti-pattern",
    Kind.MEMORY: "memory",
}
TOP_ORDER = {"global": 0, "groups": 1, "projects": 2}
GLOBAL_ORDER = {"skills": 0, "patterns": 1, "anti_patterns": 2}


@dataclass(slots=True)
class KbFolder:
    """A directory of the knowledge base: its subdirectories and files, in order."""

    name: str
    #: its path below the knowledge base (``global/skills``): stable across rebuilds
    key: str
    folders: list[KbFolder] = field(default_factory=list)
    files: list[IndexedFile] = field(default_factory=list)

    @property
    def tagged(self) -> bool:
        """Whether its files need their kind said (the directory's name does not say it)."""
        return self.name not in KB_KIND_DIRS

    def count(self) -> int:
        return len(self.files) + sum(d.count() for d in self.folders)

    def walk(self) -> Iterator[IndexedFile]:
        """Every file below, in the tree's order (subdirectories before files)."""
        for d in self.folders:
            yield from d.walk()
        yield from self.files


@dataclass(slots=True)
class KbTree:
    """The knowledge base (``root``: top directories and any files beside them) and the
    project memories."""

    root: KbFolder
    memories: list[IndexedFile]

    def files(self) -> Iterator[IndexedFile]:
        yield from self.root.walk()
        yield from self.memories

    def skills(self) -> dict[str, Path]:
        """Each skill id's file (the first in the tree's order)."""
        out: dict[str, Path] = {}
        for f in self.files():
            if isinstance(f.doc, Skill) and f.doc.skill_id:
                out.setdefault(f.doc.skill_id, f.path)
        return out


def doc_id(f: IndexedFile) -> str:
    """What a document is called: its id, else (a memory) its project, else its file name."""
    doc = f.doc
    for attr in ("skill_id", "pattern_id", "project_id"):
        value = getattr(doc, attr, None)
        if isinstance(value, str) and value.strip():
            return value
    if f.kind is Kind.MEMORY and f.path.parent.name:
        return f.path.parent.name
    return f.path.stem


def _relative(path: Path, tops: Iterable[Path]) -> Path | None:
    for top in tops:
        try:
            return path.relative_to(top)
        except ValueError:
            continue
    return None


@dataclass(slots=True)
class _Dir:
    name: str
    dirs: dict[str, _Dir] = field(default_factory=dict)
    files: list[IndexedFile] = field(default_factory=list)


def _ordered(d: _Dir, key: str) -> KbFolder:
    order = TOP_ORDER if not key else GLOBAL_ORDER if key == "global" else {}
    names = sorted(d.dirs, key=lambda n: (order.get(n, 99), n))
    return KbFolder(
        d.name,
        key,
        [_ordered(d.dirs[n], f"{key}/{n}" if key else n) for n in names],
        sorted(d.files, key=lambda f: f.path.name),
    )


def knowledge_tree(index: WorkspaceIndex) -> KbTree:
    """The index's knowledge-base files as a tree, and its project memories."""
    ws = index.ws
    kb_dirs = ws.locations.get("knowledge_base", [ws.loc("knowledge_base")])
    mem_dirs = ws.locations.get("memory", [ws.loc("memory")])
    top = _Dir("")
    memories: list[IndexedFile] = []
    with index.lock:
        files = list(index.files.values())
    for f in files:
        if f.kind is not None and f.kind not in KB_KINDS:
            continue
        rel = _relative(f.path, kb_dirs)
        if rel is not None:
            if not rel.parts or rel.parts[0] == "inbox":
                continue
            node = top
            for part in rel.parts[:-1]:
                node = node.dirs.setdefault(part, _Dir(part))
            node.files.append(f)
        elif _relative(f.path, mem_dirs) is not None:
            memories.append(f)
    return KbTree(_ordered(top, ""), sorted(memories, key=doc_id))
