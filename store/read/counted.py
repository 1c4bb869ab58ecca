"""A count and its noun, in the form that reads right for one and for any other number."""

from __future__ import annotations


def counted(n: int, one: str, many: str = "") -> str:
    """``1 finding``, ``0 findings``, ``2 findings``; an irregular noun names its plural:
    ``counted(n, "match", "matches")``."""
    return f"{n} {one if n == 1 else many or one + 's'}"
