"""The command line on hostile input: import-wrapup's input file and targets, items without
an id, control characters in file names. Always an exit status and one line on stderr."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO, SEEDS
from tests.id_less import ID_LESS_REPORT, RID

EXAMPLE = (SEEDS / "wrapup-input-v1.4.json").read_text(encoding="utf-8")


def run(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[str]:
    r = subprocess.run(
        [sys.executable, "-m", "tui", *args],
        cwd=REPO,
        input=stdin,
        capture_output=True,
        env=os.environ.copy(),
        timeout=60,  # a FIFO opened for reading would block for ever
    )
    return subprocess.CompletedProcess(
        r.args, r.returncode, r.stdout.decode("utf-8"), r.stderr.decode("utf-8")
    )


def _one_line_error(r: subprocess.CompletedProcess[str], status: int) -> str:
    assert r.returncode == status, (r.stdout, r.stderr)
    assert "Traceback" not in r.stderr
    lines = r.stderr.strip("\n").split("\n")
    assert len(lines) == 1 and lines[0].startswith("hurikaeri: "), r.stderr
    return lines[0]


def _nothing_written(root: Path) -> None:
    assert not any(p.is_file() for p in root.rglob("*"))


# -- import-wrapup: the input -------------------------------------------------------------


def test_input_that_is_a_directory(tmp_path: Path) -> None:
    (tmp_path / "in").mkdir()
    root = tmp_path / "root"
    root.mkdir()
    line = _one_line_error(run("import-wrapup", str(tmp_path / "in"), "--root", str(root)), 1)
    assert "found a directory" in line and str(tmp_path / "in") in line
    _nothing_written(root)


def test_input_that_is_a_fifo(tmp_path: Path) -> None:
    fifo = tmp_path / "in.json"
    os.mkfifo(fifo)
    root = tmp_path / "root"
    root.mkdir()
    line = _one_line_error(run("import-wrapup", str(fifo), "--root", str(root)), 1)
    assert "FIFO" in line and str(fifo) in line
    _nothing_written(root)


def test_input_that_is_not_utf8(tmp_path: Path) -> None:
    bad = tmp_path / "in.json"
    bad.write_bytes(EXAMPLE.encode("utf-8").replace("세션".encode(), b"\xff\xfe", 1))
    root = tmp_path / "root"
    root.mkdir()
    line = _one_line_error(run("import-wrapup", str(bad), "--root", str(root)), 1)
    assert "not UTF-8" in line and "0xff" in line
    _nothing_written(root)
    line = _one_line_error(
        run("import-wrapup", "-", "--root", str(root), stdin=bad.read_bytes()), 1
    )
    assert "<stdin>: not UTF-8" in line


def test_input_that_is_huge(tmp_path: Path) -> None:
    big = tmp_path / "in.json"
    with open(big, "wb") as fh:
        fh.truncate(2 * 1024**3)  # sparse
    root = tmp_path / "root"
    root.mkdir()
    line = _one_line_error(run("import-wrapup", str(big), "--root", str(root)), 1)
    assert "2,147,483,648 bytes" in line and "not read" in line
    _nothing_written(root)


def test_input_with_a_bom_is_read(tmp_path: Path) -> None:
    src = tmp_path / "in.json"
    src.write_bytes(b"\xef\xbb\xbf" + EXAMPLE.encode("utf-8"))
    (tmp_path / "root").mkdir()
    r = run("import-wrapup", str(src), "--json", "--root", str(tmp_path / "root"))
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["summary"] == "ws-20260223-001"


# -- import-wrapup: the files appended to ---------------------------------------------------


def test_a_fifo_lessons_file(tmp_path: Path) -> None:
    fifo = tmp_path / "lessons" / "ai" / "lessons.jsonl"
    fifo.parent.mkdir(parents=True)
    os.mkfifo(fifo)
    r = run("import-wrapup", "-", "--root", str(tmp_path), stdin=EXAMPLE.encode())
    line = _one_line_error(r, 1)
    assert str(fifo) in line and "FIFO" in line and "nothing written" in line
    _nothing_written(tmp_path)


def test_a_lessons_file_that_is_a_shell_script(tmp_path: Path) -> None:
    script = tmp_path / "lessons" / "user" / "lessons.jsonl"
    script.parent.mkdir(parents=True)
    script.write_text("export PATH=$HOME/bin:$PATH\n")
    r = run("import-wrapup", "-", "--root", str(tmp_path), stdin=EXAMPLE.encode())
    line = _one_line_error(r, 1)
    assert "does not look like a JSONL file" in line and "nothing appended" in line
    assert script.read_text() == "export PATH=$HOME/bin:$PATH\n"


def _deep(n: int) -> object:
    value: object = []
    for _ in range(n):
        value = [value]
    return value


@pytest.mark.parametrize(
    "change",
    [
        {"project": ".."},
        {"project": ""},
        {"session_id": "\ud800"},
        {"date": "2026-13-45"},
        {"project": "a\u0000b"},
        {"x": _deep(100)},
    ],
)
def test_odd_wrapup_inputs_get_a_message(tmp_path: Path, change: dict[str, object]) -> None:
    doc = {**json.loads(EXAMPLE), **change}
    text = json.dumps(doc)  # ASCII: the lone surrogate is kept as an escape
    line = _one_line_error(
        run("import-wrapup", "-", "--root", str(tmp_path), stdin=text.encode()), 1
    )
    assert "invalid wrap-up input, nothing written" in line and "Error:" not in line
    _nothing_written(tmp_path)


# -- items without an id -----------------------------------------------------------------------

REPORT = ID_LESS_REPORT


@pytest.fixture
def id_less(tmp_path: Path) -> Path:
    (tmp_path / "hurikaeri").mkdir()
    (tmp_path / "hurikaeri" / f"{RID}.yaml").write_text(REPORT, encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize("command", ["approve", "reject"])
def test_deciding_an_id_less_item_is_refused(id_less: Path, command: str) -> None:
    line = _one_line_error(run(command, f"{RID}/", "--root", str(id_less)), 1)
    assert line == (
        f"hurikaeri: item 2 of keep in {RID} has no id; give it one (e: edit) — lint reports it"
    )
    assert not (id_less / ".hurikaeri" / "ledger.jsonl").exists()


def test_promoting_an_id_less_try_is_refused(id_less: Path) -> None:
    line = _one_line_error(run("promote", RID, "", "--yes", "--root", str(id_less)), 1)
    assert "has no id" in line
    assert not (id_less / ".hurikaeri" / "ledger.jsonl").exists()


def test_show_marks_id_less_items(id_less: Path) -> None:
    assert run("approve", f"{RID}/keep-001", "--root", str(id_less)).returncode == 0
    r = run("show", RID, "--root", str(id_less))
    assert r.returncode == 0, r.stderr
    assert f"[approved] {RID}/keep-001" in r.stdout
    assert "[pending] (no id: item 2 of keep)" in r.stdout
    assert "[pending] (no id: item 1 of try)" in r.stdout
    r = run("show", RID, "--json", "--root", str(id_less))
    items = json.loads(r.stdout)["items"]
    assert [(i["ref"], i["state"]) for i in items] == [
        (f"{RID}/keep-001", "approved"),
        (None, "pending"),
        (None, "pending"),
        (None, "pending"),
    ]


def test_an_item_id_with_a_line_break_forges_no_row(tmp_path: Path) -> None:
    """An agent's id (or description) holding a line break and a state stays on its row."""
    forged = f"{RID}/keep-002  x\\n  [rejected] {RID}/keep-001"
    report = ID_LESS_REPORT.replace(
        '  - description: "first without an id"',
        f'  - id: "keep-002  x\\n  [rejected] {RID}/keep-001"\n'
        '    description: "y\\n  [approved] kpt-20260301-001/keep-003"',
    )
    (tmp_path / "hurikaeri").mkdir()
    (tmp_path / "hurikaeri" / f"{RID}.yaml").write_text(report, encoding="utf-8")
    r = run("show", RID, "--root", str(tmp_path))
    assert r.returncode == 0, r.stderr
    rows = [line for line in r.stdout.splitlines() if line.startswith("  [")]
    assert [row.split("]")[0] for row in rows] == ["  [pending"] * 4, r.stdout
    r = run("search", "kind:keep", "--root", str(tmp_path))
    assert r.returncode == 0, r.stderr
    assert forged.replace("\\n", "\u21b5 ") in r.stdout and "\n  [rejected]" not in r.stdout
    report = report.replace(  # a field's line break too
        '"has an id"', '"has an id\\nstate: approved"'
    )
    (tmp_path / "hurikaeri" / f"{RID}.yaml").write_text(report, encoding="utf-8")
    r = run("show", f"{RID}/keep-001", "--root", str(tmp_path))
    assert [line for line in r.stdout.splitlines() if line.startswith("state:")] == [
        "state: pending"
    ], r.stdout


