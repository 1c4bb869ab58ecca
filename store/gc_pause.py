"""No cyclic garbage collection while many small objects that live on are built (a
ledger's lines, an index's records): the collector would scan them all, again and again,
more than the building itself."""

from __future__ import annotations

import contextlib
import gc
import threading
from collections.abc import Iterator

#: Pauses under way (any thread), and whether collection was on when the first began: the
#: last one to end turns it back on, whoever ended first.
_lock = threading.Lock()
_pauses = 0
_on_after = False


def _pause() -> None:
    global _pauses, _on_after
    with _lock:
        if _pauses == 0:
            _on_after = gc.isenabled()
        _pauses += 1
        gc.disable()


def _resume() -> None:
    global _pauses
    with _lock:
        _pauses -= 1
        if _pauses == 0 and _on_after:
            gc.enable()


@contextlib.contextmanager
def paused_gc() -> Iterator[None]:
    """Collection off meanwhile (on again afterwards when it was on before and nothing
    else still pauses it); usable as a decorator too."""
    _pause()
    try:
        yield
    finally:
        _resume()


@contextlib.contextmanager
def collecting() -> Iterator[None]:
    """Collection on meanwhile, even inside a pause (a builder that mostly waits for its
    worker processes: its garbage would otherwise pile up), and off again afterwards while
    anything still pauses it."""
    gc.enable()
    try:
        yield
    finally:
        with _lock:
            if _pauses > 0:
                gc.disable()


class HeldCollection:
    """Automatic cycle collection held off while a person types, and done at once when
    they pause: a full collection of the running app takes 20–60 ms, and one that falls in
    a keystroke's frame makes it the slowest frame of all.

    A hold is one more pause among those of :func:`paused_gc` (a worker building): the
    last to end turns collection back on, so neither turns it on under the other."""

    def __init__(self) -> None:
        self._held = False

    @property
    def held(self) -> bool:
        return self._held

    def hold(self) -> None:
        if not self._held:
            self._held = True
            _pause()

    def release(self) -> None:
        """This hold ended, and what piled up meanwhile collected now (when nothing else
        still pauses collection)."""
        if self._held:
            self._held = False
            _resume()
            if gc.isenabled():
                gc.collect()
