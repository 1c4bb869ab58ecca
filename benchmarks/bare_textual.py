"""The baseline of :mod:`benchmarks.feel`: a bare Textual app with a 20-row DataTable.

Run as a script (``python benchmarks/bare_textual.py``) in a terminal: a header, a table of
20 dated rows and a footer, nothing read from disk. What any Textual app costs to start.
"""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets import DataTable, Footer, Header


class Bare(App[None]):
    def compose(self) -> ComposeResult:
        yield Header()
        yield DataTable(id="rows")
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_columns("Date", "Project", "Outcome", "Summary")
        for n in range(20):
            table.add_row(f"2026-01-{n + 1:02d}", "api", "success", f"session {n + 1}")
        table.focus()


if __name__ == "__main__":
    Bare().run()
