"""The rows of a `TranscriptView`, kept small: a hundred thousand messages are a hundred
thousand rows, so a row is a few numbers in arrays and a short preview, keyed by position."""

from __future__ import annotations

import math
import sys
from array import array
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import overload

from store.read.isotime import parse_time
from store.read.transcript import Block, BlockKind, Turn

#: Characters of a message, a tool call's input or a result kept per row: about a row's
#: width (text that is not ASCII keeps two thirds: wide characters take two cells).
ROW_TEXT_CAP = 120

KINDS: tuple[BlockKind, ...] = ("text", "thinking", "tool_use", "tool_result", "meta", "other")
_KIND = {kind: i for i, kind in enumerate(KINDS)}
#: a row's flags besides its kind (the low three bits)
_ERROR, _SIDECHAIN, _CUT, _AGENT = 8, 16, 32, 64


@dataclass(frozen=True, slots=True)
class TranscriptRow:
    """One row: the turn it belongs to (``None``: before the first turn), its block, and
    whether it is the turn's first row."""

    key: str
    turn: Turn | None
    block: Block
    first: bool


def _epoch(stamp: str | None) -> float:
    t = parse_time(stamp)
    return math.nan if t is None else t.timestamp()


def _stamp(seconds: float) -> str | None:
    if math.isnan(seconds):
        return None
    try:
        moment = datetime.fromtimestamp(seconds, UTC)
    except (OverflowError, OSError, ValueError):
        return None
    return moment.isoformat(timespec="seconds").replace("+00:00", "Z")


class TranscriptRows:
    """Rows of a transcript in a few arrays: no object per row. The reader worker fills
    one per batch (``base``, ``turn_base``: the rows and turns before it) and the view
    merges it into its own (:meth:`merge`)."""

    def __init__(self, base: int = 0, turn_base: int = 0) -> None:
        self.base, self.turn_base = base, turn_base
        self.turn = array("l")
        self.flags = bytearray()
        self.line = array("l")
        self.offset = array("q")
        self.text: list[str] = []
        #: row → (tool name, target, tool id), for tool calls, results and unknown blocks
        self.tools: dict[int, tuple[str, str, str]] = {}
        #: turn n → its first row (``starts[n - 1]``), its time and whether the agent's
        self.starts = array("l")
        self.stamps = array("d")
        self.agent = bytearray()

    def __len__(self) -> int:
        return len(self.text)

    def add(self, turn: Turn | None, block: Block) -> None:
        """One block, as a row: what drawing and finding it needs, nothing more."""
        index = self.base + len(self.text)
        number = turn.number if turn is not None else 0
        while number > self.turn_base + len(self.starts):  # a turn without rows: the next
            opens = self.turn_base + len(self.starts) + 1 == number
            assert turn is not None
            self.starts.append(index)
            self.stamps.append(_epoch(turn.timestamp) if opens else math.nan)
            self.agent.append(1 if opens and turn.role == "assistant" else 0)
        text, cut = block.text, block.truncated
        if not text.isascii() and len(text) > ROW_TEXT_CAP * 2 // 3:
            text, cut = text[: ROW_TEXT_CAP * 2 // 3], True
        flags = _KIND[block.kind] | (_ERROR if block.is_error else 0)
        flags |= (_SIDECHAIN if block.sidechain else 0) | (_CUT if cut else 0)
        if turn is not None and turn.role == "assistant":
            flags |= _AGENT
        self.turn.append(number)
        self.flags.append(flags)
        self.line.append(block.line)
        self.offset.append(block.offset)
        self.text.append(text)
        if block.name or block.target or block.tool_id:
            self.tools[index] = (sys.intern(block.name), block.target, block.tool_id)

    def merge(self, other: TranscriptRows) -> None:
        """Append the rows ``other`` holds (made for this place: see ``base``)."""
        self.turn.extend(other.turn)
        self.flags.extend(other.flags)
        self.line.extend(other.line)
        self.offset.extend(other.offset)
        self.text.extend(other.text)
        self.tools.update(other.tools)
        self.starts.extend(other.starts)
        self.stamps.extend(other.stamps)
        self.agent.extend(other.agent)

    def row(self, index: int) -> TranscriptRow:
        number, flags = self.turn[index], self.flags[index]
        name, target, tool_id = self.tools.get(index, ("", "", ""))
        block = Block(
            KINDS[flags & 7],
            self.text[index],
            self.line[index],
            self.offset[index],
            truncated=bool(flags & _CUT),
            name=name,
            target=target,
            tool_id=tool_id,
            is_error=bool(flags & _ERROR),
            sidechain=bool(flags & _SIDECHAIN),
        )
        if not number:
            return TranscriptRow(str(index), None, block, index == 0)
        first = self.starts[number - 1]
        turn = Turn(
            number,
            "assistant" if self.agent[number - 1] else "user",
            self.line[first],
            _stamp(self.stamps[number - 1]),
        )
        return TranscriptRow(str(index), turn, block, first == index)


class PositionalKeys(Sequence[str]):
    """Row keys: a row's key is its position (rows are only ever appended)."""

    def __init__(self, count: int) -> None:
        self.positions = range(count)

    def __len__(self) -> int:
        return len(self.positions)

    @overload
    def __getitem__(self, index: int) -> str: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[str]: ...

    def __getitem__(self, index: int | slice) -> str | Sequence[str]:
        got = self.positions[index]
        return str(got) if isinstance(got, int) else [str(i) for i in got]


class KeyIndex(Mapping[str, int]):
    """Key → position without a dictionary of every key (see :class:`PositionalKeys`)."""

    def __init__(self, count: int) -> None:
        self.count = count

    def __getitem__(self, key: str) -> int:
        if key.isascii() and key.isdigit() and int(key) < self.count:
            return int(key)
        raise KeyError(key)

    def __iter__(self) -> Iterator[str]:
        return (str(i) for i in range(self.count))

    def __len__(self) -> int:
        return self.count
