"""The ledger's fold kept between processes (``store.ledger.snapshot``, issue 47): a start
reads only what was appended since, and sees exactly what a full replay of every line
shows, whatever happened to the files in between; a kept fold that is half written,
forged, or another workspace's, version's or key's is never trusted."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import store
import store.ledger.ledger as ledger_module
import store.ledger.snapshot as snapshot
from store.config import Config
from store.ledger import Ledger
from store.ledger.state import ItemState
from store.tx.transactions import history, next_turn, undo
from store.workspace import Workspace
from tests.ledger_forge import ours

ME = "me@example.com"
KEYS = [f"kpt-20260101-00{r}/try-00{i}" for r in (1, 2) for i in (1, 2, 3)]
OPS = ["approve", "reject", "reopen", "edit", "archive", "restore", "promote"]
REPO = Path(__file__).resolve().parents[2]
#: the kept fold's file (``store.ledger.snapshot.NAME``)
NAME = "ledger-cache-v1.json"


@pytest.fixture(autouse=True)
def _keep_small(monkeypatch: pytest.MonkeyPatch) -> None:
    """A fold is kept after any read (the ledgers here are small)."""
    monkeypatch.setattr(ledger_module, "KEEP_BYTES", 1, raising=False)


def _at(minute: int) -> str:
    return f"2026-01-01T10:{minute:02d}:00+00:00"


def _commit(
    tx: str, minute: int, action: str, target: str, who: str, **extra: Any
) -> dict[str, Any]:
    effects = [] if action in ("undo", "redo") else [{"op": action, "target": target}]
    if action == "promote":  # a file written
        extra.setdefault("files", [{"path": f"{target[-3:]}/CLAUDE.md", "how": "append"}])
    return {
        "id": tx,
        "at": _at(minute),
        "op": "commit",
        "target": target,
        "tx": tx,
        "action": action,
        "who": who,
        "subjects": [target],
        "effects": effects,
        **extra,
    }


# one step of a ledger: (kind, file, minute, op, key, ref)
_step = st.tuples(
    st.sampled_from(["commit", "commit", "commit", "begin", "end", "undo", "redo", "older"]),
    st.sampled_from(["ledger.jsonl", f"ledger/{ME}.jsonl", "ledger/bob.jsonl"]),
    st.integers(0, 59),
    st.sampled_from(OPS),
    st.sampled_from(KEYS),
    st.integers(0, 15),
)


def _lines(state_dir: Path, steps: list[tuple[Any, ...]], start: int, team: bool) -> dict[str, str]:
    """The lines of ``steps`` by file (ids numbered from ``start``), signed when ours."""
    out: dict[str, str] = {}
    for n, (kind, name, minute, op, key, ref) in enumerate(steps, start):
        if not team:
            name = "ledger.jsonl"
        elif name == "ledger.jsonl" and kind == "older":
            name = "ledger/bob.jsonl"
        who = "bob" if name.endswith("bob.jsonl") else ME
        tx, other = f"t{n:04d}", f"t{ref:04d}"
        if kind == "commit":
            rec = _commit(tx, minute, op, key, who)
        elif kind == "begin":
            rec = {**_commit(tx, minute, op, key, who), "op": "begin"}
        elif kind == "end":  # the commit (or abort) of a transaction begun before
            what = "abort" if ref % 3 == 0 else "commit"
            rec = {"id": f"e{n:04d}", "at": _at(minute), "op": what, "target": key, "tx": other}
        elif kind == "undo":
            rec = {**_commit(tx, minute, "undo", key, who), "undoes": other}
        elif kind == "redo":
            rec = _commit(tx, minute, "redo", key, who, redoes=other)
        else:  # a line written before transactions
            rec = {"id": tx, "at": _at(minute), "op": op, "target": key, "who": who}
        if who == ME and ref % 2:
            rec = ours(state_dir, rec)
        out[name] = out.get(name, "") + json.dumps(rec) + "\n"
    return out


def _write(state_dir: Path, lines: dict[str, str]) -> None:
    for name, text in lines.items():
        path = state_dir / name
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(text)


def _seen(ws: Workspace, led: Ledger, known: set[str]) -> list[Any]:
    """What callers read of ``led``: what a kept fold answers first, then the lines."""
    out: list[Any] = [
        list(led.states.items()),
        [led.state(k) for k in KEYS],
        sorted(led.undone),
        sorted((t.id, t.status) for t in led.open_transactions()),
        sorted(led.tx_ids()),
        led.written(),
        led.news(known),
        [[(e.id, e.target, e.op, e.at, e.src) for e in led.effects(t)] for t in sorted(known)],
    ]
    out += [
        [(e, e.src, e.tx, e.group) for e in led.entries],
        [(e, e.src, e.tx) for e in led.folded],
        [(t.id, t.status, t.seq, t.src, t.data) for t in led.txs.values()],
        history(ws, ledger=led),
        next_turn(ws, ledger=led),
        next_turn(ws, redo=True, ledger=led),
        [led.state_without(k, "t0003") for k in KEYS],
    ]
    return out


def _flip(path: Path, at: float, *, replace: bool) -> None:
    """Change one byte in the middle of ``path`` (``replace``: in another file of the same
    size, put in its place)."""
    data = bytearray(path.read_bytes())
    if not data:
        return
    i = int(at * (len(data) - 1))
    data[i] = ord("x") if data[i] != ord("x") else ord("y")
    if replace:
        tmp = path.with_name(path.name + ".new")
        tmp.write_bytes(bytes(data))
        os.replace(tmp, path)
    else:
        with open(path, "r+b") as fh:
            fh.seek(i)
            fh.write(bytes(data[i : i + 1]))


_CHANGES = ["append", "truncate", "same size", "flip", "torn", "remove", "join", "leave"]


@settings(
    max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@example(  # a transaction begun before the kept fold, committed after it
    False,
    [("commit", "", 1, "reject", KEYS[0], 0), ("begin", "", 2, "approve", KEYS[0], 1)],
    "append",
    0.5,
    0,
    [("end", "", 3, "approve", KEYS[0], 1)],
)
@example(  # an undo after the kept fold of a transaction before it
    True,
    [("commit", f"ledger/{ME}.jsonl", 1, o, KEYS[i], 0) for i, o in enumerate(OPS[:2])],
    "append",
    0.5,
    0,
    [("undo", f"ledger/{ME}.jsonl", 2, "approve", KEYS[0], 0)],
)
@example(  # a teammate's line of a time before the kept fold's last
    True,
    [("commit", f"ledger/{ME}.jsonl", 9, "approve", KEYS[0], 0)],
    "append",
    0.5,
    0,
    [("commit", "ledger/bob.jsonl", 2, "reject", KEYS[0], 0)],
)
@given(
    team=st.booleans(),
    before=st.lists(_step, min_size=1, max_size=14),
    change=st.sampled_from(_CHANGES),
    at=st.floats(0, 1),
    which=st.integers(0, 3),
    after=st.lists(_step, max_size=8),
)
def test_a_kept_fold_and_the_lines_after_it_show_what_a_full_replay_shows(
    team: bool,
    before: list[tuple[Any, ...]],
    change: str,
    at: float,
    which: int,
    after: list[tuple[Any, ...]],
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        ws = Workspace(Path(tmp) / "root", Config(reviewer=ME))
        sd = ws.state_dir
        (sd / "ledger" if team else sd).mkdir(parents=True)
        _write(sd, _lines(sd, before, 0, team))
        first = Ledger(sd, who=ME)  # reads every line, and keeps its fold
        known = first.tx_ids()
        files = sorted(p for p in [sd / "ledger.jsonl", *sd.glob("ledger/*.jsonl")] if p.exists())
        path = files[which % len(files)] if files else None
        if change == "truncate" and path is not None:
            os.truncate(path, int(path.stat().st_size * at))
        elif change in ("same size", "flip") and path is not None:
            _flip(path, at, replace=change == "same size")
        elif change == "torn" and path is not None:
            with open(path, "a") as fh:
                fh.write('{"id": "torn", "at": "')
        elif change == "remove" and path is not None:
            path.unlink()
        elif change == "join":
            (sd / "ledger").mkdir(exist_ok=True)
        elif change == "leave":
            shutil.rmtree(sd / "ledger", ignore_errors=True)
        _write(sd, _lines(sd, after, 100, team and change != "leave"))

        got = _seen(ws, Ledger(sd, who=ME), known)
        (sd / NAME).unlink(missing_ok=True)  # what every line, read again, gives
        assert got == _seen(ws, Ledger(sd, who=ME), known)


@pytest.fixture
def ws(tmp_path: Path) -> Workspace:
    w = Workspace(tmp_path / "root", Config(reviewer=ME))
    w.state_dir.mkdir(parents=True)
    steps = [("commit", "ledger.jsonl", m % 60, OPS[m % 3], KEYS[m % 6], m) for m in range(60)]
    _write(w.state_dir, _lines(w.state_dir, steps, 0, False))
    return w


@pytest.fixture
def parsed(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """How many ledger lines were parsed into entries."""
    calls = [0]
    real = ledger_module.entry_of

    def counting(*args: Any, **kwargs: Any) -> Any:
        calls[0] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(ledger_module, "entry_of", counting)
    yield calls


def _append(ws: Workspace, n: int, start: int = 500) -> None:
    steps = [("commit", "ledger.jsonl", 59, "approve", KEYS[i % 6], i) for i in range(n)]
    _write(ws.state_dir, _lines(ws.state_dir, steps, start, False))


def test_a_start_parses_only_the_lines_after_the_kept_fold(
    ws: Workspace, parsed: list[int]
) -> None:
    Ledger(ws.state_dir)
    assert parsed[0] == 60
    _append(ws, 2)
    parsed[0] = 0
    led = Ledger(ws.state_dir)
    assert parsed[0] == 2
    assert led.state(KEYS[0]).state == "approved"
    parsed[0] = 0
    assert len(led.entries) == 62  # the lines themselves, asked for: read whole
    assert parsed[0] == 62


@pytest.mark.parametrize("how", ["another workspace", "another version", "another key"])
def test_a_fold_kept_elsewhere_is_not_trusted(
    ws: Workspace,
    parsed: list[int],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    how: str,
) -> None:
    Ledger(ws.state_dir)
    parsed[0] = 0
    Ledger(ws.state_dir)
    assert parsed[0] == 0  # here, the kept fold holds
    sd = ws.state_dir
    if how == "another workspace":
        shutil.copytree(ws.root, tmp_path / "copy", symlinks=True)
        sd = tmp_path / "copy" / ".hurikaeri"
    elif how == "another version":
        monkeypatch.setattr(store, "__version__", "0.0.0-other")
    else:
        monkeypatch.setenv("HURIKAERI_KEY_DIR", str(tmp_path / "other-key"))
    parsed[0] = 0
    assert Ledger(sd).states == Ledger(sd).states
    assert parsed[0] >= 60  # the first read everything (the second, its own fold)


def test_a_fold_kept_by_format_1_is_replayed_once(
    ws: Workspace, parsed: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """An upgrade from the fold of a row per item: a full replay, then the new fold."""
    with monkeypatch.context() as m:
        m.setattr(snapshot, "VERSION", 1)
        Ledger(ws.state_dir)
    parsed[0] = 0
    got = list(Ledger(ws.state_dir).states.items())
    assert parsed[0] == 60
    parsed[0] = 0
    assert list(Ledger(ws.state_dir).states.items()) == got
    assert parsed[0] == 0


def test_a_decisions_note_is_kept_in_the_fold(ws: Workspace, parsed: list[int]) -> None:
    rec = _commit("t0900", 59, "reject", KEYS[2], ME)
    rec["effects"][0]["note"] = "breaks on Windows"
    _write(ws.state_dir, {"ledger.jsonl": json.dumps(ours(ws.state_dir, rec)) + "\n"})
    want = Ledger(ws.state_dir).state(KEYS[2])
    parsed[0] = 0
    assert Ledger(ws.state_dir).state(KEYS[2]) == want
    assert parsed[0] == 0
    assert (want.state, want.note) == ("rejected", "breaks on Windows")


def test_states_asked_for_one_at_a_time_then_all_read_as_a_replay(ws: Workspace) -> None:
    """A kept fold's states are built when asked for: one, folded onto, then every one."""
    Ledger(ws.state_dir)
    new = "kpt-20260101-003/try-009"
    steps = [
        ("commit", "ledger.jsonl", 59, op, k, 0)
        for op, k in [("reject", KEYS[4]), ("approve", new)]
    ]
    _write(ws.state_dir, _lines(ws.state_dir, steps, 800, False))
    led = Ledger(ws.state_dir)
    asked = [led.state(k) for k in [KEYS[4], new, KEYS[1], "kpt-20260101-009/try-001"]]
    got = list(led.states.items())
    (ws.state_dir / NAME).unlink()
    replay = Ledger(ws.state_dir)
    assert got == list(replay.states.items())
    assert asked == [*(replay.state(k) for k in [KEYS[4], new, KEYS[1]]), ItemState()]
    assert (asked[0].state, asked[1].state) == ("rejected", "approved")


