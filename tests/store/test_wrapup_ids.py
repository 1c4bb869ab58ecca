"""import-wrapup's ids: found by their stem instead of matching every id of a lesson file,
still never given twice — whatever the spacing, wherever the stem appears, and when the
file changes between planning and writing."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import store.models
from store.review import wrapup
from store.review.wrapup import import_wrapup
from store.tx import transactions
from store.workspace import Workspace
from tests.conftest import SEEDS

EXAMPLE = (SEEDS / "wrapup-input-v1.4.json").read_text(encoding="utf-8")
#: every ``"id": "…"`` pair, as the whole file used to be matched
OLD_ID_FIELD = re.compile(rb'"id"\s*:\s*"([^"\\\r\n]{1,200})"')
STEM = "ll-ai-20260223-"


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]


def _old_ids(data: bytes, stem: str) -> set[str]:
    found = {m.group(1).decode("utf-8", "replace") for m in OLD_ID_FIELD.finditer(data)}
    return {i for i in found if i.startswith(stem)}


def test_only_id_fields_count_however_they_are_spaced(tmp_path: Path) -> None:
    ai = tmp_path / "lessons" / "ai" / "lessons.jsonl"
    ai.parent.mkdir(parents=True)
    ai.write_text(
        '{"id":"ll-ai-20260223-003","title":"no spaces"}\n'
        '{"id" :\t "ll-ai-20260223-004", "detail_ref": "ll-ai-20260223-090"}\n'
        '{"id": "x", "summary": "see \\"id\\": \\"ll-ai-20260223-091\\""}\n'
        '{"id": "x", "xid": "ll-ai-20260223-092", "memory_ref": {"id": "ll-ai-20260223-011"}}\n'
        '{"id": "ll-ai-20260224-093", "title": "another day"}\n'
        '{"id": "ll-ai-20260223-094x", "title": "not a sequence"}\n'
        '{\n  "id":\n    "ll-ai-20260223-007",\n  "title": "pretty-printed"\n}\n',
        encoding="utf-8",
    )
    plan = import_wrapup(Workspace(tmp_path), EXAMPLE)
    # 003, 004, 007 and the nested 011 are ids; 09x are other fields, days or shapes
    assert plan.ai_lessons[0]["id"] == "ll-ai-20260223-012"
    last = ai.read_text(encoding="utf-8").splitlines()[-1]
    assert json.loads(last)["id"] == "ll-ai-20260223-012"


_values = st.sampled_from(
    [
        "ll-ai-20260223-001",
        "ll-ai-20260223-017",
        "ll-ai-20260223-2",
        "ll-ai-20260223-٣",  # a digit Python's \d takes, as next_id reads it
        "ll-ai-20260223-",
        "ll-ai-20260224-005",
        "ll-user-20260223-008",
        'say "ll-ai-20260223-030"',
        "ll-ai-20260223-040\\n",
        "x" * 250,
        "ll-ai-20260223-" + "9" * 190,
    ]
)
_keys = st.sampled_from(["id", "xid", "detail_ref", "title", "Id", 'the "id"'])
_records = st.recursive(
    st.dictionaries(_keys, _values, max_size=4),
    lambda inner: st.dictionaries(_keys, inner | _values, max_size=3),
    max_leaves=8,
)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.tuples(
            _records,
            st.sampled_from([None, 1, 2]),
            st.sampled_from([(", ", ": "), (",", ":"), (" , ", " :\t")]),
            st.booleans(),
        ),
        max_size=6,
    )
)
def test_the_stem_finds_what_matching_every_id_found(
    records: list[tuple[dict[str, Any], int | None, tuple[str, str], bool]],
) -> None:
    data = b"".join(
        json.dumps(r, indent=indent, separators=seps, ensure_ascii=ascii_).encode("utf-8") + b"\n"
        for r, indent, seps, ascii_ in records
    )
    assert wrapup._ids_with_stem(data, STEM) == _old_ids(data, STEM)


def _one_ai_lesson(tmp_path: Path) -> Path:
    """The AI lessons file holding one lesson of the example's day."""
    ai = tmp_path / "lessons" / "ai" / "lessons.jsonl"
    ai.parent.mkdir(parents=True)
    ai.write_text('{"id": "ll-ai-20260223-001", "title": "there before"}\n', encoding="utf-8")
    return ai


def test_a_line_appended_after_planning_is_seen_before_writing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ai = _one_ai_lesson(tmp_path)
    real_apply = transactions.apply

    def apply_after_another_writer(*args: Any, **kwargs: Any) -> Any:
        # another program appends between the import's planning and its transaction
        with open(ai, "a", encoding="utf-8") as f:
            f.write('{"id": "ll-ai-20260223-002", "title": "appended meanwhile"}\n')
        return real_apply(*args, **kwargs)

    monkeypatch.setattr(wrapup, "apply", apply_after_another_writer)
    import_wrapup(Workspace(tmp_path), EXAMPLE)
    ids = [r["id"] for r in _lines(ai)]
    assert ids == ["ll-ai-20260223-001", "ll-ai-20260223-002", "ll-ai-20260223-003"]


