"""The ledger is a record, not a command (issue 40): lines and kept copies an agent (or a
teammate, through git) writes into the workspace never make recovery, undo or redo write.
Only this reviewer's own transactions, signed on this machine, whose files and kept copies
match the hashes they recorded, and whose action may still write there, are acted on."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from store import machine_key
from store.ledger import Ledger
from store.tx.transactions import (
    UndoRefused,
    history,
    not_ours,
    recover,
    redo,
    undo,
    undo_last,
)
from store.workspace import Workspace
from store.write.atomic import PathRefused
from tests.ledger_forge import commit_of, ours, replace_tx, sha, undo_of, write_lines
from tests.ledger_lines import decide

REPO = Path(__file__).resolve().parents[2]

#: Files agents and people keep, each of which a forged line tried to rewrite or delete.
VICTIMS = [
    "CLAUDE.md",
    "knowledge_base/global/skills/redis_rate_limiting.yaml",
    "hurikaeri/kpt-20261028-001.yaml",
    "lessons/user/lessons.jsonl",
    "session-summaries/d--unity-pixel-courier/summaries.jsonl",
    "knowledge_base/inbox/prop-20261031-001.yaml",
    "feedback/fb-20261105-001.yaml",
    "skills/architecture/SKILL.md",
]


@pytest.fixture
def ws(demo_root: Path) -> Workspace:
    return Workspace(demo_root)


def files(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".hurikaeri" not in p.parts
    }


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    """A command in its own process (it must end by itself: a FIFO hung them all)."""
    return subprocess.run(
        [sys.executable, "-m", "tui", *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        check=False,
    )


# -- 1: a forged unfinished transaction is never "recovered" ---------------------------


@pytest.mark.parametrize("rel", VICTIMS[:3])
@pytest.mark.parametrize("sig", [None, "forged", "copied"])
def test_a_forged_unfinished_transaction_rewrites_nothing(
    ws: Workspace, rel: str, sig: str | None
) -> None:
    victim = ws.root / rel
    now = victim.read_bytes()
    mine = b"# the forger's text\n"
    if sig == "copied":  # the signature of a real line of ours, on the forged one
        decide(Ledger(ws.state_dir), "kpt-20261028-001/keep-001", "reject")
        last = (ws.state_dir / "ledger.jsonl").read_text("utf-8").splitlines()[-1]
        sig = json.loads(last)["sig"]
    # the line says the file was ``mine`` and the transaction left it as it is now
    begin = replace_tx(ws.state_dir, "f0f0f0f0f0f0", rel, mine, now, sig=sig)
    write_lines(ws.state_dir / "ledger.jsonl", begin)
    before = files(ws.root)
    assert recover(ws) == []
    assert files(ws.root) == before
    (v,) = [v for v in history(ws) if v.id == "f0f0f0f0f0f0"]
    assert not v.trusted and "not ours — not acted on" in v.reason
    (d,) = [d for d in not_ours(ws) if "unfinished" in d.message]
    assert d.code == "ledger-not-ours" and "f0f0f0f0f0f0" in d.message


@pytest.mark.slow
def test_plain_reads_and_writes_roll_back_no_forged_transaction(ws: Workspace) -> None:
    """Opening the index, stats, lint and a decision all recover first: none acts on it."""
    claude = ws.root / "CLAUDE.md"
    begin = replace_tx(ws.state_dir, "f1f1f1f1f1f1", "CLAUDE.md", b"forged\n", claude.read_bytes())
    write_lines(ws.state_dir / "ledger.jsonl", begin)
    before = files(ws.root)
    for args in (["stats"], ["lint"], ["approve", "kpt-20261028-001/keep-001"]):
        out = cli(*args, "--root", str(ws.root))
        assert "Traceback" not in out.stderr
    assert files(ws.root) == before
    assert "ledger-not-ours" in cli("lint", "--root", str(ws.root)).stdout


def test_a_line_signed_on_another_machine_is_not_ours(
    ws: Workspace, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A teammate's line (their machine's key), pulled into the reviewer's own file."""
    claude = ws.root / "CLAUDE.md"
    rec = replace_tx(ws.state_dir, "f2f2f2f2f2f2", "CLAUDE.md", b"theirs\n", claude.read_bytes())
    rec.pop("sig")
    own_key = os.environ[machine_key.KEY_DIR_ENV]
    monkeypatch.setenv(machine_key.KEY_DIR_ENV, str(tmp_path / "teammate"))
    theirs = ours(ws.state_dir, rec)  # signed with the teammate's machine key
    monkeypatch.setenv(machine_key.KEY_DIR_ENV, own_key)
    write_lines(ws.state_dir / "ledger.jsonl", theirs)
    before = claude.read_bytes()
    assert recover(ws) == []
    assert claude.read_bytes() == before


