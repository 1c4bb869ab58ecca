"""The ``hurikaeri`` command line: the UI by default, subcommands for scripts and hooks.
Exit statuses and errors: :mod:`tui.cli.errors`."""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Callable, Sequence

from store.config import load_config
from store.workspace import Workspace
from tui.cli import ui
from tui.cli.errors import PROG, SubjectError, failed
from tui.cli.parser import parse
from tui.visible_output import visible_output

#: The commands that decide or write as a person does: refused inside an agent's session
#: (:mod:`store.tx.agents`), unless they only show what they would do (``--dry-run``).
#: ``sync`` publishes the person's decisions under their name.
PERSON_ONLY = frozenset(
    {"approve", "reject", "promote", "retarget", "undo", "redo", "keep", "revert", "sync"}
)


def _c_loader_loads() -> bool:
    """Whether ruamel.yaml's C loader loads (ruamel.yaml.clib, behind ruamel's ``cyaml``)."""
    try:
        importlib.import_module("ruamel.yaml.cyaml")
    except ImportError:
        return False
    return True


def main(argv: Sequence[str] | None = None) -> int:
    try:
        args = parse(argv)
        if not _c_loader_loads():
            print(
                f"{PROG}: error: ruamel.yaml's C loader (ruamel.yaml.clib) is not installed; "
                "install it with 'pip install ruamel.yaml.clib' (or reinstall hurikaeri)",
                file=sys.stderr,
            )
            return 2
        if args.command == "completion":  # needs no config and no workspace
            from tui.cli.completion import cmd_completion

            return cmd_completion(args.shell)
        config = load_config(args.config)
        if args.command == "demo":
            return ui.run_demo(config, args.keep)
        if args.root is not None and not args.root.is_dir():
            raise SubjectError(f"--root {args.root}: not a directory")
        ws = Workspace.resolve(args.root, config)
        command: Callable[[argparse.Namespace, Workspace], int] | None = getattr(args, "run", None)
        person = args.command in PERSON_ONLY and not getattr(args, "dry_run", False)
        waived = getattr(args, "allow_secret", False)  # judging a hit no secret is a person's
        if person or waived:
            from store.tx.agents import check_person

            what = args.command if person else f"{args.command} --allow-secret"
            check_person(what, config, os.environ)
        if command is not None:
            with visible_output():  # what they print comes from agents' files
                return command(args, ws)
        return ui.run_ui(ws)
    except (Exception, KeyboardInterrupt) as exc:  # noqa: BLE001 - never a traceback
        return failed(exc)
