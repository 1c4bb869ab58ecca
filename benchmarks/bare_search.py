"""The baseline of :mod:`benchmarks.feel`'s search keys: a bare Textual app that searches
nothing.

Run as a script (``python benchmarks/bare_search.py``) in a terminal: the search screen's
layout (a header, a query box, a status line, a table of results beside a preview pane, a
footer) in plain Textual widgets, nothing read from disk. Each key puts 50 other rows in
Textual's own ``DataTable`` and a new count in the status line (``… shown, …``, what the
benchmark waits for), in the handler of the box's change, so the key's echo and its rows are
one frame. What the same frame costs done the plain Textual way. With ``--static`` the rows
are one ``Static`` of lines instead of a ``DataTable``.
"""

from __future__ import annotations

import sys

from textual.app import App, ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import DataTable, Footer, Header, Input, Static

KINDS = ["lesson", "try", "problem", "keep", "summary", "report"]
STATES = ["pending", "approved", "rejected", "promoted", ""]
SENTENCE = (
    "retry the flaky migration script after the jwks cache expired and the rate limit "
    "of the config loader was raised for the nightly test run"
)
WORDS = SENTENCE.split(" ")
ROWS = [
    (
        KINDS[n % len(KINDS)],
        " ".join(WORDS[(n * 7 + k) % len(WORDS)] for k in range(5)),
        str(1 + n % 5),
        STATES[n % len(STATES)],
        f"project-{n % 13}",
        f"2026-{1 + n % 12:02d}-{1 + n % 28:02d}",
    )
    for n in range(500)
]


class BareSearch(App[None]):
    """``static``: the rows as one ``Static`` of lines instead (the least Textual can do)."""

    CSS = """
    #query { margin: 0 1; }
    #status { height: 1; padding: 0 2; color: $text-muted; }
    #panes { height: 1fr; }
    #results { width: 7fr; }
    #preview-scroll { width: 3fr; border-left: vkey $panel; padding: 0 1; }
    """

    def __init__(self, static: bool = False) -> None:
        super().__init__()
        self.static = static

    def compose(self) -> ComposeResult:
        yield Header()
        yield Input(placeholder="search", id="query")
        yield Static(id="status")
        with Horizontal(id="panes"):
            if self.static:
                yield Static(id="results")
            else:
                yield DataTable(id="results", cursor_type="row")
            with VerticalScroll(id="preview-scroll"):
                yield Static("\n".join(WORDS), id="preview")
        yield Footer()

    def on_mount(self) -> None:
        if not self.static:
            self.query_one(DataTable).add_columns("Kind", "Title", "×", "State", "Project", "Date")
        self.show("")
        self.query_one(Input).focus()

    def on_input_changed(self, event: Input.Changed) -> None:
        self.show(event.value)

    def show(self, query: str) -> None:
        start = sum(map(ord, query)) % (len(ROWS) - 50)
        rows = ROWS[start : start + 50]
        if self.static:
            lines = [f"{k:8} {t[:30]:30} {n:>2} {s:9} {p:11} {d}" for k, t, n, s, p, d in rows]
            self.query_one("#results", Static).update("\n".join(lines))
        else:
            table = self.query_one(DataTable)
            table.clear()
            table.add_rows(rows)
        self.query_one("#status", Static).update(
            f"{start * 7 + len(query)} matches · 50 shown, best first · 0 ms"
        )


if __name__ == "__main__":
    BareSearch(static="--static" in sys.argv).run()