def test_a_teammates_push_into_my_ledger_file_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Over a bare repository: bob commits a begin line (signed by his own hurikaeri, for
    his clone) and its kept copies into alice's ledger file; alice pulls and opens hers."""

    def git(cwd: Path, *args: str) -> None:
        out = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=False)
        assert out.returncode == 0, out.stderr

    monkeypatch.delenv("HURIKAERI_REVIEWER", raising=False)
    remote, seed = tmp_path / "remote.git", tmp_path / "seed"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(remote))
    git(tmp_path, "clone", "-q", str(remote), str(seed))
    (seed / "CLAUDE.md").write_text("# Project\n\n- be kind\n", encoding="utf-8")
    (seed / ".hurikaeri" / "ledger").mkdir(parents=True)
    (seed / ".hurikaeri" / "ledger" / "alice@example.com.jsonl").write_bytes(b"")
    ident = ["-c", "user.email=seed@x", "-c", "user.name=seed"]
    git(seed, "checkout", "-q", "-b", "main")
    git(seed, "add", ".")
    git(seed, *ident, "commit", "-qm", "workspace")
    git(seed, "push", "-q", "-u", "origin", "main")
    alice, bob = tmp_path / "alice", tmp_path / "bob"
    for c in (alice, bob):
        git(tmp_path, "clone", "-q", str(remote), str(c))
        git(c, "config", "user.email", f"{c.name}@example.com")
        git(c, "config", "user.name", c.name)
    now = (bob / "CLAUDE.md").read_bytes()
    rec = replace_tx(bob / ".hurikaeri", "f3f3f3f3f3f3", "CLAUDE.md", b"pwned\n", now, sig=None)
    rec["who"] = "alice@example.com"
    write_lines(bob / ".hurikaeri/ledger/alice@example.com.jsonl", ours(bob / ".hurikaeri", rec))
    git(bob, "add", "-f", ".hurikaeri")
    git(bob, "commit", "-qm", "ledger")
    git(bob, "push", "-q")
    git(alice, "pull", "-q")
    assert (alice / ".hurikaeri/backups/f3f3f3f3f3f3").is_dir()  # it all arrived
    mine = Workspace(alice)
    led = Ledger(mine.state_dir)
    assert led.who == "alice@example.com" and led.open_transactions()
    assert recover(mine, ledger=led) == []
    assert (alice / "CLAUDE.md").read_bytes() == now


# -- 2: undo of a forged committed transaction deletes and writes nothing --------------


@pytest.mark.parametrize("rel", VICTIMS)
@pytest.mark.parametrize("how", ["delete", "overwrite"])
def test_undo_of_a_forged_transaction_touches_nothing(ws: Workspace, rel: str, how: str) -> None:
    victim = ws.root / rel
    now = victim.read_bytes()
    before_side = None if how == "delete" else b"the forger's text\n"
    kind = {"hurikaeri": "person", "knowledge_base": "proposal"}.get(rel.split("/")[0], "wrapup")
    begin = replace_tx(ws.state_dir, "f4f4f4f4f4f4", rel, before_side, now, created_by=kind)
    write_lines(ws.state_dir / "ledger.jsonl", begin, commit_of(begin))
    before = files(ws.root)
    with pytest.raises(UndoRefused, match="not ours — not acted on"):
        undo(ws, "f4f4f4f4f4f4")
    assert undo_last(ws) is None  # never taken for the last change either
    assert files(ws.root) == before


