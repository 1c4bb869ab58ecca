"""The error every review action raises for a request it cannot carry out."""

from __future__ import annotations


class ReviewError(Exception):
    """A review request that cannot be carried out; the message is one line for people."""


class AmbiguousReport(ReviewError):
    """A report id two reports carry, named without the place of the one meant."""
