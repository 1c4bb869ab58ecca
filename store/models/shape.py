"""A format model's shape: telling a plain document, and reading it, without pydantic.

Importing pydantic and building the wrap-up models costs a hook's ``import-wrapup`` about
0.12 s of its 0.4 s. Most inputs are *plain*: every field the model declares holds exactly
the JSON type it declares (text where text is expected, a list of texts, a mapping for a
sub-model) or ``null``, so pydantic would take them as they are, change nothing and
report nothing. Such a document is checked against its model's shape (the fields, their
kinds and markers) and read through a :class:`PlainDoc`, which answers as the validated
model would: its fields, ``model_extra``, ``model_fields_set`` and
``model_dump(exclude_none=True)``. Anything else — a number where text is expected, a
wrong type, a list holding ``null`` — is left to the model
(:func:`store.read.validate.validate_tolerant`).

The models stay the one source of truth: the shapes are written from them
(:mod:`store.models.shape_build`), and a test keeps the written ones the models' own; a
property test keeps a plain document read this way the same as the model reads it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from store.models.markers import Choice, DateText, IdPattern, Required

#: The kinds of field a shape knows (anything else, the shape's builder refuses):
#: text, a whole number, a list of texts, a sub-model, a list of them, a mapping to them.
KINDS = ("str", "int", "strs", "doc", "docs", "doc_map")
#: The whole numbers pydantic takes as they are (a larger one is left to it).
_INT_MIN, _INT_MAX = -(2**63), 2**63 - 1


@dataclass(frozen=True, slots=True)
class Shape:
    """One model's fields: ``fields`` as :func:`store.read.markers.check_markers` reads
    them (name, key, markers), ``kinds`` each key's kind and sub-model."""

    name: str
    fields: tuple[tuple[str, str, tuple[Any, ...]], ...]
    kinds: Mapping[str, tuple[str, str | None]]
    warn_unknown_fields: bool


def shapes_from(written: Mapping[str, Any]) -> dict[str, Shape]:
    """The shapes of a module written by :mod:`store.models.shape_build`."""
    out: dict[str, Shape] = {}
    for name, spec in written.items():
        fields = []
        kinds: dict[str, tuple[str, str | None]] = {}
        for field, kind, sub, marks in spec["fields"]:
            fields.append((field, field, tuple(_marker(m) for m in marks)))
            kinds[field] = (kind, sub)
        out[name] = Shape(name, tuple(fields), kinds, bool(spec["warn_unknown_fields"]))
    return out


def _marker(written: list[Any]) -> Any:
    what, *args = written
    if what == "required":
        return Required(*args)
    if what == "choice":
        return Choice(*args)
    if what == "date":
        return DateText()
    if what == "id":
        return IdPattern(*args)
    raise ValueError(f"unknown marker {what!r}")


def plain(shapes: Mapping[str, Shape], name: str, data: Any) -> PlainDoc | None:
    """``data`` read as the model ``name`` would read it, when it is plain (see the
    module's docstring); ``None`` when the model must read it."""
    shape = shapes[name]
    return PlainDoc(shapes, shape, data) if _fits(shapes, shape, data) else None


def _fits(shapes: Mapping[str, Shape], shape: Shape, data: Any) -> bool:
    if type(data) is not dict:
        return False
    kinds = shape.kinds
    for key, value in data.items():
        got = kinds.get(key)
        if got is None:  # a field the model does not know: kept as written
            if key.startswith(("_", "model_")):
                return False  # a name pydantic treats apart
            continue
        if value is None:  # as if absent (a dump leaves it out)
            continue
        kind, sub = got
        if kind == "str":
            ok = type(value) is str
        elif kind == "int":
            ok = type(value) is int and _INT_MIN <= value <= _INT_MAX
        elif kind == "strs":
            ok = type(value) is list and all(type(v) is str for v in value)
        else:
            inner = shapes[sub or ""]
            if kind == "doc":
                ok = _fits(shapes, inner, value)
            elif kind == "docs":
                ok = type(value) is list and all(_fits(shapes, inner, v) for v in value)
            else:  # doc_map
                ok = type(value) is dict and all(_fits(shapes, inner, v) for v in value.values())
        if not ok:
            return False
    return True


class PlainDoc:
    """A plain document read as its model would read it (see the module's docstring):
    each field an attribute (``None`` when absent), sub-models as plain documents too."""

    __slots__ = ("_data", "_shapes", "shape")

    def __init__(self, shapes: Mapping[str, Shape], shape: Shape, data: dict[str, Any]) -> None:
        self._shapes = shapes
        self.shape = shape
        self._data = data

    def __getattr__(self, name: str) -> Any:
        got = self.shape.kinds.get(name)
        if got is None:
            raise AttributeError(f"{self.shape.name} has no field {name!r}")
        value = self._data.get(name)
        if value is None:
            return None
        kind, sub = got
        if kind == "strs":
            return list(value)
        if kind in ("str", "int"):
            return value
        inner = self._shapes[sub or ""]
        if kind == "doc":
            return PlainDoc(self._shapes, inner, value)
        if kind == "docs":
            return [PlainDoc(self._shapes, inner, v) for v in value]
        return {k: PlainDoc(self._shapes, inner, v) for k, v in value.items()}

    @property
    def warn_unknown_fields(self) -> bool:
        return self.shape.warn_unknown_fields

    @property
    def model_extra(self) -> dict[str, Any]:
        """The fields the model does not know, as written (in the document's order)."""
        kinds = self.shape.kinds
        return {k: v for k, v in self._data.items() if k not in kinds}

    @property
    def model_fields_set(self) -> set[str]:
        """The fields the document writes (``null`` ones and those the model does not know
        included)."""
        return set(self._data)

    def model_dump(self, *, exclude_none: bool) -> dict[str, Any]:
        """As the model dumps itself without its ``None`` fields: the fields in the model's
        order, then the others in the document's."""
        if not exclude_none:
            raise ValueError("a plain document dumps without its None fields only")
        data, kinds = self._data, self.shape.kinds
        out: dict[str, Any] = {}
        for name, _key, _marks in self.shape.fields:
            if data.get(name) is not None:  # the field as read, sub-documents dumped
                out[name] = _dumped(getattr(self, name))
        for k, v in data.items():
            if k not in kinds and v is not None:  # a null inside one is kept
                out[k] = v
        return out


def _dumped(value: Any) -> Any:
    if isinstance(value, PlainDoc):
        return value.model_dump(exclude_none=True)
    if type(value) is list:
        return [_dumped(v) for v in value]
    if type(value) is dict:
        return {k: _dumped(v) for k, v in value.items()}
    return value
