"""A retried import-wrapup looks first where the input's lines were put or found, and takes
only what is still there, byte for byte, as imported (#47)."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from store.config import Config
from store.review import wrapup_marks
from store.review.items import ReviewError
from store.review.wrapup import import_wrapup
from store.workspace import Workspace
from tests.conftest import REPO, SEEDS

EXAMPLE = (SEEDS / "wrapup-input-v1.4.json").read_text(encoding="utf-8")
BEFORE = b'{"id": "ll-ai-20260101-001", "session_id": "other", "title": "before"}\n'
AFTER = b'{"id": "ll-ai-20260301-001", "session_id": "later", "title": "after"}\n'


def _ids(path: Path) -> list[str]:
    return [json.loads(x)["id"] for x in path.read_bytes().splitlines() if x.strip()]


def _imported_between(root: Path) -> Path:
    """The seed's input imported (and found there again) between two other sessions' AI
    lessons: the AI lessons file."""
    ai = root / "lessons" / "ai" / "lessons.jsonl"
    ai.parent.mkdir(parents=True)
    ai.write_bytes(BEFORE)
    ws = Workspace(root)
    assert not import_wrapup(ws, EXAMPLE).already_imported
    assert import_wrapup(ws, EXAMPLE).already_imported
    with ai.open("ab") as f:
        f.write(AFTER)
    return ai


@pytest.mark.parametrize(
    ("change", "ids"),
    [
        # the line taken out: the next one moves into its place
        ("removed", ["ll-ai-20260101-001", "ll-ai-20260301-001", "ll-ai-20260223-001"]),
        # edited in place, its length kept: a lesson of other content, the input's again
        (
            "edited",
            [
                "ll-ai-20260101-001",
                "ll-ai-20260223-001",
                "ll-ai-20260301-001",
                "ll-ai-20260223-002",
            ],
        ),
    ],
)
def test_a_line_removed_or_edited_by_hand_is_imported_again(
    tmp_path: Path, change: str, ids: list[str]
) -> None:
    ai = _imported_between(tmp_path)
    lines = ai.read_bytes().splitlines(keepends=True)
    if change == "removed":
        del lines[1]
    else:
        lines[1] = lines[1].replace(b'"ai_trial_error"', b'"ai_trial_errer"')
    ai.write_bytes(b"".join(lines))
    again = import_wrapup(Workspace(tmp_path), EXAMPLE)
    assert not again.already_imported and len(again.present) == 2  # the summary, the user's
    assert _ids(ai) == ids


def test_a_retry_refuses_a_file_that_cannot_take_a_line_as_the_first_import_does(
    tmp_path: Path,
) -> None:
    ai = _imported_between(tmp_path)
    with ai.open("ab") as f:
        f.write(b'{"id": "ll-ai-2026')  # another program is writing its line
    with pytest.raises(ReviewError, match="the last line is unfinished; nothing written"):
        import_wrapup(Workspace(tmp_path), EXAMPLE)


def test_a_mark_this_machine_did_not_sign_is_not_trusted(tmp_path: Path) -> None:
    ai = _imported_between(tmp_path)
    ai.write_bytes(BEFORE + AFTER)  # the input's AI lesson removed by hand
    marks = tmp_path / ".hurikaeri" / wrapup_marks.NAME
    forged = json.loads(marks.read_bytes().splitlines()[-1])
    # it says the lesson is the first line, as this machine's key would not
    forged["at"]["lessons_ai"] = [[0, len(BEFORE), hashlib.sha256(BEFORE).hexdigest()]]
    forged["sig"] = "0" * 64
    with marks.open("a", encoding="utf-8") as f:
        f.write(json.dumps(forged) + "\n")
    assert not import_wrapup(Workspace(tmp_path), EXAMPLE).already_imported
    assert _ids(ai)[-1] == "ll-ai-20260223-001"


def test_a_retry_looks_where_the_config_puts_lessons_now(tmp_path: Path) -> None:
    _imported_between(tmp_path)
    moved = tmp_path / "elsewhere" / "lessons.jsonl"
    ws = Workspace(tmp_path, Config(paths={"lessons_ai": [moved]}))
    again = import_wrapup(ws, EXAMPLE)
    assert not again.already_imported
    assert _ids(moved) == ["ll-ai-20260223-001"]


def test_what_is_kept_of_past_imports_stays_bounded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(wrapup_marks, "MAX_BYTES", 2000)
    ws = Workspace(tmp_path)
    for n in range(12):
        import_wrapup(ws, json.dumps(json.loads(EXAMPLE) | {"session_id": f"s-{n}"}))
    assert (tmp_path / ".hurikaeri" / wrapup_marks.NAME).stat().st_size < 4000


@pytest.mark.parametrize(("version", "models"), [("", False), ("another", True)])
def test_a_retried_import_needs_no_model_of_the_input(
    tmp_path: Path, version: str, models: bool
) -> None:
    """Validating an input imported before (pydantic and the models: ~0.1 s of a core) is
    left out when its lines are where they were put, unless another version put them."""
    wrapup = tmp_path / "wrapup.json"
    (tmp_path / "ws").mkdir()
    wrapup.write_text(EXAMPLE, encoding="utf-8")
    code = (
        "import sys, store\n"
        "if sys.argv[3]: store.__version__ = sys.argv[3]\n"
        "from tui.cli.main import main\n"
        "main(['import-wrapup', sys.argv[1], '--root', sys.argv[2]])\n"
        "print('pydantic' in sys.modules)"
    )
    argv = [sys.executable, "-c", code, str(wrapup), str(tmp_path / "ws")]
    subprocess.run([*argv, ""], cwd=REPO, check=True, capture_output=True)
    out = subprocess.run([*argv, version], cwd=REPO, check=True, capture_output=True, text=True)
    assert out.stdout.splitlines() == [
        "already imported: session abc-123 is in "
        f"{tmp_path / 'ws' / 'session-summaries' / 'z--_ai-skills-lesson-learned'}"
        "/summaries.jsonl as ws-20260223-001 with its lessons; nothing written",
        str(models),
    ]


def test_a_retry_refuses_a_file_linked_out_of_its_location_as_an_import_does(
    tmp_path: Path,
) -> None:
    """The same bytes at the same place, in a file the lessons path now links to outside
    the workspace: an import of the input is refused, so its retry is too."""
    ai = _imported_between(tmp_path / "ws")
    outside = tmp_path / "outside.jsonl"
    outside.write_bytes(ai.read_bytes())
    ai.unlink()
    ai.symlink_to(outside)
    with pytest.raises(ReviewError, match=r"refused: .* leads to .*outside\.jsonl"):
        import_wrapup(Workspace(tmp_path / "ws"), EXAMPLE)


def test_a_fifo_where_the_marks_are_kept_is_neither_waited_on_nor_fed(tmp_path: Path) -> None:
    """Opened for writing, a FIFO with no reader would hold the import for ever; one with a
    reader would be fed the mark."""
    marks = tmp_path / ".hurikaeri" / wrapup_marks.NAME
    marks.parent.mkdir()
    os.mkfifo(marks)
    reader = os.open(marks, os.O_RDONLY | os.O_NONBLOCK)
    try:
        assert not import_wrapup(Workspace(tmp_path), EXAMPLE).already_imported
        assert os.read(reader, 4096) == b""  # nothing written into it
    finally:
        os.close(reader)
    assert import_wrapup(Workspace(tmp_path), EXAMPLE).already_imported
