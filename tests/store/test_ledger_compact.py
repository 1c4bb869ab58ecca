"""A large ledger held compactly: a transaction line keeps its single values parsed and its
lists (subjects, effects, files) apart, made again when asked; recurring texts are kept
once. Whatever is asked of the ledger is what the whole parsed lines would give."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from store.ledger import Entry, Ledger, TxRecord
from store.review.items import decide_keys
from store.tx.journal import FileWrite
from store.tx.transactions import Effect, TxPlan, apply, history, undo
from store.workspace import Workspace
from tests.store.team_fixture import team_workspace

A = "kpt-20260208-001@0a1b2c/keep-001"
B = "kpt-20260208-001@0a1b2c/try-002"
C = "kpt-20260301-002/prob-001"
LOC = "team/alice/hurikaeri/kpt-20260208-001.yaml"


def _line(rid: str, at: str, op: str = "commit", **fields: Any) -> dict[str, Any]:
    return {"id": rid, "at": at, "op": op, "target": fields.pop("target", A), **fields}


#: Lines of every shape the ledger meets: decisions as ``decide_keys`` writes them, and
#: lines whose lists cannot be made again from their effects (kept as text).
LINES: list[dict[str, Any]] = [
    _line(
        "t01",
        "2026-02-08T10:00:00+09:00",
        tx="t01",
        action="approve-section",
        who="alice",
        subjects=[A, B],
        effects=[
            {"op": "approve", "target": A, "loc": LOC},
            {"op": "approve", "target": B, "loc": LOC},
        ],
    ),
    _line(  # subjects other than the effects' targets; fields in another order
        "t02",
        "2026-02-08T10:00:05+09:00",
        tx="t02",
        who="alice",
        action="reject",
        note="対象のファイルが違う",
        effects=[{"target": C, "loc": LOC, "op": "reject", "note": "対象のファイルが違う"}],
        subjects=[C, A],
    ),
    _line(  # notes an entry does not hold as they are
        "t03",
        "2026-02-08T10:00:10+09:00",
        tx="t03",
        action="reopen",
        who="alice",
        subjects=[A],
        effects=[{"op": "reopen", "target": A, "note": ""}],
    ),
    _line(
        "t03b",
        "2026-02-08T10:00:11+09:00",
        tx="t03b",
        action="edit",
        who="alice",
        subjects=[B],
        effects=[{"op": "edit", "target": B, "note": 5}],
    ),
    _line(  # an effect naming its own tx and who; effects that are none
        "t03c",
        "2026-02-08T10:00:12+09:00",
        tx="t03c",
        action="approve",
        who="alice",
        subjects=[C],
        effects=[
            {"op": "approve", "target": C, "tx": "other", "who": "carol"},
            "not an effect",
            {"target": C},
        ],
    ),
    _line(  # a subject that is not text; effects that are no list
        "t04",
        "2026-02-08T10:00:15+09:00",
        tx="t04",
        action="approve",
        who="alice",
        subjects=[A, 7],
        effects=[{"op": "approve", "target": A}],
    ),
    _line(
        "t05", "2026-02-08T10:00:16+09:00", tx="t05", action="x", who="alice", effects={"op": "x"}
    ),
    _line("t06", "2026-02-08T10:00:17+09:00", tx="t06", action="none", who="alice", subjects=[]),
    _line(  # a decision settling what it saw (a list inside an effect)
        "t07",
        "2026-02-08T10:00:20+09:00",
        tx="t07",
        action="approve",
        who="alice",
        subjects=[B],
        effects=[{"op": "approve", "target": B, "resolves": ["t01", "x9"], "loc": LOC}],
    ),
    _line(  # begun, files written, committed later (its effects take the commit's time)
        "t08",
        "2026-02-08T10:01:00+09:00",
        "begin",
        tx="t08",
        action="promote",
        who="alice",
        subjects=[C],
        effects=[{"op": "promote", "target": C, "to": "CLAUDE.md"}],
        files=[{"path": "CLAUDE.md", "how": "replace", "before_sha256": None, "after_sha256": "a"}],
    ),
    _line(
        "c08",
        "2026-02-08T10:01:02+09:00",
        tx="t08",
        files=[{"i": 0, "after_sha256": "b"}],
    ),
    _line(  # begun with several effects, committed later
        "t13",
        "2026-02-08T10:01:10+09:00",
        "begin",
        tx="t13",
        action="approve-section",
        who="alice",
        subjects=[A, B],
        effects=[{"op": "archive", "target": A}, {"op": "approve", "target": B, "loc": LOC}],
        files=[{"path": "y.yaml", "how": "replace"}],
    ),
    _line("c13", "2026-02-08T10:01:12+09:00", tx="t13"),
    _line(  # begun and rolled back
        "t09",
        "2026-02-08T10:02:00+09:00",
        "begin",
        tx="t09",
        action="edit",
        who="alice",
        subjects=[A],
        effects=[{"op": "edit", "target": A}],
        files=[{"path": "x.yaml", "how": "replace"}],
    ),
    _line(
        "a09",
        "2026-02-08T10:02:01+09:00",
        "abort",
        tx="t09",
        reason="ValueError: no",
        restored=["x.yaml"],
        left=[],
    ),
    _line(  # an undo, and a redo
        "t10",
        "2026-02-08T10:03:00+09:00",
        tx="t10",
        action="undo",
        who="alice",
        undoes="t02",
        subjects=[C, A],
        effects=[],
    ),
    _line(
        "t11",
        "2026-02-08T10:04:00+09:00",
        tx="t11",
        action="redo",
        who="alice",
        redoes="t02",
        subjects=[C, A],
        effects=[],
    ),
    _line(  # single values that are not single
        "t12",
        "2026-02-08T10:05:00+09:00",
        tx="t12",
        action="approve",
        who=["alice", "bob"],
        subjects=[B],
        effects=[{"op": "approve", "target": B}],
    ),
    # older lines: a batch of decisions, one undone
    {"id": "o1", "at": "2026-02-08T10:06:00+09:00", "op": "approve", "target": C, "batch": "b1"},
    {"id": "o2", "at": "2026-02-08T10:06:00+09:00", "op": "reject", "target": A, "batch": "b1"},
    {"id": "o3", "at": "2026-02-08T10:07:00+09:00", "op": "undo", "target": A, "undoes": "o2"},
]


def _ledger(root: Path, lines: list[dict[str, Any]], *, broken: bool) -> Ledger:
    """A ledger of ``lines``; ``broken``: after a line that is not JSON, which makes the
    whole file read as any JSONL, every line kept as parsed."""
    state = root / ".hurikaeri"
    state.mkdir(parents=True)
    text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in lines)
    (state / "ledger.jsonl").write_text(("not json\n" if broken else "") + text, "utf-8")
    return Ledger(state, who="me")


def _entry_view(e: Entry) -> tuple[Any, ...]:
    rec = e.as_record()
    return (e.id, e.at, e.op, e.target, e.note, e.undoes, e.group, e.src, rec, list(rec))


def _tx_view(t: TxRecord) -> tuple[Any, ...]:
    data = t.data
    return (
        t.id,
        t.status,
        t.seq,
        t.at,
        t.action,
        t.who,
        t.src,
        t.undoes,
        t.redoes,
        t.note,
        t.subjects,
        t.files,
        t.effects,
        data,
        list(data),
    )


def _state_view(led: Ledger) -> dict[str, Any]:
    return {
        k: (s.state, s.note, s.at, s.edited, s.archived, s.promoted, s.who, s.settled, s.decisions)
        for k, s in led.states.items()
    }


def test_a_compact_ledger_gives_what_the_parsed_lines_give(tmp_path: Path) -> None:
    compact = _ledger(tmp_path / "a", LINES, broken=False)
    parsed = _ledger(tmp_path / "b", LINES, broken=True)
    assert parsed.diagnostics and all(e.raw is None for e in parsed.entries)
    kept = {type(e.raw) for e in compact.entries}
    assert bytes in kept and tuple in kept  # both ways of keeping the lists were taken
    assert [_entry_view(e) for e in compact.entries] == [_entry_view(e) for e in parsed.entries]
    for got, want in zip(compact.entries, parsed.entries, strict=True):
        assert got.full_data == want.full_data and list(got.full_data) == list(want.full_data)
        assert got.tx == want.tx and "tx" not in got.data and "tx" not in want.data
        assert json.dumps(got.as_record()) == json.dumps(want.as_record())
    assert compact.txs.keys() == parsed.txs.keys()
    for k in compact.txs:
        assert _tx_view(compact.txs[k]) == _tx_view(parsed.txs[k]), k
    assert [_entry_view(e) for e in compact.folded] == [_entry_view(e) for e in parsed.folded]
    assert [e.data for e in compact.folded] == [e.data for e in parsed.folded]
    assert compact.undone == parsed.undone
    assert _state_view(compact) == _state_view(parsed)
    # a begun transaction's effects fold at its commit's time
    promoted = next(e for e in compact.folded if e.op == "promote")
    assert promoted.at == "2026-02-08T10:01:02+09:00" and promoted.tx == "t08"
    assert {e.at for e in compact.folded if e.group == "t13"} == {"2026-02-08T10:01:12+09:00"}
    assert compact.txs["t08"].files[0]["after_sha256"] == "b"
    assert compact.txs["t09"].status == "aborted"


def test_the_lists_are_made_again_each_time(tmp_path: Path) -> None:
    led = _ledger(tmp_path, LINES[:2], broken=False)
    rec = led.txs["t01"]
    assert rec.begin.data == {"action": "approve-section", "who": "alice"}
    assert rec.begin.tx == "t01" and rec.data["tx"] == "t01"
    first = rec.subjects
    first.append("changed by a caller")
    rec.effects[0]["op"] = "changed by a caller"
    rec.data["subjects"].clear()
    assert rec.subjects == [A, B]
    assert rec.effects == LINES[0]["effects"]
    assert led.txs["t02"].subjects == [C, A]
    assert led.txs["t02"].data["effects"] == LINES[1]["effects"]


def test_recurring_texts_are_kept_once(tmp_path: Path) -> None:
    led = _ledger(tmp_path, LINES[:2], broken=False)
    one, two = led.txs["t01"].begin, led.txs["t02"].begin
    assert one.data["who"] == two.data["who"] == "alice"
    assert one.data["who"] is two.data["who"]
    key_one, key_two = (next(k for k in d if k == "who") for d in (one.data, two.data))
    assert key_one is key_two  # the field names, too
    first, second = (e for e in led.folded if e.group == "t01")
    assert first.target == one.target and first.target is one.target
    assert first.data == {"loc": LOC, "who": "alice"} and first.tx is one.id
    assert first.data["loc"] is second.data["loc"]
    assert first.data is second.data  # one file, one reviewer: one dict for both


def test_lines_of_the_past_fold_the_same_as_read_at_once(tmp_path: Path) -> None:
    """Lines read later that fold before those read (another reviewer's, pulled): the
    entries of effects are made again at their place, the same as read in one go."""
    state = tmp_path / ".hurikaeri"
    (state / "ledger").mkdir(parents=True)
    mine = [r for r in LINES if r["id"] in ("t01", "t02", "t07")]
    theirs = [r for r in LINES if r["id"] in ("t08", "c08", "t09", "a09", "t10", "t11")]

    def write(name: str, lines: list[dict[str, Any]]) -> None:
        text = "".join(json.dumps(r) + "\n" for r in lines)
        (state / "ledger" / f"{name}.jsonl").write_text(text, "utf-8")

    write("alice", mine)
    later = Ledger(state, who="alice")
    assert later.txs["t02"].subjects == [C, A]
    write("bob", theirs)
    later.refresh()
    once = Ledger(state, who="alice")
    assert [_entry_view(e) for e in later.entries] == [_entry_view(e) for e in once.entries]
    assert [_entry_view(e) for e in later.folded] == [_entry_view(e) for e in once.folded]
    assert {k: _tx_view(t) for k, t in later.txs.items()} == {
        k: _tx_view(t) for k, t in once.txs.items()
    }
    assert _state_view(later) == _state_view(once)


def test_lines_appended_fold_onto_what_was_read(tmp_path: Path) -> None:
    """New lines that undo nothing fold onto the states as they are; with an undo, all is
    folded again: either way, the same as read in one go."""
    decisions = [r for r in LINES if r["id"] in ("t01", "t02", "t03", "t07", "o1", "o2")]
    lines = decisions + [r for r in LINES if r not in decisions]
    led = _ledger(tmp_path / "a", lines[:2], broken=False)
    plain_a, plain_b = "kpt-20260208-001/keep-001", "kpt-20260208-001/try-002"
    assert (led.state(plain_a).state, led.state(C).state) == ("approved", "rejected")
    for start, end in ((2, 4), (4, 6), (6, len(lines))):
        with open(led.local_path, "a", encoding="utf-8") as fh:
            fh.writelines(json.dumps(r, ensure_ascii=False) + "\n" for r in lines[start:end])
        assert led.refresh()
        once = Ledger(led.state_dir, who="me")
        assert _state_view(led) == _state_view(once)
        assert [_entry_view(e) for e in led.folded] == [_entry_view(e) for e in once.folded]
        if end == 4:  # t03 reopened A, t07 approved B
            assert (led.state(plain_a).state, led.state(plain_b).state) == ("pending", "approved")


@pytest.fixture
def ws(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Workspace:
    return team_workspace(tmp_path, monkeypatch)


def test_a_team_transaction_read_back_is_undone(ws: Workspace) -> None:
    key = "kpt-20260208-001/try-001"
    done = decide_keys(ws, [key], "approve", "good", ledger=Ledger(ws.state_dir, who="alice"))
    target = ws.root / "notes.md"
    target.write_text("before\n", "utf-8")
    plan = TxPlan(
        "promote",  # notes.md is a Markdown target: what a promotion writes
        [key],
        [FileWrite(target, b"before\n", b"after\n", guard=lambda _real: None)],
        [Effect("edit", key)],
    )
    wrote = apply(ws, plan, ledger=Ledger(ws.state_dir, who="alice"))
    assert target.read_text("utf-8") == "after\n"
    alice = Ledger(ws.state_dir, who="alice")  # read back from the files
    rec = alice.txs[wrote.id]
    assert rec.subjects == [key] and [f["path"] for f in rec.files] == ["notes.md"]
    assert rec.effects == [{"op": "edit", "target": key}]
    views = {v.id: v for v in history(ws, ledger=alice)}
    assert views[done.id].subjects == [key] and views[done.id].effects == [("approve", key)]
    assert [f.path for f in views[wrote.id].files] == ["notes.md"]
    undo(ws, wrote.id, ledger=alice)
    assert target.read_text("utf-8") == "before\n"
    assert not Ledger(ws.state_dir, who="me").state(key).edited
    undo(ws, done.id, ledger=alice)
    assert Ledger(ws.state_dir, who="me").state(key).state == "pending"


def test_lines_alike_share_their_data_and_equal_values_of_two_types_do_not(
    tmp_path: Path,
) -> None:
    """A transaction line's single values are one dict for every line with the same ones
    (tens of thousands of lines, a few actions and reviewers); 1 and true are not the same."""
    lines = [
        _line("u1", "2026-02-08T10:00:00+09:00", tx="u1", action="approve", who="bo", flag=1),
        _line("u2", "2026-02-08T10:00:01+09:00", tx="u2", action="approve", who="bo", flag=1),
        _line("u3", "2026-02-08T10:00:02+09:00", tx="u3", action="approve", who="bo", flag=True),
        _line("u4", "2026-02-08T10:00:03+09:00", tx="u4", action="approve", who="bo", flag=1.0),
    ]
    led = _ledger(tmp_path, lines, broken=False)
    one, two, three, four = (led.txs[f"u{i}"].begin for i in range(1, 5))
    assert one.data is two.data and one.tx == "u1" and two.tx == "u2"
    assert three.data is not one.data and three.data["flag"] is True
    assert four.data is not one.data and type(four.data["flag"]) is float
    assert [led.txs[f"u{i}"].data["flag"] for i in range(1, 5)] == [1, 1, True, 1.0]
    assert [type(led.txs[f"u{i}"].data["flag"]) for i in range(1, 5)] == [int, int, bool, float]


def test_an_effect_naming_a_tx_of_its_own_reads_back_as_written(tmp_path: Path) -> None:
    effects = [{"op": "approve", "target": A, "loc": LOC, "tx": "elsewhere"}]
    lines = [_line("v1", "2026-02-08T10:00:00+09:00", tx="v1", action="approve", effects=effects)]
    compact = _ledger(tmp_path / "a", lines, broken=False)
    parsed = _ledger(tmp_path / "b", lines, broken=True)
    for led in (compact, parsed):
        assert led.txs["v1"].effects == effects and led.txs["v1"].data["tx"] == "v1"
        assert [(e.tx, e.group, "tx" in e.data) for e in led.folded] == [
            ("elsewhere", "elsewhere", False)
        ]
