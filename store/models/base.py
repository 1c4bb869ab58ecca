"""Building blocks shared by every format model.

Agents write these files without validation, so the models are deliberately lenient:
every field may be absent at the pydantic level and unknown fields are kept. What the
specifications *require* or *enumerate* is declared with the markers of
:mod:`store.models.markers` and checked afterwards by :mod:`store.read.markers`, which turns
departures into diagnostics (errors for missing required fields, warnings for unknown enum
values or wrong case) while the value is kept as written.
"""

from __future__ import annotations

from typing import ClassVar

from pydantic import BaseModel, ConfigDict

from store.models.markers import Choice, DateText, IdPattern, Required


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


__all__ = ["Choice", "DateText", "IdPattern", "Record", "Required"]
