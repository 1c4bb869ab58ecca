"""``hurikaeri changes``, ``keep`` and ``revert``: the files agents load that changed
outside hurikaeri since they were last reviewed (docs/changes.md)."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from store.read.textsafe import printable
from tui.cli.errors import SubjectError, UsageError, at_least, dump_json, flags
from tui.cli.exchange import read_input_bytes

if TYPE_CHECKING:
    from store.review.changes import Change
    from store.workspace import Workspace


def add_changes_parsers(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "changes",
        parents=[common],
        help="files agents load that changed since your last review, and who changed them",
    )
    p.set_defaults(run=cmd_changes)
    flags(p, json="print the changes as JSON", diff="print each change's diff")
    k = sub.add_parser("keep", parents=[common], help="accept a change: it becomes reviewed")
    k.set_defaults(run=cmd_keep)
    k.add_argument("path", nargs="?", help="the file, as 'changes' lists it")
    flags(k, all="keep every change listed")
    how = k.add_mutually_exclusive_group()
    flags(how, edit="edit the file in $EDITOR, keep the edit")
    how.add_argument(
        "--from",
        dest="from_file",
        metavar="FILE",
        help="write FILE's content (- stdin) and keep it",
    )
    flags(k, allow_secret="keep an edit that adds what looks like a secret")
    r = sub.add_parser("revert", parents=[common], help="put a file's reviewed content back")
    r.set_defaults(run=cmd_revert)
    r.add_argument("path", help="the file, as 'changes' lists it")
    r.add_argument(
        "--hunk", type=at_least(1), metavar="N", help="revert only the N-th hunk of its diff"
    )


def cmd_changes(args: argparse.Namespace, ws: Workspace) -> int:
    from store.review.changes import first_start_line, list_changes

    changes, recorded = list_changes(ws)
    if args.json:
        out = {
            "recorded": recorded,
            "changes": [c.as_json() for c in changes],
        }
        dump_json(out)
        return 0
    if recorded is not None:
        print(first_start_line(recorded))
        return 0
    if not changes:
        print("no changes since your last review")
    for c in changes:
        print(printable(c.summary(), keep_newlines=False))
        if args.diff:
            print(printable(c.diff()))
    return 0


def cmd_keep(args: argparse.Namespace, ws: Workspace) -> int:
    from store.review.changes import find, first_start_line, keep, list_changes

    edited = args.edit or args.from_file is not None
    if bool(args.all) == bool(args.path) or (edited and args.all):
        raise UsageError("keep: name one file, or --all (--edit and --from take one file)")
    changes, recorded = list_changes(ws, attribute=False)
    if recorded is not None:
        print(f"nothing to keep yet: {printable(first_start_line(recorded))}")
        return 0
    if args.all and not changes:
        print("nothing to keep: no change to review")
        return 0
    chosen = changes if args.all else [find(changes, ws, args.path)]
    if edited:
        return _keep_edited(args, ws, chosen[0])
    result = keep(ws, chosen)
    names = ", ".join(c.key for c in chosen)
    print(f"kept {printable(names, keep_newlines=False)} as reviewed  [{result.id}]")
    return 0


def cmd_revert(args: argparse.Namespace, ws: Workspace) -> int:
    from store.review.changes import find, first_start_line, list_changes, revert

    changes, recorded = list_changes(ws, attribute=False)
    if recorded is not None:
        print(f"nothing to revert yet: {printable(first_start_line(recorded))}")
        return 0
    change = find(changes, ws, args.path)
    result = revert(ws, change, args.hunk)
    what = change.key + (f" hunk {args.hunk}" if args.hunk else "")
    print(f"reverted {printable(what, keep_newlines=False)} to the reviewed state  [{result.id}]")
    return 0


def _keep_edited(args: argparse.Namespace, ws: Workspace, change: Change) -> int:
    """``keep PATH --edit|--from FILE``: the new content written over the file and kept."""
    from store.insight.budgets import check_budget
    from store.review.changes import keep_edited

    if args.edit:
        after = _edited(ws, change)
        if after is None:
            print(f"{printable(change.key, keep_newlines=False)} not edited: nothing kept")
            return 1
    else:  # a regular file or standard input, bounded: never /dev/zero read for ever
        after, _ = read_input_bytes(args.from_file)
    result = keep_edited(ws, change, after, allow_secrets=args.allow_secret)
    name = printable(change.key, keep_newlines=False)
    print(f"wrote and kept {name} as reviewed  [{result.id}]")
    budget = check_budget(ws, change.path, change.reviewed, after)
    if budget.crosses:
        print(f"over budget: {printable(budget.summary, keep_newlines=False)}", file=sys.stderr)
    return 0


def _edited(ws: Workspace, change: Change) -> bytes | None:
    """The file as shown, edited in ``$EDITOR`` (``None``: left as it was)."""
    from store.review.external_edit import ExternalEdit
    from store.write.policy import action_writes

    shown = change.current if change.current is not None else change.reviewed or b""
    try:
        edit = ExternalEdit.start(
            change.path, None, ws.state_dir / "edits", action_writes(ws, "keep"), original=shown
        )
        try:
            edit.run_editor()
            return edit.result if edit.changed else None
        finally:
            edit.discard()
    except OSError as exc:
        raise SubjectError(f"{change.key}: cannot edit: {exc}") from None
