"""Diagnostics: what is wrong with a file, where, how bad. Loaders return them instead of
raising, so the UI, the CLI and the lint report the same facts with the same codes."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Literal

from store.read.textsafe import printable

Severity = Literal["error", "warning"]


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """One problem in one file: ``line`` 1-based (``None``: the whole file), ``code`` a
    stable kebab-case id scripts may match on."""

    path: str
    line: int | None
    severity: Severity
    code: str
    message: str

    def as_dict(self) -> dict[str, object]:
        return asdict(self)

    def format(self) -> str:
        """One line of text: control characters in the path (a file may be named
        ``"x\\nfake: error.yaml"``) and the message are made visible."""
        where = f"{self.path}:{self.line}" if self.line else self.path
        text = f"{where}: {self.severity}: {self.message} [{self.code}]"
        return printable(text, keep_newlines=False)


class Diagnosed:
    """Mixin: a file's ``diagnostics`` counted by severity."""

    __slots__ = ()
    diagnostics: list[Diagnostic]

    @property
    def errors(self) -> int:
        return sum(1 for d in self.diagnostics if d.severity == "error")

    @property
    def warnings(self) -> int:
        return sum(1 for d in self.diagnostics if d.severity == "warning")


class DiagnosticSink:
    """Collects diagnostics for one file, so helpers need not repeat the path."""

    __slots__ = ("items", "path")

    def __init__(self, path: str) -> None:
        self.path = path
        self.items: list[Diagnostic] = []

    def error(self, code: str, message: str, line: int | None = None) -> None:
        self.items.append(Diagnostic(self.path, line, "error", code, message))

    def warning(self, code: str, message: str, line: int | None = None) -> None:
        self.items.append(Diagnostic(self.path, line, "warning", code, message))
