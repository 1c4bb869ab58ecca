"""``hurikaeri usage [--json] [PATH]``: is each rule and skill in Targets used, followed,
and did the problem it was for stop? (#46, :mod:`store.insight.usage`, docs/usage.md)"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from store.read.counted import counted
from store.read.textsafe import printable
from tui.cli.errors import dump_json, flags

if TYPE_CHECKING:
    from store.insight.usage import Usage
    from store.workspace import Workspace


def add_usage_parser(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "usage",
        parents=[common],
        help="how often each rule and skill was relevant, followed, and its effect",
    )
    p.set_defaults(run=cmd_usage)
    p.add_argument("path", nargs="?", type=Path, metavar="PATH", help="only targets at/under it")
    flags(p, json="print the usage as JSON")


def _line(u: Usage, ws: Workspace) -> str:
    where = f"{ws.display(u.path)}:{u.line}"
    text = printable(u.text, keep_newlines=False)
    if len(text) > 70:
        text = text[:69] + "…"
    return f"{where}  [{u.kind}, {u.scope}] {text}\n    {u.summary()}"


def cmd_usage(args: argparse.Namespace, ws: Workspace) -> int:
    from store.insight.usage import usage_report

    only = None
    if args.path is not None:
        only = Path(os.path.abspath(args.path))
    shown = [0]

    def progress(done: int, total: int) -> bool:
        if sys.stderr.isatty() and (done == total or done - shown[0] >= 50):
            shown[0] = done
            print(f"\rreading transcripts {done}/{total}", end="", file=sys.stderr, flush=True)
        return True

    report = usage_report(ws, progress=progress, only=only)
    if shown[0]:
        print(file=sys.stderr)
    if only is not None and not report.items:
        print(f"hurikaeri: {args.path}: no rule or skill of Targets there", file=sys.stderr)
        return 1
    if args.json:
        dump_json(report.as_json(ws))
        return 0
    for u in report.items:
        print(_line(u, ws))
    flagged = sum(1 for u in report.items if u.flags)
    print(
        f"{counted(len(report.items), 'rule or skill', 'rules and skills')} over "
        f"{counted(report.sessions, 'session')}; "
        f"{flagged} flagged unused",
        file=sys.stderr,
    )
    return 0
