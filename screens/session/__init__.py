"""One session under review: the screen (:mod:`.screen`) and its review keys (:mod:`.review_keys`)."""

from screens.session.screen import SessionScreen

__all__ = ["SessionScreen"]
