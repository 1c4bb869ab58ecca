"""The diff pane: kinds of lines, wrapping that keeps the marker, keyboard scrolling, colours,
agent text shown literally."""

from __future__ import annotations

from textual.app import App, ComposeResult

from screens.widgets.diff_view import DiffView, fold, looks_like_diff, parse_diff

DIFF = (
    "--- a/CLAUDE.md\n"
    "+++ b/CLAUDE.md\n"
    "@@ -1,3 +1,3 @@\n"
    " ## Rules\n"
    "--- not a file header: a removed line starting with two dashes\n"
    "+++ not a file header either: an added line\n"
    " last\n"
    "\\ No newline at end of file\n"
)


def test_lines_are_classified_by_the_hunk_counts() -> None:
    kinds = [(line.kind, line.marker) for line in parse_diff(DIFF)]
    assert kinds == [
        ("file", ""),
        ("file", ""),
        ("hunk", ""),
        ("context", " "),
        ("removed", "-"),
        ("added", "+"),
        ("context", " "),
        ("note", ""),
    ]
    assert parse_diff(DIFF)[4].body.startswith("-- not a file header")


def test_fold_counts_wide_characters_and_breaks_after_spaces() -> None:
    assert fold("新パッケージ追加", 6) == ["新パッ", "ケージ", "追加"]
    assert fold("alpha beta gamma", 12) == ["alpha beta ", "gamma"]
    assert looks_like_diff(DIFF) and not looks_like_diff("a listing\n- item\n")


class Host(App[None]):
    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text

    def compose(self) -> ComposeResult:
        yield DiffView(self.text, id="diff")


async def test_wrapped_lines_keep_their_marker_and_text_is_literal() -> None:
    long_add = "+" + "added words " * 12
    text = (
        "@@ -1,2 +1,2 @@\n"
        f"-{'removed words ' * 12}\n"
        f"{long_add}\n"
        "+[bold red]not markup[/] \x1b[31mescape\u202e\n"
    )
    app = Host(text)
    async with app.run_test(size=(40, 20)) as pilot:
        await pilot.pause()
        view = app.query_one(DiffView)
        rows = view.rows
        removed = [r for r in rows if r.kind == "removed"]
        added = [r for r in rows if r.kind == "added"]
        assert len(removed) > 1 and all(r.gutter == "-" for r in removed)
        assert len(added) > 2 and all(r.gutter == "+" for r in added)
        assert max(len(r.text) for r in rows) < 40
        # every piece of the long added line is there, in order
        pieces = "".join(r.text for r in added[: len(added) - 1])
        assert pieces.startswith(long_add[1:].rstrip()[:40])
        shown = "".join(r.text for r in rows)
        assert "[bold red]not markup[/]" in shown
        assert "\x1b" not in shown and "\u202e" not in shown
        assert "␛[31m" in view.text and "⟨U+202E⟩" in view.text
        # a removed line and an added line look different from each other and from context
        y_removed = next(i for i, r in enumerate(rows) if r.kind == "removed")
        y_added = next(i for i, r in enumerate(rows) if r.kind == "added")
        y_hunk = 0
        colour = lambda y: next(iter(view.render_line(y))).style  # noqa: E731
        assert colour(y_removed) != colour(y_added) != colour(y_hunk)
        assert any("[bold red]not markup[/]" in view.render_line(y).text for y in range(len(rows)))


async def test_it_takes_focus_and_scrolls_from_the_keyboard() -> None:
    text = "@@ -0,0 +1,80 @@\n" + "".join(f"+line {n}\n" for n in range(80))
    app = Host(text)
    async with app.run_test(size=(60, 20)) as pilot:
        await pilot.pause()
        view = app.query_one(DiffView)
        assert app.focused is view
        await pilot.press("down", "j")
        assert view.scroll_y == 2
        await pilot.press("k")
        assert view.scroll_y == 1
        await pilot.press("pagedown")
        assert view.scroll_y > 10
        await pilot.press("end")
        assert view.scroll_y == view.max_scroll_y > 60
        await pilot.press("pageup")
        assert view.scroll_y < view.max_scroll_y
        await pilot.press("home")
        assert view.scroll_y == 0
        await pilot.press("end")
        view.load_text("@@ -1 +1 @@\n-a\n+b\n" * 30)
        await pilot.pause()
        assert view.scroll_y == 0  # another diff is read from its start