def test_a_note_with_a_line_break_forges_no_row(tmp_path: Path) -> None:
    """A decision's note (the ledger's, where agents can write) stays on its line."""
    (tmp_path / "hurikaeri").mkdir()
    (tmp_path / "hurikaeri" / f"{RID}.yaml").write_text(ID_LESS_REPORT, encoding="utf-8")
    note = f"ok\n  [approved] {RID}/keep-009"
    assert run("reject", f"{RID}/keep-001", "--note", note, "--root", str(tmp_path)).returncode == 0
    r = run("show", RID, "--root", str(tmp_path))
    assert r.returncode == 0, r.stderr
    assert f"note: ok\u21b5   [approved] {RID}/keep-009" in r.stdout
    assert not [line for line in r.stdout.splitlines() if line.startswith("  [approved]")]


# -- lint: control characters in file names ----------------------------------------------------


@pytest.mark.parametrize(
    ("name", "shown"),
    [
        ("kpt-20260101-001\nfake: error.yaml", "kpt-20260101-001↵ fake: error.yaml"),
        ("kpt-20260101-001\x1b[31m.yaml", "kpt-20260101-001␛[31m.yaml"),
        ("kpt-20260101-001\r.yaml", "kpt-20260101-001␍.yaml"),
    ],
)
def test_lint_prints_each_problem_on_one_line(tmp_path: Path, name: str, shown: str) -> None:
    bad = tmp_path / name
    bad.write_text("id: kpt-20260101-001\nkeep: [\n")
    r = run("lint", str(bad))
    assert r.returncode == 1
    lines = r.stdout.splitlines()
    assert lines and all(line.startswith(f"{tmp_path}/{shown}:") for line in lines), lines
    assert "\x1b" not in r.stdout
    r = run("lint", "--json", str(bad))
    diags = json.loads(r.stdout)
    assert diags and all(d["path"] == str(bad) for d in diags)


