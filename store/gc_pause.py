"""No cyclic garbage collection while many small objects that live on are built (a
ledger's lines, an index's records): the collector would scan them again and again."""

from __future__ import annotations

import contextlib
import gc
import mmap
import threading
from collections.abc import Iterator

#: pauses under way (any thread), and whether collection was on when the first began
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
    """Collection off meanwhile (on again after the last pause, if it was on before)."""
    _pause()
    try:
        yield
    finally:
        _resume()


@contextlib.contextmanager
def collecting() -> Iterator[None]:
    """Collection on meanwhile, even inside a pause (a builder waiting on its workers would
    pile up garbage), and off again afterwards while anything still pauses it."""
    gc.enable()
    try:
        yield
    finally:
        with _lock:
            if _pauses > 0:
                gc.disable()


class HeldCollection:
    """Cycle collection held off while a person types, done when they pause (a full one
    takes 20–60 ms, the slowest keystroke frame)."""

    def __init__(self) -> None:
        self._held = False

    def hold(self) -> None:
        if not self._held:
            self._held = True
            _pause()

    def release(self) -> None:
        """End the hold and collect what piled up (unless something else still pauses)."""
        if self._held:
            self._held = False
            _resume()
            if gc.isenabled():
                gc.collect()


def give_back_freed() -> None:
    """Hand the C heap's free pages back to the system: glibc keeps them after a burst of
    allocations (~90 MB of RSS after the search index's build at 10k). Elsewhere, nothing."""
    import ctypes

    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None).malloc_trim(0)


def give_back(mapped: mmap.mmap, lo: int = 0, hi: int | None = None) -> None:
    """Give back the pages of ``mapped`` read between ``lo`` and ``hi`` (read again from the
    file when next touched)."""
    if not hasattr(mmap, "MADV_DONTNEED"):
        return
    hi = len(mapped) if hi is None else hi
    lo -= lo % mmap.PAGESIZE
    if hi > lo:
        with contextlib.suppress(OSError, ValueError):
            mapped.madvise(mmap.MADV_DONTNEED, lo, hi - lo)
