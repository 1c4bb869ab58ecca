"""A pass over the whole workspace: every file loaded and checked, with progress."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from .diagnostics import Diagnostic
from .kinds import Kind
from .lint import lint_file
from .workspace import Workspace


@dataclass(slots=True)
class FileReport:
    """One workspace file and what the lint says of it."""

    path: Path
    display: str
    kind: Kind | None
    diagnostics: list[Diagnostic] = field(default_factory=list)

    @property
    def errors(self) -> int:
        return sum(1 for d in self.diagnostics if d.severity == "error")

    @property
    def warnings(self) -> int:
        return sum(1 for d in self.diagnostics if d.severity == "warning")


def scan_workspace(
    ws: Workspace, progress: Callable[[int, int], None] | None = None
) -> Iterator[FileReport]:
    found = list(ws.discover())
    for i, f in enumerate(found):
        shown = ws.display(f.path)
        yield FileReport(f.path, shown, f.kind, lint_file(f.path, f.kind, shown))
        if progress is not None:
            progress(i + 1, len(found))
