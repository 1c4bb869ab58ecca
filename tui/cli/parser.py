"""The command line's parser, each group's subcommands from its module. Building it loads
no models, insight code or UI: each command imports what it needs when it runs."""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Mapping, Sequence, Set
from importlib import import_module
from typing import Any

from store import __version__
from tui.cli.errors import PROG, Parser, UsageError, common_options

#: Each group of commands, in the order help lists them: the module under ``tui.cli`` that
#: adds their parsers, its function, the commands it adds. A command line naming one is
#: parsed with its groups alone (the other modules not imported: ~0.01 s of ``show``).
GROUPS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("ui", "add_demo_parser", ("demo",)),
    ("reports", "add_report_parsers", ("lint", "match", "stats")),
    ("show", "add_show_parser", ("show",)),
    ("exchange", "add_exchange_parsers", ("import-wrapup", "export-feedback")),
    ("review", "add_review_parsers", ("approve", "reject", "promote", "retarget")),
    ("history", "add_history_parsers", ("history", "undo", "redo")),
    ("meta", "add_meta_parser", ("meta",)),
    ("search", "add_search_parser", ("search",)),
    ("targets", "add_targets_parser", ("targets",)),
    ("evidence", "add_evidence_parser", ("evidence",)),
    ("usage", "add_usage_parser", ("usage",)),
    ("sync", "add_sync_parser", ("sync",)),
    ("changes", "add_changes_parsers", ("changes", "keep", "revert")),
    ("serve", "add_serve_parser", ("serve",)),
)
#: The shells ``completion`` writes a script for (:mod:`tui.cli.completion`).
SHELLS = ("bash", "zsh", "fish")


def parse(argv: Sequence[str] | None) -> argparse.Namespace:
    """``argv`` parsed, with the groups of the commands it names alone when it names one and
    asks for no help or version: what they parse, the whole parser parses alike (anything
    else, an error included, is left to the whole parser)."""
    words = set(sys.argv[1:] if argv is None else argv)
    named = {c for *_, names in GROUPS for c in names if c in words}
    if named and not any(w == "-h" or w.startswith(("--h", "--v")) for w in words):
        with contextlib.suppress(UsageError):
            return build_parser(only=named).parse_args(argv)
    return build_parser().parse_args(argv)


def build_parser(
    completions: Mapping[str, Any] | None = None, only: Set[str] | None = None
) -> argparse.ArgumentParser:
    """The parser; ``completions``: how the shell completes arguments, by ``dest`` (for a
    completion script, :func:`tui.cli.completion.completion_script`); ``only``: the groups
    of these commands alone."""
    cls: type[Parser] = Parser
    if completions:
        cls = type("Parser", (Parser,), {"completions": completions})
    common = common_options(cls, argparse.SUPPRESS)
    parser = cls(
        prog=PROG,
        description="Review what AI coding agents learned: KPT reports, lessons, skills, proposals.",
        parents=[common_options(cls, None)],
    )
    parser.add_argument(
        "--version",
        action="version",
        version=f"{PROG} {__version__}",
        help="print the version and exit",
    )
    sub = parser.add_subparsers(dest="command", parser_class=cls)
    for module, add, names in GROUPS:
        if only is None or not only.isdisjoint(names):
            getattr(import_module(f"tui.cli.{module}"), add)(sub, common)
    if only is not None:
        return parser
    completion = sub.add_parser(
        "completion",
        help="print the shell completion script (bash, zsh or fish)",
        description="Print a completion script for SHELL on standard output; "
        "the README's command-line section says where to put it.",
    )
    completion.add_argument("shell", choices=SHELLS, metavar="SHELL", help="bash, zsh or fish")
    return parser
