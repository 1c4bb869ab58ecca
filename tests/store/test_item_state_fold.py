"""An item's folded state keeps its one standing decision as whose it is and its id (not a
dict and an object of their own): whatever the reviewers do, in any order, it folds to the
same state and the same standing decisions as keeping each one's decision in a dict."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from store.ledger import Decision, Entry, ItemState, fold_entry

REVIEWERS = ("", "alice", "bob", "carol")


def _reference(entries: list[Entry]) -> tuple[str, dict[str, Decision], frozenset[str]]:
    """The fold as it was written before: each reviewer's decision in a dict."""
    state = "pending"
    decisions: dict[str, Decision] = {}
    settled: frozenset[str] = frozenset()
    for e in entries:
        if e.op in ("approve", "reject"):
            if e.group in settled:
                continue
            resolves = e.data.get("resolves")
            if isinstance(resolves, list):
                settled = settled.union(str(r) for r in resolves)
                decisions = {k: d for k, d in decisions.items() if d.id not in settled}
            elif resolves:
                decisions = {}
            who = str(e.data.get("who") or e.src or "")
            state = "approved" if e.op == "approve" else "rejected"
            decisions[e.src] = Decision(state, who, e.at, e.note, e.group)  # type: ignore[arg-type]
            if len({d.state for d in decisions.values()}) > 1:
                state = "contested"
        elif e.op == "reopen":
            state, decisions = "pending", {}
    return state, decisions, settled


@st.composite
def _entries(draw: st.DrawFn) -> list[Entry]:
    out: list[Entry] = []
    for i in range(draw(st.integers(0, 14))):
        op = draw(st.sampled_from(["approve", "reject", "approve", "reject", "reopen", "edit"]))
        data: dict[str, Any] = {}
        if draw(st.booleans()):
            data["who"] = draw(st.sampled_from(["", "a@x", "b@x"]))
        kind = draw(st.integers(0, 5))
        if kind == 0 and out:  # settles some of what came before
            data["resolves"] = draw(st.lists(st.sampled_from([e.group for e in out]), max_size=3))
        elif kind == 1:
            data["resolves"] = True
        note = draw(st.sampled_from([None, "why", "because"]))
        at = f"2026-01-01T00:00:{i:02d}+00:00"
        e = Entry(f"e{i}", at, op, "kpt-1/try-001", note, None, data, f"t{i}")
        object.__setattr__(e, "src", draw(st.sampled_from(REVIEWERS)))
        out.append(e)
    return out


@pytest.mark.slow
@settings(max_examples=400, deadline=None)
@given(_entries())
def test_the_compact_fold_gives_what_a_dict_of_decisions_gives(entries: list[Entry]) -> None:
    st_ = ItemState()
    for e in entries:
        fold_entry(st_, e)
    state, decisions, settled = _reference(entries)
    assert st_.state == state
    assert st_.decisions == decisions
    assert st_.settled == settled
    assert st_.contested == (state == "contested")
    # a copy folds on the same way, apart from the original
    twin = st_.copy()
    assert twin == st_ and twin.decisions == decisions
    more = Entry("z", "2026-01-02T00:00:00+00:00", "approve", "kpt-1/try-001", None, None, {})
    object.__setattr__(more, "src", "dave")
    fold_entry(twin, more)
    assert st_.decisions == decisions and "dave" in twin.decisions


def test_one_reviewers_decision_costs_no_dict() -> None:
    st_ = ItemState()
    e = Entry("e1", "2026-01-01T00:00:00+00:00", "approve", "kpt-1/try-001", "ok", None, {})
    object.__setattr__(e, "src", "alice")
    fold_entry(st_, e)
    assert st_.several is None and st_.by == "alice"
    assert st_.decisions == {"alice": Decision("approved", "alice", e.at, "ok", "e1")}
