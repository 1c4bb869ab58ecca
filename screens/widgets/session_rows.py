"""A row of the sessions list, from its plain-text fields (the list's and the page kept
for the next start, :mod:`store.index.first_page`, which holds the same fields)."""

from __future__ import annotations

from textual.content import Content

from screens.widgets.literal import literal, outcome_content
from screens.widgets.virtual_table import Row


def session_row(f: dict[str, str]) -> Row:
    """The row of a session's fields: its key, then date, project, outcome, K/P/T/O,
    review progress (coloured by how far it is) and title, agent text shown literally."""
    done, _, total = f["review"].partition("/")
    if not total:
        review = Content.styled("—", "$text-muted")
    elif done == total:
        review = Content.styled(f["review"], "$success")
    else:
        review = Content.styled(f["review"], "bold $warning")
    project = literal(f["project"], keep_newlines=False)
    title = literal(f["title"], keep_newlines=False)
    return f["key"], (f["date"], project, outcome_content(f["outcome"]), f["kpto"], review, title)
