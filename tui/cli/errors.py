"""What every command's errors are, and the program's name in its messages.

Exit status, one rule for every command: 2 when the command line itself is wrong
(:class:`UsageError`, and argparse's own); 1 when what it names has problems
(:class:`SubjectError`, ``ReviewError``, a write error); 0 otherwise.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING

from store.read.textsafe import printable

if TYPE_CHECKING:
    from store.workspace import Workspace

PROG = "hurikaeri"


class UsageError(Exception):
    """The command line itself is wrong (exit status 2): an unknown command or option, a
    missing or malformed argument, a value the option does not take."""


class SubjectError(Exception):
    """What the command line names is not usable (exit status 1): a path that is not
    there or cannot be read, a config file that is broken."""


def default_root_check(args: argparse.Namespace, ws: Workspace) -> None:
    """The default root (no ``--root``, no ``root`` in the config) holds nothing of ours:
    a :class:`SubjectError` saying so and what to do, rather than "no problems found"."""
    if args.root is None and ws.config.root is None:
        why = ws.nothing_here()
        if why is not None:
            raise SubjectError(why)


def failed(exc: Exception | KeyboardInterrupt) -> int:
    """What a command raised, told in one line on standard error (never a traceback), and
    its exit status (see the module's docstring)."""
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
    if isinstance(exc, ReviewError) or _is_write_error(exc):
        print(f"{PROG}: {message}", file=sys.stderr)
    else:
        print(f"{PROG}: error: {type(exc).__name__}: {message}", file=sys.stderr)
    return 1


def _is_write_error(exc: Exception) -> bool:
    """A refused or failed write (``store.write.atomic.WriteError``): only a command that
    imported that module can raise one, so it is not imported here to ask."""
    atomic = sys.modules.get("store.write.atomic")
    return atomic is not None and isinstance(exc, atomic.WriteError)
