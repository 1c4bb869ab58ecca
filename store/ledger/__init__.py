"""The decision ledger: review metadata kept apart from the agents' files, appended as JSON
lines to ``.hurikaeri/ledger.jsonl`` (one file per reviewer in a team: docs/team-review.md).

Nothing is rewritten: an item's state is a fold over the committed transactions' effects
(:mod:`store.tx.transactions`), and undo and redo append. Each append is one ``write``; a
line that cannot be read is reported and skipped, a torn last line ignored until completed.
Every line is signed by this machine (:mod:`store.machine_key`, docs/trust-boundary.md):
recovery, undo and redo act only on lines :meth:`Ledger.is_ours` accepts. Older ledgers are
rewritten as transactions once (:mod:`store.ledger.migrate`).
"""

from store.ledger.channel import CHANNELS, current_channel, new_id, now_iso, set_channel
from store.ledger.entry import LEDGER_NAME, Entry, Op, TxRecord
from store.ledger.ledger import Ledger
from store.ledger.state import (
    DECISIONS,
    UNDECIDED,
    Decision,
    ItemState,
    State,
    fold_entry,
    item_key,
    report_of,
)

__all__ = [
    "CHANNELS",
    "DECISIONS",
    "LEDGER_NAME",
    "UNDECIDED",
    "Decision",
    "Entry",
    "ItemState",
    "Ledger",
    "Op",
    "State",
    "TxRecord",
    "current_channel",
    "fold_entry",
    "item_key",
    "new_id",
    "now_iso",
    "report_of",
    "set_channel",
]
