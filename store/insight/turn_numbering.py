"""The ways a report's writer may have numbered a session's turns (:data:`LABELS`): each gives
per turn its blocks and message turns, so a citation can be shown where it points."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Literal

from store.read.transcript import Block, Transcript

NumberingName = Literal["trace", "message", "prompt"]

#: name → how it is said
LABELS: dict[NumberingName, str] = {
    "trace": "the hurikaeri skill's turns (each run of user lines, a prompt or tool results, "
    "starts one)",
    "message": "one message = one turn",
    "prompt": "one prompt = one turn",
}
#: name → a few words, for narrow places
SHORT: dict[NumberingName, str] = {
    "trace": "skill's turns",
    "message": "message turns",
    "prompt": "prompt turns",
}


@dataclass(slots=True)
class Numbering:
    """One way of numbering a transcript's turns."""

    name: NumberingName
    #: the number of turns
    count: int
    #: turn → its blocks
    blocks: dict[int, list[Block]] = field(default_factory=dict)
    #: turn → the message turns (transcript tab) its blocks are in
    views: dict[int, set[int]] = field(default_factory=dict)
    #: the counts of user and assistant turns in this numbering
    user_turns: int = 0
    assistant_turns: int = 0
    #: id of a block → its turn
    where: dict[int, int] = field(default_factory=dict)
    #: what :meth:`turns_where` found, by key: the blocks (shared by the numberings of one
    #: transcript, so a name is looked for once)
    found: dict[Hashable, list[Block]] = field(default_factory=dict)
    #: every block of the transcript
    every: list[Block] = field(default_factory=list)

    @property
    def label(self) -> str:
        return LABELS[self.name]

    def view_turns(self, turns: set[int] | list[int]) -> list[int]:
        """The message turns where ``turns`` of this numbering are shown."""
        out: set[int] = set()
        for n in turns:
            out.update(self.views.get(n, ()))
        return sorted(out)

    def turns_where(self, key: Hashable, test: Callable[[Block], bool]) -> list[int]:
        """The turns holding a block that passes ``test`` (remembered under ``key``)."""
        hits = self.found.get(key)
        if hits is None:
            hits = self.found[key] = [b for b in self.every if test(b)]
        return sorted({self.where[id(b)] for b in hits if id(b) in self.where})

    def _put(self, number: int, block: Block, view: int | None) -> None:
        self.where[id(block)] = number
        self.blocks.setdefault(number, []).append(block)
        if view is not None:
            self.views.setdefault(number, set()).add(view)


def _every(t: Transcript) -> list[Block]:
    return [*t.preamble, *(b for turn in t.turns for b in turn.blocks)]


def by_trace(t: Transcript) -> Numbering:
    trace = t.trace
    out = Numbering("trace", trace.turn, every=_every(t))
    out.user_turns, out.assistant_turns = trace.user_turns, trace.assistant_turns
    for block in t.preamble:
        if block.step:
            out._put(block.step, block, None)
    for turn in t.turns:
        for block in turn.blocks:
            if block.step:
                out._put(block.step, block, turn.number)
    for blocks in out.blocks.values():
        blocks.sort(key=lambda b: b.line)
    return out


def by_message(t: Transcript) -> Numbering:
    out = Numbering("message", len(t.turns), every=_every(t))
    out.user_turns, out.assistant_turns = t.user_turns, t.assistant_turns
    for turn in t.turns:
        out.blocks[turn.number] = turn.blocks
        out.views[turn.number] = {turn.number}
        out.where.update((id(b), turn.number) for b in turn.blocks)
    return out


def by_prompt(t: Transcript) -> Numbering:
    out = Numbering("prompt", 0, every=_every(t))
    out.user_turns, out.assistant_turns = t.user_turns, t.assistant_turns
    for turn in t.turns:
        if turn.role == "user":
            out.count += 1
        if out.count:
            for block in turn.blocks:
                out._put(out.count, block, turn.number)
            out.views.setdefault(out.count, set()).add(turn.number)
    return out


def numberings(t: Transcript) -> list[Numbering]:
    """Every numbering of ``t``, the skill's first, sharing what was looked for."""
    out = [by_trace(t), by_message(t), by_prompt(t)]
    for nb in out[1:]:
        nb.every, nb.found = out[0].every, out[0].found
    return out
