"""How to store the search cache smaller: compressed blocks beside SQLite FTS5, measured.

    uv run python -m benchmarks.search_store_bench WS [--repeat 5] [--fts] [--json OUT]

Reads the search cache of ``WS`` as the app built it (``.hurikaeri/search-cache-v*.bin``;
open the workspace once first): its sections' sizes and, for the current layout (v3),
what its parts weigh, a text read, every text decompressed, and a CJK term's candidates
checked on the CJK runs against decompressed. Then, from the records, texts and titles
as the app reads them (uncompressed, as v1 stored them), it measures side by side:

- **uncompressed**: reading one record (a random one, as the preview does), and scanning
  every text for a substring (what a phrase or a CJK term of three characters and more
  costs the engine at worst: every text read, in rank order).
- **compressed blocks** (standard library only): the records, texts and titles cut into
  blocks of about ``--block`` raw bytes, each compressed with zlib (levels 1, 6, 9) or
  lzma; the postings and precomputed id arrays delta-coded and zlib'ed per block. Sizes,
  one random record read (its block decompressed), the full text scan, and decoding a
  long postings run back into an array.
- **SQLite FTS5, trigram tokenizer** (``--fts``; building takes a minute or two): the texts
  in an FTS5 table whose rowid is the record's rank, with and without its own copy of the
  text (``content=''``). Database size, and per query the time to the first 50 ids in
  rank order and to the count, for English words, Japanese and Korean terms — two-character
  Japanese terms included, which the trigram index cannot answer (``LIKE`` finds nothing
  for them: a scan of every row with ``instr`` then, possible only with the text stored).

Medians of ``--repeat`` runs; everything in one process, one after the other.
"""

from __future__ import annotations

import argparse
import bisect
import functools
import itertools
import json
import lzma
import random
import sqlite3
import statistics
import sys
import tempfile
import time
import zlib
from array import array
from pathlib import Path
from typing import Any

from store.search.cache import open_index
from store.workspace import Workspace

QUERIES: dict[str, list[str]] = {
    "common": ["test", "error", "config"],
    "rare": ["retrybucket", "nullreference", "preflight"],
    "Japanese 3+": ["タイムゾーン", "失敗するテスト", "実データ"],
    "Japanese 2": ["失敗", "設定", "実デ", "テス"],
    "Korean": ["타임존", "재시도"],
    "id-like": ["kpt-20251221", "ll-ai-202506"],
}


def median_ms(f: Any, repeat: int) -> tuple[float, Any]:
    times, out = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        out = f()
        times.append((time.perf_counter() - t) * 1000)
    return statistics.median(times), out


def read_sections(path: Path) -> tuple[dict[str, Any], memoryview]:
    data = memoryview(path.read_bytes())
    hlen = int.from_bytes(data[16:24], "little")
    header = json.loads(bytes(data[24 : 24 + hlen]))
    base = 24 + hlen + ((-(24 + hlen)) % 8)
    return {k: (base + v[0], v[1], v[2]) for k, v in header["sections"].items()}, data


def blocks(blob: bytes, offsets: Any, target: int) -> list[tuple[int, int]]:
    """(first record, one past the last) of each block of about ``target`` raw bytes."""
    out, first, n = [], 0, len(offsets) - 1
    while first < n:
        last = first + 1
        while last < n and offsets[last + 1] - offsets[first] <= target:
            last += 1
        out.append((first, last))
        first = last
    return out


def compress_blob(
    blob: bytes, offsets: Any, spans: list[tuple[int, int]], pack: Any
) -> list[bytes]:
    return [pack(blob[offsets[a] : offsets[b]]) for a, b in spans]


def delta_blocks(ids: Any, per: int, level: int) -> list[bytes]:
    out = []
    for i in range(0, len(ids), per):
        part = array("I", ids[i : i + per])
        first = part[0] if part else 0
        # runs are sorted within a term; at a run's end a delta is negative (signed)
        deltas = array("i", [first]) + array("i", (b - a for a, b in itertools.pairwise(part)))
        out.append(zlib.compress(deltas.tobytes(), level))
    return out


