"""``hurikaeri completion bash|zsh|fish``: the shell completion script, generated.

The script is generated from the same argparse parser the command line uses, by shtab
(https://github.com/tqdm/shtab), so a new command or option completes without anyone
editing a script; paths complete as files or directories (each such argument gets shtab's
``complete`` attribute as the parser adds it: :func:`tui.cli.parser.build_parser`). shtab
is imported only here, when a script is asked for: completing costs the shell nothing at
run time.

Install (see the README's command-line section)::

    hurikaeri completion bash > ~/.local/share/bash-completion/completions/hurikaeri
    hurikaeri completion zsh > "${fpath[1]}/_hurikaeri"
    hurikaeri completion fish > ~/.config/fish/completions/hurikaeri.fish
"""

from __future__ import annotations

import sys

from tui.cli.parser import build_parser

#: Options and arguments that take a directory, and those that take a file (by ``dest``).
DIRECTORIES = frozenset({"root"})
FILES = frozenset({"config", "output", "paths", "file", "files"})


def completion_script(shell: str) -> str:
    """The command line's completion script for ``shell``."""
    import shtab

    completions = dict.fromkeys(DIRECTORIES, shtab.DIRECTORY) | dict.fromkeys(FILES, shtab.FILE)
    return str(shtab.complete(build_parser(completions), shell=shell))


def cmd_completion(shell: str) -> int:
    sys.stdout.write(completion_script(shell))
    return 0
