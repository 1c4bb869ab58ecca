"""The decision ledger: review metadata kept apart from the agents' files (docs/architecture.md).

Everything a person does is appended, as JSON lines, to ``.hurikaeri/ledger.jsonl`` under
the workspace root. Nothing is ever rewritten (but once, see below): the current state of
an item is a fold over the lines, and undo and redo append. The UI and the CLI share the
file; each append is one ``write``, so they can both write at once. A line that cannot be
read is reported and skipped, and a torn last line (a crash mid-write) is ignored until
something completes it.

Every line belongs to a *transaction* (``store.tx.transactions``): a ``begin`` line
names the action, who did it, its subjects, the review-state changes it makes
(``effects``) and every file it is about to write (path, SHA-256 before and after,
backups); a ``commit`` line follows once the files are written, or an ``abort`` when they
were put back. Only committed transactions count. A transaction that writes no file is one
self-contained ``commit`` line. Undo and redo are transactions naming the one they cancel
(``undoes``) or apply again (``redoes``). Lines written before transactions (one per
decision, and ``undo`` lines) are rewritten as transactions the first time the ledger is
read (:mod:`store.ledger.migrate`).

The ledger is a record, never a licence to write: it lies in the workspace, where agents
and teammates write too. Every line appended here is signed (``sig``, see
:mod:`store.machine_key`) and records its ``channel``; :meth:`Ledger.is_ours` tells the
local reviewer's transactions whose lines this machine wrote — the only ones recovery, undo
and redo act on. Every line folds for review state. A ledger file that is not a regular
file (a FIFO) and a ledger directory that is a link are refused, naming them.

A team (``store.team``): with a ``ledger/`` directory in the state directory, each reviewer
appends only to ``ledger/<reviewer>.jsonl``, and ``ledger.jsonl`` (when there is one) is read
as the local reviewer's older history. The lines of every file are folded in one order, the
same on every machine whatever order the files are found in: by time (UTC; within a file
never earlier than the line before it, so one reviewer's own order always holds), then the
reviewer (the file's name), then ``ledger.jsonl`` before the reviewer's own file, then the
place in the file. A reviewer's lines undo, redo, commit or abort only that reviewer's own
transactions. When reviewers' latest decisions on an item differ, the item is
``contested`` (:class:`ItemState` keeps each one's decision); a decision made on a contested
item (``resolves``) settles it, and ``reopen`` sets it back to pending for everyone.
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
