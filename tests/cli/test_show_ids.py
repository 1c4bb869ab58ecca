"""``show`` takes every id ``search`` prints (issue 17): lessons, summaries, proposals,
feedback, skills, patterns, anti-patterns, memory entries, pieces, movements, discussions,
as text and as JSON."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tui.cli.main import main

KPT_KINDS = ("report", "keep", "problem", "try", "omission")
OTHER_KINDS = (
    "summary",
    "lesson",
    "skill",
    "pattern",
    "anti_pattern",
    "memory",
    "proposal",
    "feedback",
    "discussion",
    "piece",
    "movement",
)


def cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def search_ids(capsys: pytest.CaptureFixture[str], root: Path, kind: str) -> list[str]:
    code, out, err = cli(
        capsys, "search", f"kind:{kind}", "--limit", "500", "--json", "--root", str(root)
    )
    assert code == 0, err
    return [hit["id"] for hit in json.loads(out)]


def test_every_id_search_prints_is_shown(
    capsys: pytest.CaptureFixture[str], demo_root: Path
) -> None:
    for kind in (*OTHER_KINDS, *KPT_KINDS):
        ids = search_ids(capsys, demo_root, kind)
        assert ids, f"the demo has no {kind}"
        for ident in ids if kind in OTHER_KINDS else ids[:3]:
            code, out, err = cli(capsys, "show", ident, "--json", "--root", str(demo_root))
            assert code == 0, (ident, err)
            data = json.loads(out)
            if kind in OTHER_KINDS:
                assert (data["kind"], data["id"]) == (kind, ident)
                assert Path(data["path"]).is_file() and data["line"] >= 1
            code, text, err = cli(capsys, "show", ident, "--root", str(demo_root))
            assert code == 0 and text.strip(), (ident, err)


def test_a_lesson_as_text_and_json(capsys: pytest.CaptureFixture[str], demo_root: Path) -> None:
    source = demo_root / "lessons" / "ai" / "lessons.jsonl"
    first = json.loads(source.read_text(encoding="utf-8").splitlines()[0])
    code, out, _ = cli(capsys, "show", first["id"], "--json", "--root", str(demo_root))
    data = json.loads(out)
    assert code == 0 and data["document"] == first and data["line"] == 1
    assert data["fields"]["title"] == first["title"]
    code, text, _ = cli(capsys, "show", first["id"], "--root", str(demo_root))
    assert text.startswith(f"lesson: {first['id']}\ntitle: {first['title']}\n")
    assert "path: lessons/ai/lessons.jsonl:1\n" in text


def test_a_proposal_shows_its_status_and_document(
    capsys: pytest.CaptureFixture[str], demo_root: Path
) -> None:
    (ident,) = search_ids(capsys, demo_root, "proposal")[:1]
    code, out, _ = cli(capsys, "show", ident, "--json", "--root", str(demo_root))
    data: dict[str, Any] = json.loads(out)
    assert code == 0 and data["status"] in ("pending", "approved", "rejected")
    assert data["document"]["id"] == ident and "payload" in data["document"]
    code, text, _ = cli(capsys, "show", ident, "--root", str(demo_root))
    assert f"status: {data['status']}\n" in text


def test_a_memory_entry_and_a_movement_are_their_part_of_the_file(
    capsys: pytest.CaptureFixture[str], demo_root: Path
) -> None:
    behaviour = next(i for i in search_ids(capsys, demo_root, "memory") if "/behavior-" in i)
    _, out, _ = cli(capsys, "show", behaviour, "--json", "--root", str(demo_root))
    data = json.loads(out)
    assert set(data["document"]) >= {"trigger", "behavior"} and data["line"] > 1
    movement = search_ids(capsys, demo_root, "movement")[0]
    _, out, _ = cli(capsys, "show", movement, "--json", "--root", str(demo_root))
    data = json.loads(out)
    assert data["document"]["name"] == movement.split("/", 1)[1] and data["line"] > 1


def test_a_discussion_by_its_path(capsys: pytest.CaptureFixture[str], demo_root: Path) -> None:
    ident = search_ids(capsys, demo_root, "discussion")[0]
    assert ident.startswith("discussions/")
    code, out, _ = cli(capsys, "show", ident, "--json", "--root", str(demo_root))
    data = json.loads(out)
    assert code == 0 and set(data["document"]) == {"body", "metadata"}


def test_a_record_without_an_id(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    lessons = tmp_path / "lessons" / "user" / "lessons.jsonl"
    lessons.parent.mkdir(parents=True)
    lessons.write_text(
        '{"id": "ll-user-20260101-001", "date": "2026-01-01", "title": "one"}\n'
        '{"date": "2026-01-02", "title": "no id \\u001b[31m"}\n',
        encoding="utf-8",
    )
    ids = search_ids(capsys, tmp_path, "lesson")
    assert "lessons/user/lessons.jsonl:2" in ids  # its place: the file as shown, the line
    for ident in ("lessons/user/lessons.jsonl:2", "lessons.jsonl:2"):  # the file alone: one fits
        code, text, _ = cli(capsys, "show", ident, "--root", str(tmp_path))
        assert code == 0 and "title: no id ␛[31m" in text and "\x1b" not in text


def test_an_unknown_id_exits_1_with_one_line(
    capsys: pytest.CaptureFixture[str], demo_root: Path
) -> None:
    for ident in ("ll-ai-29990101-001", "no_such_skill", "prop-29990101-001"):
        code, out, err = cli(capsys, "show", ident, "--root", str(demo_root))
        assert (code, out) == (1, "") and err.count("\n") == 1
        assert f"nothing has the id '{ident}'" in err and "hurikaeri search" in err