def undelta(packed: list[bytes]) -> array[int]:
    out = array("I")
    for p in packed:
        d = array("i")
        d.frombytes(zlib.decompress(p))
        out.extend(itertools.accumulate(d))
    return out


def read_records(
    picks: list[int], starts: list[int], spans: Any, packed: Any, o: Any, unpack: Any
) -> None:
    for i in picks:
        b = max(0, bisect.bisect_right(starts, i) - 1)
        raw = unpack(packed[b])
        base = o[spans[b][0]]
        json.loads(raw[o[i] - base : o[i + 1] - base])


def scan_texts(packed: list[bytes], unpack: Any, needle: bytes) -> int:
    return sum(unpack(p).count(needle) for p in packed)


#: The parts of a v3 cache: its sections by what they hold.
PARTS = {
    "texts": ("texts", "text_offsets", "text_crcs", "text_dict"),
    "CJK runs": ("cjk", "cjk_offsets", "cjk_crcs"),
    "records": ("records", "record_blocks", "record_offsets", "record_crcs", "record_dict"),
    "titles": ("titles", "title_blocks", "title_offsets", "title_crcs", "title_dict"),
    "postings": ("postings", "postings_blocks", "vocab", "offsets"),
    "id sets": ("heavy_ids", "heavy_blocks", "heavy_keys", "heavy_ranges"),
    "facets": ("facet_ids", "facet_blocks", "facet_keys", "facet_offsets"),
}


