"""What a spec requires or enumerates, marked on model fields and checked after validation."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Required:
    """The specification says this field must be present."""

    what: str = ""


@dataclass(frozen=True, slots=True)
class Choice:
    """The specification enumerates the values of this field."""

    values: tuple[str, ...]

    def __init__(self, *values: str) -> None:
        object.__setattr__(self, "values", tuple(values))


@dataclass(frozen=True, slots=True)
class DateText:
    """An ISO 8601 date or date-time, kept as written."""


@dataclass(frozen=True, slots=True)
class IdPattern:
    """An identifier with a documented shape, e.g. ``kpt-YYYYMMDD-NNN``."""

    regex: str
    example: str
