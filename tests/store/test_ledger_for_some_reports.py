"""A ledger read for some reports only (issue #18): a small command reads every
transaction that writes files, but the decisions on the reports it shows or decides on alone
(none for a hook's ``import-wrapup``). It gives the same transactions that write files as the
whole fold — status, files, order, who ends them — the same open ones to recover, the same
states for those reports' items, and, asked about any other report, reads that one's lines
too and answers as the whole fold does."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from store.ledger import Ledger
from store.workspace import Workspace
from tests.store.team_fixture import team_workspace


def _tx_view(led: Ledger) -> list[tuple[Any, ...]]:
    """The transactions begun on a line of their own (those that write files)."""
    return [
        (t.id, t.status, t.src, t.action, t.subjects, t.files, t.end.op if t.end else None)
        for t in sorted(led.txs.values(), key=lambda t: t.seq)
        if t.begin.op == "begin"
    ]


def _open(led: Ledger) -> list[str]:
    return [t.id for t in led.open_transactions()]


def _same_transactions(full: Ledger, some: Ledger) -> None:
    assert _tx_view(some) == _tx_view(full)
    assert _open(some) == _open(full)
    # a broken line is reported when it may be one that is read (the others are not read)
    assert {(d.line, d.code) for d in some.diagnostics} <= {
        (d.line, d.code) for d in full.diagnostics
    }


def _line(**rec: Any) -> str:
    return json.dumps(rec, ensure_ascii=False) + "\n"


_AT = "2026-11-2{}T0{}:00:00+00:00"


def _begin(tx: str, n: int, target: str | None = None, **extra: Any) -> str:
    target = target or f"k-{n}/try-001"
    return _line(
        id=tx,
        at=_AT.format(n % 10, n % 10),
        op="begin",
        target=target,
        tx=tx,
        action="promote",
        who="me@example.com",
        subjects=[target],
        effects=[{"op": "promote", "target": target}],
        files=[{"path": "CLAUDE.md", "how": "replace", "before_sha256": None}],
        **extra,
    )


def _end(tx: str, n: int, op: str, eid: str | None = None) -> str:
    return _line(id=eid or f"{tx}-e", at=_AT.format(n % 10, n % 10), op=op, target="t", tx=tx)


def _decision(n: int, op: str, target: str | None = None, **extra: Any) -> str:
    return _line(
        id=f"d{n}",
        at=_AT.format(n % 10, n % 10),
        op=op,
        target=target or f"k-{n}/keep-001",
        **extra,
    )


def test_transactions_only_without_a_decision_read(tmp_path: Path) -> None:
    lines = [
        _decision(1, "approve"),
        _begin("t1", 2),
        _end("t1", 2, "commit"),
        _decision(3, "reject"),
        "not json at all\n",
        _begin("t2", 4),
        _end("t2", 4, "abort"),
        _line(id="u1", at=_AT.format(5, 5), op="undo", target="k-1/keep-001", undoes="d1"),
        _begin("t3", 6),  # left open by a killed process
        _line(  # a self-contained commit (a transaction that wrote no file)
            id="t4",
            at=_AT.format(7, 7),
            op="commit",
            target="k-7/try-001",
            tx="t4",
            action="approve",
            who="me@example.com",
            subjects=["k-7/try-001"],
            effects=[{"op": "approve", "target": "k-7/try-001"}],
        ),
        # its key written with an escape: still read as a transaction
        _line(id="t6", at=_AT.format(8, 8), op="begin", target="x", tx="t6", action="edit").replace(
            '"tx"', '"\\u0074x"'
        ),
    ]
    (tmp_path / "ledger.jsonl").write_text("".join(lines), encoding="utf-8")
    full, only = Ledger(tmp_path), Ledger(tmp_path, reports=())
    _same_transactions(full, only)
    assert _open(only) == ["t3", "t6"]
    # a line that is not one object is read as any JSONL reads it: reported alike
    assert full.diagnostics == only.diagnostics and len(full.diagnostics) == 1
    assert {e.op for e in only.entries} <= {"begin", "commit", "abort"}
    assert "t4" in full.txs and "t4" not in only.txs  # a decision, written as one commit
    # asked about an item, it reads that report's lines too, and answers as the whole fold
    assert full.state("k-3/keep-001").state == "rejected"
    assert only.state("k-3/keep-001") == full.state("k-3/keep-001")
    assert only.reports == {"k-3"} and only.state("k-1/keep-001") == full.state("k-1/keep-001")
    assert only.last_undoable() == full.last_undoable() and only.reports is None
    # what is appended later is read as before: the open one ended, a new one begun
    again = Ledger(tmp_path, reports=())
    with open(tmp_path / "ledger.jsonl", "a", encoding="utf-8") as fh:
        fh.write(_decision(8, "approve") + _end("t3", 8, "abort") + _begin("t5", 9))
    assert again.refresh() and full.refresh()
    _same_transactions(full, again)
    assert _open(again) == ["t6", "t5"]


def test_a_broken_line_that_may_be_read_is_reported(tmp_path: Path) -> None:
    (tmp_path / "ledger.jsonl").write_text(
        _begin("t1", 1)
        + '{"id": "b1", "op": "begin", "tx": "b1", "target": \n'
        + '{"id": "d1", "op": "approve", "target": \n'
        + _end("t1", 2, "commit"),
        encoding="utf-8",
    )
    full, only = Ledger(tmp_path), Ledger(tmp_path, reports=())
    _same_transactions(full, only)
    # read as any JSONL then, its broken lines reported as the whole fold does
    assert len(full.diagnostics) == len(only.diagnostics) == 2
    assert _tx_view(only)[0][1] == "committed"


def test_a_record_still_being_written_over_several_lines_is_waited_for(tmp_path: Path) -> None:
    """A line holding only ``{`` (a pretty-printed record, the rest not written yet) is
    not passed over: the rest, once there, completes it (found by a review)."""
    path = tmp_path / "ledger.jsonl"
    path.write_bytes(b"{\n")
    ledgers = [Ledger(tmp_path), Ledger(tmp_path, reports=()), Ledger(tmp_path, reports=["k-1"])]
    with open(path, "ab") as fh:
        fh.write(
            b'"id": "t1", "at": "2026-01-01T00:00:00+00:00", "op": "begin", "tx": "t1",\n'
            b'"target": "k-1/i1", "action": "approve", "files": [],\n'
            b'"effects": [{"op": "approve", "target": "k-1/i1"}]\n}\n'
            + _end("t1", 1, "commit").encode()
        )
    for led in ledgers:
        led.refresh()
        assert _tx_view(led) == _tx_view(ledgers[0]) and _tx_view(led)[0][1] == "committed"
    assert ledgers[2].state("k-1/i1") == ledgers[0].state("k-1/i1")
    assert ledgers[0].state("k-1/i1").state == "approved"


def test_a_teams_ledger_is_read_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ws: Workspace = team_workspace(tmp_path, monkeypatch)
    team_dir = ws.state_dir / "ledger"
    # another reviewer's line cannot end this reviewer's transaction; their clocks differ
    (team_dir / "me@example.com.jsonl").write_text(
        _decision(9, "approve", "k-0/keep-001")
        + _decision(1, "reject", "k-1/keep-001")
        + _begin("m1", 2)
        + _begin("m2", 3)
        + _end("m2", 4, "commit"),
        encoding="utf-8",
    )
    (team_dir / "you@example.com.jsonl").write_text(
        _decision(5, "approve", "k-1/keep-001") + _end("m1", 5, "commit") + _begin("y1", 6),
        encoding="utf-8",
    )
    full = Ledger(ws.state_dir, who="me@example.com")
    some = Ledger(ws.state_dir, who="me@example.com", reports={"k-1"})
    only = Ledger(ws.state_dir, who="me@example.com", reports=())
    assert some.reports is None and only.reports is None  # the order needs every line's time
    assert some.state("k-1/keep-001") == full.state("k-1/keep-001")
    _same_transactions(full, only)
    assert _open(only) == ["m1"]  # y1 is open too, but the other reviewer's to end


_REPORTS = ["k-0", "k-1", "k-2", "k-3@abc123", "k\u00e9-4", 'k"5']
_ITEMS = ["keep-001", "try-001"]
_STEP = st.tuples(
    st.sampled_from(
        [
            "approve",
            "reject",
            "reopen",
            "edit",
            "promote",
            "undo",
            "begin",
            "commit",
            "abort",
            "decided",  # a decision as the app writes it: one self-contained commit
            "undo-tx",
            "redo-tx",
        ]
    ),
    st.sampled_from(_REPORTS),
    st.sampled_from(_ITEMS),
    st.integers(0, 5),  # a transaction, a batch, or the line an undo names
    st.integers(0, 9),  # the hour
)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(_STEP, max_size=30),
    st.sets(st.sampled_from([r.partition("@")[0] for r in _REPORTS]), max_size=3),
)
def test_any_ledger_gives_the_same_for_the_reports_read(
    tmp_path_factory: pytest.TempPathFactory,
    steps: list[tuple[str, str, str, int, int]],
    reports: set[str],
) -> None:
    root = tmp_path_factory.mktemp("led")
    lines = []
    for n, (op, report, item, ref, hour) in enumerate(steps):
        target = f"{report}/{item}"
        at = _AT.format(hour, hour)
        if op == "begin":
            lines.append(_begin(f"t{ref}", hour, target).replace('"promote"', '"approve"', 1))
        elif op in ("commit", "abort"):
            lines.append(_end(f"t{ref}", hour, op, eid=f"e{n}"))
        elif op == "undo":  # a line, a batch or a transaction
            undoes = [f"d{ref}", f"b{ref}", f"t{ref}"][n % 3]
            lines.append(_line(id=f"u{n}", at=at, op="undo", target=target, undoes=undoes))
        elif op in ("decided", "undo-tx", "redo-tx"):
            other = f"{_REPORTS[(n + ref) % len(_REPORTS)]}/{item}"
            rec: dict[str, Any] = {
                "id": f"c{n}",
                "at": at,
                "op": "commit",
                "target": target,
                "tx": f"c{n}",
                "action": "approve",
                "who": "me@example.com",
                "subjects": [target, other],
                "effects": [
                    {"op": ["approve", "reject"][ref % 2], "target": target},
                    {"op": "approve", "target": other},
                ],
            }
            if op != "decided":  # undoes or redoes a decision, a batch or a transaction
                rec["undoes" if op == "undo-tx" else "redoes"] = [f"c{ref}", f"t{ref}", f"d{ref}"][
                    n % 3
                ]
                rec.update(effects=[], target="x", subjects=["x"])  # names no report
            lines.append(_line(**rec))
        else:
            lines.append(_line(id=f"d{n}", at=at, op=op, target=target, batch=f"b{ref}"))
    (root / "ledger.jsonl").write_text("".join(lines), encoding="utf-8")
    full, some = Ledger(root), Ledger(root, reports=reports)
    _same_transactions(full, some)
    for report in _REPORTS:
        if report.partition("@")[0] in reports:
            for item in _ITEMS:
                assert some.state(f"{report}/{item}") == full.state(f"{report}/{item}")
    assert some.reports == frozenset(reports)  # nothing else was asked: nothing else read


_PIECES = st.sampled_from(
    [
        '"op": "begin"',
        '"op": "abort"',
        '"op": "commit"',
        '"tx": "t1"',
        '"action": "approve"',
        '"undo"',
        '"redoes": "t1"',
        '"note": "\\u00e9"',
        '"target": "k-1/keep-001"',
        '"target": "k\u00e9-4/try-001"',
        '"target": "k\\"5/try-001"',
        '"target": "\u00e9\\"/try-001"',
        '"target": "action"',
        '"action": "approve", "target": "x"',
        '"x": "{}"',
        '"y": "}"',
    ]
)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.lists(_PIECES, max_size=4), max_size=25),
    st.sets(st.sampled_from(["k-1", "k\u00e9-4", 'k"5', "k-9", '\u00e9"', "}\n{"]), max_size=2),
)
def test_lines_found_by_what_they_hold_are_those_looked_at_one_by_one(
    shapes: list[list[str]], reports: set[str]
) -> None:
    """The lines :func:`_lines_of` finds with ``bytes.find`` in a ledger of ``{…}`` lines
    are those it keeps looking at each line (any line may be other than that)."""
    from store.ledger import _lines_each, _lines_of, _needles

    data = "".join("{" + ", ".join(p) + "}\n" for p in shapes).encode()
    wanted = frozenset(reports)
    needles = _needles(wanted)
    one_by_one = [line for line in _lines_each(data, needles).split(b"\n") if line]
    with mock.patch("store.ledger._lines_each", side_effect=AssertionError("looked at each")):
        found = _lines_of(data, wanted)  # every line {…}: found, not looked at in turn
    assert found.split(b"\n")[:-1] == one_by_one
    # with a line that is not one object, each is looked at: that one is kept
    assert b"  {" in _lines_of(data + b"  {\n", wanted).split(b"\n")


@pytest.mark.parametrize("subject", ["action", "kpt-1", 'say "action": now'])
def test_a_transaction_whose_subject_reads_action_is_not_rolled_back(
    tmp_path: Path, subject: str
) -> None:
    """Its end names ``"action"`` as its target, not as a key: still the end of it (a
    review found it taken for a decision, and the committed write rolled back)."""
    from store.tx.journal import FileWrite
    from store.tx.transactions import TxPlan, apply, recover

    ws = Workspace(tmp_path)
    notes = tmp_path / "notes.md"
    notes.write_text("before\n", encoding="utf-8")
    write = FileWrite(notes, b"before\n", b"after\n", guard=lambda _real: None)
    apply(ws, TxPlan("export-feedback", [subject], [write]))
    some = Ledger(ws.state_dir, reports=())  # as import-wrapup reads it
    assert some.open_transactions() == []
    assert recover(ws, ledger=some) == []
    assert notes.read_text(encoding="utf-8") == "after\n"


@pytest.mark.parametrize("rid", ['é"', "é\\x", "é\tx", 'k"5', "ké-4", "k\n6", "}\n{"])
def test_a_report_id_escaped_as_the_ledger_writes_it_is_read(tmp_path: Path, rid: str) -> None:
    """Non-ASCII kept, a quote or a control character escaped (a review found such lines
    left out: the needles were the id as it is and all escaped)."""
    Ledger(tmp_path).decide([f"{rid}/keep-001"], "approve")
    assert Ledger(tmp_path, reports=[rid]).state(f"{rid}/keep-001").state == "approved"
