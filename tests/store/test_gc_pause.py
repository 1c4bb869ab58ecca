"""Cycle collection held while a person types: off while held, on again and done at once
when released, and never turned on by whoever did not turn it off."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator

import pytest

from store.gc_pause import HeldCollection, paused_gc


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
    assert not gc.isenabled() and held.held
    node = _Node()
    gone = weakref.ref(node)
    del node
    assert gone() is not None  # garbage, not collected while held
    held.release()
    assert gc.isenabled() and not held.held
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
