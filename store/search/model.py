"""The search record, apart from :mod:`store.search.records`: a warm search imports no models."""

from __future__ import annotations

import zlib
from typing import NamedTuple

from store.search.text import gist_key

Stamp = tuple[int, int]  # (size, mtime_ns): a file's identity


def place_id(display: str, line: int) -> str:
    """The id of a summary or lesson without one: the file as shown and the line
    (``lessons/user/lessons.jsonl:3``)."""
    return f"{display}:{line}"


class SearchRecord(NamedTuple):
    kind: str
    id: str
    path: str
    line: int = 1  # 1-based; 0: found from ``anchor`` (``id: try-001``, a YAML line) on demand
    anchor: str = ""
    title: str = ""
    fields: tuple[str, ...] = ()  # label, value, ...: everything searched, what the preview shows
    date: str = ""
    project: str = ""
    session_id: str = ""
    facets: tuple[str, ...] = ()  # ``name=value`` for filters (outcome, tag, status...)
    gist: str = ""  # the learning itself: the same one recorded again is grouped

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
