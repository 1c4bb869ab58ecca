"""import-wrapup: the seed's own example, ids and slugs, invalid input writes nothing."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

import pytest

from store.review.items import ReviewError
from store.review.wrapup import import_wrapup, next_id, project_slug
from store.workspace import Workspace
from tests.conftest import SEEDS

EXAMPLE = (SEEDS / "wrapup-input-v1.4.json").read_text(encoding="utf-8")


def _lines(path: Path) -> list[dict[str, object]]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]


def test_slug_as_the_upstream_script_makes_it() -> None:
    assert project_slug("z:/_ai/skills/lesson-learned") == "z--_ai-skills-lesson-learned"
    assert project_slug("/home/yuna/src/tidewater-etl") == "-home-yuna-src-tidewater-etl"
    assert project_slug("C:\\work\\api") == "C--work-api"


def test_next_id_ignores_other_dates_and_prefixes() -> None:
    taken = {"ws-20260223-001", "ws-20260223-007", "ws-20260224-009", "ll-ai-20260223-012", "junk"}
    assert next_id("ws", "20260223", taken) == "ws-20260223-008"
    assert next_id("ll-ai", "20260223", taken) == "ll-ai-20260223-013"
    assert next_id("ll-user", "20260223", taken) == "ll-user-20260223-001"


def test_seed_example_into_an_empty_workspace(tmp_path: Path) -> None:
    ws = Workspace(tmp_path)
    plan = import_wrapup(ws, EXAMPLE)
    summaries = tmp_path / "session-summaries" / "z--_ai-skills-lesson-learned" / "summaries.jsonl"
    assert plan.summary_path == summaries
    (summary,) = _lines(summaries)
    assert summary["id"] == "ws-20260223-001"
    assert summary["info_summary"] == ["정보 1", "정보 2"]
    assert summary["qa_pairs"] == [{"q": "질문", "a": "답변"}]
    assert summary["work_done"] == ["구현: ...", "수정: ...", "테스트: ..."]
    assert summary["action_items"] == [
        {"title": "할 일", "priority": "high", "registered_todo": None}
    ]
    assert summary["evaluation"]["user"]["score"] == 4  # type: ignore[index]
    (user,) = _lines(tmp_path / "lessons" / "user" / "lessons.jsonl")
    (ai,) = _lines(tmp_path / "lessons" / "ai" / "lessons.jsonl")
    assert user["id"] == "ll-user-20260223-001" and user["type"] == "user_fact_question"
    assert ai["id"] == "ll-ai-20260223-001" and ai["memory_ref"] == "research-sources.md"
    for rec in (summary, user, ai):
        assert rec["session_id"] == "abc-123" and rec["date"] == "2026-02-23T15:30:00"
    state = tmp_path / ".hurikaeri"  # the transaction: the ledger and the lines' copies
    assert sorted(
        p.name for p in tmp_path.rglob("*") if p.is_file() and state not in p.parents
    ) == [
        "lessons.jsonl",
        "lessons.jsonl",
        "summaries.jsonl",
    ]


def test_sequences_continue_existing_records_and_bytes_stay(tmp_path: Path) -> None:
    ai = tmp_path / "lessons" / "ai" / "lessons.jsonl"
    ai.parent.mkdir(parents=True)
    existing = (
        '{"id": "ll-ai-20260223-004", "date": "2026-02-21T10:00:00", "type": "ai_trial_error", "title": "wrong date in id"}\n'
        "not json at all\n"
        '{\n  "id": "ll-ai-20260223-002",\n  "type": "ai_trial_error", "title": "pretty"\n}\n'
    )
    ai.write_text(existing, encoding="utf-8")
    import_wrapup(Workspace(tmp_path), EXAMPLE)
    text = ai.read_text(encoding="utf-8")
    assert text.startswith(existing)
    assert json.loads(text[len(existing) :])["id"] == "ll-ai-20260223-005"


@pytest.mark.parametrize(
    "mutate",
    [
        lambda d: d.pop("date"),
        lambda d: d.pop("project"),
        lambda d: d.update(date="yesterday"),
        lambda d: d["ai_lessons"].append({"type": "ai_trial_error"}),  # no title
        lambda d: d.update(user_lessons="not a list"),
    ],
)
def test_invalid_input_writes_nothing(tmp_path: Path, mutate) -> None:  # type: ignore[no-untyped-def]
    data = json.loads(EXAMPLE)
    mutate(data)
    with pytest.raises(ReviewError, match="nothing written"):
        import_wrapup(Workspace(tmp_path), json.dumps(data))
    assert not [p for p in tmp_path.rglob("*") if p.is_file()]


def test_not_json_writes_nothing(tmp_path: Path) -> None:
    with pytest.raises(ReviewError, match="not valid JSON"):
        import_wrapup(Workspace(tmp_path), "{ nope")
    assert not list(tmp_path.rglob("*.jsonl"))


def test_unfinished_last_line_refuses_before_writing(tmp_path: Path) -> None:
    user = tmp_path / "lessons" / "user" / "lessons.jsonl"
    user.parent.mkdir(parents=True)
    user.write_bytes(b'{"id": "ll-user-20260223-001", "ti')
    with pytest.raises(ReviewError, match="unfinished"):
        import_wrapup(Workspace(tmp_path), EXAMPLE)
    assert not (tmp_path / "session-summaries").exists()


# -- retried imports, identifying fields ----------------------------------------------------


def _files(root: Path) -> dict[Path, bytes]:
    """The workspace's JSONL files (our own state, the ledger, apart)."""
    return {
        p: p.read_bytes()
        for p in sorted(root.rglob("*.jsonl"))
        if ".hurikaeri" not in p.relative_to(root).parts
    }


