"""Parsing on every core: chunks, biggest first, for workers from a fork server that has
imported the parser (quick to start, no app threads inherited). Small jobs stay here; a big
one whose workers cannot start is done here with a warning, never silently."""

from __future__ import annotations

import concurrent.futures
import contextlib
import itertools
import logging
import multiprocessing
import os
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures.process import BrokenProcessPool
from multiprocessing import resource_tracker
from typing import TypeVar

T = TypeVar("T")
R = TypeVar("R")

#: Below this many bytes of input, parse here.
SERIAL_BELOW = 4 * 1024 * 1024
#: Chunks in flight per worker: the one it parses and the next.
AHEAD = 2
#: A chunk holds files up to about this many bytes (or one bigger file).
CHUNK_BYTES = 1024 * 1024


log = logging.getLogger(__name__)
_starting = threading.Lock()


@contextlib.contextmanager
def _safe_path() -> Iterator[None]:
    """``PYTHONSAFEPATH`` for the processes started meanwhile: as ``python -c`` in an
    agent's workspace they would import its ``store/`` or ``selectors.py`` (one thread at
    a time, so another's restore cannot unset it mid-start)."""
    with _starting:
        old = os.environ.get("PYTHONSAFEPATH")
        os.environ["PYTHONSAFEPATH"] = "1"
        try:
            yield
        finally:
            if old is None:
                del os.environ["PYTHONSAFEPATH"]
            else:
                os.environ["PYTHONSAFEPATH"] = old


def start_helpers() -> None:
    """Start multiprocessing's resource tracker while standard error is a real file: inside
    Textual its ``fileno()`` is -1 and the tracker, then no worker, could start."""
    try:
        with _safe_path():
            resource_tracker.ensure_running()
    except (OSError, ValueError) as exc:
        log.warning("worker processes will not start: %s", exc)


def workers() -> int:
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1)


def chunk_by_size(items: Sequence[T], sizes: Sequence[int]) -> list[list[T]]:
    """``items`` in chunks of about :data:`CHUNK_BYTES`, the biggest first."""
    order = sorted(range(len(items)), key=lambda i: -sizes[i])
    chunks: list[list[T]] = []
    cur: list[T] = []
    cur_bytes = 0
    for i in order:
        if cur and cur_bytes + sizes[i] > CHUNK_BYTES:
            chunks.append(cur)
            cur, cur_bytes = [], 0
        cur.append(items[i])
        cur_bytes += sizes[i]
    if cur:
        chunks.append(cur)
    return chunks


def map_chunks(
    fn: Callable[[list[T]], list[R]],
    chunks: list[list[T]],
    total_bytes: int,
    preload: Sequence[str] = (),
) -> Iterator[list[R]]:
    """``fn`` over ``chunks`` in workers when there is enough work (their memory is given
    back at their end), yielding each chunk's results as it is finished."""
    n = min(workers(), len(chunks))
    if total_bytes < SERIAL_BELOW or not chunks:
        for c in chunks:
            yield fn(c)
        return
    method = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
    ctx = multiprocessing.get_context(method)
    if method == "forkserver" and preload:
        ctx.set_forkserver_preload(list(preload))
    try:
        with _safe_path():  # (the tracker, when the app has not started it)
            pool = concurrent.futures.ProcessPoolExecutor(max_workers=n, mp_context=ctx)
    except (OSError, ValueError) as exc:  # no semaphores (some containers): parse here
        _on_one_core(exc)
        for c in chunks:
            yield fn(c)
        return
    done: set[int] = set()
    try:
        with pool:
            # a few chunks ahead of what was taken, not all of them: results wait in this
            # process until they are taken, and a finished future is let go of at once
            todo = iter(enumerate(chunks))
            running: dict[concurrent.futures.Future[list[R]], int] = {}
            with _safe_path():  # the first submit starts the fork server and the workers
                for i, c in itertools.islice(todo, AHEAD * n):
                    running[pool.submit(fn, c)] = i
            while running:
                finished, _ = concurrent.futures.wait(
                    running, return_when=concurrent.futures.FIRST_COMPLETED
                )
                for fut in finished:
                    i = running.pop(fut)
                    result = fut.result()
                    del fut
                    done.add(i)
                    yield result  # before the next is handed out: that may find the pool
                    del result  # broken, and what is done must have been taken by then
                    for j, c in itertools.islice(todo, 1):
                        running[pool.submit(fn, c)] = j
    except BrokenProcessPool as exc:
        # a worker could not start (e.g. the main script re-runs itself unguarded) or died:
        # what is left is parsed here
        _on_one_core(exc)
        for i, c in enumerate(chunks):
            if i not in done:
                yield fn(c)


def _on_one_core(exc: BaseException) -> None:
    log.warning(
        "reading on one core, in this process: worker processes could not start (%s: %s)",
        type(exc).__name__,
        exc,
    )
