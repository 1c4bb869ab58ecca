"""Cycle collection held while a person types: off while held, on again and done at once
when released; a hold and a worker's pause overlapping in any order, the last to end turns
it on, and never while the other still pauses it."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator

import pytest

from store.gc_pause import HeldCollection, collecting, paused_gc


@pytest.fixture(autouse=True)
def _collection_as_it_was() -> Iterator[None]:
    was = gc.isenabled()
    yield
    gc.enable() if was else gc.disable()


class _Node:
    def __init__(self) -> None:
        self.me = self  # a cycle: only the collector frees it


def test_held_then_released_collects_what_piled_up() -> None:
    gc.enable()
    held = HeldCollection()
    held.hold()
    assert not gc.isenabled()
    node = _Node()
    gone = weakref.ref(node)
    del node
    assert gone() is not None  # garbage, not collected while held
    held.release()
    assert gc.isenabled()
    assert gone() is None  # collected as it was released


def test_holding_while_a_builder_paused_collection_leaves_it_to_the_builder() -> None:
    gc.enable()
    held = HeldCollection()
    with paused_gc():
        held.hold()  # already off: not this one's to turn on
        held.release()
        assert not gc.isenabled()
    assert gc.isenabled()
    held.hold()
    held.hold()  # twice: still one hold
    held.release()
    assert gc.isenabled()
    held.release()  # released twice: nothing more
    assert gc.isenabled()


def test_a_hold_released_inside_a_workers_pause_leaves_it_off_until_the_worker_ends() -> None:
    gc.enable()
    held = HeldCollection()
    held.hold()  # a key in search
    with paused_gc():  # a worker folds the ledger meanwhile
        held.release()  # the typing paused
        assert not gc.isenabled()  # the worker is still building
    assert gc.isenabled()


def test_a_reload_collecting_while_it_parses_never_leaves_collection_off() -> None:
    """The order a reviewer found: a hold, a load that collects while its workers parse,
    the hold ended in the middle of it. Collection must be on at the end, and later holds
    must still work."""
    gc.enable()
    held = HeldCollection()
    held.hold()
    with paused_gc():  # WorkspaceIndex.load_all
        with collecting():  # its parse phase
            assert gc.isenabled()
            held.release()
        assert not gc.isenabled()  # back to the load's pause
    assert gc.isenabled()
    held.hold()
    assert not gc.isenabled()
    held.release()
    assert gc.isenabled()


def test_collection_turned_off_by_someone_else_stays_off() -> None:
    gc.disable()
    held = HeldCollection()
    held.hold()
    with paused_gc():
        pass
    held.release()
    assert not gc.isenabled()