# -- 3: redo of a forged transaction creates nothing -----------------------------------


@pytest.mark.parametrize(
    "rel",
    [
        *(
            f"knowledge_base/global/skills/{name}"
            for name in ("x.py", "run.sh", "s.json", "pyproject.toml", ".env", "Makefile", "a.js")
        ),
        "knowledge_base/inbox/prop-29990101-001.yaml",  # a new proposal
        "hurikaeri/kpt-29990101-001.yaml",  # a new report
    ],
)
def test_redo_of_a_forged_transaction_creates_nothing(ws: Workspace, rel: str) -> None:
    begin = replace_tx(ws.state_dir, "f5f5f5f5f5f5", rel, None, b"rm -rf ~\n", action="approve")
    write_lines(ws.state_dir / "ledger.jsonl", begin, commit_of(begin), undo_of(begin))
    before = files(ws.root)
    with pytest.raises(UndoRefused, match="not ours — not acted on"):
        redo(ws, "f5f5f5f5f5f5")
    with pytest.raises(UndoRefused, match="not ours — not acted on"):
        redo(ws, "f5f5f5f5f5f5u")  # naming the undo
    assert redo(ws) is None
    assert files(ws.root) == before


# -- (b) and (c): even our own line writes only what it recorded, where it may ---------


def test_an_own_transaction_whose_kept_copy_was_swapped_is_refused(ws: Workspace) -> None:
    from store.review.items import find_item
    from store.review.promote import plan_promotion, promote_plans

    done = promote_plans(ws, [plan_promotion(ws, find_item(ws, "kpt-20261028-001/try-001"))])
    assert done is not None
    claude = ws.root / "CLAUDE.md"
    (rec,) = Ledger(ws.state_dir).txs[done.id].files
    kept = ws.state_dir / rec["backup"]
    kept.write_bytes(b"# the agent's CLAUDE.md\n")  # the copy undo would restore
    after = claude.read_bytes()
    with pytest.raises(UndoRefused, match="backup"):
        undo(ws, done.id)
    assert claude.read_bytes() == after


def test_redo_of_an_append_whose_copy_was_swapped_is_refused(ws: Workspace) -> None:
    from store.review.wrapup import import_wrapup

    seed = (REPO / "tests/fixtures/seeds/wrapup-input-v1.4.json").read_text("utf-8")
    done = import_wrapup(ws, seed, source="test").tx
    assert done is not None
    undone = undo(ws, done.id)
    rec = next(f for f in Ledger(ws.state_dir).txs[done.id].files if f.get("how") == "append")
    copy = ws.state_dir / rec["written"]
    data = copy.read_bytes()
    copy.write_bytes(b"X" * (len(data) - 1) + b"\n")  # as long, other lines
    target = ws.root / rec["path"]
    now = target.read_bytes()
    with pytest.raises(UndoRefused, match="not what was recorded"):
        redo(ws, undone.undoes)
    assert target.read_bytes() == now


def test_an_own_line_leads_nowhere_its_action_does_not_write(ws: Workspace) -> None:
    """Signed by this machine, a lesson edit's record naming CLAUDE.md: refused (what an
    edit of a lesson may write is the lesson files)."""
    claude = ws.root / "CLAUDE.md"
    now = claude.read_bytes()
    begin = replace_tx(
        ws.state_dir, "f6f6f6f6f6f6", "CLAUDE.md", b"x\n", now, action="edit-lesson", sig=None
    )
    write_lines(ws.state_dir / "ledger.jsonl", ours(ws.state_dir, begin))
    write_lines(ws.state_dir / "ledger.jsonl", ours(ws.state_dir, commit_of(begin, sig=None)))
    with pytest.raises(UndoRefused, match="what edit-lesson may write"):
        undo(ws, "f6f6f6f6f6f6")
    assert claude.read_bytes() == now


