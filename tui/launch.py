"""The ``hurikaeri`` entry point, kept tiny: ``search`` goes straight to
:mod:`tui.cli.search` (no models, no UI toolkit); the rest loads the whole command line."""

from __future__ import annotations

import sys
from typing import NoReturn


def entry() -> NoReturn:
    argv = sys.argv[1:]
    if argv[:1] == ["search"]:
        from tui.cli.search import main as search_main

        sys.exit(search_main(argv[1:]))
    if argv[:1] == ["import-wrapup"] and not any(a.startswith("--allow-s") for a in argv):
        # hooks run this after every session: the secret scanner's rules (~0.2 s, off the
        # GIL) load while the command line is imported and the wrap-up read and planned
        # (the first scan waits for them; with --allow-secret nothing is scanned)
        from store.check.secrets import warm_up

        warm_up()
    from tui.cli.main import main

    sys.exit(main(argv))
