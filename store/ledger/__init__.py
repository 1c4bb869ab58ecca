"""The decision ledger (docs/architecture.md "Decisions, transactions, the inbox"): JSON
lines appended, never rewritten; an item's state is a fold over committed transactions."""

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
    "set_channel",
]
