"""The error every review action raises for a request it cannot carry out, and the one
wording of a file that could not be read."""

from __future__ import annotations


def cannot_read(path: object, exc: Exception) -> str:
    """``PATH: cannot read: why``, in the system's words (no errno, no path again)."""
    return f"{path}: cannot read: {getattr(exc, 'strerror', None) or exc}"


class ReviewError(Exception):
    """A review request that cannot be carried out; the message is one line for people."""


class AmbiguousReport(ReviewError):
    """A report id two reports carry, named without the place of the one meant."""
