"""A git commit as a change's source (issue #45): a ``git pull`` bringing a teammate's
CLAUDE.md is attributed to their commit (hash, subject, author, time) in the listing and in
``--json``; a hand edit in no commit, and an older version checked out again, are not; no git
at all is no attribution and no error; a tool call that wrote the file by content still comes
first."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from store.config import Config
from store.insight.change_git import Commit
from store.review.changes import keep, list_changes
from store.workspace import Workspace
from tests.transcript_lines import TranscriptWriter

TEXT = "# Rules\n- one\n"
PULLED = TEXT + "- always run the linter first\n"


def _git(cwd: Path, *args: str) -> str:
    who = ["-c", "user.name=Teammate", "-c", "user.email=t@example.org"]
    done = subprocess.run(
        ["git", *who, "-c", "commit.gpgsign=false", "-c", "init.defaultBranch=main", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip()


def _pulled(tmp_path: Path) -> tuple[Workspace, Path]:
    """A clone whose reviewed state is taken, then a teammate's commit pulled into it."""
    upstream = tmp_path / "upstream"
    upstream.mkdir()
    _git(upstream, "init", "-q")
    (upstream / "CLAUDE.md").write_text(TEXT)
    _git(upstream, "add", "CLAUDE.md")
    _git(upstream, "commit", "-qm", "rules: start")
    root = tmp_path / "claude"
    _git(tmp_path, "clone", "-q", str(upstream), str(root))
    ws = Workspace(root, Config())
    assert list_changes(ws)[1] == 1  # the first start
    (upstream / "CLAUDE.md").write_text(PULLED)
    _git(upstream, "commit", "-qam", "rules: always run the linter")
    _git(root, "pull", "-q", "--ff-only")
    return ws, upstream


def test_a_pulled_change_is_attributed_to_its_commit(tmp_path: Path) -> None:
    ws, upstream = _pulled(tmp_path)
    [ch] = list_changes(ws)[0]
    assert isinstance(ch.source, Commit)
    full, short = (
        _git(upstream, "rev-parse", "HEAD"),
        _git(upstream, "rev-parse", "--short", "HEAD"),
    )
    assert (ch.source.commit, ch.source.short) == (full, short)
    assert ch.summary() == (
        f"CLAUDE.md  modified +1 −0  commit {short}, Teammate: rules: always run the linter"
    )
    source = ch.as_json()["source"]
    assert source["how"] == "git" and source["subject"] == "rules: always run the linter"
    assert source["author"] == "Teammate" and source["at"] == _git(
        upstream, "log", "-1", "--format=%aI"
    )


def test_a_hand_edit_in_no_commit_is_not_attributed_to_git(tmp_path: Path) -> None:
    ws, _ = _pulled(tmp_path)
    (ws.root / "CLAUDE.md").write_text(PULLED + "- my own line\n")
    [ch] = list_changes(ws)[0]
    assert ch.source is None


def test_an_older_version_checked_out_again_is_not_attributed(tmp_path: Path) -> None:
    ws, _ = _pulled(tmp_path)
    root = ws.root
    assert list_changes(ws)[0][0].current == PULLED.encode()
    keep(ws, list_changes(ws)[0])  # the pulled rules reviewed
    _git(root, "checkout", "HEAD~1", "--", "CLAUDE.md")  # the commit is older than them
    [ch] = list_changes(ws)[0]
    assert ch.current == TEXT.encode() and ch.source is None


def test_no_git_is_no_attribution(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ws, _ = _pulled(tmp_path)
    monkeypatch.setenv("PATH", str(tmp_path / "nowhere"))
    [ch] = list_changes(ws)[0]
    assert ch.source is None


def test_a_tool_call_by_content_comes_before_the_commit(tmp_path: Path) -> None:
    ws, _ = _pulled(tmp_path)
    w = TranscriptWriter()
    edit = {"file_path": "CLAUDE.md", "old_string": "- one\n", "new_string": PULLED[8:]}
    w.user("add it").assistant("Editing.", [("Edit", edit, "ok", False)])
    w.lines = [line.replace("/home/me/app", str(ws.root)) for line in w.lines]
    w.write(ws.root, "-home-me-app")
    [ch] = list_changes(ws)[0]
    assert ch.source is not None and (ch.source.how, ch.source.tool) == ("content", "Edit")


def test_a_file_a_pulled_commit_deleted_is_attributed_to_it(tmp_path: Path) -> None:
    ws, upstream = _pulled(tmp_path)
    (upstream / "rules").mkdir()
    (upstream / "rules" / "old.md").write_text("- an old rule\n")
    _git(upstream, "add", "rules")
    _git(upstream, "commit", "-qm", "rules: an old one")
    _git(ws.root, "pull", "-q", "--ff-only")
    keep(ws, list_changes(ws)[0])  # both files reviewed
    _git(upstream, "rm", "-q", "rules/old.md")
    _git(upstream, "commit", "-qm", "rules: drop the old one")
    _git(ws.root, "pull", "-q", "--ff-only")
    [ch] = list_changes(ws)[0]
    assert ch.status == "deleted" and isinstance(ch.source, Commit)
    assert ch.source.subject == "rules: drop the old one"


def test_a_folder_named_in_bytes_not_utf8_is_attributed_and_the_author_shown(
    tmp_path: Path,
) -> None:
    """git's paths are kept byte for byte (a ``replace`` decoding loses the work tree); the
    commit's author and subject are shown text (bytes not UTF-8 become U+FFFD)."""
    base = tmp_path / os.fsdecode(b"d\xe9p\xf4t")
    base.mkdir()
    ws, upstream = _pulled(base)
    (upstream / "CLAUDE.md").write_text(PULLED + "- one more\n")
    _git(upstream, "add", "CLAUDE.md")
    tree, head = _git(upstream, "write-tree"), _git(upstream, "rev-parse", "HEAD")
    who = b"Ren\xe9 <r@example.org> 1893456000 +0000"  # git commit would make it UTF-8
    raw = b"tree %s\nparent %s\nauthor %s\ncommitter %s\n\nmore\n" % (
        tree.encode(),
        head.encode(),
        who,
        who,
    )
    made = subprocess.run(
        ["git", "hash-object", "-t", "commit", "-w", "--stdin"],
        cwd=upstream,
        input=raw,
        capture_output=True,
        check=True,
    )
    _git(upstream, "reset", "-q", "--hard", made.stdout.decode().strip())
    _git(ws.root, "pull", "-q", "--ff-only")
    [ch] = list_changes(ws)[0]
    assert isinstance(ch.source, Commit) and ch.source.author == "Ren\ufffd"
