"""``hurikaeri targets``: the files agents load, with their findings. Exit status 1 when
a target is over budget, holds a secret or could not be read."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from store.read.counted import counted
from store.read.isotime import parse_time
from store.read.textsafe import printable
from tui.cli.errors import dump_json, flags


def add_targets_parser(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "targets",
        parents=[common],
        help="the files agents load: size against budget, duplicates, stale rules, secrets",
    )
    p.set_defaults(run=cmd_targets)
    flags(
        p,
        json="print targets and findings as JSON",
        stale="list only stale paths, missing commands and untouched targets",
    )


def cmd_targets(args: argparse.Namespace, ws: Any) -> int:
    from store.insight.target_report import build_report, stale_findings

    report = build_report(ws)
    problems = any(
        f.severity == "error"
        for f in report.findings
        if f.kind in ("budget", "secret", "unreadable")
    )
    if args.json:
        data = report.as_json(ws)
        if args.stale:
            data = {
                "findings": [f.as_json() for f in stale_findings(report)],
                "stale_days": report.stale_days,
            }
        dump_json(data)
        return 1 if problems and not args.stale else 0
    if args.stale:
        found = stale_findings(report)
        for f in found:
            where = f"{ws.display(f.path)}:{f.line}" if f.line else ws.display(f.path)
            print(f"{where}: {f.kind}: {printable(f.message, keep_newlines=False)}")
        print(counted(len(found), "stale finding"), file=sys.stderr)
        return 0
    if not report.rows:
        print("no targets found (CLAUDE.md, rules, MEMORY.md, AGENTS.md, skills, memory)")
        return 0
    for row in report.rows:
        t = row.text
        budget = f"{row.used:,}/{row.budget.limit:,} {row.budget.unit}" if row.budget else "-"
        counts = ", ".join(f"{k} {v}" for k, v in row.counts.items() if v)
        counts = f"findings: {counts}" if counts else "no findings"
        written = _written(row.last_written)
        if t.error is not None:
            reason = printable(t.error, keep_newlines=False)
            print(f"{ws.display(row.path)}  [{row.file.kind}]  not read ({reason}) · {counts}")
            continue
        print(
            f"{ws.display(row.path)}  [{row.file.kind}]  {counted(len(t.lines), 'line')}, "
            f"{t.chars:,} chars, ~{t.tokens:,} tokens, budget {budget}, "
            f"{counted(len(t.rules), 'bullet')}, "
            f"{written} · {counts}"
        )
    for f in report.findings:
        where = f"{ws.display(f.path)}:{f.line}" if f.line else ws.display(f.path)
        print(f"{where}: {f.severity}: {f.kind}: {printable(f.message, keep_newlines=False)}")
    return 1 if problems else 0


def _written(at: str | None) -> str:
    """When hurikaeri last wrote the file, in local time (no seconds: a time followed by a
    colon read as part of it, "22:19: duplicate 1")."""
    if not at:
        return "not written by hurikaeri"
    when = parse_time(at)
    if when is None:
        return f"written by hurikaeri {printable(at[:16], keep_newlines=False)}"
    return f"written by hurikaeri {when.astimezone():%Y-%m-%d %H:%M}"
