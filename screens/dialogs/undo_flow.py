"""Undo and redo as a person meets them: say what will happen, ask when files change (or the
decision is older than this run), then undo exactly the transaction asked about, by id."""

from __future__ import annotations

import asyncio
import math

from textual.content import Content
from textual.dom import DOMNode

from screens.messages import FilesWritten
from screens.widgets.literal import literal
from screens.writing import run_write, settled
from store.index.workspace_index import WorkspaceIndex
from store.read.isotime import utc_time
from store.tx import transactions as tx
from store.tx.transactions import TxView


async def _ask(node: DOMNode, line: str, yes: str) -> bool:
    from screens.dialogs.confirm import ConfirmScreen

    answer = await node.app.push_screen_wait(ConfirmScreen(Content.assemble(literal(line)), yes))
    return bool(answer)


async def turn(node: DOMNode, index: WorkspaceIndex, tx_id: str | None, *, redo: bool) -> bool:
    """Undo (or redo) ``tx_id``, default the last done (or the last undone); True when done."""
    ws, led = index.ws, index.ledger
    verb = "Redo" if redo else "Undo"

    def find() -> tuple[TxView | None, str]:
        if tx_id:
            view: TxView | None = tx.get(ws, tx_id, ledger=led)
        else:
            view = tx.next_turn(ws, redo=redo, ledger=led)
        # None: nothing, or made elsewhere (the terminal): said which
        return view, tx.describe_turn(ws, view.id if view else None, redo=redo, ledger=led)

    await settled(node)  # what was asked before this key is written first
    view, line = await asyncio.to_thread(find)
    # a blocked undo is tried: the refusal names the file and shows what changed since
    blocked = view is not None and not redo and view.state == "blocked"
    # undoing an undo applies it again (and undoing a redo takes it back): said so
    said = line.partition(":")[0] if line.startswith(("Undo:", "Redo:")) else ""
    if view is None or (not blocked and not said):
        node.app.notify(line, markup=False, timeout=3)
        return False
    # a change of files, any redo, and a decision made before this run are confirmed first
    ask = view.files or redo or not _made_since(view.at, index.opened)
    if not blocked and ask and not await _ask(node, line + "?", said or verb):
        return False
    target = view.id
    outcome = await run_write(
        node,
        f"{verb.lower()} {view.title}",
        lambda: tx.redo(ws, target, ledger=led) if redo else tx.undo(ws, target, ledger=led),
    )
    if not outcome.ok or outcome.value is None:
        return False
    node.app.post_message(FilesWritten(frozenset(outcome.value.paths), review=True))
    done = line.replace(f"{said}:", f"{said}ne:", 1) if said else f"{verb}ne: {view.title}"
    node.app.notify(done, markup=False, timeout=3)
    return True


def _made_since(at: str, since: float) -> bool:
    """Whether a transaction made at ``at`` (ISO time; not a time: long ago) came after
    ``since`` (epoch s)."""
    return utc_time(at).timestamp() >= math.floor(since)  # times are whole seconds