def test_importing_the_same_input_twice_writes_nothing_the_second_time(tmp_path: Path) -> None:
    ws = Workspace(tmp_path)
    first = import_wrapup(ws, EXAMPLE)
    assert not first.present and not first.already_imported
    before = _files(tmp_path)
    # a hook that retries: the same input, spaced differently
    again = import_wrapup(ws, json.dumps(json.loads(EXAMPLE), indent=4))
    assert again.already_imported and again.lines() == []
    assert _files(tmp_path) == before
    # and it names the records already there, with the ids they have
    assert again.summary["id"] == first.summary["id"]
    assert [r["id"] for r in again.ai_lessons] == [r["id"] for r in first.ai_lessons]


def test_a_retry_after_a_partial_import_writes_only_what_is_missing(tmp_path: Path) -> None:
    ws = Workspace(tmp_path)
    first = import_wrapup(ws, EXAMPLE)
    ai = tmp_path / "lessons" / "ai" / "lessons.jsonl"
    ai.write_bytes(b"")  # the AI lesson line never made it (the import was cut short)
    again = import_wrapup(ws, EXAMPLE)
    assert not again.already_imported
    assert again.present == {first.summary["id"], first.user_lessons[0]["id"]}
    (line,) = _lines(ai)
    assert line["id"] == first.ai_lessons[0]["id"] and line["session_id"] == "abc-123"
    assert len(_lines(first.summary_path)) == 1


def test_the_same_session_with_other_content_is_a_new_record(tmp_path: Path) -> None:
    ws = Workspace(tmp_path)
    import_wrapup(ws, EXAMPLE)
    data = json.loads(EXAMPLE)
    data["ai_lessons"][0]["summary"] = "a different lesson of the same session"
    plan = import_wrapup(ws, json.dumps(data))
    assert plan.present == {plan.summary["id"], plan.user_lessons[0]["id"]}
    ids = [r["id"] for r in _lines(tmp_path / "lessons" / "ai" / "lessons.jsonl")]
    assert ids == ["ll-ai-20260223-001", "ll-ai-20260223-002"]


def test_two_imports_at_once_write_each_record_once(tmp_path: Path) -> None:
    import subprocess
    import sys

    from tests.conftest import REPO

    code = (
        "import sys; from pathlib import Path; from store.workspace import Workspace; "
        "from store.review.wrapup import import_wrapup; "
        "import_wrapup(Workspace(Path(sys.argv[1])), sys.stdin.read())"
    )
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", code, str(tmp_path)], cwd=REPO, stdin=subprocess.PIPE, text=True
        )
        for _ in range(4)
    ]
    for p in procs:
        assert p.stdin is not None
        p.stdin.write(EXAMPLE)
        p.stdin.close()
    assert [p.wait(60) for p in procs] == [0, 0, 0, 0]
    for path in _files(tmp_path):
        assert len(_lines(path)) == 1, path


