"""Keys every screen shares."""

from __future__ import annotations

from textual.binding import Binding

#: ``?``: every key of the screen on show, in the key panel (``?`` again or Esc closes it).
#: First in each screen's bindings, so that the footer shows it even where it cuts the rest.
HELP = Binding("question_mark", "app.toggle_help_panel", "Keys", id="screen.help")
