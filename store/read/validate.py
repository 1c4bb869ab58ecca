"""Tolerant validation: a model plus diagnostics, whatever the input. A value of the wrong
type is reported and removed and validation tried again: one bad field never costs the rest."""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from store.read.diagnostics import DiagnosticSink
from store.read.markers import LineOf, check_markers, dotted, no_line

M = TypeVar("M", bound=BaseModel)

_MAX_ATTEMPTS = 25


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
    line_of: LineOf = no_line,
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


__all__ = ["LineOf", "check_markers", "dotted", "validate_tolerant"]
