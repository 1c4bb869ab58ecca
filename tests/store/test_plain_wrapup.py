"""A plain wrap-up input is read without pydantic (issue #18): as the model reads it.

The shapes written from the models are the models' own; any input — plain or not — gives
the same diagnostics and the same records whether it is read through its shape or by the
model; the seed's inputs are plain, and importing one imports no pydantic."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from store.models.lesson_terms import LESSON_TYPES, PRIORITIES
from store.models.shape import PlainDoc, plain, shapes_from
from store.models.shape_build import root_model, shapes_of
from store.models.wrapup_shapes import WRITTEN
from store.review.wrapup import parse_input, plan_import
from store.workspace import Workspace
from tests.conftest import SEEDS

REPO = Path(__file__).resolve().parents[2]


def test_the_written_shapes_are_the_models() -> None:
    """Change a wrap-up model and this fails until ``python -m store.models.shape_build``
    has written its shape again."""
    assert shapes_of(root_model()) == WRITTEN


def test_a_model_of_another_kind_of_field_has_no_shape() -> None:
    from pydantic import BaseModel

    class Odd(BaseModel):
        when: float | None = None

    with pytest.raises(TypeError, match="no kind of shape"):
        shapes_of(Odd)


@pytest.mark.parametrize("name", ["wrapup-input.json", "wrapup-input-v1.4.json"])
def test_the_seeds_inputs_are_plain(name: str) -> None:
    data = json.loads((SEEDS / name).read_text(encoding="utf-8"))
    assert isinstance(plain(shapes_from(WRITTEN), "WrapupInput", data), PlainDoc)


def test_a_plain_import_imports_no_pydantic(tmp_path: Path) -> None:
    """What a hook runs after every session: the whole command, in a fresh interpreter."""
    code = (
        "import sys\n"
        "from tui.cli.main import main\n"
        "code = main(['import-wrapup', '--root', sys.argv[1], sys.argv[2]])\n"
        "assert code == 0, code\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'pydantic'))\n"
    )
    wrapup = SEEDS / "wrapup-input-v1.4.json"
    done = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path), str(wrapup)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "[]"
    assert (tmp_path / "lessons" / "ai" / "lessons.jsonl").is_file()


# -- the same, read either way ---------------------------------------------------------

_TEXT = st.sampled_from(["", " ", "x", "세션", "a\nb", "HIGH", "high", "2026-02-23"])
_ODD = st.one_of(
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.just([]),
    st.just({}),
)
_JSON = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-5, 5), st.floats(-2, 2), _TEXT),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.sampled_from(["a", "b", "ok"]), inner, max_size=3)
    ),
    max_leaves=6,
)
_EXTRA_KEYS = ["timing", "memory_ref", "extra", "id"]
_ODD_KEYS = ["_private", "model_x"]  # names pydantic treats apart: left to the model


class _Inputs:
    """Wrap-up inputs: plain ones (``odd=False``: every field of its type, or ``null``)
    or any (a field now and then of another type)."""

    def __init__(self, odd: bool) -> None:
        self.odd = odd

    def _maybe(self, value: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
        odd = st.one_of(_ODD, st.none()) if self.odd else st.none()
        return st.one_of(*[value] * 6, odd)

    def text(self, also: list[str] | None = None) -> st.SearchStrategy[Any]:
        return self._maybe(st.sampled_from(also) if also else _TEXT)

    def texts(self) -> st.SearchStrategy[Any]:
        return self._maybe(st.lists(self.text() if self.odd else _TEXT, max_size=3))

    def doc(self, fields: dict[str, st.SearchStrategy[Any]]) -> st.SearchStrategy[Any]:
        """A mapping of some of ``fields`` and maybe fields no model knows."""
        known = st.fixed_dictionaries({}, optional=fields)
        keys = st.sampled_from(_EXTRA_KEYS + (_ODD_KEYS if self.odd else []))
        extra = st.one_of(st.just({}), st.dictionaries(keys, _JSON, max_size=2))
        return self._maybe(st.builds(lambda k, e: {**k, **e}, known, extra))

    def docs(self, fields: dict[str, st.SearchStrategy[Any]]) -> st.SearchStrategy[Any]:
        return self._maybe(st.lists(self.doc(fields), max_size=2))

    def score(self) -> st.SearchStrategy[Any]:
        big = st.integers(2**63 - 2, 2**64)
        return self._maybe(st.one_of(st.integers(-3, 12), big) if self.odd else st.integers())

    def lesson(self) -> dict[str, st.SearchStrategy[Any]]:
        return {
            "type": self.text([*LESSON_TYPES, "AI_TRIAL_ERROR", "user_new_kind"]),
            "category": self.text(),
            "title": self.text(["제목", " ", ""]),
            "summary": self.text(),
            "context": self.text(),
            "detail_ref": self.text(),
            "tags": self.texts(),
            "memory_ref": self.text(),
        }

    def evaluation(self) -> dict[str, st.SearchStrategy[Any]]:
        sub_scores = st.dictionaries(
            st.sampled_from(["goal_achievement", "odd"]),
            self.doc({"score": self.score(), "reason": self.text()}),
            max_size=2,
        )
        return {
            "ai": self.doc(
                {
                    "sub_scores": self._maybe(sub_scores),
                    "improvements": self.docs({"tag": self.text(), "text": self.text()}),
                }
            ),
            "user": self.doc(
                {
                    "score": self.score(),
                    "good_points": self.texts(),
                    "bad_points": self.texts(),
                    "improvements": self.texts(),
                }
            ),
        }

    def input(self) -> st.SearchStrategy[Any]:
        summary = {
            "info": self.texts(),
            "qa": self.docs({"q": self.text(), "a": self.text()}),
            "conclusions": self.docs(
                {"topic": self.text(), "decision": self.text(), "rationale": self.text()}
            ),
            "done": self.texts(),
            "actions": self.docs(
                {
                    "title": self.text(),
                    "priority": self.text([*PRIORITIES, "High", "urgent"]),
                    "registered_todo": self.text(),
                }
            ),
        }
        return self.doc(
            {
                "session_id": self.text(["abc-123", " ", "s-1"]),
                "session_name": self.text(),
                "project": self.text(["z:/_ai/skills/lesson-learned", "/home/u/p", "..", ""]),
                "date": self.text(["2026-02-23T15:30:00", "2026-02-23", "yesterday", "2026-13"]),
                "summary": self.doc(summary),
                "user_lessons": self.docs(self.lesson()),
                "ai_lessons": self.docs(self.lesson()),
                "evaluation": self.doc(self.evaluation()),
            }
        )


_PLAIN_INPUT = _Inputs(odd=False).input()
_INPUT = st.one_of(_PLAIN_INPUT, _Inputs(odd=True).input())


def _read(text: str, ws: Workspace) -> tuple[list[Any], list[str] | None]:
    """The diagnostics of ``text`` and, when it has no error, the lines it would append."""
    model, diags = parse_input(text, "<input>")
    found = [(d.severity, d.code, d.message, d.line) for d in diags]
    if model is None or any(d.severity == "error" for d in diags):
        return found, None
    plan = plan_import(ws, model)
    records = [plan.summary, *plan.user_lessons, *plan.ai_lessons]
    return found, [json.dumps(r, ensure_ascii=False) for r in records]


@settings(
    max_examples=400,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(data=_INPUT)
def test_any_input_reads_the_same_through_its_shape_as_through_the_model(
    data: Any, tmp_path: Path
) -> None:
    text = json.dumps(data, ensure_ascii=False)
    ws = Workspace(tmp_path)
    shaped = _read(text, ws)
    with mock.patch("store.review.wrapup.plain", return_value=None):
        modelled = _read(text, ws)
    assert shaped == modelled


# -- each model of the shapes, read either way -------------------------------------------

_SHAPES = shapes_from(WRITTEN)


def _value(kind: str, sub: str | None, marks: tuple[Any, ...], depth: int) -> Any:
    """Values of a field of ``kind`` (what its markers care about among its texts)."""
    words = ["", "x", "세션", "2026-02-23", "2026-02-23T15:30:00", "yesterday"]
    for m in marks:
        words += [*getattr(m, "values", ()), *(v.upper() for v in getattr(m, "values", ()))]
    text = st.sampled_from(words)
    if kind == "str":
        return text
    if kind == "int":
        return st.integers(-(2**66), 2**66)
    if kind == "strs":
        return st.lists(text, max_size=3)
    doc = _model_doc(sub or "", depth + 1)
    if kind == "doc":
        return doc
    if kind == "docs":
        return st.lists(doc, max_size=2)
    return st.dictionaries(st.sampled_from(["a", "b"]), doc, max_size=2)


def _model_doc(name: str, depth: int = 0) -> st.SearchStrategy[Any]:
    """A document of the model ``name``: some of its fields, each of its kind, ``null``
    or (now and then) of another type, and maybe fields the model does not know."""
    shape = _SHAPES[name]
    fields = {}
    for field, _key, marks in shape.fields:
        kind, sub = shape.kinds[field]
        right = _value(kind, sub, marks, depth) if depth < 4 else st.none()
        fields[field] = st.one_of(*[right] * 14, st.none(), _ODD)
    keys = st.sampled_from([*_EXTRA_KEYS * 4, *_ODD_KEYS])
    extra = st.one_of(st.just({}), st.dictionaries(keys, _JSON, max_size=2))
    return st.builds(lambda k, e: {**k, **e}, st.fixed_dictionaries({}, optional=fields), extra)


def _seen(doc: Any) -> Any:
    """Everything a reader asks of a model, for ``doc`` and its sub-models."""
    if isinstance(doc, list):
        return [_seen(d) for d in doc]
    if isinstance(doc, dict):
        return {k: _seen(d) for k, d in doc.items()}
    if not hasattr(doc, "model_fields_set"):
        return doc
    shape = doc.shape if isinstance(doc, PlainDoc) else _SHAPES[type(doc).__name__]
    return {
        "fields": {f: _seen(getattr(doc, f)) for f, _k, _m in shape.fields},
        "extra": doc.model_extra,
        "set": doc.model_fields_set,
        "dump": json.dumps(doc.model_dump(exclude_none=True), ensure_ascii=False),
    }


@pytest.mark.parametrize("name", sorted(WRITTEN))
@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_each_model_reads_a_plain_document_as_its_shape_does(name: str, data: Any) -> None:
    from store.models import lessons
    from store.read.diagnostics import DiagnosticSink
    from store.read.markers import check_markers

    doc = data.draw(_model_doc(name))
    shaped = plain(_SHAPES, name, doc)
    if shaped is None:
        return  # left to the model
    model = getattr(lessons, name).model_validate(doc)
    assert _seen(shaped) == _seen(model)
    sinks = DiagnosticSink("a"), DiagnosticSink("a")
    for sink, read in zip(sinks, (shaped, model), strict=True):
        check_markers(read, sink, lambda _loc: None, ())
    assert sinks[0].items == sinks[1].items


@pytest.mark.parametrize("name", sorted(WRITTEN))
def test_the_documents_generated_are_plain_often_and_not_often(name: str) -> None:
    """The properties above compare both ways of reading on plain documents (with fields
    no model knows among them), not only on those left to the model."""
    found = {"plain": 0, "not": 0, "plain, with a field of its own": 0}
    inputs = _INPUT if name == "WrapupInput" else _model_doc(name)

    @settings(max_examples=200, deadline=None, database=None, derandomize=True)
    @given(doc=inputs)
    def count(doc: Any) -> None:
        if plain(_SHAPES, name, doc) is None:
            found["not"] += 1
            return
        found["plain"] += 1
        if set(doc) - set(_SHAPES[name].kinds):
            found["plain, with a field of its own"] += 1

    count()
    assert all(n >= 10 for n in found.values()), found
