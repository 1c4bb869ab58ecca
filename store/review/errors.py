"""The error every review action raises for a request it cannot carry out."""

from __future__ import annotations


class ReviewError(Exception):
    """A review request that cannot be carried out; the message is one line for people."""


__all__ = ["ReviewError"]
