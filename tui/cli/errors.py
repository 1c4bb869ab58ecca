"""What every command shares: the program's name, its errors, its parser class, the
``--root`` and ``--config`` options, JSON output and on/off options. Exit status: 2 for a
wrong command line (:class:`UsageError`), 1 for problems with what it names (docs/command-line.md)."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from store.read.textsafe import printable

if TYPE_CHECKING:
    from store.workspace import Workspace

PROG = "hurikaeri"
#: the help of the options that are the same in several commands
JSON_WRITTEN = "print what was written as JSON"
ALLOW_SECRET = "write what the secret scan flags (when it is no real secret)"


class UsageError(Exception):
    """The command line itself is wrong (exit status 2)."""


class SubjectError(Exception):
    """What the command line names is not usable (exit status 1): a path that is not
    there or cannot be read, a config file that is broken."""


class Parser(argparse.ArgumentParser):
    """Every command line error is one :class:`UsageError` (one line, exit status 2)."""

    #: How the shell completes an argument, by its ``dest``: set on each argument added
    #: as its ``complete`` attribute, which shtab reads (see :mod:`tui.cli.completion`).
    completions: Mapping[str, Any] = {}

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message} (see '{self.prog} --help')")

    def add_argument(self, *args: Any, **kwargs: Any) -> argparse.Action:
        action = super().add_argument(*args, **kwargs)
        if action.dest in self.completions:
            setattr(action, "complete", self.completions[action.dest])  # noqa: B010
        return action


def common_options(parser_class: type[Parser], default: Any) -> Parser:
    """``--root`` and ``--config``, before and after the subcommand: the subcommands' copies
    default to ``SUPPRESS``, so that one given before is not overwritten by theirs."""
    p = parser_class(add_help=False)
    for option, what in (
        ("--root", "workspace root (default: ~/.claude or the config's)"),
        ("--config", "config file (default: $HURIKAERI_CONFIG or the user config dir)"),
    ):
        p.add_argument(option, type=Path, default=default, help=what)
    return p


def at_least(low: int) -> Callable[[str], int]:
    """An option's whole number, ``low`` or more (a negative ``--limit`` read as a count)."""

    def number(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"{value} is below {low}")
        return value

    return number


def flags(p: argparse.ArgumentParser, **helps: str) -> None:
    """On/off options in this order, by their ``dest``: ``dry_run="…"`` adds ``--dry-run``."""
    for dest, text in helps.items():
        p.add_argument(f"--{dest.replace('_', '-')}", action="store_true", help=text)


def dump_json(data: Any) -> None:
    # one write: ``json.dump`` writes each token on its own (a system call each, unbuffered)
    sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2, default=str) + "\n")


def default_root_check(args: argparse.Namespace, ws: Workspace) -> None:
    """The default root (no ``--root``, no ``root`` in the config) holds nothing of ours:
    a :class:`SubjectError` saying so and what to do, rather than "no problems found"."""
    if args.root is None and ws.config.root is None:
        why = ws.nothing_here()
        if why is not None:
            raise SubjectError(why)


def failed(exc: Exception | KeyboardInterrupt) -> int:
    """What a command raised, told in one line on standard error (never a traceback), and
    its exit status."""
    from store.config import ConfigError
    from store.errors import ReviewError

    if isinstance(exc, KeyboardInterrupt):
        return 130
    if isinstance(exc, BrokenPipeError):
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    message = printable(str(exc))
    if isinstance(exc, (UsageError, SubjectError, ConfigError)):
        print(f"{PROG}: error: {message}", file=sys.stderr)
        return 2 if isinstance(exc, UsageError) else 1
    # a refused or failed write (store.write.atomic.WriteError): only a command that
    # imported that module can raise one
    atomic = sys.modules.get("store.write.atomic")
    if isinstance(exc, ReviewError) or (atomic is not None and isinstance(exc, atomic.WriteError)):
        print(f"{PROG}: {message}", file=sys.stderr)
    else:
        print(f"{PROG}: error: {type(exc).__name__}: {message}", file=sys.stderr)
    return 1
