"""Every write a screen makes: one store transaction, run in a thread (one after the other,
in the order asked), failing into the app's one handler (:class:`WriteFailed`)."""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from textual.app import App
from textual.dom import DOMNode

from screens.messages import FilesWritten, WriteFailed

T = TypeVar("T")

_locks: weakref.WeakKeyDictionary[App[Any], asyncio.Lock] = weakref.WeakKeyDictionary()


@dataclass(frozen=True, slots=True)
class Outcome(Generic[T]):
    """What a write gave back: ``ok`` False when it failed (the app has said why)."""

    ok: bool
    value: T | None = None


def _lock(app: App[Any]) -> asyncio.Lock:
    lock = _locks.get(app)
    if lock is None:
        lock = _locks[app] = asyncio.Lock()
    return lock


async def run_write(
    node: DOMNode,
    what: str,
    fn: Callable[[], T],
    *,
    expect: tuple[type[BaseException], ...] = (),
) -> Outcome[T]:
    """Run ``fn`` (a store transaction) in a thread, after the app's earlier writes; a
    failure goes to the app's one handler (``what``: the action, e.g. ``approve kpt-…/t1``)
    unless it is one of ``expect``, which is raised here."""
    app = node.app
    async with _lock(app):
        # a thread cannot be stopped: when the worker is cancelled (its screen closed, the
        # same key pressed again) the write goes on, the lock is held until it ends, and
        # what it did is still told
        task = asyncio.ensure_future(asyncio.to_thread(fn))
        try:
            value = await asyncio.shield(task)
        except asyncio.CancelledError:
            await _finish_orphan(app, what, task)
            raise
        except expect:
            raise
        except Exception as exc:  # noqa: BLE001 - every failed write ends here, never in a crash
            app.post_message(WriteFailed(what, exc))
            return Outcome(False)
    return Outcome(True, value)


async def _finish_orphan(app: App[Any], what: str, task: asyncio.Future[Any]) -> None:
    """Wait for a write whose caller went away; tell the app what it wrote or why it
    failed (the caller's own follow-up will not run)."""
    try:
        value = await asyncio.wait([task]) and task.result()
    except Exception as exc:  # noqa: BLE001 - the same one handler as any failed write
        app.post_message(WriteFailed(what, exc))
        return
    paths = getattr(value, "paths", None)
    if isinstance(value, tuple):  # (path, transaction) from propose
        paths = getattr(value[-1], "paths", None)
    app.post_message(FilesWritten(frozenset(paths or ()), review=True))


async def settled(node: DOMNode) -> None:
    """Wait until every write asked for before now has finished (``u`` then undoes the
    decision just made, not the one before it)."""
    async with _lock(node.app):
        pass


def start_write(
    node: DOMNode,
    what: str,
    fn: Callable[[], T],
    then: Callable[[T], Awaitable[None] | None] | None = None,
    *,
    always: Callable[[], None] | None = None,
) -> None:
    """:func:`run_write` from a key's action: in a worker of ``node``'s (no worker error
    ends the app; pressing the key again starts another, written after this one); ``then``
    gets the result on the event loop when the write succeeded, ``always`` runs when the
    write has ended either way."""

    async def go() -> None:
        try:
            outcome = await run_write(node, what, fn)
            if outcome.ok and then is not None:
                done = then(outcome.value)  # type: ignore[arg-type]
                if done is not None:
                    await done
        finally:
            if always is not None:
                always()

    node.run_worker(go(), group="write", exit_on_error=False)