def test_a_file_rewritten_after_planning_is_searched_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another inode, the same size: the identity differs, the file is read again."""
    ai = _one_ai_lesson(tmp_path)
    real_apply = transactions.apply

    def apply_after_a_rewrite(*args: Any, **kwargs: Any) -> Any:
        new = ai.with_name("new.jsonl")
        new.write_text('{"id": "ll-ai-20260223-005", "title": "there before"}\n')
        os.replace(new, ai)
        return real_apply(*args, **kwargs)

    monkeypatch.setattr(wrapup, "apply", apply_after_a_rewrite)
    import_wrapup(Workspace(tmp_path), EXAMPLE)
    assert [r["id"] for r in _lines(ai)] == ["ll-ai-20260223-005", "ll-ai-20260223-006"]


def test_a_file_unchanged_since_planning_gets_the_planned_ids(tmp_path: Path) -> None:
    ws = Workspace(tmp_path)
    first = import_wrapup(ws, EXAMPLE)
    data = json.loads(EXAMPLE)
    data["session_id"] = "def-456"
    second = import_wrapup(ws, json.dumps(data))
    assert second.ai_lessons[0]["id"] == "ll-ai-20260223-002"
    assert second.summary["id"] == "ws-20260223-002"
    ai = [r["id"] for r in _lines(tmp_path / "lessons" / "ai" / "lessons.jsonl")]
    assert ai == [first.ai_lessons[0]["id"], "ll-ai-20260223-002"]
    # and the retry of either writes nothing
    assert import_wrapup(ws, json.dumps(data)).already_imported
    assert import_wrapup(ws, EXAMPLE).already_imported


def test_the_models_package_names_every_model_from_its_module() -> None:
    for name in store.models.__all__:
        cls = getattr(store.models, name)
        assert cls.__name__ == name and cls.__module__.startswith("store.models.")
    with pytest.raises(AttributeError):
        store.models.NoSuchModel  # noqa: B018


def test_a_foreign_id_near_the_length_ids_are_read_at_never_gives_one_id_twice(
    tmp_path: Path,
) -> None:
    """An id of another program whose number is just short of what is read as an id
    (200 bytes): counting on from it would give an id too long to be seen by the next
    import, which would give it again."""
    ai = tmp_path / "lessons" / "ai" / "lessons.jsonl"
    ai.parent.mkdir(parents=True)
    foreign = STEM + "9" * (200 - len(STEM))
    ai.write_text(json.dumps({"id": foreign, "title": "foreign"}) + "\n", encoding="utf-8")
    ws = Workspace(tmp_path)
    import_wrapup(ws, EXAMPLE)
    data = json.loads(EXAMPLE)
    data["session_id"] = "def-456"
    import_wrapup(ws, json.dumps(data))
    ids = [r["id"] for r in _lines(ai)]
    assert len(ids) == 3 and len(set(ids)) == 3, ids


def test_after_the_longest_sequence_the_first_free_one_is_given() -> None:
    taken = {"fb-20261122-999999999", "fb-20261122-001", "fb-20261122-" + "7" * 12}
    given_id = wrapup.next_id("fb", "20261122", taken)
    assert given_id == "fb-20261122-002"
    assert wrapup.next_id("fb", "20261122", {*taken, given_id}) == "fb-20261122-003"


@pytest.mark.parametrize("gap", [" " * 300, "\t \r" * 100, " " * 150 + ":" + " " * 150])
def test_an_id_far_from_its_key_still_counts(tmp_path: Path, gap: str) -> None:
    """JSON allows any run of whitespace around the colon of ``"id": "…"``."""
    ai = tmp_path / "lessons" / "ai" / "lessons.jsonl"
    ai.parent.mkdir(parents=True)
    key = '"id"' + gap if ":" in gap else '"id":' + gap
    ai.write_text("{" + key + '"ll-ai-20260223-001", "title": "far"}\n', encoding="utf-8")
    plan = import_wrapup(Workspace(tmp_path), EXAMPLE)
    assert plan.ai_lessons[0]["id"] == "ll-ai-20260223-002"


@pytest.mark.parametrize(
    "dump",
    [
        lambda r: json.dumps(r, ensure_ascii=False),
        lambda r: json.dumps(r),  # non-ASCII escaped
        lambda r: json.dumps(r, ensure_ascii=False, separators=(" , ", " :\t")),
    ],
    ids=["utf-8", "escaped", "spaced"],
)
def test_a_retry_finds_its_session_however_its_lines_are_written(tmp_path: Path, dump: Any) -> None:
    ws = Workspace(tmp_path)
    data = {**json.loads(EXAMPLE), "session_id": "세션-1"}
    first = import_wrapup(ws, json.dumps(data))
    for path in (first.summary_path, first.user_path, first.ai_path):
        path.write_text("".join(dump(r) + "\n" for r in _lines(path)), encoding="utf-8")
    assert import_wrapup(ws, json.dumps(data)).already_imported
    # a session whose id is part of another's is another session
    again = import_wrapup(ws, json.dumps({**data, "session_id": "세션-"}))
    assert not again.already_imported and not again.present
