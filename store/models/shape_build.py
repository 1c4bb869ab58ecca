"""Writes the shapes of models (:mod:`store.models.shape`) from the models themselves.

    uv run python -m store.models.shape_build      # rewrites store/models/wrapup_shapes.py

A test (``tests/store/test_plain_wrapup.py``) keeps what the written module holds what this
makes of the models now: change a model, run this, commit both.
"""

from __future__ import annotations

import pprint
import subprocess
import sys
import types
import typing
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from store.models.markers import Choice, DateText, IdPattern, Required

#: The module written, and the model whose shapes (its own and its sub-models') it holds.
TARGET = Path(__file__).with_name("wrapup_shapes.py")
ROOT_MODEL = "store.models.lessons:WrapupInput"


def shapes_of(root: type[BaseModel]) -> dict[str, Any]:
    """``root``'s shape and its sub-models', by model name, as the module holds them."""
    out: dict[str, Any] = {}
    todo = [root]
    while todo:
        cls = todo.pop(0)
        if cls.__name__ in out:
            continue
        fields = []
        for name, field in cls.model_fields.items():
            if field.alias not in (None, name):
                raise TypeError(f"{cls.__name__}.{name}: a field with an alias has no shape")
            kind, sub = _kind(cls, name, field.annotation)
            if sub is not None:
                todo.append(sub)
            marks = [_written(m) for m in field.metadata]
            fields.append([name, kind, sub.__name__ if sub is not None else None, marks])
        out[cls.__name__] = {
            "warn_unknown_fields": bool(getattr(cls, "warn_unknown_fields", False)),
            "fields": fields,
        }
    return out


def _kind(cls: type, name: str, annotation: Any) -> tuple[str, type[BaseModel] | None]:
    """The kind of an ``X | None`` field (see :data:`store.models.shape.KINDS`)."""
    args = [a for a in typing.get_args(annotation) if a is not type(None)]
    origin = typing.get_origin(annotation)
    if origin not in (typing.Union, types.UnionType) or len(args) != 1:
        raise TypeError(f"{cls.__name__}.{name}: {annotation} is not 'X | None'")
    inner = args[0]
    if inner is str:
        return "str", None
    if inner is int:
        return "int", None
    if _is_model(inner):
        return "doc", inner
    inner_origin, inner_args = typing.get_origin(inner), typing.get_args(inner)
    if inner_origin is list and inner_args == (str,):
        return "strs", None
    if inner_origin is list and len(inner_args) == 1 and _is_model(inner_args[0]):
        return "docs", inner_args[0]
    if inner_origin is dict and inner_args[:1] == (str,) and _is_model(inner_args[-1]):
        return "doc_map", inner_args[-1]
    raise TypeError(f"{cls.__name__}.{name}: {annotation} has no kind of shape")


def _is_model(t: Any) -> bool:
    return isinstance(t, type) and issubclass(t, BaseModel)


def _written(marker: Any) -> list[Any]:
    if isinstance(marker, Required):
        return ["required", marker.what]
    if isinstance(marker, Choice):
        return ["choice", *marker.values]
    if isinstance(marker, DateText):
        return ["date"]
    if isinstance(marker, IdPattern):
        return ["id", marker.regex, marker.example]
    raise TypeError(f"{marker!r} is not a marker a shape can hold")


def render(shapes: dict[str, Any]) -> str:
    """The module's text."""
    body = pprint.pformat(shapes, indent=4, width=96, sort_dicts=False)
    return (
        '"""The shapes of the wrap-up input\'s models (:mod:`store.models.shape`). Written by\n'
        "``python -m store.models.shape_build`` from :class:`store.models.lessons.WrapupInput`;\n"
        'do not edit (a test keeps it the models\' own)."""\n\n'
        "from __future__ import annotations\n\n"
        "from typing import Any\n\n"
        f"WRITTEN: dict[str, Any] = {body}\n"
    )


def root_model() -> type[BaseModel]:
    module, _, name = ROOT_MODEL.partition(":")
    model: type[BaseModel] = getattr(__import__(module, fromlist=[name]), name)
    return model


def main() -> int:
    TARGET.write_text(render(shapes_of(root_model())), encoding="utf-8")
    # in the project's own layout (the check that runs on every change)
    subprocess.run([sys.executable, "-m", "ruff", "format", "-q", str(TARGET)], check=False)
    print(f"wrote {TARGET}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