# -- lines written before lines were signed --------------------------------------------


def test_an_unsigned_line_of_before_is_shown_and_never_acted_on(ws: Workspace) -> None:
    """The demo's ledger was written before signing: its promote of CLAUDE.md folds
    (review state), shows as not ours, and is never undone."""
    (v,) = [v for v in history(ws) if v.id == "9bfee027583a"]
    assert not v.trusted and not v.undoable
    claude = ws.root / "CLAUDE.md"
    now = claude.read_bytes()
    with pytest.raises(UndoRefused, match="not ours"):
        undo(ws, "9bfee027583a")
    assert claude.read_bytes() == now
    assert Ledger(ws.state_dir).state("kpt-20261110-002/try-001").promoted


# -- 4: the ledger's directories are real ones, inside the workspace -------------------


@pytest.mark.parametrize("linked", [".hurikaeri/ledger", ".hurikaeri"])
def test_a_linked_ledger_directory_is_refused(ws: Workspace, tmp_path: Path, linked: str) -> None:
    outside = tmp_path / "outside"
    link = ws.root / linked
    if linked == ".hurikaeri":
        os.rename(link, outside)
    else:
        outside.mkdir()
    link.symlink_to(outside, target_is_directory=True)
    before = sorted(p.name for p in outside.rglob("*"))
    out = cli("approve", "kpt-20261028-001/keep-001", "--root", str(ws.root))
    assert out.returncode == 1 and "Traceback" not in out.stderr
    (line,) = out.stderr.splitlines()
    assert "is a link" in line and str(link) in line
    assert sorted(p.name for p in outside.rglob("*")) == before
    with pytest.raises(PathRefused, match="is a link"):
        Ledger(ws.state_dir)


# -- 9: a FIFO in place of the ledger hangs nothing ------------------------------------


@pytest.mark.slow
def test_a_fifo_in_place_of_the_ledger_is_refused(ws: Workspace) -> None:
    ledger = ws.state_dir / "ledger.jsonl"
    ledger.unlink()
    os.mkfifo(ledger)
    for args in (["stats"], ["lint"], ["history"], ["undo"]):
        out = cli(*args, "--root", str(ws.root))  # returns: nothing waits on the FIFO
        assert "Traceback" not in out.stderr
        last = out.stderr.strip().splitlines()[-1]
        assert "not a regular file" in last and str(ledger) in last, out.stderr
    with pytest.raises(PathRefused, match="not a regular file"):
        Ledger(ws.state_dir)


def test_a_valid_signature_is_tied_to_the_line(ws: Workspace) -> None:
    """Our own lines verify as read back; changing any field (a file's hash) breaks it."""
    decide(Ledger(ws.state_dir), "kpt-20261028-001/keep-001", "reject")
    led = Ledger(ws.state_dir)
    mine = [e for e in led.entries if e.sig is not None]
    assert mine and all(led.authentic(e) for e in mine)
    rec = json.loads((ws.state_dir / "ledger.jsonl").read_text("utf-8").splitlines()[-1])
    rec["note"] = "changed"
    assert not machine_key.verify(ws.state_dir, rec, rec["sig"])
    assert sha(b"") != rec["sig"]