def test_a_forged_fold_shows_nothing_the_ledger_does_not(
    ws: Workspace, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A fold with states of its own making, signed with another key (an agent has none
    of this machine's), is read as no fold at all."""
    real_key = os.environ["HURIKAERI_KEY_DIR"]
    monkeypatch.setenv("HURIKAERI_KEY_DIR", str(tmp_path / "agent-key"))
    forged = Ledger(ws.state_dir)  # kept under the agent's key
    forged.states[KEYS[3]].state = "contested"  # what no line gives
    _append(ws, 1, start=700)
    forged.refresh()  # kept again, with the forged state
    assert Ledger(ws.state_dir).state(KEYS[3]).state == "contested"  # under its key
    monkeypatch.setenv("HURIKAERI_KEY_DIR", real_key)
    got = list(Ledger(ws.state_dir).states.items())
    (ws.state_dir / NAME).unlink()
    assert got == list(Ledger(ws.state_dir).states.items())
    assert all(st.state != "contested" for _k, st in got)


_KILLED_WRITER = """
import os, signal, sys
from pathlib import Path
import store.ledger.ledger as L
import store.ledger.snapshot as S
L.KEEP_BYTES = 1
real = S.replace_file
def dying(path, chunks):
    def parts():
        for i, c in enumerate(chunks):
            yield c[: len(c) // 2]
            os.kill(os.getpid(), signal.SIGKILL)
    real(path, parts())
S.replace_file = dying
L.Ledger(Path(sys.argv[1]))
"""


def _python(code: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run(
        [sys.executable, "-c", code, *args], env=env, capture_output=True, text=True, check=False
    )


def test_a_writer_killed_while_keeping_the_fold_leaves_it_unread(
    ws: Workspace, parsed: list[int]
) -> None:
    Ledger(ws.state_dir)
    kept = (ws.state_dir / NAME).read_bytes()
    _append(ws, 3)
    done = _python(_KILLED_WRITER, str(ws.state_dir))
    assert done.returncode == -9, done.stderr
    assert (ws.state_dir / NAME).read_bytes() == kept  # the last whole one stays
    parsed[0] = 0
    led = Ledger(ws.state_dir)
    assert parsed[0] == 3  # from the fold kept before, and the three lines after it
    got = list(led.states.items())
    (ws.state_dir / NAME).unlink()
    assert got == list(Ledger(ws.state_dir).states.items())


@pytest.mark.parametrize("cut", [0.0, 0.3, 0.9])
def test_a_fold_cut_short_is_read_as_none(ws: Workspace, parsed: list[int], cut: float) -> None:
    want = list(Ledger(ws.state_dir).states.items())
    path = ws.state_dir / NAME
    os.truncate(path, int(path.stat().st_size * cut))
    parsed[0] = 0
    assert list(Ledger(ws.state_dir).states.items()) == want
    assert parsed[0] == 60


_WRITER = """
import sys
from pathlib import Path
import store.ledger.ledger as L
from store.ledger.entry import LEDGER_NAME

L.KEEP_BYTES = 1
sd, who = Path(sys.argv[1]), sys.argv[2]
for i in range(25):
    led = L.Ledger(sd)
    t = f"{who}{i:03d}"
    led.append({"id": t, "at": "2026-01-01T11:00:00+00:00", "op": "commit", "target": "k/" + t,
                "tx": t, "action": "approve", "subjects": ["k/" + t],
                "effects": [{"op": "approve", "target": "k/" + t}]})
    led.refresh()
"""


def test_processes_keeping_the_fold_at_once_never_corrupt_it(
    ws: Workspace, parsed: list[int]
) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", _WRITER, str(ws.state_dir), who],
            env=env,
            stderr=subprocess.PIPE,
            text=True,
        )
        for who in ("a", "b")
    ]
    for p in procs:
        _, err = p.communicate()
        assert p.returncode == 0, err
    parsed[0] = 0
    got = Ledger(ws.state_dir)
    assert parsed[0] < 60 + 50  # a fold one of them kept was read
    states = list(got.states.items())
    assert len([k for k, _ in states if k.startswith("k/")]) == 50
    (ws.state_dir / NAME).unlink()
    assert states == list(Ledger(ws.state_dir).states.items())


def test_an_undo_keeps_the_fold_for_the_next_start(
    ws: Workspace, parsed: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """An undo makes the next start read every line again unless its process keeps the
    fold: it does, however little it appended."""
    monkeypatch.setattr(
        ledger_module, "KEEP_BYTES", 10_000, raising=False
    )  # under the ledger's size
    Ledger(ws.state_dir)
    done = undo(ws, "t0059")  # ours (signed), the newest
    assert done.undoes == "t0059"
    parsed[0] = 0
    led = Ledger(ws.state_dir)
    assert parsed[0] == 0
    got = list(led.states.items())
    (ws.state_dir / NAME).unlink()
    assert got == list(Ledger(ws.state_dir).states.items())


@pytest.mark.parametrize("piece", [1, 200, 5_000])
def test_a_ledger_read_a_piece_at_a_time_reads_as_one(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch, piece: int
) -> None:
    """Parsed a piece at a time (the memory a full replay takes stays small), a ledger
    with broken, older-style and torn lines reads as it does at once."""
    steps = [("older", "ledger.jsonl", 30, "approve", KEYS[1], 2), *[("undo", "", 31, "", "", 3)]]
    _write(ws.state_dir, _lines(ws.state_dir, steps, 300, False))
    with open(ws.state_dir / "ledger.jsonl", "a") as fh:
        fh.write('{"broken": \n')
    _append(ws, 5, start=400)
    with open(ws.state_dir / "ledger.jsonl", "a") as fh:
        fh.write('{"id": "torn", "at"')

    def read(size: int) -> list[Any]:
        monkeypatch.setattr(ledger_module, "_PIECE", size, raising=False)
        led = Ledger(ws.state_dir, read=False)
        led.refresh()
        (ws.state_dir / NAME).unlink(missing_ok=True)
        return [
            list(led.states.items()),
            [(e.as_record(), e.src, e.group) for e in led.entries],  # (slim or not)
            [(t.id, t.status, t.seq, t.data) for t in led.txs.values()],
            [str(d) for d in led.diagnostics],
        ]

    assert read(piece) == read(1 << 30)


@pytest.mark.parametrize("what", ["fifo", "link"])
def test_a_fifo_or_link_in_place_of_the_kept_fold_is_not_read(
    ws: Workspace, parsed: list[int], tmp_path: Path, what: str
) -> None:
    """Anyone can write into ``.hurikaeri/``: a FIFO there would block every start and
    command, a link would read a file elsewhere. Neither is opened; every line is read."""
    whole = Ledger(ws.state_dir).states
    kept = ws.state_dir / NAME
    elsewhere = tmp_path / "elsewhere.json"
    shutil.copyfile(kept, elsewhere)  # a fold that would hold, through the link
    kept.unlink()
    if what == "fifo":
        os.mkfifo(kept)
    else:
        kept.symlink_to(elsewhere)
    parsed[0] = 0
    got: list[Any] = []
    reader = threading.Thread(target=lambda: got.append(Ledger(ws.state_dir).states), daemon=True)
    reader.start()
    reader.join(60)  # a bound for a failing run only: a blocked open never returns
    if reader.is_alive() and what == "fifo":  # let the blocked open go, then fail
        os.close(os.open(kept, os.O_WRONLY | os.O_NONBLOCK))
    assert not reader.is_alive(), "the start blocked on the kept fold's path"
    assert got == [whole]
    assert parsed[0] >= 60  # every line read, not the fold behind the link
