"""The search cache's packed parts (records and titles in zlib blocks, postings and the
precomputed id sets in zlib blocks) answer as the index that was built."""

from __future__ import annotations

from pathlib import Path

import pytest

from store.search import cache, segment
from store.search.cache import BIN_NAME, CacheError, _pack_ids, _PackedIds, open_index
from store.workspace import Workspace

QUERIES = ["jwt", "rotation", "test", "t", "co", "config erro", "タイム", "失敗", "재시도",
           "kind:lesson a", "\"rate limit\"", "confgi", "kpt-2026"]  # fmt: skip


@pytest.mark.parametrize("delta", [True, False])
@pytest.mark.parametrize("per", [1, 7, 1 << 14])
def test_packed_ids_slice_like_the_array(
    per: int, delta: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cache, "ID_BLOCK", per)
    ids = [3, 9, 40, 41, 2, 5, 7, 100, 0, 1, 2, 3, 4, 5, 6, 7, 8, 99999, 4_000_000_000 // 2]
    data, raw_blocks = _pack_ids(ids, delta=delta)
    blocks = memoryview(raw_blocks.tobytes()).cast("Q")
    packed = _PackedIds((memoryview(data), delta), blocks, len(ids))
    assert list(packed) == ids and len(packed) == len(ids)
    for a in range(len(ids) + 1):
        for b in range(a, len(ids) + 2):
            assert list(packed[a:b]) == ids[a:b]
    assert packed[-1] == ids[-1] and packed[5] == ids[5]
    with pytest.raises(CacheError):
        _PackedIds((memoryview(data), delta), blocks, len(ids) + per)


def test_a_packed_cache_answers_as_the_built_index(
    demo_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # tiny blocks and many precomputed prefixes: every part crosses blocks
    monkeypatch.setattr(cache, "ID_BLOCK", 5)
    monkeypatch.setattr(cache, "RECORD_BLOCK", 3)
    monkeypatch.setattr(cache, "TITLE_BLOCK", 4)
    monkeypatch.setattr(cache, "KEEP_BLOCKS", 2)
    monkeypatch.setattr(segment, "HEAVY", 3)
    ws = Workspace(demo_root)
    built, stats = open_index(ws, parallel=False)
    assert stats["rebuilt"] == 1 and len(built.main.heavy) > 5
    cached, stats = open_index(ws, parallel=False)
    assert stats["rebuilt"] == 0 and isinstance(cached.main.postings, _PackedIds)
    for q in QUERIES:
        want = built.search(q, 50)
        got = cached.search(q, 50)
        assert [h.as_json() for h in got.hits] == [h.as_json() for h in want.hits], q
        assert got.total == want.total, q
    for k, ids in built.main.heavy.items():
        assert list(cached.main.heavy[k]) == list(ids)
        assert cached.main.prefix_cost(k) == len(ids)
    assert [cached.main.records[i] for i in range(len(built.main))] == list(built.main.records)
    assert list(cached.main.titles) == list(built.main.titles)


def test_a_corrupt_block_of_ids_is_caught_when_read(demo_root: Path) -> None:
    import json

    ws = Workspace(demo_root)
    open_index(ws, parallel=False)
    path = ws.state_dir / BIN_NAME
    data = bytearray(path.read_bytes())
    hlen = int.from_bytes(data[16:24], "little")
    header = json.loads(data[24 : 24 + hlen])
    base = 24 + hlen + ((-(24 + hlen)) % 8)
    off, length, code, _crc = header["sections"]["postings"]
    assert code == "zraw"
    for k in range(0, length, 97):
        data[base + off + k] ^= 0x55
    path.write_bytes(bytes(data))
    index, stats = open_index(ws, parallel=False)
    assert stats["rebuilt"] == 0  # lazy: seen when read
    with pytest.raises(CacheError):
        for q in ("jwt", "rotation", "config", "a"):
            index.search(q, 20)
