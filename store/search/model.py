"""The search record, apart from :mod:`store.search.records` (which reads the models): a
warm ``hurikaeri search`` imports neither pydantic nor the YAML loader.
"""

from __future__ import annotations

import zlib
from typing import NamedTuple

from store.search.text import gist_key

Stamp = tuple[int, int]
"""(size, mtime_ns) of a file: its identity for the cache."""


def place_id(display: str, line: int) -> str:
    """The id of a summary or lesson record without one: its place, the file as the
    workspace shows it and the line (``lessons/user/lessons.jsonl:3``). Two files of one
    name (``lessons/ai/lessons.jsonl``, ``lessons/user/lessons.jsonl``) give two ids."""
    return f"{display}:{line}"


class SearchRecord(NamedTuple):
    kind: str
    id: str
    path: str
    line: int
    """1-based line of the record; 0 when it is found from ``anchor`` on demand."""
    anchor: str
    """``key: value`` of a YAML line that starts the record (``id: try-001``), or empty."""
    title: str
    fields: tuple[str, ...]
    """Alternating label and value: everything searchable, and what the preview shows."""
    date: str = ""
    project: str = ""
    session_id: str = ""
    facets: tuple[str, ...] = ()
    """``name=value`` for filters: outcome, scope, category, impact, tag, status."""
    gist: str = ""
    """The learning itself, for finding the same one recorded in other sessions."""

    def values(self) -> list[str]:
        return list(self.fields[1::2])

    def search_text(self) -> str:
        return "\n".join([self.id, *self.fields[1::2]])


def group_hash(rec: SearchRecord) -> int:
    """The near-duplicate group of a record (its kind and gist) in 48 bits; 0: in none."""
    key = gist_key(rec.gist) if rec.gist else ""
    if not key:
        return 0
    data = f"{rec.kind}\x1f{key}".encode("utf-8", "surrogatepass")
    return ((zlib.crc32(data) << 32) | zlib.adler32(data)) & ((1 << 48) - 1) or 1
