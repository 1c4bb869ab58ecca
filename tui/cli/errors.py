"""What every command's errors are, and the program's name in its messages.

Exit status, one rule for every command: 2 when the command line itself is wrong
(:class:`UsageError`, and argparse's own); 1 when what it names has problems
(:class:`SubjectError`, ``ReviewError``, a write error); 0 otherwise.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

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
