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


class HeldCollection:
    """Automatic cycle collection held off while a person types, and done at once when
    they pause: a full collection of the running app takes 20–60 ms, and one that falls in
    a keystroke's frame makes it the slowest frame of all.

    Only what this object turned off is turned back on: when collection is already off (a
    worker building with :func:`paused_gc`), holding does nothing."""

    def __init__(self) -> None:
        self._held = False

    @property
    def held(self) -> bool:
        return self._held

    def hold(self) -> None:
        if not self._held and gc.isenabled():
            gc.disable()
            self._held = True

    def release(self) -> None:
        """Collection on again, and what piled up meanwhile collected now."""
        if self._held:
            self._held = False
            gc.enable()
            gc.collect()
