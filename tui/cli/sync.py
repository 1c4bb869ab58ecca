"""``hurikaeri sync [--dry-run]``: share your review through the workspace's git repository.

Commits your own ledger and the files your transactions wrote, brings in the team's work
and pushes (see ``store.sync``). Exit status 1, with one line on standard error and the
repository as it was, when it cannot (a conflict, no repository, a rebase in progress).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from store.read.textsafe import printable
from store.workspace import Workspace
from tui.cli.errors import PROG, dump_json


def add_sync_parser(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "sync",
        parents=[common],
        help="commit your decisions, bring in the team's, push (the workspace in git)",
    )
    p.add_argument("--dry-run", action="store_true", help="say what sync would do; do nothing")
    earlier = p.add_mutually_exclusive_group()
    earlier.add_argument(
        "--bring-in",
        dest="bring_in",
        action="store_const",
        const=True,
        help="first sync: share the decisions you made before joining (in ledger.jsonl)",
    )
    earlier.add_argument(
        "--keep-local",
        dest="bring_in",
        action="store_const",
        const=False,
        help="first sync: keep the decisions you made before joining to yourself",
    )
    p.add_argument("--json", action="store_true", help="print what was done as JSON")


def cmd_sync(args: argparse.Namespace, ws: Workspace) -> int:
    from store.sync import ChooseEarlier, SyncError, sync

    try:
        result = sync(ws, dry_run=args.dry_run, bring_in=args.bring_in)
    except ChooseEarlier as exc:
        for line in exc.decisions:
            print(printable(f"  {line}", keep_newlines=False))
        print(f"{PROG}: sync stopped: {printable(str(exc), keep_newlines=False)}", file=sys.stderr)
        return 1
    except SyncError as exc:
        print(f"{PROG}: sync stopped: {printable(str(exc), keep_newlines=False)}", file=sys.stderr)
        return 1
    if args.json:
        dump_json(result.as_json())
        return 0
    for line in result.lines():
        print(printable(line, keep_newlines=False))
    return 0
