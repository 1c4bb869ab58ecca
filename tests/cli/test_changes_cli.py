"""``hurikaeri changes [--json]``, ``keep PATH|--all``, ``revert PATH [--hunk N]`` (issue
#45): the first run records the reviewed state and says so; a change is listed with who made
it; keep and revert are a person's (refused inside an agent's session, nothing written);
``keep PATH --edit|--from FILE`` writes the person's edit and keeps it."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from tui.cli.main import main

TEXT = "# Rules\n- one\n"


def _root(tmp_path: Path) -> Path:
    root = tmp_path / "claude"
    root.mkdir()
    (root / "CLAUDE.md").write_text(TEXT)
    return root


def test_changes_keep_and_revert(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = _root(tmp_path)
    assert main(["changes", "--root", str(root)]) == 0
    assert capsys.readouterr().out == (
        "reviewed state recorded for 1 file; changes from now on are listed\n"
    )
    (root / "CLAUDE.md").write_text(TEXT + "- two\n")
    assert main(["changes", "--json", "--root", str(root)]) == 0
    [ch] = json.loads(capsys.readouterr().out)["changes"]
    assert (ch["path"], ch["status"], ch["added"], ch["source"]) == (
        "CLAUDE.md",
        "modified",
        1,
        None,
    )
    assert main(["revert", "CLAUDE.md", "--hunk", "1", "--root", str(root)]) == 0
    assert (root / "CLAUDE.md").read_text() == TEXT
    assert main(["undo", "--root", str(root)]) == 0
    assert main(["keep", "--all", "--root", str(root)]) == 0
    capsys.readouterr()
    assert main(["changes", "--root", str(root)]) == 0
    assert capsys.readouterr().out == "no changes since your last review\n"
    assert main(["revert", "CLAUDE.md", "--root", str(root)]) == 1
    assert "CLAUDE.md: no change to review" in capsys.readouterr().err


def test_keep_and_revert_are_refused_inside_an_agents_session(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _root(tmp_path)
    assert main(["changes", "--root", str(root)]) == 0
    (root / "CLAUDE.md").write_text(TEXT + "- two\n")
    monkeypatch.setenv("CLAUDECODE", "1")
    index = (root / ".hurikaeri" / "reviewed" / "index.json").read_bytes()
    for args in (["keep", "--all"], ["revert", "CLAUDE.md"]):
        assert main([*args, "--root", str(root)]) == 1
        assert "refused: this runs inside an agent's session" in capsys.readouterr().err
    assert (root / "CLAUDE.md").read_text() == TEXT + "- two\n"
    assert (root / ".hurikaeri" / "reviewed" / "index.json").read_bytes() == index
    assert main(["changes", "--root", str(root)]) == 0  # agents may look
    assert "CLAUDE.md  modified +1 −0  unknown" in capsys.readouterr().out


def test_keep_edit_and_from_write_the_edit_as_reviewed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _root(tmp_path)
    claude, index = root / "CLAUDE.md", root / ".hurikaeri" / "reviewed" / "index.json"
    assert main(["changes", "--root", str(root)]) == 0
    claude.write_text(TEXT + "- two\n- a typo hre\n")
    before = index.read_bytes()
    editor = tmp_path / "editor.py"
    editor.write_text(
        "import sys, pathlib\np = pathlib.Path(sys.argv[1])\n"
        "p.write_text(p.read_text().replace('hre', 'here'))\n"
    )
    monkeypatch.setenv("EDITOR", f"{sys.executable} {editor}")
    monkeypatch.delenv("VISUAL", raising=False)
    assert main(["keep", "CLAUDE.md", "--edit", "--root", str(root)]) == 0
    assert "wrote and kept CLAUDE.md as reviewed" in capsys.readouterr().out
    assert claude.read_text() == TEXT + "- two\n- a typo here\n"
    assert main(["changes", "--root", str(root)]) == 0
    assert capsys.readouterr().out == "no changes since your last review\n"
    assert main(["undo", "--root", str(root)]) == 0
    assert claude.read_text() == TEXT + "- two\n- a typo hre\n"
    assert index.read_bytes() == before
    mine = tmp_path / "mine.md"
    mine.write_text(TEXT + "- two\n")
    assert main(["keep", "CLAUDE.md", "--from", str(mine), "--root", str(root)]) == 0
    assert claude.read_bytes() == mine.read_bytes()
    assert main(["keep", "--all", "--edit", "--root", str(root)]) == 2


def test_keep_edit_is_refused_inside_an_agents_session(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _root(tmp_path)
    assert main(["changes", "--root", str(root)]) == 0
    (root / "CLAUDE.md").write_text(TEXT + "- two\n")
    index = (root / ".hurikaeri" / "reviewed" / "index.json").read_bytes()
    mine = tmp_path / "mine.md"
    mine.write_text("# Rules, as the agent wants them\n")
    monkeypatch.setenv("CLAUDECODE", "1")
    assert main(["keep", "CLAUDE.md", "--from", str(mine), "--root", str(root)]) == 1
    assert "keep refused: this runs inside an agent's session" in capsys.readouterr().err
    assert (root / "CLAUDE.md").read_text() == TEXT + "- two\n"
    assert (root / ".hurikaeri" / "reviewed" / "index.json").read_bytes() == index


@pytest.mark.parametrize("source", ["/dev/zero", "fifo", "dir"])
def test_keep_from_what_is_no_file_is_refused_at_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], source: str
) -> None:
    """``--from /dev/zero`` was read for ever (a FIFO waited on): refused as the import's
    input is, naming it, nothing written."""
    root = _root(tmp_path)
    assert main(["changes", "--root", str(root)]) == 0
    (root / "CLAUDE.md").write_text(TEXT + "- two\n")
    if source == "fifo":
        os.mkfifo(tmp_path / "fifo")
    elif source == "dir":
        (tmp_path / "dir").mkdir()
    path = source if source.startswith("/") else str(tmp_path / source)
    capsys.readouterr()
    assert main(["keep", "CLAUDE.md", "--from", path, "--root", str(root)]) == 1
    err = capsys.readouterr().err
    assert path in err and len(err.strip().splitlines()) == 1, err
    assert (root / "CLAUDE.md").read_text() == TEXT + "- two\n"
