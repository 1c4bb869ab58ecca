"""Tolerant validation: a model instance plus diagnostics, whatever the input.

Pydantic validates; a value of the wrong type is reported and removed, and validation is
tried again, so one bad field never costs the rest of the document. The markers of
:mod:`store.models.base` are then checked: missing required fields are errors, values
outside an enumeration (or in the wrong case) and unknown fields of model-written formats
are warnings. Values are always kept as written.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Sequence
from datetime import datetime
from functools import cache
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from store.models.base import Choice, DateText, IdPattern, Record, Required
from store.read.diagnostics import DiagnosticSink

M = TypeVar("M", bound=BaseModel)
LineOf = Callable[[Sequence[str | int]], int | None]

_MAX_ATTEMPTS = 25


def _no_line(_loc: Sequence[str | int]) -> int | None:
    return None


def dotted(loc: Sequence[str | int]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(document)"


def _type_name(value: Any) -> str:
    if value is None:
        return "nothing"
    return {dict: "a mapping", list: "a list", str: "text", bool: "true/false"}.get(
        type(value), type(value).__name__
    )


def _data_loc(data: Any, loc: Sequence[str | int]) -> list[str | int]:
    """The part of a pydantic error location that exists in the data (drops union tags)."""
    out: list[str | int] = []
    cur = data
    for part in loc:
        exists = (isinstance(cur, dict) and part in cur) or (
            isinstance(cur, list) and isinstance(part, int) and 0 <= part < len(cur)
        )
        if exists:
            out.append(part)
            cur = cur[part]
        elif isinstance(cur, (dict, list)):
            continue  # a union member's name such as 'str' or 'list[str]'
        else:
            break
    return out


_DROP = object()


def _prune(data: Any, loc: list[str | int]) -> None:
    if not loc:
        return
    parent = data
    for part in loc[:-1]:
        parent = parent[part]
    last = loc[-1]
    if isinstance(parent, dict):
        parent.pop(last, None)
    elif isinstance(parent, list) and isinstance(last, int):
        parent[last] = _DROP


def _sweep(data: Any) -> Any:
    if isinstance(data, dict):
        return {k: _sweep(v) for k, v in data.items()}
    if isinstance(data, list):
        return [_sweep(v) for v in data if v is not _DROP]
    return data


def validate_tolerant(
    cls: type[M],
    data: Any,
    sink: DiagnosticSink,
    line_of: LineOf = _no_line,
    what: str = "document",
) -> M | None:
    """Validate ``data`` as ``cls``; never raises for bad content."""
    if not isinstance(data, dict):
        sink.error(
            "not-a-mapping",
            f"expected the {what} to be a mapping of fields, found {_type_name(data)}",
            line_of(()),
        )
        return None
    work = data
    pruned: set[tuple[str | int, ...]] = set()
    for _ in range(_MAX_ATTEMPTS):
        try:
            model = cls.model_validate(work)
        except ValidationError as exc:
            if work is data:
                work = copy.deepcopy(data)
            for err in exc.errors(include_url=False):
                loc = _data_loc(work, err["loc"])
                if not loc:
                    continue
                sink.error(
                    "wrong-type",
                    f"{dotted(loc)}: {err['msg'].lower()} (found {_type_name(err.get('input'))}); "
                    "the value is ignored",
                    line_of(loc),
                )
                _prune(work, loc)
                pruned.add(tuple(loc))
            work = _sweep(work)
            continue
        check_markers(model, sink, line_of, (), pruned)
        return model
    sink.error("invalid", f"the {what} could not be read as its format")
    return None


@cache
def _markers(cls: type[BaseModel]) -> list[tuple[str, str, list[Any]]]:
    return [
        (name, field.alias or name, list(field.metadata))
        for name, field in cls.model_fields.items()
    ]


def _parse_date(text: str) -> bool:
    try:
        datetime.fromisoformat(text.replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        return False
    return True


def check_markers(
    model: BaseModel,
    sink: DiagnosticSink,
    line_of: LineOf,
    loc: tuple[str | int, ...],
    pruned: set[tuple[str | int, ...]] | frozenset[tuple[str | int, ...]] = frozenset(),
) -> None:
    """Report departures from the markers of ``model``'s fields (and its sub-models')."""
    cls = type(model)
    for name, key, meta in _markers(cls):
        value = getattr(model, name)
        here = (*loc, key)
        for m in meta:
            if isinstance(m, Required) and value is None and here not in pruned:
                expected = f" (expected {m.what})" if m.what else ""
                sink.error(
                    "missing-field",
                    f"required field '{dotted(here)}' is missing{expected}",
                    line_of(loc),
                )
            elif isinstance(m, Choice) and isinstance(value, str) and value not in m.values:
                allowed = ", ".join(m.values)
                if value.lower() in m.values:
                    sink.warning(
                        "enum-case",
                        f"{dotted(here)}: '{value}' should be written '{value.lower()}' "
                        f"(one of {allowed}); kept as written",
                        line_of(here),
                    )
                else:
                    sink.warning(
                        "enum-unknown",
                        f"{dotted(here)}: '{value}' is not one of {allowed}; kept as written",
                        line_of(here),
                    )
            elif isinstance(m, DateText) and isinstance(value, str) and not _parse_date(value):
                sink.warning(
                    "bad-date",
                    f"{dotted(here)}: '{value}' is not an ISO 8601 date or time",
                    line_of(here),
                )
            elif (
                isinstance(m, IdPattern)
                and isinstance(value, str)
                and not re.fullmatch(m.regex, value)
            ):
                sink.warning(
                    "id-format",
                    f"{dotted(here)}: '{value}' does not look like {m.example}",
                    line_of(here),
                )
        if name in model.model_fields_set:  # sub-models where the document wrote them
            _recurse(value, sink, line_of, here, pruned)
    if isinstance(model, Record) and model.warn_unknown_fields and model.model_extra:
        for extra in model.model_extra:
            sink.warning(
                "unknown-field",
                f"field '{dotted((*loc, extra))}' is not in the specification; kept as written",
                line_of((*loc, extra)),
            )


def _recurse(
    value: Any,
    sink: DiagnosticSink,
    line_of: LineOf,
    loc: tuple[str | int, ...],
    pruned: set[tuple[str | int, ...]] | frozenset[tuple[str | int, ...]],
) -> None:
    if isinstance(value, BaseModel):
        check_markers(value, sink, line_of, loc, pruned)
    elif isinstance(value, list):
        for i, v in enumerate(value):
            if isinstance(v, BaseModel):
                check_markers(v, sink, line_of, (*loc, i), pruned)
    elif isinstance(value, dict):
        for k, v in value.items():
            if isinstance(v, BaseModel):
                check_markers(v, sink, line_of, (*loc, k), pruned)
