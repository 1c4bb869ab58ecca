"""The search cache's packed parts (records and titles in deflate blocks, texts compressed
one by one with their CJK runs beside them, postings, precomputed id sets and facets in
zlib blocks of byte planes) answer as the index that was built."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from store.search import cache, match, segment
from store.search.cache import BIN_NAME, CacheError, _pack_ids, _PackedIds, open_index
from store.workspace import Workspace

QUERIES = ["jwt", "rotation", "test", "t", "co", "config erro", "タイム", "失敗", "재시도",
           "kind:lesson a", "\"rate limit\"", "confgi", "kpt-2026", "失敗 テスト", "テスト jwt",
           "\"鍵\"", "認証 -jwt", "jwt -rotation", "토큰 갱신", "ローテーション", "鍵ローテ",
           "rotaton k", "\"kid\" rotaton", "ci で", "rate limit"]  # fmt: skip


def corrupt(path: Path, section: str, every: int | None = None) -> str:
    """Flip bytes of a section of the cache file (every ``every``-th one, or the one in
    its middle); the section's code."""
    data = bytearray(path.read_bytes())
    hlen = int.from_bytes(data[16:24], "little")
    header = json.loads(data[24 : 24 + hlen])
    base = 24 + hlen + ((-(24 + hlen)) % 8)
    off, length, code, _crc = header["sections"][section]
    for k in range(0, length, every) if every else [length // 2]:
        data[base + off + k] ^= 0x55
    path.write_bytes(bytes(data))
    return str(code)


@pytest.mark.parametrize("big", [True, False])  # four byte planes, or three
@pytest.mark.parametrize("delta", [True, False])
@pytest.mark.parametrize("per", [1, 7, 1 << 14])
def test_packed_ids_slice_like_the_array(
    per: int, delta: bool, big: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cache, "ID_BLOCK", per)
    last = 4_000_000_000 // 2 if big else (1 << 24) - 1
    ids = [3, 9, 40, 41, 2, 5, 7, 100, 0, 1, 2, 3, 4, 5, 6, 7, 8, 99999, 70_000, 256, last]
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
    monkeypatch.setattr(cache, "CHUNK", 64)  # CJK runs longer than a chunk of them
    monkeypatch.setattr(segment, "HEAVY", 3)
    monkeypatch.setattr(match, "CHECK_AT_ONCE", 0)  # while typing, every CJK term is held
    ws = Workspace(demo_root)
    built, stats = open_index(ws, parallel=False)
    assert stats["rebuilt"] == 1 and len(built.main.heavy) > 5
    cached, stats = open_index(ws, parallel=False)
    assert stats["rebuilt"] == 0 and isinstance(cached.main.postings, _PackedIds)
    for q in QUERIES:  # typed a key at a time, as the search screen does
        for n in range(1, len(q) + 1):
            want = built.search(q[:n], 50)
            got = cached.search(q[:n], 50)
            assert [h.as_json() for h in got.hits] == [h.as_json() for h in want.hits], q[:n]
            assert [h.snippet_spans for h in got.hits] == [h.snippet_spans for h in want.hits]
            assert (got.total, got.exact) == (want.total, want.exact), q[:n]
            typing = cached.search(q[:n], 50, count=False)  # CJK terms checked on the walk
            assert [h.as_json() for h in typing.hits] == [h.as_json() for h in want.hits], q[:n]
    texts: Any = cached.main.texts  # the cache's own: holding, holding_texts
    assert list(texts) == list(built.main.texts) and texts[-1] == built.main.texts[-1]
    every = list(range(len(texts)))
    for needle in ("鍵", "ローテ", "jwt", "rate limit", "認証の", "토큰", "kid 포함", "\n"):
        want_ids = [i for i in every if needle in built.main.texts[i]]
        assert texts.holding(every, needle) == want_ids, needle
        assert [i for i in every if texts.holds(i, needle)] == want_ids, needle
        pairs = texts.holding_texts(every, [needle, "a"])
        assert [i for i, _t in pairs] == [i for i in want_ids if "a" in built.main.texts[i]]
        assert all(t == built.main.texts[i] for i, t in pairs)
    assert list(cached.main.facet_ids) == list(built.main.facet_ids)
    for k, ids in built.main.heavy.items():
        assert list(cached.main.heavy[k]) == list(ids)
        assert cached.main.prefix_cost(k) == len(ids)
    assert [cached.main.records[i] for i in range(len(built.main))] == list(built.main.records)
    assert list(cached.main.titles) == list(built.main.titles)


def test_a_corrupt_block_of_ids_is_caught_when_read(demo_root: Path) -> None:
    ws = Workspace(demo_root)
    open_index(ws, parallel=False)
    assert corrupt(ws.state_dir / BIN_NAME, "postings", 97) == "zraw"
    index, stats = open_index(ws, parallel=False)
    assert stats["rebuilt"] == 0  # lazy: seen when read
    with pytest.raises(CacheError):
        for q in ("jwt", "rotation", "config", "a"):
            index.search(q, 20)


@pytest.mark.parametrize(("section", "query"), [("texts", '"rate limit"'), ("cjk", "鍵ローテ")])
def test_a_corrupt_text_is_caught_when_read_and_the_index_rebuilt(
    demo_root: Path, section: str, query: str
) -> None:
    from store.index.workspace_index import WorkspaceIndex
    from store.search.facade import WorkspaceSearch

    ws = Workspace(demo_root)
    fresh, _ = open_index(ws, parallel=False)
    expected = [h.as_json() for h in fresh.search(query, 20).hits]
    assert expected
    corrupt(ws.state_dir / BIN_NAME, section, 7)
    index, stats = open_index(ws, parallel=False)
    assert stats["rebuilt"] == 0  # lazy: seen when read
    with pytest.raises(CacheError):
        index.search(query, 20)
    wi = WorkspaceIndex(ws)
    wi.load_all()
    handle = WorkspaceSearch(wi)
    handle.index = index
    assert [h.as_json() for h in handle.search(query, 20).hits] == expected


def test_the_cjk_text_is_checked_when_the_index_is_warmed_not_at_the_first_keys(
    demo_root: Path,
) -> None:
    """The search screen warms the index in its thread: the CJK text's checksums are
    checked there, so the first Japanese or Korean keystrokes do not pay for it, and a
    corrupt chunk makes the index be built again before any key is typed."""
    from store.index.workspace_index import WorkspaceIndex
    from store.search.facade import WorkspaceSearch

    ws = Workspace(demo_root)
    fresh, _ = open_index(ws, parallel=False)
    expected = [h.as_json() for h in fresh.search("鍵ローテ", 20).hits]
    assert expected
    index, _ = open_index(ws, parallel=False)
    texts = index.main.texts
    assert not any(texts.cjk_ok)
    index.warm()
    assert all(texts.cjk_ok)
    corrupt(ws.state_dir / BIN_NAME, "cjk")
    with pytest.raises(CacheError):
        open_index(ws, parallel=False)[0].warm()
    wi = WorkspaceIndex(ws)
    wi.load_all()
    handle = WorkspaceSearch(wi)
    assert handle.ensure(True) is not None  # built again
    assert [h.as_json() for h in handle.search("鍵ローテ", 20).hits] == expected


def test_a_new_version_removes_the_files_of_the_old_ones(demo_root: Path) -> None:
    ws = Workspace(demo_root)
    ws.state_dir.mkdir(parents=True, exist_ok=True)
    old = [f"search-cache-v{v}.{ext}" for v in range(1, cache.VERSION) for ext in ("bin", "json")]
    for name in old:
        (ws.state_dir / name).write_bytes(b"made by an older hurikaeri")
    _index, stats = open_index(ws, parallel=False)
    assert stats["rebuilt"] == 1
    assert sorted(p.name for p in ws.state_dir.glob("search-cache-v*")) == sorted(
        [BIN_NAME, cache.SIDE_NAME]
    )
