"""Ids people's own lessons files carry (issue 39, point 4): other formats (``LSN-005``, hex)
or none, on real files (``tests/fixtures/foreign-lessons``, see its SOURCE.md). ``show``
takes every id ``search`` prints and each names one record; ``stats`` counts them; the
refusal of ``approve`` says what an id is (issue 44, point 9); a 300-character id is one
clear line (issue 40, point 10)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.conftest import FIXTURES
from tui.cli.main import main

FOREIGN = FIXTURES / "foreign-lessons"


def cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def workspace(root: Path, ai: str, user: str) -> Path:
    """A root whose AI and user lessons files (both ``lessons.jsonl``) are fixture files."""
    for who, name in (("ai", ai), ("user", user)):
        (root / "lessons" / who).mkdir(parents=True)
        shutil.copyfile(FOREIGN / name, root / "lessons" / who / "lessons.jsonl")
    return root


def hits(capsys: pytest.CaptureFixture[str], root: Path) -> list[dict[str, object]]:
    code, out, err = cli(
        capsys, "search", "kind:lesson", "--limit", "500", "--json", "--root", str(root)
    )
    assert code == 0, err
    return list(json.loads(out))


def test_show_takes_every_id_search_prints_each_naming_its_own_record(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    root = workspace(tmp_path, "lsn-lessons.jsonl", "no-id-lessons.jsonl")
    found = hits(capsys, root)
    assert len(found) == 6 + 3
    assert {h["id"] for h in found} >= {"LSN-005", "lessons/user/lessons.jsonl:2"}
    for hit in found:
        code, out, err = cli(capsys, "show", str(hit["id"]), "--json", "--root", str(root))
        assert code == 0, (hit["id"], err)
        data = json.loads(out)
        assert (data["id"], data["path"], data["line"]) == (hit["id"], hit["path"], hit["line"])
    code, text, _ = cli(capsys, "show", "LSN-005", "--root", str(root))
    assert code == 0
    assert text.startswith("lesson: LSN-005\ntitle: Agent implemented a spec that silently")
    assert "path: lessons/ai/lessons.jsonl:5\n" in text


def test_a_record_without_an_id_in_one_of_two_files_of_that_name(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    root = workspace(tmp_path, "no-id-lessons.jsonl", "no-id-lessons.jsonl")
    ids = [h["id"] for h in hits(capsys, root)]
    assert len(ids) == len(set(ids)) == 6
    for who in ("ai", "user"):
        ident = f"lessons/{who}/lessons.jsonl:1"
        code, out, _ = cli(capsys, "show", ident, "--json", "--root", str(root))
        assert code == 0 and json.loads(out)["path"] == str(
            root / "lessons" / who / "lessons.jsonl"
        )
    # the file name alone fits both: refused, naming each record's own id
    code, out, err = cli(capsys, "show", "lessons.jsonl:1", "--root", str(root))
    assert (code, out) == (1, "") and err.count("\n") == 1
    assert "lessons/ai/lessons.jsonl:1" in err and "lessons/user/lessons.jsonl:1" in err


def test_one_id_in_two_files_is_not_shown_as_the_first(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    root = workspace(tmp_path, "lsn-lessons.jsonl", "lsn-lessons.jsonl")
    code, out, err = cli(capsys, "show", "LSN-005", "--root", str(root))
    assert (code, out) == (1, "")
    assert "2 records have the id 'LSN-005'" in err
    assert "lessons/user/lessons.jsonl:5, lessons/ai/lessons.jsonl:5" in err
    code, out, _ = cli(
        capsys, "show", "lessons/user/lessons.jsonl:5", "--json", "--root", str(root)
    )
    assert code == 0 and json.loads(out)["id"] == "LSN-005"


def test_hex_ids_are_shown(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    root = workspace(tmp_path, "hex-id-lessons.jsonl", "no-id-lessons.jsonl")
    code, out, _ = cli(capsys, "show", "18293a4b5c6d7e8f", "--json", "--root", str(root))
    assert code == 0 and json.loads(out)["document"]["text"].startswith("Check divisibility")


def test_stats_counts_every_lesson_and_prints_no_empty_figures(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    root = workspace(tmp_path, "lsn-lessons.jsonl", "no-id-lessons.jsonl")
    code, out, _ = cli(capsys, "stats", "--root", str(root))
    assert code == 0
    assert out.startswith("sessions 0 (KPT reports 0), lessons 9\n")
    for empty in ("outcomes per week:", "problem categories:", "try-items:"):
        assert empty not in out
    _, out, _ = cli(capsys, "stats", "--json", "--root", str(root))
    assert json.loads(out)["counts"]["lessons"] == 9


def test_stats_counts_lessons_of_no_session(
    capsys: pytest.CaptureFixture[str], demo_root: Path
) -> None:
    lessons = demo_root / "lessons" / "ai" / "lessons.jsonl"
    before = json.loads(cli(capsys, "stats", "--json", "--root", str(demo_root))[1])
    with lessons.open("a", encoding="utf-8") as f:
        f.write((FOREIGN / "lsn-lessons.jsonl").read_text(encoding="utf-8"))
    after = json.loads(cli(capsys, "stats", "--json", "--root", str(demo_root))[1])
    assert after["counts"]["lessons"] == before["counts"]["lessons"] + 6
    assert before["outcomes_per_week"]
    text = cli(capsys, "stats", "--root", str(demo_root))[1]
    assert "\noutcomes per week: 2026-W" in text


def test_a_summary_keeps_its_nested_evaluation_nested(
    capsys: pytest.CaptureFixture[str], demo_root: Path
) -> None:
    code, text, _ = cli(capsys, "show", "ws-20261104-001", "--root", str(demo_root))
    assert code == 0
    assert (
        "evaluation:\n  ai:\n    sub_scores:\n      goal_achievement:\n"
        "        score: 5\n        reason: memory_ref works end to end\n"
    ) in text
    assert "\n  user:\n    score: 4\n" in text


def test_approve_says_what_an_id_names(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    root = workspace(tmp_path, "lsn-lessons.jsonl", "no-id-lessons.jsonl")
    code, _, err = cli(capsys, "approve", "ll-foo", "--root", str(root))
    assert code == 1 and "names a report" not in err
    assert err.startswith("hurikaeri: nothing has the id 'll-foo'") and err.count("\n") == 1
    code, _, err = cli(capsys, "approve", "LSN-005", "--root", str(root))
    assert code == 1 and "names a report" not in err
    assert "'LSN-005' is a lesson (lessons/ai/lessons.jsonl:5), not a KPT item" in err


def test_approve_still_says_a_report_is_a_report(
    capsys: pytest.CaptureFixture[str], demo_root: Path
) -> None:
    rid = sorted(p.stem for p in (demo_root / "hurikaeri").glob("kpt-*.yaml"))[0]
    code, _, err = cli(capsys, "approve", rid, "--root", str(demo_root))
    assert code == 1 and f"'{rid}' names a report; name an item as KPT_ID/ITEM_ID" in err


@pytest.mark.parametrize("suffix", ["", ".md", ".yaml", ".jsonl:1", "/keep-001"])
@pytest.mark.parametrize("prefix", ["", "kpt-"])
@pytest.mark.parametrize("command", ["show", "approve"])
def test_a_300_character_id_is_one_clear_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, command: str, prefix: str, suffix: str
) -> None:
    root = workspace(tmp_path, "lsn-lessons.jsonl", "no-id-lessons.jsonl")
    ident = prefix + "x" * 300 + suffix
    code, out, err = cli(capsys, command, ident, "--root", str(root))
    assert (code, out) == (1, "") and err.count("\n") == 1
    assert "OSError" not in err and "File name too long" not in err
    assert len(err) < 400, err


def test_lessons_of_other_tools_are_titled_by_their_text(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from store.index.lesson_list import LessonList
    from store.index.workspace_index import WorkspaceIndex
    from store.workspace import Workspace

    root = workspace(tmp_path, "hex-id-lessons.jsonl", "no-id-lessons.jsonl")
    titles = {h["id"]: h["title"] for h in hits(capsys, root)}
    assert (
        titles["18293a4b5c6d7e8f"]
        == "Check divisibility with the modulo operator before branching."
    )
    assert titles["lessons/user/lessons.jsonl:3"].startswith("Find the callout for interior walls")
    index = WorkspaceIndex(Workspace(root))
    index.load_all()
    lessons = LessonList(index.files.values())
    listed = {lessons.row(r).lesson.title for r in range(len(lessons))}
    assert None not in listed and len(listed) == 7  # the lessons list's titles, none "(untitled)"
    assert "Slice with a negative step to reverse a string." in listed
