"""``hurikaeri history``, ``undo`` and ``redo``: the transactions of the ledger
(``store.tx.transactions``). Exit status 1 when an undo or redo is refused (the file that
changed since named, its diff printed) or there is nothing to do."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from store.read.textsafe import printable
from tui.cli.errors import JSON_WRITTEN, PROG, at_least, dump_json, flags

if TYPE_CHECKING:  # imported where used: the other commands start without them
    from store.ledger import Ledger
    from store.tx.transactions import TxResult, TxView
    from store.workspace import Workspace

#: How many transactions ``history`` lists unless told (``--limit 0``: all).
DEFAULT_LIMIT = 50


def add_history_parsers(sub: Any, common: argparse.ArgumentParser) -> None:
    hist = sub.add_parser(
        "history",
        parents=[common],
        help="list transactions (every write and decision), newest first",
    )
    hist.set_defaults(run=cmd_history)
    flags(hist, json="print them as a JSON list")
    hist.add_argument(
        "--limit",
        type=at_least(0),
        default=DEFAULT_LIMIT,
        metavar="N",
        help=f"at most N transactions (default {DEFAULT_LIMIT}; 0: all)",
    )
    hist.add_argument("--diff", metavar="TX_ID", help="show the diff of one transaction")
    for name, help_text in (
        ("undo", "undo the last transaction, or TX_ID (every file it wrote restored)"),
        ("redo", "apply the transaction undone last, or TX_ID, again"),
    ):
        p = sub.add_parser(name, parents=[common], help=help_text)
        p.set_defaults(run=cmd_undo)
        p.add_argument("tx_id", nargs="?", metavar="TX_ID", help="a transaction id (see history)")
        flags(p, dry_run=f"say what {name} would do; do nothing", json=JSON_WRITTEN)


def recovered_note(ws: Workspace, ledger: Ledger | None = None) -> None:
    """Roll back what a killed process left half done (every command that writes calls
    this first) and say so on standard error. ``ledger``: the command's own, read once."""
    from store.tx.transactions import recover

    for r in recover(ws, ledger=ledger):
        left = f"; left as found: {', '.join(r.left)}" if r.left else ""
        print(
            f"{PROG}: rolled back an unfinished {r.action} "
            f"{', '.join(r.subjects[:3])} [{r.id}] left by a process that stopped{left}",
            file=sys.stderr,
        )


def tx_json(result: TxResult | None, **extra: Any) -> dict[str, Any]:
    """What a writing command prints with ``--json``: the transaction (``tx`` is ``null``
    when nothing was written) and the command's own fields."""
    base: dict[str, Any] = (
        result.as_json() if result is not None and result.recorded else {"tx": None, "files": []}
    )
    return {**base, **extra}


#: The widest the "who" column gets (wider identities are cut, with an ellipsis).
WHO_WIDTH = 16


def _who(who: str | None) -> str:
    """A reviewer as the column shows it: an e-mail address by its name part (``--json``
    has it whole), cut to :data:`WHO_WIDTH`."""
    name = (who or "-").partition("@")[0] or who or "-"
    return name if len(name) <= WHO_WIDTH else name[: WHO_WIDTH - 1] + "…"


def _at(at: str) -> str:
    """The time in the local zone (the ledger keeps each writer's own), to the second."""
    from store.read.isotime import parse_time

    t = parse_time(at)
    return t.astimezone().isoformat(timespec="seconds") if t else at


def _state(v: TxView) -> str:
    return v.state + ("" if v.trusted else " not ours")


def _line(v: TxView, who_width: int, state_width: int) -> str:
    files = ", ".join(f.path for f in v.files)
    who = _who(v.who)
    state = _state(v)
    via = f" via {v.channel}" if v.channel else ""
    out = f"{_at(v.at)}  {v.id}  {state:<{state_width}} {who:<{who_width}} {v.title}{via}" + (
        f"  [{files}]" if files else ""
    )
    said = v.state in ("blocked", "aborted") or (not v.trusted and (v.files or v.state == "open"))
    if v.reason and said:
        out += f"\n    {v.reason}"
    return printable(out)


def cmd_history(args: argparse.Namespace, ws: Workspace) -> int:
    from store.tx.transactions import history, tx_diff

    if args.diff:
        sys.stdout.write(printable(tx_diff(ws, args.diff)))
        return 0
    views = history(ws, limit=args.limit or None)
    if args.json:
        dump_json([v.as_json() for v in views])
        return 0
    if not views:
        print(f"{PROG}: no transactions yet", file=sys.stderr)
        return 0
    width = max(len(_who(v.who)) for v in views)
    states = max(len(_state(v)) for v in views)
    for v in views:
        print(_line(v, width, states))
    return 0


def cmd_undo(args: argparse.Namespace, ws: Workspace) -> int:
    """``undo`` and ``redo`` (``args.command``): one transaction taken back or applied again."""
    from store.tx import transactions as tx

    name, redo = args.command, args.command == "redo"
    head = f"{name.capitalize()}:"
    recovered_note(ws)
    tx_id = args.tx_id
    if tx_id is None and not args.dry_run:  # the one described is the one turned, by its id
        last = tx.next_turn(ws, redo=redo)
        tx_id = last.id if last is not None else None
    line = tx.describe_turn(ws, tx_id, redo=redo)
    if args.dry_run:
        if args.json:
            data: dict[str, Any] = {"dry_run": True, "describe": line}
            if not redo:
                data["target"] = tx.get(ws, args.tx_id).as_json() if args.tx_id else None
            dump_json(data)
        else:
            print(printable(line))
        return 0 if line.startswith(head) else 1
    try:
        if redo:
            result = tx.redo(ws, tx_id)
        elif tx_id:
            result = tx.undo(ws, tx_id)
        else:
            result = tx.undo_last(ws)
    except tx.UndoRefused as exc:
        if args.json:
            dump_json({"refused": str(exc), "path": exc.path, "diff": exc.diff or None})
        elif exc.diff:
            sys.stdout.write(printable(exc.diff))
        raise
    if result is None:
        if args.json:
            dump_json(tx_json(None, describe=f"Nothing to {name}."))
        print(f"{PROG}: nothing to {name}", file=sys.stderr)
        return 1
    said = line[len(head) :].strip() if line.startswith(head) else line
    if args.json:
        dump_json(tx_json(result, describe=said))
    else:
        verb = "redid" if redo else "undid"
        print(printable(f"{verb} {said} [{result.undoes or result.redoes}] as {result.id}"))
    return 0
