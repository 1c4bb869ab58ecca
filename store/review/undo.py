"""Undoing the last change, in the shape older callers expect.

Undo and redo are transactions (:mod:`store.tx.transactions`); this keeps
:func:`undo_last` returning the entries it cancelled, for callers not moved over yet.
"""

from __future__ import annotations

from store.ledger import Entry, Ledger
from store.tx import transactions
from store.tx.transactions import UndoRefused
from store.workspace import Workspace


def undo_last(ws: Workspace, ledger: Ledger) -> list[Entry]:
    """Undo the newest transaction that is done, every file and review-state change of it
    as one step (:class:`UndoRefused` when a file changed since); returns what it
    cancelled: the review-state changes, then one entry per file (with its ``path``)."""
    result = transactions.undo_last(ws, ledger=ledger)
    if result is None or result.undoes is None:
        return []
    return transactions.legacy_entries(result, ledger, result.undoes)


__all__ = ["UndoRefused", "undo_last"]
