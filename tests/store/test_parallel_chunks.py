"""Chunks parsed in worker processes (``store.index.parallel.map_chunks``): every result
comes back once, and only a few chunks run ahead of what the caller has taken, so that
results do not pile up in the caller's memory while it is busy with earlier ones."""

from __future__ import annotations

import time
from pathlib import Path

from store.index import parallel


def _mark(chunk: list[str]) -> list[str]:
    Path(chunk[0]).touch()
    return chunk


def test_every_chunk_once_and_only_a_few_ahead_of_the_caller(tmp_path: Path) -> None:
    chunks = [[str(tmp_path / f"chunk-{i}")] for i in range(24)]
    got = parallel.map_chunks(_mark, chunks, parallel.SERIAL_BELOW + 1)
    first = next(got)
    time.sleep(1.0)  # the caller busy: workers must not take every other chunk meanwhile
    started = len(list(tmp_path.glob("chunk-*")))
    n = min(parallel.workers(), len(chunks))
    assert started <= parallel.AHEAD * n + 1 < len(chunks)
    rest = list(got)
    assert sorted(c[0] for c in [first, *rest]) == sorted(c[0] for c in chunks)
