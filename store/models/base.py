"""The base of every format model: lenient (agents write unvalidated), the specs' demands
checked afterwards (:mod:`store.read.markers`)."""

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
