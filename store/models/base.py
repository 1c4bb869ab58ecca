"""Building blocks shared by every format model.

Agents write these files without validation, so the models are deliberately lenient:
every field may be absent at the pydantic level and unknown fields are kept. What the
specifications *require* or *enumerate* is declared with the markers below and checked
afterwards by :mod:`store.read.validate`, which turns departures into diagnostics (errors for
missing required fields, warnings for unknown enum values or wrong case) while the value
is kept as written.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from pydantic import BaseModel, ConfigDict


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


class Record(BaseModel):
    """Base of every model: unknown fields kept, numbers accepted where text is expected."""

    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
        coerce_numbers_to_str=True,
        validate_assignment=False,
        ser_json_inf_nan="constants",
    )

    #: Report fields the specification does not know, as warnings (model-written formats).
    warn_unknown_fields: ClassVar[bool] = False
