"""``hurikaeri history``, ``undo [TX_ID] [--dry-run]``, ``redo`` and ``--json`` on every
command that writes (issue 16)."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.ledger_forge import ours, replace_tx, write_lines
from tui.cli.main import main

WRAPUP = {
    "project": "c:/work/cli-tx",
    "date": "2026-12-31T10:00:00",
    "session_id": "cli-tx-1",
    "summary": {"info": ["i"]},
    "user_lessons": [{"type": "user_preference", "category": "c", "title": "t"}],
    "ai_lessons": [],
}


def cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def as_json(capsys: pytest.CaptureFixture[str], *args: str) -> Any:
    code, out, err = cli(capsys, *args, "--json")
    assert code == 0, err
    return json.loads(out)


def files(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".hurikaeri" not in p.relative_to(root).parts
    }


def test_json_of_every_writing_command(
    demo_root: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    root = ["--root", str(demo_root)]
    out = as_json(capsys, "approve", "kpt-20261120-001/keep-001", *root)
    assert out["action"] == "approve" and out["files"] == [] and len(out["tx"]) == 12
    assert out["decided"] == ["kpt-20261120-001/keep-001"]
    out = as_json(capsys, "reject", "kpt-20261120-001/prob-001", "--note", "weak", *root)
    assert out["action"] == "reject"
    out = as_json(capsys, "approve", "prop-20261119-001", "--yes", *root)
    assert [f["change"] for f in out["files"]] == ["created", "modified"]
    out = as_json(capsys, "promote", "kpt-20261028-001", "try-001", "--yes", *root)
    assert out["files"][0]["path"] == "CLAUDE.md" and out["promoted"] == "kpt-20261028-001/try-001"
    out = as_json(
        capsys,
        "retarget",
        "kpt-20261028-001",
        "try-003",
        "--type",
        "claude_md",
        "--path",
        "notes/X.md",
        *root,
    )
    assert out["action"] == "retarget" and out["files"][0]["change"] == "modified"
    out = as_json(capsys, "export-feedback", "kpt-20261028-002", "--force", *root)
    assert [f["change"] for f in out["files"]] == ["created", "modified"]
    assert out["feedback_id"].startswith("fb-")
    source = tmp_path / "wrapup.json"
    source.write_text(json.dumps(WRAPUP), encoding="utf-8")
    out = as_json(capsys, "import-wrapup", str(source), *root)
    assert out["action"] == "import-wrapup" and {f["change"] for f in out["files"]} == {
        "created",
        "appended",
    }
    again = as_json(capsys, "import-wrapup", str(source), *root)
    assert again["tx"] is None and again["already_imported"]
    history = as_json(capsys, "history", "--limit", "7", *root)
    assert [h["action"] for h in history] == [
        "import-wrapup",
        "export-feedback",
        "retarget",
        "promote",
        "approve",
        "reject",
        "approve",
    ]
    assert all(h["state"] == "done" for h in history)


def test_undo_dry_run_undo_by_id_and_redo(
    demo_root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = ["--root", str(demo_root)]
    before = files(demo_root)
    promoted = as_json(capsys, "promote", "kpt-20261028-001", "try-001", "--yes", *root)
    approved = as_json(capsys, "approve", "prop-20261119-001", "--yes", *root)
    after = files(demo_root)
    code, out, _ = cli(capsys, "undo", "--dry-run", *root)
    assert code == 0 and out.startswith("Undo: approve prop-20261119-001 — ")
    assert "deletes knowledge_base/global/skills/" in out and "back to pending" in out
    assert files(demo_root) == after  # a dry run writes nothing
    skill = demo_root / "knowledge_base/global/skills/duckdb_larger_than_memory.yaml"
    skill.write_bytes(skill.read_bytes() + b"# mine\n")
    code, out, err = cli(capsys, "undo", *root)
    assert code == 1 and "duckdb_larger_than_memory.yaml" in err and "changed since" in err, (
        out,
        err,
    )
    assert "+# mine" in out  # the diff
    history = as_json(capsys, "history", *root)
    states = {h["tx"]: h["state"] for h in history}
    assert states[approved["tx"]] == "blocked" and states[promoted["tx"]] == "done"
    code, out, err = cli(capsys, "undo", promoted["tx"], *root)  # the older one still can
    assert code == 0, err
    assert (demo_root / "CLAUDE.md").read_bytes() == before["CLAUDE.md"]
    redone = as_json(capsys, "redo", *root)
    assert redone["redoes"] == promoted["tx"]
    assert (demo_root / "CLAUDE.md").read_bytes() == after["CLAUDE.md"]
    code, out, _ = cli(capsys, "history", "--diff", promoted["tx"], *root)
    assert code == 0 and "a/CLAUDE.md" in out


def test_refusals_and_usage(demo_root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = ["--root", str(demo_root)]
    code, _, err = cli(capsys, "undo", "nosuchtx0000", *root)
    assert code == 1 and "no transaction 'nosuchtx0000'" in err
    # the demo's ledger holds an older undo line (of demo00000016), written before lines
    # were signed: not this machine's, so redo never acts on it
    code, _, err = cli(capsys, "redo", "demo00000016", *root)
    assert code == 1 and "not ours — not acted on" in err, err
    code, _, err = cli(capsys, "redo", *root)
    assert code == 1 and "nothing to redo" in err
    code, _, err = cli(capsys, "undo", "--bogus", *root)
    assert code == 2 and err.startswith("hurikaeri: error:")
    code, _, err = cli(capsys, "history", "--limit", "x", *root)
    assert code == 2


@pytest.mark.parametrize(
    "command",
    [
        ["reject", "kpt-20261120-001/keep-001"],
        # reads the ledger for its transactions alone (issue #18): recovery still sees them
        ["import-wrapup", str(Path(__file__).parents[1] / "fixtures/seeds/wrapup-input.json")],
    ],
)
def test_a_command_that_writes_recovers_first(
    demo_root: Path, capsys: pytest.CaptureFixture[str], command: list[str]
) -> None:
    claude = demo_root / "CLAUDE.md"
    old = claude.read_bytes()
    new = old + b"- half\n"
    tx = "cafecafe0001"
    state_dir = demo_root / ".hurikaeri"
    begin = replace_tx(state_dir, tx, "CLAUDE.md", old, new, sig=None)
    write_lines(state_dir / "ledger.jsonl", ours(state_dir, begin))  # this machine's
    claude.write_bytes(new)
    code, _, err = cli(capsys, *command, "--root", str(demo_root))
    assert code == 0 and f"rolled back an unfinished promote k/t [{tx}]" in err
    assert claude.read_bytes() == old
    history = as_json(capsys, "history", "--root", str(demo_root))
    assert {h["tx"]: h["state"] for h in history}[tx] == "aborted"


@pytest.fixture
def zone_minus_3(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The local zone is UTC-3 (no summer time): neither UTC nor the demo's +09:00."""
    monkeypatch.setenv("TZ", "<-03>3")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def test_history_is_in_local_time_and_long_identities_fit(
    demo_root: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    zone_minus_3: None,
) -> None:
    """Issue 44: the demo's +09:00 lines beside this machine's zone in one column, and an
    e-mail identity pushing the titles out of line."""
    monkeypatch.setenv("HURIKAERI_REVIEWER", "someone.with.a.long.name@example.com")
    root = ["--root", str(demo_root)]
    assert cli(capsys, "approve", "kpt-20261120-001/keep-001", *root)[0] == 0
    code, out, _ = cli(capsys, "history", "--limit", "6", *root)
    # one line a transaction (a line under one says why it is not acted on: the demo's
    # older lines are not signed on this machine)
    lines = [line for line in out.splitlines() if line[:4].isdigit()]
    assert code == 0 and len(lines) == 6
    assert all(line[:25].endswith("-03:00") for line in lines)
    assert lines[0].split()[3] == "someone.with.a.…"  # the name part, cut to 16
    titles = {line.index(" approve ") for line in lines if " approve " in line}
    assert len(titles) == 1  # one column of titles


