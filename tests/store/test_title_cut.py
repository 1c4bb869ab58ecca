"""A title cut to the length a head keeps ends in an ellipsis (issue 44, point 2: the session
header's summary stopped mid-word), in the demo's reports whose summaries are longer."""

from __future__ import annotations

from pathlib import Path

from store.index.workspace_index import WorkspaceIndex
from store.read.textsafe import TITLE_CHARS, first_line
from store.workspace import Workspace


def test_a_long_first_line_ends_in_an_ellipsis() -> None:
    assert first_line("short\nsecond") == "short"
    cut = first_line("word " * 100)
    assert len(cut) == TITLE_CHARS and cut.endswith("…")
    assert first_line("x" * TITLE_CHARS) == "x" * TITLE_CHARS  # not cut: no ellipsis


def test_the_demo_sessions_with_long_summaries_say_they_go_on(demo_root: Path) -> None:
    index = WorkspaceIndex(Workspace(demo_root))
    index.load_all()
    long = [s for s in index.sessions.values() if s.report and len(s.title) >= TITLE_CHARS]
    assert len(long) == 10  # kpt-20261029-001, kpt-20261030-001, …: 203 to 239 characters
    assert all(s.title.endswith("…") for s in long)
