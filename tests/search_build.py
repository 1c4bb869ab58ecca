"""An engine over an index in memory of hand-made records, for the search tests."""

from __future__ import annotations

from store.search.engine import Engine
from store.search.index import SearchIndex
from store.search.model import SearchRecord, Stamp


def build_engine(files: dict[str, tuple[Stamp, list[SearchRecord]]]) -> Engine:
    """An index in memory of ``files``: path → (identity, records)."""
    index = SearchIndex.open(None)
    index.rebuild({}, ((p, st, recs) for p, (st, recs) in sorted(files.items())))
    index.close_writer()
    return Engine(index)