def test_a_scripts_undo_leaves_the_apps_lesson_edits(
    demo_root: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 40: a script's ``hurikaeri undo`` took back lesson edits saved meanwhile in
    the open app. Without an id it now names the app's change and asks for the id."""
    from store.ledger import set_channel
    from store.review.lessons import edit_lesson_tx, find_lesson
    from store.workspace import Workspace

    monkeypatch.setattr("sys.stdin.isatty", lambda: False)  # a script
    root = ["--root", str(demo_root)]
    assert cli(capsys, "reject", "kpt-20261028-002/keep-001", *root)[0] == 0
    ws = Workspace(demo_root)
    path = ws.loc("lessons_ai")
    set_channel("app")
    try:
        for i in range(3):  # saved in the open app meanwhile
            ref = find_lesson(path, "ll-ai-20261028-001")
            last = edit_lesson_tx(ws, ref, {"title": f"edited in the app {i}"})
    finally:
        set_channel(None)
    assert last is not None
    saved = path.read_bytes()
    code, _, err = cli(capsys, "undo", *root)
    assert code == 1 and path.read_bytes() == saved
    (line,) = err.splitlines()
    assert f"hurikaeri undo {last.id}" in line and "in the app" in line
    code, out, _ = cli(capsys, "undo", "--dry-run", *root)
    assert code == 1 and out.startswith("Cannot undo without an id") and last.id in out
    code, _, err = cli(capsys, "undo", last.id, *root)  # named: as asked
    assert code == 0, err
    assert b"edited in the app 2" not in path.read_bytes()
    history = as_json(capsys, "history", *root)
    assert {h["channel"] for h in history if h["action"] == "edit-lesson"} == {"app"}
