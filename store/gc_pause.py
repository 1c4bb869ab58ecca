"""No cyclic garbage collection while many small objects that live on are built (a
ledger's lines, an index's records): the collector would scan them all, again and again,
more than the building itself."""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def paused_gc() -> Iterator[None]:
    """Collection off meanwhile (as it was afterwards); usable as a decorator too."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()
