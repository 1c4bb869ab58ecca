"""The command line's parser, each group's subcommands from its module. Building it loads
no models, insight code or UI: each command imports what it needs when it runs."""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from typing import Any

from store import __version__
from tui.cli.changes import add_changes_parsers
from tui.cli.errors import PROG, Parser, common_options
from tui.cli.evidence import add_evidence_parser
from tui.cli.exchange import add_exchange_parsers
from tui.cli.history import add_history_parsers
from tui.cli.meta import add_meta_parser
from tui.cli.reports import add_report_parsers
from tui.cli.review import add_review_parsers
from tui.cli.search import add_search_parser
from tui.cli.serve import add_serve_parser
from tui.cli.show import add_show_parser
from tui.cli.sync import add_sync_parser
from tui.cli.targets import add_targets_parser
from tui.cli.ui import add_demo_parser
from tui.cli.usage import add_usage_parser

#: The shells ``completion`` writes a script for (:mod:`tui.cli.completion`).
SHELLS = ("bash", "zsh", "fish")


def build_parser(completions: Mapping[str, Any] | None = None) -> argparse.ArgumentParser:
    """The parser; ``completions``: how the shell completes arguments, by ``dest`` (for a
    completion script, :func:`tui.cli.completion.completion_script`)."""
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
    for add in (
        add_demo_parser,
        add_report_parsers,  # lint, match, stats
        add_show_parser,
        add_exchange_parsers,  # import-wrapup, export-feedback
        add_review_parsers,  # approve, reject, promote, retarget
        add_history_parsers,  # history, undo, redo
        add_meta_parser,
        add_search_parser,
        add_targets_parser,
        add_evidence_parser,
        add_usage_parser,
        add_sync_parser,
        add_changes_parsers,  # changes, keep, revert
        add_serve_parser,
    ):
        add(sub, common)
    completion = sub.add_parser(
        "completion",
        help="print the shell completion script (bash, zsh or fish)",
        description="Print a completion script for SHELL on standard output; "
        "the README's command-line section says where to put it.",
    )
    completion.add_argument("shell", choices=SHELLS, metavar="SHELL", help="bash, zsh or fish")
    return parser
