"""Older ledgers (one line per decision, ``undo`` lines) migrated to transactions once:
every item folds as before, nothing is lost, a second run changes nothing, this machine's
lines stay this machine's, and a migration killed part way leaves the file as it was."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from store import machine_key
from store.ledger import Ledger, migrate, now_iso
from store.ledger.entry import TX_OPS
from store.read.jsonl import encode_record
from store.tx.transactions import history
from store.workspace import Workspace
from tests.ledger_lines import decide

FIXTURE = Path(__file__).parent.parent / "fixtures" / "older-ledger"


def _older(root: Path, *, signed: bool = False) -> Path:
    """A workspace under ``root`` whose ledger is the older-style fixture (its lines
    signed by this machine, or as shipped: unsigned); the ledger file."""
    state = root / ".hurikaeri"
    state.mkdir(parents=True)
    path = state / "ledger.jsonl"
    if not signed:
        shutil.copyfile(FIXTURE / "ledger.jsonl", path)
        return path
    out = []
    for raw in (FIXTURE / "ledger.jsonl").read_bytes().splitlines(keepends=True):
        try:
            rec = json.loads(raw)
        except ValueError:
            out.append(raw)
            continue
        out.append(encode_record({**rec, "sig": machine_key.sign(state, rec)}))
    path.write_bytes(b"".join(out))
    return path


def _states(led: Ledger) -> dict[str, Any]:
    return {
        k: {
            "state": st.state,
            "note": st.note,
            "edited": st.edited,
            "archived": st.archived,
            "promoted": [sorted(p) for p in st.promoted],
        }
        for k, st in sorted(led.states.items())
    }


def _lines(path: Path) -> list[Any]:
    out = []
    for raw in path.read_bytes().splitlines():
        try:
            out.append(json.loads(raw))
        except ValueError:
            out.append(raw)
    return out


def test_an_older_ledger_is_migrated_once_and_folds_as_before(tmp_path: Path) -> None:
    path = _older(tmp_path)
    original = path.read_bytes()
    led = Ledger(path.parent, who="me@example.com")
    assert _states(led) == json.loads((FIXTURE / "states.json").read_text("utf-8"))
    lines = _lines(path)
    records = [r for r in lines if isinstance(r, dict)]
    assert records and all(r["op"] in TX_OPS for r in records)  # one line format
    assert b"not a json line, kept as it is" in lines  # a broken line stays, in its place
    # nothing lost: the lines as they were are kept beside it, byte for byte
    assert (path.parent / "ledger.jsonl.older").read_bytes() == original
    # every older line's batch (or its own id) names a transaction now
    older = [json.loads(r) for r in original.splitlines() if r.startswith(b"{")]
    groups = {str(r.get("batch") or r["id"]) for r in older if r["op"] not in TX_OPS}
    undos = {r["id"] for r in older if r["op"] == "undo"}
    assert groups - undos <= led.txs.keys()
    # a second migration changes nothing; reading it again neither
    migrated = path.read_bytes()
    assert migrate.migrate_file(path, path.parent, lambda _real: None) == 0
    assert _states(Ledger(path.parent, who="me@example.com")) == _states(led)
    assert path.read_bytes() == migrated


def test_lines_signed_here_are_signed_again_and_others_stay_unsigned(tmp_path: Path) -> None:
    ours = _older(tmp_path / "ours", signed=True)
    led = Ledger(ours.parent)
    assert led.entries and all(led.authentic(e) for e in led.entries)
    promote = next(v for v in history(Workspace(tmp_path / "ours")) if v.id == "9bfee027583a")
    assert promote.trusted  # this machine's promotion: still undone and redone by it
    plain = _older(tmp_path / "plain")
    led = Ledger(plain.parent)
    assert not any(e.sig for e in led.entries if e.tx != "tx0000000001")
    # one line of a batch not signed here: the transaction made of it is not ours
    mixed = _older(tmp_path / "mixed", signed=True)
    text = mixed.read_text("utf-8").splitlines(keepends=True)
    (i,) = [i for i, t in enumerate(text) if '"id": "0a1b2c3d4e02"' in t]
    rec = json.loads(text[i])
    rec["sig"] = "0" * 64
    text[i] = json.dumps(rec, ensure_ascii=False) + "\n"
    mixed.write_text("".join(text), "utf-8")
    led = Ledger(mixed.parent)
    assert led.txs["bb0000000001"].begin.sig is None
    assert not led.is_ours(led.txs["bb0000000001"])


@pytest.mark.parametrize("where", ["keeping the copy", "replacing the file"])
def test_a_migration_killed_part_way_leaves_the_file_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    path = _older(tmp_path)
    original = path.read_bytes()

    def killed(*_a: object, **_k: object) -> None:
        raise SystemExit("killed")

    with monkeypatch.context() as m:
        m.setattr(
            migrate, "replace_file" if where == "keeping the copy" else "atomic_write", killed
        )
        with pytest.raises(SystemExit):
            Ledger(path.parent)
    assert path.read_bytes() == original
    assert not [p for p in path.parent.iterdir() if p.name.startswith((".", "tmp"))]
    led = Ledger(path.parent, who="me@example.com")  # the next start migrates it
    assert _states(led) == json.loads((FIXTURE / "states.json").read_text("utf-8"))
    assert all(r["op"] in TX_OPS for r in _lines(path) if isinstance(r, dict))


def test_a_line_appended_while_it_is_migrated_is_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _older(tmp_path)
    keep = migrate.replace_file
    late = {"id": "late00000001", "at": "2026-11-13T09:00:00+09:00", "op": "approve"}
    late["target"] = "kpt-20261106-001/keep-002"
    appended: list[bool] = []

    def copy_then_append(target: Path, chunks: list[bytes]) -> None:
        keep(target, chunks)
        if not appended:  # another process appends after the file was read
            appended.append(True)
            with open(path, "a", encoding="utf-8") as fh:
                fh.write(json.dumps(late) + "\n")

    monkeypatch.setattr(migrate, "replace_file", copy_then_append)
    led = Ledger(path.parent)
    assert appended and led.state("kpt-20261106-001/keep-002").state == "approved"
    assert "late00000001" in led.txs
    assert all(r["op"] in TX_OPS for r in _lines(path) if isinstance(r, dict))


def test_another_reviewers_older_file_is_read_as_transactions_not_rewritten(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HURIKAERI_REVIEWER", "me@example.com")
    state = tmp_path / ".hurikaeri"
    team_dir = state / "ledger"
    team_dir.mkdir(parents=True)
    theirs = team_dir / "bob@example.com.jsonl"
    shutil.copyfile(FIXTURE / "ledger.jsonl", theirs)
    before = theirs.read_bytes()
    led = Ledger(state)
    assert theirs.read_bytes() == before  # theirs to rewrite, never ours
    assert led.state("kpt-20261106-001/keep-001").state == "rejected"
    assert led.state("lesson:L-0001").archived


def test_a_ledger_read_before_another_process_migrated_it_reads_it_anew(tmp_path: Path) -> None:
    """The app reads the ledger; a command run beside it migrates the file (a new, longer
    file in its place): the app reads the new file from its start, not from where it was."""
    ws = Workspace(tmp_path)
    ws.state_dir.mkdir()
    path = ws.state_dir / "ledger.jsonl"
    app = Ledger(ws.state_dir)
    decide(app, "kpt-20261106-001/keep-001", "approve")
    with open(path, "a", encoding="utf-8") as fh:  # an older version's line, then ours
        fh.write(json.dumps({"id": "o1", "at": now_iso(), "op": "reject", "target": "k/1"}))
        fh.write("\n")
    app.refresh()
    assert Ledger(ws.state_dir).state("k/1").state == "rejected"  # migrated it
    decide(Ledger(ws.state_dir), "k/2", "approve")
    app.refresh()
    assert not app.diagnostics
    assert (app.state("k/1").state, app.state("k/2").state) == ("rejected", "approved")
    assert _states(app) == _states(Ledger(ws.state_dir))
