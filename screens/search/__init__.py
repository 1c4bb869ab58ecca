"""Search across every record: the screen (:mod:`.screen`) and its ``evidence:`` filter (:mod:`.evidence`)."""

from screens.search.screen import SearchScreen

__all__ = ["SearchScreen"]
