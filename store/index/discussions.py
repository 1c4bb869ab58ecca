"""Agents' replies under ``discussions/`` with their metadata blocks, each read again only
when its file changed."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from store.index.workspace_index import WorkspaceIndex
from store.read.diagnostics import Diagnosed, Diagnostic
from store.read.kinds import Kind
from store.read.loader import load_file
from store.read.metadata_block import Reply
from store.read.textio import FileStamp


@dataclass(slots=True)
class Discussion(Diagnosed):
    """One reply: where it is, its metadata (``None`` when it is not text) and diagnostics."""

    path: Path
    display: str
    stamp: FileStamp | None
    reply: Reply | None
    diagnostics: list[Diagnostic]


def read_discussion(path: Path, display: str) -> Discussion:
    loaded = load_file(path, Kind.DISCUSSION, display)
    return Discussion(path, display, loaded.stamp, loaded.reply, list(loaded.diagnostics))


def read_discussions(
    index: WorkspaceIndex, cache: dict[Path, Discussion]
) -> tuple[list[Discussion], dict[Path, Discussion]]:
    """Every discussion of the index by its displayed path, and the cache for the next call:
    a reply in ``cache`` whose file has not changed is not read again."""
    with index.lock:
        files = [f for f in index.files.values() if f.kind is Kind.DISCUSSION]
    found: list[Discussion] = []
    fresh: dict[Path, Discussion] = {}
    for f in sorted(files, key=lambda f: f.display):
        d = cache.get(f.path)
        if d is None or d.stamp != f.stamp or f.stamp is None:
            d = read_discussion(f.path, f.display)
        fresh[f.path] = d
        found.append(d)
    return found, fresh
