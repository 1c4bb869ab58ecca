"""The markers of a document's fields checked after validation: a missing required field
is an error, the rest warnings; values are always kept as written."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from functools import cache
from typing import Any

from store.models.markers import Choice, DateText, IdPattern, Required
from store.read.diagnostics import DiagnosticSink
from store.read.isotime import parse_time

LineOf = Callable[[Sequence[str | int]], int | None]


def no_line(_loc: Sequence[str | int]) -> int | None:
    """A :data:`LineOf` for a document without lines to name (JSON read whole)."""
    return None


def dotted(loc: Sequence[str | int]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(document)"


@cache
def _markers(cls: type) -> list[tuple[str, str, list[Any]]]:
    return [
        (name, field.alias or name, list(field.metadata))
        for name, field in cls.model_fields.items()  # type: ignore[attr-defined]
    ]


def check_markers(
    model: Any,
    sink: DiagnosticSink,
    line_of: LineOf,
    loc: tuple[str | int, ...],
    pruned: set[tuple[str | int, ...]] | frozenset[tuple[str | int, ...]] = frozenset(),
) -> None:
    """Report departures from the markers of ``model``'s fields (and its sub-models')."""
    for name, key, meta in _markers(model.__class__):
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
            elif isinstance(m, DateText) and isinstance(value, str) and parse_time(value) is None:
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
    if getattr(model, "warn_unknown_fields", False) and model.model_extra:
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
    if hasattr(value, "model_fields_set"):
        check_markers(value, sink, line_of, loc, pruned)
    elif isinstance(value, (list, dict)):
        for k, v in value.items() if isinstance(value, dict) else enumerate(value):
            if hasattr(v, "model_fields_set"):
                check_markers(v, sink, line_of, (*loc, k), pruned)
