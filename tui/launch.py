"""The ``hurikaeri`` entry point, kept tiny: ``search`` goes straight to
:mod:`tui.cli.search` (no models, no UI toolkit); the rest loads the whole command line."""

from __future__ import annotations

import sys
from typing import NoReturn


def entry() -> NoReturn:
    argv = sys.argv[1:]
    if argv[:1] == ["search"]:
        from tui.cli.search import run

        run(argv[1:])
    from tui.cli.main import main

    sys.exit(main(argv))
