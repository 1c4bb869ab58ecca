"""``hurikaeri sync [--dry-run]``: share your review through the workspace's git
repository (``store.sync``); exit status 1, the repository as it was, when it cannot."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from store.read.textsafe import printable
from store.workspace import Workspace
from tui.cli.errors import PROG, dump_json, flags


def add_sync_parser(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "sync",
        parents=[common],
        help="commit your decisions, bring in the team's, push (the workspace in git)",
    )
    p.set_defaults(run=cmd_sync)
    flags(p, dry_run="say what sync would do; do nothing")
    earlier = p.add_mutually_exclusive_group()
    for option, const, whose in (
        ("--bring-in", True, "share the decisions you made before joining (in ledger.jsonl)"),
        ("--keep-local", False, "keep the decisions you made before joining to yourself"),
    ):
        earlier.add_argument(
            option, dest="bring_in", action="store_const", const=const, help=f"first sync: {whose}"
        )
    flags(p, json="print what was done as JSON")


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
