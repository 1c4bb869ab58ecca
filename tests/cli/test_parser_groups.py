"""A command line naming a command is parsed with that command's group alone
(:func:`tui.cli.parser.parse`): it must come out as the whole parser has it, errors too."""

from __future__ import annotations

import argparse
import re

import pytest

from tui.cli.errors import UsageError
from tui.cli.parser import GROUPS, build_parser, parse


def commands(parser: argparse.ArgumentParser) -> list[str]:
    """The commands its usage line lists (``{demo,lint,…}``), in order."""
    found = re.search(r"\{([a-z,-]+)\}", parser.format_usage())
    assert found is not None
    return found.group(1).split(",")


def test_each_group_adds_the_commands_it_names_in_the_order_help_lists_them() -> None:
    for _module, _add, names in GROUPS:
        assert commands(build_parser(only=set(names))) == list(names)
    every = [name for *_, names in GROUPS for name in names]
    assert commands(build_parser()) == [*every, "completion"]


ARGVS = [
    ["show", "kpt-20260101-001"],
    ["show", "kpt-20260101-001/keep-001", "--json", "--root", "/tmp/w"],
    ["--root", "/tmp/w", "approve", "kpt-1/keep-001", "kpt-1/try-001", "--note", "ok"],
    ["--root", "show", "approve", "kpt-1/keep-001"],  # a root named like a command
    ["approve", "show"],
    ["import-wrapup", "-", "--json"],
    ["import-wrapup", "wrapup.json", "--allow-secret", "--config", "/tmp/c.toml"],
    ["history", "--limit", "0"],
    ["keep", "CLAUDE.md", "--dry-run"],
    ["--root", "show"],  # no command: the app
    # errors: the whole parser's message
    ["show"],
    ["show", "x", "--bogus"],
    ["--root", "show", "bogus"],
    ["approve", "--note"],
    ["show", "--json", "stats", "--nope"],
]


@pytest.mark.parametrize("argv", ARGVS, ids=" ".join)
def test_a_command_line_parses_as_the_whole_parser_has_it(argv: list[str]) -> None:
    try:
        want: object = vars(build_parser().parse_args(argv))
    except UsageError as e:
        want = str(e)
    try:
        got: object = vars(parse(argv))
    except UsageError as e:
        got = str(e)
    assert got == want
