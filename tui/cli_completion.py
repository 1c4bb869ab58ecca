"""``hurikaeri completion bash|zsh|fish``: the shell completion script, generated.

The script is generated from the same argparse parser the command line uses, by shtab
(https://github.com/tqdm/shtab), so a new command or option completes without anyone
editing a script; paths complete as files or directories. shtab is imported only here,
when a script is asked for: completing costs the shell nothing at run time.

Install (see the README's command-line section)::

    hurikaeri completion bash > ~/.local/share/bash-completion/completions/hurikaeri
    hurikaeri completion zsh > "${fpath[1]}/_hurikaeri"
    hurikaeri completion fish > ~/.config/fish/completions/hurikaeri.fish
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

SHELLS = ("bash", "zsh", "fish")
#: Options and arguments that take a directory, and those that take a file.
_DIRECTORIES = frozenset({"root"})
_FILES = frozenset({"config", "output", "paths", "file", "files"})


def add_completion_parser(sub: Any) -> None:
    p = sub.add_parser(
        "completion",
        help="print the shell completion script (bash, zsh or fish)",
        description="Print a completion script for SHELL on standard output; "
        "the README's command-line section says where to put it.",
    )
    p.add_argument("shell", choices=SHELLS, metavar="SHELL", help="bash, zsh or fish")


def completion_script(parser: argparse.ArgumentParser, shell: str) -> str:
    """The completion script of ``parser`` for ``shell``."""
    import shtab

    for action in _actions(parser):
        if action.dest in _DIRECTORIES:
            action.complete = shtab.DIRECTORY  # type: ignore[attr-defined]
        elif action.dest in _FILES:
            action.complete = shtab.FILE  # type: ignore[attr-defined]
    return str(shtab.complete(parser, shell=shell))


def _actions(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    out: list[argparse.Action] = []
    for action in parser._actions:
        out.append(action)
        if isinstance(action, argparse._SubParsersAction):
            for sub in dict.fromkeys(action.choices.values()):
                out += _actions(sub)
    return out


def cmd_completion(parser: argparse.ArgumentParser, shell: str) -> int:
    sys.stdout.write(completion_script(parser, shell))
    return 0