def test_a_lesson_with_a_lone_surrogate_is_listed(demo_root: Path) -> None:
    """JSON lets an agent escape half a surrogate pair (``"\\ud800"``): the workspace index
    and its cache keep the lesson (the escape spelled out by lint), and read it back."""
    rec = {
        "id": "ll-ai-20990101-\ud800",
        "type": "ai_trial_error",
        "date": "2099-01-01",
        "title": "zap \ud800 title",
    }
    with open(demo_root / "lessons" / "ai" / "lessons.jsonl", "a", encoding="utf-8") as fh:
        fh.write(json.dumps(rec) + "\n")
    for _ in range(2):  # built, then read from its cache
        r = run("lint", "--root", str(demo_root))
        assert r.returncode == 0 and "'ll-ai-20990101-\u27e8U+D800\u27e9'" in r.stdout, r.stderr
        assert run("stats", "--root", str(demo_root)).returncode == 0


def test_an_import_again_says_so_on_one_line(tmp_path: Path) -> None:
    """The session id is agent text: a line break in it never breaks the one-line report."""
    data = json.loads(EXAMPLE)
    data["session_id"] = "abc\nappended ll-ai-20990101-001"
    (tmp_path / "in.json").write_text(json.dumps(data), encoding="utf-8")
    (tmp_path / "root").mkdir()
    for _ in range(2):
        r = run("import-wrapup", str(tmp_path / "in.json"), "--root", str(tmp_path / "root"))
        assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("already imported: session abc\u21b5 ") and r.stdout.count("\n") == 1
