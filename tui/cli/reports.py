"""The read-only reports: ``lint`` (the workspace's files checked), ``match`` (which
skills would load for a task) and ``stats`` (counts and effect metrics)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from store.read.counted import counted
from store.read.textsafe import printable
from tui.cli.errors import default_root_check, dump_json, flags

if TYPE_CHECKING:
    from store.read.diagnostics import Diagnostic
    from store.workspace import Workspace


def add_report_parsers(sub: Any, common: argparse.ArgumentParser) -> None:
    lint = sub.add_parser(
        "lint", parents=[common], help="check the workspace, or the given files and directories"
    )
    lint.set_defaults(run=cmd_lint)
    lint.add_argument("paths", nargs="*", type=Path, metavar="PATH")
    flags(lint, json="print diagnostics as a JSON list")
    match = sub.add_parser(
        "match", parents=[common], help="which knowledge-base skills would load for a task, scored"
    )
    match.set_defaults(run=cmd_match)
    match.add_argument("text", metavar="TEXT", help="the task's objective")
    match.add_argument(
        "--file",
        action="append",
        default=[],
        dest="files",
        metavar="F",
        help="a file the task modifies (repeatable)",
    )
    match.add_argument("--type", dest="task_type", metavar="T", help="the task type")
    flags(
        match,
        json="print the kept skills as JSON",
        all="also list skills below the threshold",
    )
    stats = sub.add_parser("stats", parents=[common], help="counts and effect metrics")
    stats.set_defaults(run=cmd_stats)
    flags(stats, json="print them as JSON")


def cmd_lint(args: argparse.Namespace, ws: Workspace) -> int:
    from store.insight.lint import lint_paths, lint_workspace

    if not args.paths:
        default_root_check(args, ws)
    diags: list[Diagnostic] = list(lint_paths(args.paths, ws) if args.paths else lint_workspace(ws))
    if args.json:
        dump_json([d.as_dict() for d in diags])
    else:
        for d in diags:
            print(d.format())
        errors = sum(1 for d in diags if d.severity == "error")
        files = len({d.path for d in diags})
        print(
            f"{counted(errors, 'error')}, {counted(len(diags) - errors, 'warning')} "
            f"in {counted(files, 'file')}"
            if diags
            else "no problems found",
            file=sys.stderr,
        )
    return 1 if any(d.severity == "error" for d in diags) else 0


def cmd_match(args: argparse.Namespace, ws: Workspace) -> int:
    from store.insight.matching import MatchTask, all_scores, applicable_patterns, load_knowledge
    from store.insight.matching import match as match_skills

    knowledge = load_knowledge(ws)
    task = MatchTask(args.text, files=tuple(args.files), task_type=args.task_type)
    scores = all_scores(knowledge, task) if args.all else match_skills(knowledge, task)
    patterns = applicable_patterns(knowledge, task)
    if args.json:
        dump_json([sc.as_dict() for sc in scores])
        return 0
    if not scores:
        print("no skill would load (none scores above 0.5)")
    for sc in scores:
        mark = "load" if sc.kept else "    "
        parts = (
            f"kw {sc.keyword_points:.1f} + files {sc.file_points:.1f} + type {sc.type_points:.1f}"
        )
        rate = f"× {sc.success_rate:.2f}{' (assumed)' if sc.success_rate_assumed else ''}"
        print(f"{mark} {sc.score:.2f}  {printable(sc.skill_id)}  ({parts} {rate})")
    for hit in patterns:
        print(
            f"{hit.kind}: {printable(hit.pattern_id)}  (matched: {printable(', '.join(hit.reasons))})"
        )
    return 0


def cmd_stats(args: argparse.Namespace, ws: Workspace) -> int:
    from store.index.workspace_index import WorkspaceIndex
    from store.insight.effect import as_json as effect_json
    from store.insight.effect import effect_metrics
    from store.insight.stats import workspace_counts, workspace_stats

    default_root_check(args, ws)
    index = WorkspaceIndex(ws)
    index.load_all()
    counts = workspace_counts(index)
    metrics = effect_metrics(index)
    figures = workspace_stats(index)
    if args.json:
        dump_json({"counts": counts.as_dict(), **figures, "effect": effect_json(metrics)})
        return 0
    print(
        f"sessions {counts.sessions} (KPT reports {counts.kpt_reports}), lessons {counts.lessons}"
    )
    print("items: " + ", ".join(f"{k} {v}" for k, v in counts.items.items()))
    print(f"inbox pending {counts.inbox_pending}, files with errors {counts.files_with_errors}")
    for label, figure in (
        ("outcomes per week", figures["outcomes_per_week"]),
        ("problem categories", figures["problem_categories"]),
        ("try-items", figures["try_items"]),
    ):
        if figure:  # a label with nothing after it says nothing (no KPT report yet)
            print(f"{label}: " + ", ".join(_figure(k, v) for k, v in figure.items()))
    for c in figures["recurring_problems"][:10]:
        after = {
            None: "",
            True: " — recurred after promotion",
            False: " — not seen since promotion",
        }[c["recurred_after_promotion"]]
        print(f"recurring ×{c['count']}: {printable(c['description'], keep_newlines=False)}{after}")
    print("effect metrics (seed 003):")
    for m in metrics:
        print(f"  {m.name:<40} {m.shown:>10}  {printable(m.basis)}")
    return 0


def _figure(key: str, value: Any) -> str:
    """``2026-W45 f1/s3`` for a week's outcomes (each by its initial), ``bug 4`` for a count."""
    if isinstance(value, dict):
        return f"{key} " + "/".join(f"{k[0]}{v}" for k, v in sorted(value.items()))
    return f"{key} {value}"
