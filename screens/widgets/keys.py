"""Keys every screen shares."""

from __future__ import annotations

from textual.binding import Binding

#: ``?``: every key of the screen on show, in the key panel (``?`` again or Esc closes it).
#: First in each screen's bindings, so that the footer shows it even where it cuts the rest.
HELP = Binding("question_mark", "app.toggle_help_panel", "Keys", id="screen.help")

#: The app-wide keys that open a screen: key, screen name, description (binding ``app.<name>``).
SCREEN_KEYS = (
    ("I", "inbox", "Inbox"),
    ("K", "knowledge", "Knowledge base"),
    ("M", "match", "Skill matching"),
    ("L", "lessons", "Lessons"),
    ("S", "stats", "Statistics"),
    ("slash", "search", "Search"),
    ("D", "discussions", "Discussions"),
    ("T", "pieces", "Pieces"),
    ("H", "history", "History"),
    ("C", "targets", "Targets"),
    ("P", "problems", "Problems"),
    ("W", "changes", "Changes"),
)


def open_key(name: str, screen: str, *, show: bool = True) -> Binding:
    """``screen``'s own binding of the key that opens screen ``name`` (for its footer)."""
    key, description = next((k, d) for k, n, d in SCREEN_KEYS if n == name)
    return Binding(key, f"app.open_screen('{name}')", description, id=f"{screen}.{name}", show=show)
