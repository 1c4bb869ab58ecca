"""The ``hurikaeri`` entry point, kept tiny: ``search`` goes straight to
:mod:`tui.cli.search` (no models, no UI toolkit); the rest loads the whole command line."""

from __future__ import annotations

import sys
from typing import NoReturn


def entry() -> NoReturn:
    argv = sys.argv[1:]
    if argv[:1] == ["search"]:
        import gc

        gc.set_threshold(50_000)  # a pass per 700 new objects: 75 passes, ~6% of its CPU
        from tui.cli.search import main as search_main

        sys.exit(search_main(argv[1:]))
    from tui.cli.main import main

    sys.exit(main(argv))