def stored(seg: Any, sections: dict[str, Any], picks: list[int], repeat: int, out: Any) -> None:
    """The cache as it is stored (v3: texts compressed one by one, CJK runs beside them)."""
    texts = seg.texts
    if not hasattr(texts, "holding"):
        return
    sizes = {k: v[1] for k, v in sections.items()}
    parts = {name: sum(sizes.get(k, 0) for k in keys) for name, keys in PARTS.items()}
    parts["the rest"] = sum(sizes.values()) - sum(parts.values())
    print("as stored: " + ", ".join(f"{k} {v / 1e6:.1f} MB" for k, v in parts.items()))
    t_read, _ = median_ms(lambda: [texts[i] for i in picks], repeat)
    every = list(range(len(texts)))
    t_all, raw = median_ms(lambda: texts.raw(every), max(1, repeat // 2))
    scans = {}
    for needle in ("タイムゾーン", "実データ"):
        cands = [i for i in every if needle.encode() in raw[i]]
        t_cjk, _ = median_ms(lambda c=cands, w=needle: texts.holding(c, w), repeat)
        t_full, _ = median_ms(lambda c=cands, w=needle: texts.raw(c), repeat)
        scans[needle] = {"records": len(cands), "cjk_ms": t_cjk, "decompressed_ms": t_full}
        print(
            f"  {needle}: its {len(cands):,} records checked on the CJK runs {t_cjk:.1f} ms, "
            f"decompressed {t_full:.1f} ms"
        )
    print(f"  200 random texts read {t_read:.2f} ms; every text decompressed {t_all:.0f} ms")
    out["stored"] = {"parts": parts, "read_200_ms": t_read, "all_ms": t_all, "cjk": scans}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="search_store_bench")
    p.add_argument("root", type=Path)
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--block", type=int, default=1 << 16)
    p.add_argument("--fts", action="store_true")
    p.add_argument("--json", type=Path)
    a = p.parse_args(argv)
    cache = sorted((a.root / ".hurikaeri").glob("search-cache-v*.bin"))[-1]
    ws_bytes = sum(
        f.stat().st_size
        for f in a.root.rglob("*")
        if f.is_file() and ".hurikaeri" not in f.relative_to(a.root).parts
    )
    sections, _data = read_sections(cache)
    out: dict[str, Any] = {"workspace_bytes": ws_bytes, "cache_bytes": cache.stat().st_size}
    print(f"workspace {ws_bytes / 1e6:.1f} MB, cache {cache.stat().st_size / 1e6:.1f} MB")
    sizes = {k: v[1] for k, v in sections.items()}
    out["sections"] = sizes
    for k, v in sorted(sizes.items(), key=lambda kv: -kv[1])[:8]:
        print(f"  {k:16s} {v / 1e6:7.1f} MB")

    # the strings as the app reads them, whatever the cache's version: the options below
    # start from the same uncompressed bytes (v1 stored them so)
    index, _stats = open_index(Workspace(a.root))
    seg = index.main
    strings = getattr(seg.records, "strings", None)
    if strings is None:
        raise SystemExit("the cache could not be read: open the workspace once first")
    items_of = {
        "records": [strings[i].encode("utf-8", "surrogatepass") for i in range(len(seg))],
        "texts": [t.encode("utf-8", "surrogatepass") for t in seg.texts],
        "titles": [t.encode("utf-8", "surrogatepass") for t in seg.titles],
    }
    blobs: dict[str, bytes] = {}
    offsets: dict[str, Any] = {}
    for k, items in items_of.items():
        blobs[k] = b"".join(items)
        offsets[k] = array("Q", itertools.accumulate(map(len, items), initial=0))
    n = len(offsets["texts"]) - 1
    rng = random.Random(1)
    picks = [rng.randrange(n) for _ in range(200)]
    stored(seg, sections, picks, a.repeat, out)

    # uncompressed
    def raw_read() -> None:
        for i in picks:
            o = offsets["records"]
            json.loads(blobs["records"][o[i] : o[i + 1]])

    def raw_scan(needle: bytes) -> int:
        return blobs["texts"].count(needle)

    t_read, _ = median_ms(raw_read, a.repeat)
    t_scan, _ = median_ms(lambda: raw_scan("タイムゾーン".encode()), a.repeat)
    print(
        f"uncompressed (v1): 200 random records read {t_read:.1f} ms; "
        f"every text scanned {t_scan:.1f} ms"
    )
    out["raw"] = {"read_200_ms": t_read, "scan_ms": t_scan}

    # compressed blocks
    packs = {
        "zlib-1": lambda b: zlib.compress(b, 1),
        "zlib-6": lambda b: zlib.compress(b, 6),
        "zlib-9": lambda b: zlib.compress(b, 9),
        "lzma": lambda b: lzma.compress(b, preset=6),
    }
    unpacks: dict[str, Any] = {"zlib-1": zlib.decompress, "zlib-6": zlib.decompress}
    unpacks["zlib-9"] = zlib.decompress
    unpacks["lzma"] = lzma.decompress
    out["blocks"] = {}
    for name, pack in packs.items():
        row: dict[str, Any] = {}
        packed_all: dict[str, list[bytes]] = {}
        for k, blob in blobs.items():
            spans = blocks(blob, offsets[k], a.block)
            t = time.perf_counter()
            packed = compress_blob(blob, offsets[k], spans, pack)
            row[f"{k}_build_s"] = time.perf_counter() - t
            row[f"{k}_bytes"] = sum(map(len, packed))
            packed_all[k] = packed
            row[f"{k}_spans"] = spans
        unpack = unpacks[name]
        rspans = row.pop("records_spans")
        starts = [s for s, _ in rspans]
        tspans = row.pop("texts_spans")
        row.pop("titles_spans")

        read = functools.partial(
            read_records, picks, starts, rspans, packed_all["records"], offsets["records"], unpack
        )
        scan = functools.partial(scan_texts, packed_all["texts"], unpack, "タイムゾーン".encode())
        row["read_200_ms"], _ = median_ms(read, a.repeat)
        row["scan_ms"], _ = median_ms(scan, max(1, a.repeat // 2))
        total = row["records_bytes"] + row["texts_bytes"] + row["titles_bytes"]
        raw = sum(map(len, blobs.values()))
        print(
            f"{name:7s}: records+texts+titles {raw / 1e6:.1f} → {total / 1e6:.1f} MB "
            f"({total / raw:.2f}×); 200 random reads {row['read_200_ms']:.1f} ms; "
            f"scan {row['scan_ms']:.0f} ms; {len(tspans)} text blocks"
        )
        out["blocks"][name] = row

    # postings, delta-coded
    every = {"postings": seg.postings, "heavy_ids": getattr(seg.heavy, "ids", None)}
    for name, packed_ids in every.items():
        if packed_ids is None:
            continue
        ids = array("I", packed_ids[0 : len(packed_ids)])
        t = time.perf_counter()
        packed = delta_blocks(ids, 1 << 14, 6)
        build = time.perf_counter() - t
        size = sum(map(len, packed))
        long = packed[: max(1, 100_000 // (1 << 14))]
        t_dec, got = median_ms(lambda long=long: undelta(long), a.repeat)
        assert list(got[:10]) == list(ids[:10])
        print(
            f"{name}: {len(ids) * 4 / 1e6:.1f} → {size / 1e6:.1f} MB delta+zlib; "
            f"100k ids decoded {t_dec:.1f} ms (built in {build:.1f} s)"
        )
        out[f"{name}_delta"] = {"bytes": size, "raw": len(ids) * 4, "decode_100k_ms": t_dec}

    if a.fts:
        out["fts"] = fts(blobs["texts"], offsets["texts"], a.repeat)
    if a.json:
        a.json.write_text(json.dumps(out, indent=1, default=str) + "\n")
    return 0


def _rows(con: sqlite3.Connection, sql: str, arg: str) -> list[Any]:
    return con.execute(sql, (arg,)).fetchall()


def _one(con: sqlite3.Connection, sql: str, arg: str) -> Any:
    return con.execute(sql, (arg,)).fetchone()


def fts(blob: bytes, offsets: Any, repeat: int) -> dict[str, Any]:
    res: dict[str, Any] = {}
    n = len(offsets) - 1
    for variant, ddl in (
        ("content", "CREATE VIRTUAL TABLE t USING fts5(x, tokenize='trigram')"),
        ("contentless", "CREATE VIRTUAL TABLE t USING fts5(x, tokenize='trigram', content='')"),
    ):
        with tempfile.TemporaryDirectory() as d:
            db = Path(d) / "fts.db"
            con = sqlite3.connect(db)
            con.execute("PRAGMA journal_mode=OFF")
            con.execute(ddl)
            t = time.perf_counter()
            rows = (
                (i, blob[offsets[i] : offsets[i + 1]].decode("utf-8", "surrogatepass"))
                for i in range(n)
            )
            con.executemany("INSERT INTO t(rowid, x) VALUES (?, ?)", rows)
            con.commit()
            con.execute("INSERT INTO t(t) VALUES ('optimize')")
            con.commit()
            build = time.perf_counter() - t
            size = db.stat().st_size
            print(f"FTS5 trigram, {variant}: {size / 1e6:.1f} MB, built in {build:.0f} s")
            q: dict[str, Any] = {}
            for group, terms in QUERIES.items():
                for term in terms:
                    short = len(term) < 3
                    if short and variant == "contentless":
                        q[term] = None  # nothing to scan: the text is not there
                        continue
                    if short:  # LIKE '%失敗%' finds nothing here (SQLite 3.40): instr
                        first = "SELECT rowid FROM t WHERE instr(x, ?) ORDER BY rowid LIMIT 50"
                        count = "SELECT count(*) FROM t WHERE instr(x, ?)"
                        arg = term
                    else:
                        first = "SELECT rowid FROM t WHERE t MATCH ? ORDER BY rowid LIMIT 50"
                        count = "SELECT count(*) FROM t WHERE t MATCH ?"
                        arg = json.dumps(term, ensure_ascii=False)
                    t50, _ = median_ms(functools.partial(_rows, con, first, arg), repeat)
                    tc, c = median_ms(functools.partial(_one, con, count, arg), repeat)
                    q[term] = {"group": group, "first50_ms": t50, "count_ms": tc, "count": c[0]}
                    print(
                        f"  {group:12s} {term:16s} first 50 {t50:7.1f} ms, count {tc:7.1f} ms "
                        f"({c[0]:,})" + ("  [a scan of every row]" if short else "")
                    )
            con.close()
            res[variant] = {"bytes": size, "build_s": build, "queries": q}
    return res


if __name__ == "__main__":
    sys.exit(main())
