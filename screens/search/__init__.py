"""Search across every record: the screen (:mod:`.screen`) and its ``evidence:`` filter (:mod:`.evidence`)."""

from screens.search.screen import COLUMNS, SearchScreen, hit_key

__all__ = ["COLUMNS", "SearchScreen", "hit_key"]
