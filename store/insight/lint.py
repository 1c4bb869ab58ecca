"""``hurikaeri lint``: the whole workspace (through the index and its cache) or the given
files and directories, each checked by :mod:`store.check.files`."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from store.check.files import check_loaded, unfinished
from store.read.diagnostics import Diagnostic
from store.read.kinds import Kind
from store.workspace import Workspace

if TYPE_CHECKING:
    from store.index.workspace_index import WorkspaceIndex


def lint_workspace(ws: Workspace) -> Iterator[Diagnostic]:
    """Every file's diagnostics, through the index (and so its cache: files unchanged since
    the last run, of the app or of any command, are not parsed again)."""
    from store.index.workspace_index import WorkspaceIndex

    index = WorkspaceIndex(ws)
    index.load_all()
    seen: set[Diagnostic] = set()
    for path in index.kinds:
        f = index.files.get(path)
        if f is None:
            continue
        yield from once(f.diagnostics, seen)
        if f.unfinished_line is not None:
            yield unfinished(f.display, f.unfinished_line)
    yield from report_id_collisions(ws, index)
    yield from session_id_collisions(ws, index)
    from store.tx.transactions import not_ours

    yield from not_ours(ws, ledger=index.ledger)  # forged or pulled lines: not acted on


def once(diagnostics: Iterable[Diagnostic], seen: set[Diagnostic]) -> Iterator[Diagnostic]:
    """Each diagnostic once: a TAKT facet's is made by every piece that uses the facet."""
    for d in diagnostics:
        if d not in seen:
            seen.add(d)
            yield d


def report_id_collisions(ws: Workspace, index: WorkspaceIndex) -> Iterator[Diagnostic]:
    """Two reports with one id (each machine counts ``kpt-YYYYMMDD-NNN`` from 001): a
    warning on each file naming the located ids (the id alone is refused)."""
    from store.located import report_key

    for rid, sessions in sorted(index.shared_ids().items()):
        where = [ws.display(s.report.path) for s in sessions if s.report is not None]
        for path in where:
            others = ", ".join(f"{o} ({report_key(rid, o)})" for o in where if o != path)
            yield Diagnostic(
                path,
                None,
                "warning",
                "duplicate-report-id",
                f"report id {rid} is also the id of {others}; its items are named "
                f"{report_key(rid, path)}/ITEM_ID while the id is shared — give one of "
                "them another id",
            )


def session_id_collisions(ws: Workspace, index: WorkspaceIndex) -> Iterator[Diagnostic]:
    """Two reports naming one ``session_id``: each is a session of its own, and a warning
    on each file names the others."""
    for sid, sessions in sorted(index.shared_session_ids().items()):
        where = sorted(ws.display(s.report.path) for s in sessions if s.report is not None)
        for path in where:
            others = ", ".join(o for o in where if o != path)
            yield Diagnostic(
                path,
                None,
                "warning",
                "duplicate-session-id",
                f"session_id {sid} is also the session_id of {others}; each report is "
                "listed and reviewed as a session of its own — if they are different "
                "sessions, give each its own session_id",
            )


def lint_paths(paths: Iterable[Path], ws: Workspace | None) -> Iterator[Diagnostic]:
    """Lint the given files and directories; a file's kind comes from where it lies."""
    from store.read.kinds import ignored_name, kind_from_path
    from store.read.loader import load_file
    from store.read.takt_layout import in_takt_tree_support, piece_dirs
    from store.workspace import walk_files

    seen: set[Diagnostic] = set()
    for path in paths:
        if path.is_dir():
            files = [  # a TAKT directory: only its pieces (not config.yaml, tasks, logs)
                f
                for top in piece_dirs(path)
                for f in walk_files(top, (".yaml", ".yml", ".jsonl", ".json", ".md"))
                if not in_takt_tree_support(f, top)
            ]
        elif path.exists():
            files = [path]
        else:
            yield Diagnostic(str(path), None, "error", "not-found", "no such file or directory")
            continue
        for f in files:
            if f is not path and (
                ignored_name(f.name)
                or (f.suffix == ".md" and kind_from_path(f) is not Kind.DISCUSSION)
            ):
                continue
            shown = ws.display(f.resolve()) if ws else str(f)
            loaded = load_file(f, None, shown)
            if f is not path and loaded.kind is None and "knowledge_base" not in f.parts:
                # another tool's file in the folder (.claude/settings.json, a JSONC
                # tsconfig.json, a list of labels): not ours, whatever it holds
                continue
            yield from once(check_loaded(loaded), seen)