@pytest.mark.parametrize(
    ("mutate", "field"),
    [
        (lambda d: d.pop("session_id"), "session_id"),
        (lambda d: d.update(session_id="  "), "session_id"),
        (lambda d: d["ai_lessons"][0].update(title=""), "ai_lessons[0].title"),
        (lambda d: d["user_lessons"][0].update(title=" \t"), "user_lessons[0].title"),
        (lambda d: d["user_lessons"][0].pop("title"), "user_lessons[0].title"),
    ],
)
def test_records_without_what_identifies_them_are_refused(  # type: ignore[no-untyped-def]
    tmp_path: Path, mutate, field: str
) -> None:
    data = json.loads(EXAMPLE)
    mutate(data)
    with pytest.raises(ReviewError, match="nothing written") as exc:
        import_wrapup(Workspace(tmp_path), json.dumps(data))
    assert f"'{field}'" in str(exc.value)
    assert not [p for p in tmp_path.rglob("*") if p.is_file()]


def test_a_newer_field_never_takes_the_place_of_a_records_own(tmp_path: Path) -> None:
    """Fields the input's format does not know are kept (``timing``), but one named as a
    saved record's own field (its id, session, date, summary lines) is not taken from
    agent text: the id is given here, the rest come from the input (found by the
    property test: ``"id": []`` at the top crashed the import with a traceback)."""
    data = json.loads(EXAMPLE)
    data |= {"id": [], "info_summary": "forged", "timing": {"minutes": 12}}
    data["ai_lessons"][0] |= {"id": "ll-ai-19990101-001", "session_id": "other", "mood": "ok"}
    plan = import_wrapup(Workspace(tmp_path), json.dumps(data))
    (summary,) = _lines(plan.summary_path)
    assert summary["id"] == "ws-20260223-001" and summary["info_summary"] == ["정보 1", "정보 2"]
    assert summary["timing"] == {"minutes": 12}
    (lesson,) = _lines(plan.ai_path)
    assert lesson["id"] == "ll-ai-20260223-001" and lesson["session_id"] == "abc-123"
    assert lesson["mood"] == "ok"


@pytest.mark.parametrize("name", ["wrapup-input.json", "wrapup-input-v1.4.json"])
def test_the_input_has_one_reader_its_model(name: str) -> None:
    """One model per format (DESIGN principle 6): an input of the seed's is read by
    :class:`WrapupInput` itself, not by a second reader standing in for it (#42)."""
    from store.models.lessons import WrapupInput
    from store.review.wrapup import parse_input

    model, diags = parse_input((SEEDS / name).read_text(encoding="utf-8"), name)
    assert isinstance(model, WrapupInput)
    assert [d for d in diags if d.severity == "error"] == []


def test_a_lessons_file_truncated_while_an_import_reads_it_does_not_kill_the_process(
    tmp_path: Path,
) -> None:
    """An agent rewriting its lessons (``jq … > lessons.jsonl`` truncates first) while an
    import checks the file: a mapping of it would die of SIGBUS at its next page."""
    import subprocess
    import sys

    lessons = tmp_path / "lessons" / "user" / "lessons.jsonl"
    lessons.parent.mkdir(parents=True)
    with lessons.open("w", encoding="utf-8") as f:
        for n in range(40_000):
            f.write(json.dumps({"id": f"ll-user-20250101-{n:03d}", "lesson": "y" * 150}) + "\n")
    script = f"""
import mmap, os
from store.errors import ReviewError
from store.review.wrapup import import_wrapup
from store.workspace import Workspace
path, mapping, pread = {str(lessons)!r}, mmap.mmap, os.pread
def mapped(*args, **kwargs):  # mapped, then the agent's rewrite begins
    got = mapping(*args, **kwargs)
    os.truncate(path, 0)
    return got
def read(fd, n, at):  # or read, once it has begun
    os.truncate(path, 0)
    return pread(fd, n, at)
mmap.mmap, os.pread = mapped, read
try:
    import_wrapup(Workspace({str(tmp_path)!r}), open({str(SEEDS / "wrapup-input-v1.4.json")!r}).read())
except ReviewError as exc:
    print(exc)
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, (done.returncode, done.stderr[-500:])


def test_a_target_truncated_after_its_size_was_read_ends_the_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its last byte read, the file is truncated: the first line's read stops at the first
    empty read (it went on a byte a read, up to the size first seen)."""
    import os

    lessons = tmp_path / "lessons" / "user" / "lessons.jsonl"
    lessons.parent.mkdir(parents=True)
    lessons.write_bytes(b"\n" * 1_000_000)
    reads: list[int] = []
    pread = os.pread

    def read(fd: int, n: int, at: int) -> bytes:
        reads.append(at)
        if len(reads) == 2:  # after the last byte's read
            os.truncate(lessons, 0)
        return pread(fd, n, at)

    monkeypatch.setattr(os, "pread", read)
    with contextlib.suppress(ReviewError):
        import_wrapup(Workspace(tmp_path), EXAMPLE)
    assert len(reads) < 100
