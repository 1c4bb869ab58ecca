"""The review state of an item, folded from the ledger's entries."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Literal

from store.ledger.entry import Entry

State = Literal["pending", "approved", "rejected", "contested"]
DECISIONS: tuple[str, ...] = ("approve", "reject", "reopen")
#: The states that wait for a person's decision (contested: reviewers disagree).
UNDECIDED: tuple[str, ...] = ("pending", "contested")


@dataclass(frozen=True, slots=True)
class Decision:
    """One reviewer's standing decision on an item."""

    state: State
    who: str
    at: str
    note: str | None = None
    #: the transaction (or older line, or batch) that made it
    id: str = ""


@dataclass(slots=True)
class ItemState:
    """The folded review state of one item: ``contested`` when reviewers' decisions differ
    (:attr:`decisions` gives each one's). Nearly every item has one standing decision: kept
    as ``by``/``by_id`` (not a dict of its own; ``several`` when there are more)."""

    state: State = "pending"
    note: str | None = None
    at: str | None = None
    edited: bool = False
    archived: bool = False
    #: what promoting it wrote (a tuple, replaced when it grows: the empty one is shared)
    promoted: tuple[dict[str, Any], ...] = ()
    #: who made the latest decision
    who: str | None = None
    #: the one standing decision: the ledger file it is in (``None``: none, or several)
    #: and the transaction (or older line, or batch) that made it
    by: str | None = None
    by_id: str = ""
    #: two or more standing decisions, by ledger file (``None`` otherwise)
    several: dict[str, Decision] | None = None
    #: the decisions a later one settled (``resolves``): they no longer stand, even when
    #: later in the fold (a clock behind); replaced when it grows (the empty one is shared)
    settled: frozenset[str] = frozenset()

    @property
    def contested(self) -> bool:
        return self.state == "contested"

    @property
    def decisions(self) -> dict[str, Decision]:
        """Each reviewer's standing approve or reject, by the name of their ledger file (a
        new dict: to read)."""
        if self.several is not None:
            return dict(self.several)
        if self.by is None:
            return {}
        one = Decision(self.state, self.who or "", self.at or "", self.note, self.by_id)
        return {self.by: one}

    def copy(self) -> ItemState:
        return replace(self, several=dict(self.several) if self.several is not None else None)

    def _decide(self, e: Entry, state: State, who: str) -> State:
        """Let ``e``'s decision stand (replacing its reviewer's earlier one); the item's
        state after it: ``contested`` when the standing decisions differ."""
        several = self.several
        if several is None:
            if self.by is None or self.by == e.src:  # the only one standing
                self.by, self.by_id = e.src, e.group
                return state
            several = {self.by: self.decisions[self.by]}
        several[e.src] = Decision(state, who, e.at, e.note, e.group)
        if len(several) == 1:  # the others were settled: this one alone stands
            self.by, self.by_id, self.several = e.src, e.group, None
            return state
        self.by, self.by_id, self.several = None, "", several
        return "contested" if len({d.state for d in several.values()}) > 1 else state

    def _settle(self, settled: frozenset[str]) -> None:
        """The decisions made by ``settled`` no longer stand."""
        self.settled = settled
        if self.by is not None and self.by_id in settled:
            self.by, self.by_id = None, ""
        elif self.several is not None:
            left = {k: d for k, d in self.several.items() if d.id not in settled}
            self.several = left or None  # one left: a decision is folded next (_decide)

    def _clear(self) -> None:
        self.by, self.by_id, self.several = None, "", None


_DECIDED: dict[str, State] = {"approve": "approved", "reject": "rejected"}


def fold_entry(st: ItemState, e: Entry) -> None:
    """What one (not undone) entry does to its target's state."""
    if e.op in _DECIDED:
        if e.group in st.settled:
            return
        resolves = e.data.get("resolves")  # decided while contested: settles what it saw
        if isinstance(resolves, list):
            st._settle(st.settled.union(str(r) for r in resolves))
        elif resolves:
            st._clear()
        who = str(e.data.get("who") or e.src or "")
        st.state = st._decide(e, _DECIDED[e.op], who)
        st.note, st.at, st.who = e.note, e.at, who or None
    elif e.op == "reopen":
        st.state, st.note, st.at = "pending", None, e.at
        st.who = str(e.data.get("who") or e.src or "") or None
        st._clear()
    elif e.op == "edit":
        st.edited = True
    elif e.op == "archive":
        st.archived = True
    elif e.op == "restore":
        st.archived = False
    elif e.op == "promote":
        st.promoted = (*st.promoted, dict(e.data))


def item_key(report_id: str | None, item_id: str | None) -> str | None:
    """``KPT_ID/ITEM_ID``, the key an item's decisions are recorded under; ``None`` when the
    report or the item has no id. Such items are never decided on: every id-less item of a
    report would share the one key ``KPT_ID/`` (lint reports the missing id)."""
    if not report_id or not item_id:
        return None
    return f"{report_id}/{item_id}"
