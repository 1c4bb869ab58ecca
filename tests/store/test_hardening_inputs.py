"""Hostile inputs to the store: id-less KPT items, import-wrapup's inputs and targets
(FIFOs, huge files, files that are not JSONL), lesson files that are read-only or carry a
BOM, and control characters in lint output."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from store.review.items import ReviewError
from store.review.wrapup import import_wrapup
from store.workspace import Workspace
from store.write.atomic import WriteError
from tests.conftest import SEEDS
from tests.id_less import ID_LESS_REPORT, RID
from tests.ledger_lines import decide

EXAMPLE: dict[str, Any] = json.loads((SEEDS / "wrapup-input-v1.4.json").read_text(encoding="utf-8"))

# -- import-wrapup: arbitrary and almost-valid inputs ---------------------------------------

_odd_text = st.sampled_from(
    [
        "",
        " ",
        "/",
        "..",
        ".",
        "../..",
        "a/../../b",
        "\ud800",
        "x\udfffy",
        "\x00",
        "a\nb",
        "\x1b[31m",
        "\u202e",
        "2026-13-45",
        "2026-02-30T25:61:00",
        "0001-01-01",
        "9999-12-31T23:59:59",
        "2026-W05-1",
        "20260223",
        "x" * 300,
        "é" * 200,
    ]
)
_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.integers(min_value=10**30, max_value=10**40),
    st.floats(),
    st.text(max_size=20),
    _odd_text,
)
_junk = st.recursive(
    _scalars,
    lambda c: st.one_of(
        st.lists(c, max_size=3), st.dictionaries(st.text(max_size=8), c, max_size=3)
    ),
    max_leaves=8,
)
_FIELDS = [
    ("session_id",),
    ("session_name",),
    ("project",),
    ("date",),
    ("summary",),
    ("summary", "info"),
    ("summary", "qa"),
    ("summary", "actions"),
    ("summary", "done"),
    ("user_lessons",),
    ("ai_lessons",),
    ("user_lessons", 0),
    ("user_lessons", 0, "type"),
    ("user_lessons", 0, "title"),
    ("user_lessons", 0, "tags"),
    ("ai_lessons", 0, "detail_ref"),
    ("evaluation",),
    ("evaluation", "ai", "sub_scores"),
    ("evaluation", "user", "score"),
    ("timing",),
]


def _with(doc: dict[str, Any], where: tuple[str | int, ...], value: Any) -> dict[str, Any]:
    out = json.loads(json.dumps(doc))
    cur: Any = out
    for part in where[:-1]:
        cur = cur[part]
    cur[where[-1]] = value
    return out


_almost_valid = st.builds(
    lambda changes: _apply(changes),
    st.lists(st.tuples(st.sampled_from(_FIELDS), _junk), min_size=1, max_size=4),
)


def _apply(changes: list[tuple[tuple[str | int, ...], Any]]) -> str:
    doc: Any = EXAMPLE
    for where, value in changes:
        try:
            doc = _with(doc, where, value)
        except (KeyError, IndexError, TypeError):
            continue
    return json.dumps(doc, ensure_ascii=False, allow_nan=True)


def _import_or_refuse(text: str) -> None:
    with tempfile.TemporaryDirectory() as d:
        ws = Workspace(Path(d))
        try:
            import_wrapup(ws, text)
        except (ReviewError, WriteError) as exc:
            message = str(exc)
            assert message and "\n" not in message.strip(), message
        for p in Path(d).rglob("*"):  # nothing lands outside the folders import-wrapup owns
            rel = p.relative_to(d).parts
            if rel[0] == ".hurikaeri":  # our state: the transaction in the ledger, its copies
                continue
            assert rel[0] in ("session-summaries", "lessons"), p
            if p.is_file():
                assert p.name in ("summaries.jsonl", "lessons.jsonl"), p
                for line in p.read_bytes().splitlines():
                    json.loads(line)  # every appended line is strict JSON


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(_junk.map(lambda v: json.dumps(v, allow_nan=True)), _almost_valid))
@example('{"project": "..", "date": "2026-02-23"}')
@example('{"project": "", "date": "2026-02-23"}')
@example('{"project": "a\\u0000b", "date": "2026-02-23"}')
@example('{"project": "p", "date": "2026-02-23", "session_id": "\\ud800"}')
@example('{"project": "p", "date": "2026-13-45"}')
@example('{"project": "p", "date": "2026-W05-1"}')
@example('{"project": "' + "x" * 300 + '", "date": "2026-02-23"}')
@example('{"project": "p", "date": "2026-02-23", "x": NaN}')
@example('{"project": "p", "date": "2026-02-23", "x": 1e999}')
@example('{"project": "p", "date": "2026-02-23", "x": ' + "[" * 5000 + "]" * 5000 + "}")
@example("[" * 100000 + "]" * 100000)
@example('{"project": "p", "date": "2026-02-23", "x": 1' + "0" * 5000 + "}")
def test_import_wrapup_succeeds_or_refuses_with_a_message(text: str) -> None:
    _import_or_refuse(text)


# -- KPT items without an id ----------------------------------------------------------------


def _id_less_workspace(root: Path) -> Path:
    (root / "hurikaeri").mkdir(parents=True)
    path = root / "hurikaeri" / f"{RID}.yaml"
    path.write_text(ID_LESS_REPORT, encoding="utf-8")
    return path


def test_item_key_is_none_without_an_id() -> None:
    from store.ledger import item_key

    assert item_key(RID, "keep-001") == f"{RID}/keep-001"
    assert item_key(RID, None) is None
    assert item_key(RID, "") is None
    assert item_key(None, "keep-001") is None


def test_deciding_on_an_item_without_an_id_is_refused(tmp_path: Path) -> None:
    from store.ledger import Ledger
    from store.review.items import decide

    _id_less_workspace(tmp_path)
    ws = Workspace(tmp_path)
    ledger = Ledger(ws.state_dir)
    expected = f"item 2 of keep in {RID} has no id; give it one (e: edit) — lint reports it"
    for op in ("approve", "reject", "reopen"):
        with pytest.raises(ReviewError) as exc:
            decide(ws, ledger, [f"{RID}/"], op, None)  # type: ignore[arg-type]
        assert str(exc.value) == expected
    assert ledger.entries == []
    assert not (ws.state_dir / "ledger.jsonl").exists()


def test_an_item_ref_without_an_id_has_no_key(tmp_path: Path) -> None:
    from store.review.items import ItemRef, find_report

    _id_less_workspace(tmp_path)
    path, report = find_report(Workspace(tmp_path), RID)
    third = report.section("keep")[2]
    ref = ItemRef(RID, "", "keep", third, report, path)
    with pytest.raises(ReviewError, match=f"item 3 of keep in {RID} has no id"):
        _ = ref.key
    (t,) = report.section("try")
    with pytest.raises(ReviewError, match=f"item 1 of try in {RID} has no id"):
        _ = ItemRef(RID, "", "try", t, report, path).key


def test_promoting_a_try_without_an_id_is_refused(tmp_path: Path) -> None:
    from store.ledger import Ledger
    from store.review.items import ItemRef, find_report
    from store.review.promote import plan_promotion, promote_plans

    _id_less_workspace(tmp_path)
    ws = Workspace(tmp_path)
    path, report = find_report(ws, RID)
    (t,) = report.section("try")
    ref = ItemRef(RID, "", "try", t, report, path)
    ledger = Ledger(ws.state_dir)
    with pytest.raises(ReviewError, match="has no id"):
        promote_plans(ws, [plan_promotion(ws, ref)], ledger=ledger)
    assert ledger.entries == []


def test_show_json_gives_id_less_items_no_shared_state(tmp_path: Path) -> None:
    from store.ledger import Ledger
    from store.review.items import find_report, report_json

    path = _id_less_workspace(tmp_path)
    ws = Workspace(tmp_path)
    ledger = Ledger(ws.state_dir)
    decide(ledger, f"{RID}/", "approve")  # as an older version recorded it
    decide(ledger, f"{RID}/keep-001", "approve")
    _, report = find_report(ws, RID)
    items = report_json(path, report, ledger)["items"]
    got = [(i["ref"], i["section"], i["position"], i["state"]) for i in items]
    assert got == [
        (f"{RID}/keep-001", "keep", 1, "approved"),
        (None, "keep", 2, "pending"),
        (None, "keep", 3, "pending"),
        (None, "try", 1, "pending"),
    ]


def test_review_progress_counts_only_items_with_ids(tmp_path: Path) -> None:
    from store.index.workspace_index import WorkspaceIndex
    from store.insight.markdown_export import session_markdown
    from store.insight.stats import workspace_stats

    _id_less_workspace(tmp_path)
    ix = WorkspaceIndex(Workspace(tmp_path))
    ix.load_all()
    (s,) = [s for s in ix.sessions.values() if s.report]
    assert ix.item_keys(s) == [f"{RID}/keep-001"]
    assert ix.review_progress(s) == (0, 1)
    decide(ix.ledger, f"{RID}/", "approve")  # a shared key decides nothing
    assert ix.review_progress(s) == (0, 1)
    decide(ix.ledger, f"{RID}/keep-001", "approve")
    assert ix.review_progress(s) == (1, 1)
    assert workspace_stats(ix)["try_items"] == {"pending": 1}
    text = session_markdown(ix, s)
    assert "**(no id)** [pending]" in text and f"{RID}/None" not in text


def test_an_item_without_an_id_is_edited_by_its_place(tmp_path: Path) -> None:
    from store.review.item_edit import edit_item

    path = _id_less_workspace(tmp_path)
    ws = Workspace(tmp_path)
    before = path.read_bytes()
    edit_item(ws, path, "keep", "", {"id": "keep-003"}, None, position=3)
    after = path.read_text(encoding="utf-8")
    assert after.count("id: keep-003") == 1
    # only the third keep item changed: the second still has no id
    second = after.split('"first without an id"')[0].rsplit("- ", 1)[1]
    assert "id:" not in second
    assert len(after.encode()) > len(before)
    with pytest.raises(Exception, match="no longer there"):  # keep-001 is no id-less item
        edit_item(ws, path, "keep", "", {"id": "x"}, None, position=1)


# -- import-wrapup: the files it appends to --------------------------------------------------

WRAPUP = json.dumps(EXAMPLE, ensure_ascii=False)
SLUG = "z--_ai-skills-lesson-learned"


def _targets(root: Path) -> dict[str, Path]:
    return {
        "user": root / "lessons" / "user" / "lessons.jsonl",
        "ai": root / "lessons" / "ai" / "lessons.jsonl",
        "summaries": root / "session-summaries" / SLUG / "summaries.jsonl",
    }


def _in_thread(fn: Any, timeout: float = 20.0) -> BaseException | None:
    """Run ``fn`` in a daemon thread; fail (instead of hanging the suite) if it blocks."""
    import threading

    out: list[BaseException | None] = []

    def run() -> None:
        try:
            fn()
            out.append(None)
        except BaseException as exc:  # noqa: BLE001 - handed to the test
            out.append(exc)

    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(timeout)
    assert not t.is_alive(), "blocked (a FIFO was opened?)"
    return out[0]


@pytest.mark.parametrize("which", ["user", "ai", "summaries"])
def test_a_fifo_target_is_refused_without_blocking(tmp_path: Path, which: str) -> None:
    targets = _targets(tmp_path)
    targets[which].parent.mkdir(parents=True)
    os.mkfifo(targets[which])
    exc = _in_thread(lambda: import_wrapup(Workspace(tmp_path), WRAPUP))
    assert isinstance(exc, ReviewError)
    assert str(targets[which]) in str(exc) and "FIFO" in str(exc) and "nothing written" in str(exc)
    assert not any(p.is_file() for p in tmp_path.rglob("*"))  # nothing appended anywhere


def test_a_directory_target_is_refused(tmp_path: Path) -> None:
    target = _targets(tmp_path)["user"]
    target.mkdir(parents=True)
    with pytest.raises(ReviewError, match="found a directory; nothing written"):
        import_wrapup(Workspace(tmp_path), WRAPUP)


def test_an_oversized_target_is_refused_before_it_is_read(tmp_path: Path) -> None:
    import tracemalloc

    from store.read.textio import MAX_JSONL_BYTES

    target = _targets(tmp_path)["ai"]
    target.parent.mkdir(parents=True)
    with open(target, "wb") as fh:  # sparse: costs no disk
        fh.truncate(MAX_JSONL_BYTES + 1)
    tracemalloc.start()
    try:
        with pytest.raises(ReviewError, match="over 1,073,741,824 bytes are not read"):
            import_wrapup(Workspace(tmp_path), WRAPUP)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 16 * 1024 * 1024
    assert os.path.getsize(target) == MAX_JSONL_BYTES + 1
    assert not _targets(tmp_path)["summaries"].exists()


def test_a_large_target_within_the_limit_is_not_read_whole(tmp_path: Path) -> None:
    """Just under the limit, the checks look at its first and last lines only."""
    import tracemalloc

    from store.read.textio import MAX_JSONL_BYTES

    target = _targets(tmp_path)["ai"]
    target.parent.mkdir(parents=True)
    with open(target, "wb") as fh:
        fh.truncate(MAX_JSONL_BYTES - 1)  # NUL bytes, no newline at the end
    tracemalloc.start()
    try:
        with pytest.raises(ReviewError, match="unfinished"):
            import_wrapup(Workspace(tmp_path), WRAPUP)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 16 * 1024 * 1024


@pytest.mark.parametrize(
    "content",
    [
        b"export PATH=$HOME/bin:$PATH\n",
        b"# ~/.bashrc\nalias ll='ls -l'\n",
        b'{"id": "ll-ai-20260223-001"}\nrm -rf "$HOME"\n',  # last line is no record
        b'echo hi\n{"id": "ll-ai-20260223-001"}\n',  # first line is no record
        b"[1, 2]\n",
        b'"text"\n',
    ],
)
def test_a_target_that_is_not_jsonl_never_receives_a_line(tmp_path: Path, content: bytes) -> None:
    target = _targets(tmp_path)["ai"]
    target.parent.mkdir(parents=True)
    target.write_bytes(content)
    with pytest.raises(ReviewError, match=r"does not look like a JSONL file.*nothing appended"):
        import_wrapup(Workspace(tmp_path), WRAPUP)
    assert target.read_bytes() == content
    assert not _targets(tmp_path)["summaries"].exists()
    assert not _targets(tmp_path)["user"].exists()


@pytest.mark.parametrize(
    "content",
    [
        b"",
        b"\n\n",
        '\ufeff{"id": "ll-ai-20260223-004", "title": "é"}\r\n'.encode(),
        b'{"id": "ll-ai-20260223-004"}\n\n',
        b'{\n  "id": "ll-ai-20260223-004",\n  "title": "pretty-printed"\n}\n',
        b'{"id": "ll-ai-20260223-004"}\nnot json\n{"id": "ll-ai-20260223-002"}\n',
    ],
)
def test_jsonl_targets_take_the_line(tmp_path: Path, content: bytes) -> None:
    target = _targets(tmp_path)["ai"]
    target.parent.mkdir(parents=True)
    target.write_bytes(content)
    plan = import_wrapup(Workspace(tmp_path), WRAPUP)
    data = target.read_bytes()
    assert data.startswith(content)
    added = json.loads(data[len(content) :])
    want = "ll-ai-20260223-005" if b"004" in content else "ll-ai-20260223-001"
    assert added["id"] == plan.ai_lessons[0]["id"] == want


def test_wrapup_input_problems_name_the_field(tmp_path: Path) -> None:
    def refused(doc: dict[str, Any]) -> str:
        with pytest.raises(ReviewError) as exc:
            import_wrapup(Workspace(tmp_path), json.dumps(doc))
        return str(exc.value)

    assert "project" in refused({**EXAMPLE, "project": ".."})
    assert "project" in refused({**EXAMPLE, "project": ""})
    assert "project" in refused({**EXAMPLE, "project": "a\x00b"})
    assert "project" in refused({**EXAMPLE, "project": "p" * 300})
    assert "session_id" in refused({**EXAMPLE, "session_id": "\ud800"})
    assert "2026-13-45" in refused({**EXAMPLE, "date": "2026-13-45"})
    assert "date" in refused({**EXAMPLE, "date": ""})
    assert "user_lessons[0].title" in refused(
        {**EXAMPLE, "user_lessons": [{**EXAMPLE["user_lessons"][0], "title": {"x": 1}}]}
    )
    message = refused({**EXAMPLE, "evaluation": {"ai": {"sub_scores": {"a\nb": 5}}}})
    assert "\n" not in message  # one line, whatever the input's keys hold
    assert not any(p.is_file() for p in tmp_path.rglob("*"))


def test_wrapup_day_comes_from_the_parsed_date(tmp_path: Path) -> None:
    plan = import_wrapup(Workspace(tmp_path), json.dumps({**EXAMPLE, "date": "20260223T1530"}))
    assert plan.summary["id"] == "ws-20260223-001"
    assert plan.summary["date"] == "20260223T1530"  # kept as written


# -- lessons: read-only files, BOM and CRLF kept --------------------------------------------


def _lesson(n: int, title: str = "title") -> dict[str, Any]:
    return {
        "id": f"ll-ai-20260223-{n:03d}",
        "date": "2026-02-23T15:30:00",
        "type": "ai_trial_error",
        "title": title,
        "summary": "s",
    }


def _lesson_file(root: Path, data: bytes) -> Path:
    path = root / "lessons" / "ai" / "lessons.jsonl"
    path.parent.mkdir(parents=True)
    path.write_bytes(data)
    return path


def _line(rec: dict[str, Any]) -> bytes:
    return json.dumps(rec, ensure_ascii=False).encode()


def test_editing_a_lesson_in_a_file_with_invalid_utf8_is_refused(tmp_path: Path) -> None:
    from store.ledger import Ledger
    from store.review.lessons import edit_lesson_tx, find_lesson, remove_lesson

    data = (
        _line(_lesson(1)) + b"\n" + b'{"id": "x", "title": "caf\xe9"}\n' + _line(_lesson(2)) + b"\n"
    )
    path = _lesson_file(tmp_path, data)
    ws = Workspace(tmp_path)
    ref = find_lesson(path, "ll-ai-20260223-002")
    with pytest.raises(
        ReviewError, match=r":2: byte 0xe9 .* not valid UTF-8; the file is read-only"
    ):
        edit_lesson_tx(ws, ref, {"title": "new"}, ledger=Ledger(ws.state_dir))
    with pytest.raises(ReviewError, match="read-only"):
        remove_lesson(ws, Ledger(ws.state_dir), ref)
    assert path.read_bytes() == data
    assert not (ws.state_dir / "ledger.jsonl").exists()


def test_the_loader_calls_such_a_file_read_only(tmp_path: Path) -> None:
    from store.read.kinds import Kind
    from store.read.loader import load_file

    path = _lesson_file(tmp_path, _line(_lesson(1)) + b"\n" + b'{"title": "\xff"}\n')
    loaded = load_file(path, Kind.LESSONS)
    (bad,) = [d for d in loaded.diagnostics if d.code == "invalid-utf8"]
    assert bad.line == 2 and "is read-only" in bad.message


@pytest.mark.parametrize("n", [1, 2, 3])
def test_editing_a_lesson_keeps_bom_and_crlf(tmp_path: Path, n: int) -> None:
    from store.review.lessons import edit_lesson_tx, find_lesson

    lines = [_line(_lesson(i, f"title {i}")) + b"\r\n" for i in (1, 2, 3)]
    data = b"\xef\xbb\xbf" + b"".join(lines)
    path = _lesson_file(tmp_path, data)
    ref = find_lesson(path, f"ll-ai-20260223-{n:03d}")
    edit_lesson_tx(Workspace(tmp_path), ref, {"title": "edited"})
    ref = find_lesson(path, f"ll-ai-20260223-{n:03d}")
    new = ref.data[ref.record.start : ref.record.end]
    assert new.endswith(b"\r\n") and not new.startswith(b"\xef\xbb\xbf")
    expected = b"\xef\xbb\xbf" + b"".join(new if i == n else lines[i - 1] for i in (1, 2, 3))
    assert path.read_bytes() == expected
    assert json.loads(new)["title"] == "edited"


def test_removing_the_first_lesson_keeps_the_bom(tmp_path: Path) -> None:
    from store.ledger import Ledger
    from store.review.lessons import find_lesson, remove_lesson

    lines = [_line(_lesson(i)) + b"\r\n" for i in (1, 2)]
    path = _lesson_file(tmp_path, b"\xef\xbb\xbf" + b"".join(lines))
    ws = Workspace(tmp_path)
    remove_lesson(ws, Ledger(ws.state_dir), find_lesson(path, "ll-ai-20260223-001"))
    # the record becomes a blank line of its length (a file agents append to never
    # shrinks: store.write.jsonl_edit); the BOM stays, and undo puts the record back
    blank = b" " * (len(lines[0]) - 2) + b"\r\n"
    assert path.read_bytes() == b"\xef\xbb\xbf" + blank + lines[1]
    from store.tx.transactions import undo_last

    undo_last(ws)
    assert path.read_bytes() == b"\xef\xbb\xbf" + b"".join(lines)


def test_a_fifo_lesson_file_is_refused_without_blocking(tmp_path: Path) -> None:
    from store.review.lessons import find_lesson

    path = tmp_path / "lessons.jsonl"
    os.mkfifo(path)
    exc = _in_thread(lambda: find_lesson(path, "ll-ai-20260223-001"))
    assert isinstance(exc, ReviewError) and "FIFO" in str(exc)


# -- lint output: control characters in file names -----------------------------------------


def test_diagnostic_text_is_one_line_with_controls_visible() -> None:
    from store.read.diagnostics import Diagnostic

    d = Diagnostic("dir/kpt-20260101-001\nfake: error.yaml", 3, "error", "x", "bad\x1b[2J\nthing")
    text = d.format()
    assert "\n" not in text and "\x1b" not in text
    assert text == "dir/kpt-20260101-001↵ fake: error.yaml:3: error: bad␛[2J↵ thing [x]"
    assert d.as_dict()["path"] == "dir/kpt-20260101-001\nfake: error.yaml"  # data stays exact