def test_a_key_kept_inside_the_workspace_authenticates_nothing(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Agents read the workspace: a key there could sign their lines. Nothing is signed,
    so nothing is acted on, and the refusal says why."""
    monkeypatch.setenv(machine_key.KEY_DIR_ENV, str(ws.root / "keys"))
    done = decide(Ledger(ws.state_dir), "kpt-20261028-001/keep-001", "reject")
    assert done and Ledger(ws.state_dir).entries[-1].sig is None
    with pytest.raises(UndoRefused, match="lies inside the workspace"):
        undo(ws, done)


@pytest.mark.parametrize("sig", [["a", "list"], {"an": "object"}, 7, True, ""])
def test_a_signature_of_another_type_is_not_ours_and_breaks_nothing(
    ws: Workspace, sig: object
) -> None:
    claude = ws.root / "CLAUDE.md"
    now = claude.read_bytes()
    begin = replace_tx(ws.state_dir, "f7f7f7f7f7f7", "CLAUDE.md", b"x\n", now, sig=None)
    write_lines(ws.state_dir / "ledger.jsonl", {**begin, "sig": sig})
    assert recover(ws) == []
    (v,) = [v for v in history(ws) if v.id == "f7f7f7f7f7f7"]
    assert not v.trusted
    assert claude.read_bytes() == now


def test_an_own_lesson_edit_whose_anchor_copy_was_swapped_is_refused(ws: Workspace) -> None:
    """A record is put back after the line kept as its anchor: that copy is checked too."""
    from store.review.lessons import edit_lesson_tx, find_lesson

    path = ws.loc("lessons_ai")
    done = edit_lesson_tx(ws, find_lesson(path, "ll-ai-20261028-002"), {"title": "edited"})
    assert done is not None
    (rec,) = Ledger(ws.state_dir).txs[done.id].files
    assert rec.get("anchor") and rec.get("anchor_sha256")
    (ws.state_dir / rec["anchor"]).write_bytes(b'{"id": "elsewhere"}\n')
    now = path.read_bytes()
    with pytest.raises(UndoRefused, match="backups"):
        undo(ws, done.id)
    assert path.read_bytes() == now


def test_a_forged_redo_file_beside_a_file_writes_nothing(ws: Workspace) -> None:
    """An in-place rewrite a killed process left half done is finished from its redo file
    (``.hurikaeri-redo-<name>``, beside the file) when the workspace is opened: a redo
    file an agent wrote there, with the right offset, hash, device and inode, is not ours."""
    import hashlib

    from store.index.workspace_index import WorkspaceIndex
    from store.write.jsonl_edit import REDO_PREFIX, finish_interrupted_rewrites

    for rel in ("CLAUDE.md", "lessons/user/lessons.jsonl"):
        target = ws.root / rel
        now = target.read_bytes()
        st = target.stat()
        payload = b"# pwned\n"
        header = {
            "offset": 0,
            "length": len(payload),
            "sha256": hashlib.sha256(payload).hexdigest(),
            "dev": st.st_dev,
            "ino": st.st_ino,
        }
        redo = target.with_name(REDO_PREFIX + target.name)
        redo.write_bytes(json.dumps(header).encode() + b"\n" + payload)
        assert finish_interrupted_rewrites([target.parent]) == []
        WorkspaceIndex(ws).load_all()
        assert target.read_bytes() == now


@pytest.mark.parametrize("how", ["replace", "append", "truncate"])
@pytest.mark.parametrize("size", ["6", 6.0, [6], {"n": 6}])
def test_a_teammates_line_with_odd_sizes_is_shown_not_a_crash(
    tmp_path: Path, how: str, size: object
) -> None:
    """A teammate's ledger (pushed through git) is not ours to trust: a file record whose
    size is no whole number leaves the history listable, its transaction shown."""
    (tmp_path / "hurikaeri").mkdir()
    ws = Workspace(tmp_path)
    (ws.state_dir / "ledger").mkdir(parents=True)
    (tmp_path / "CLAUDE.md").write_bytes(b"after\n")
    rec = replace_tx(ws.state_dir, "f5f5f5f5f5f5", "CLAUDE.md", b"before\n", b"after\n", sig=None)
    rec["files"][0] |= {"how": how, "after_size": size, "before_size": size}
    write_lines(ws.state_dir / "ledger" / "bob@example.com.jsonl", rec, commit_of(rec, sig=None))
    [view] = history(ws)
    assert view.id == "f5f5f5f5f5f5" and view.files[0].path == "CLAUDE.md"
