"""One immutable block of the search index: records in rank order and an inverted index.

Records are numbered in *static rank order* — most recurring learning first, then newest —
so the first ids of any matching set are already its best hits: no scoring pass over a
hundred thousand candidates. The inverted index is a sorted vocabulary (words, CJK
characters, compound tokens) with one flat array of postings, so all words sharing a prefix
have one contiguous run of postings. Prefixes whose runs are long are precomputed as sorted
id arrays (``heavy``), so the first keystrokes of a query cost a lookup, not a union.

Arrays are ``array('I')`` when built here and ``memoryview`` when read from the cache file:
both index and slice alike.
"""

from __future__ import annotations

import bisect
import re
import zlib
from array import array
from collections import defaultdict
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import accumulate
from typing import Any, Protocol

from store.search.model import SearchRecord
from store.search.query import KINDS
from store.search.text import MAX_TEXT, gist_key, is_cjk, normalize, tokens

#: Needles up to this many bytes are looked for in the vocabulary by a regular expression
#: (longer ones by ``bytes.find``: compiling a pasted megabyte would take most of a second).
REGEX_NEEDLE = 256
#: A prefix whose postings are longer than this has its id set precomputed.
HEAVY = 30_000
KIND_CODE = {k: i for i, k in enumerate(KINDS)}
_MAX_CHAR = "\U0010ffff"
#: Near-duplicate learnings: rapidfuzz ratio at least this, within one kind.
NEAR_RATIO = 92
#: Candidates compared with each other for near duplicates, per block of similar openings.
NEAR_BLOCK = 64
#: Gists shorter than this are not compared for near duplicates.
NEAR_MIN = 12
#: Near duplicates are judged on this many characters of a learning's gist (comparing two
#: texts costs the product of their lengths).
NEAR_CHARS = 1_000
#: Precomputed prefixes are at most this long: deeper ones are rare to type, and each level
#: of a long word shared by many records would cost a level of recursion and an id array.
HEAVY_DEPTH = 32


class IntSeq(Protocol):
    def __len__(self) -> int: ...
    def __getitem__(self, i: Any) -> Any: ...
    def __iter__(self) -> Any: ...


def date_number(text: str) -> int:
    """``YYYY-MM-DD…`` as YYYYMMDD, 0 when there is no such date."""
    t = text.strip()[:10]
    if len(t) == 10 and t[4] == "-" and t[7] == "-" and (t[:4] + t[5:7] + t[8:]).isdigit():
        return int(t[:4] + t[5:7] + t[8:])
    return 0


def content_hash(rec: SearchRecord) -> int:
    """A 64-bit identity of a record's content (to keep unchanged records on update)."""
    data = "\x1f".join(
        [
            rec.kind,
            rec.id,
            str(rec.line),
            rec.title,
            *rec.fields,
            rec.date,
            rec.project,
            rec.session_id,
            *rec.facets,
        ]
    ).encode("utf-8", "surrogatepass")
    return (zlib.crc32(data) << 32) | zlib.adler32(data)


def index_text(rec: SearchRecord) -> str:
    """The normalised text the index reads of a record: all of it, or for a huge record
    its first :data:`~store.search.text.MAX_TEXT` characters and its title."""
    text = rec.search_text()
    if len(text) > MAX_TEXT:
        text = f"{text[:MAX_TEXT]}\n{rec.title[:1024]}"
    return normalize(text)


def group_hash(rec: SearchRecord) -> int:
    if not rec.gist:
        return 0
    data = f"{rec.kind}\x1f{gist_key(rec.gist)}".encode("utf-8", "surrogatepass")
    return (zlib.crc32(data) << 32) | zlib.adler32(data)


@dataclass
class Segment:
    """The searchable form of a list of records (``rid`` = position in static rank order)."""

    records: Sequence[SearchRecord]
    texts: Sequence[str]
    """Normalised searchable text of each record."""
    titles: Sequence[str]
    """Normalised title of each record (for the title bonus, without decoding records)."""
    vocab: list[str]
    offsets: IntSeq
    postings: IntSeq
    heavy: Mapping[str, IntSeq]
    kinds: bytes
    dates: IntSeq
    groups: IntSeq
    """Group id of each record: near-identical learnings share one. Groups are numbered in
    rank order and their records are contiguous."""
    group_starts: IntSeq
    """First record of each group, and one past the last record at the end."""
    files: IntSeq
    """Index into ``file_paths`` of each record's file."""
    file_paths: list[str]
    hashes: IntSeq
    gists: IntSeq
    facet_keys: list[str]
    facet_offsets: IntSeq
    facet_ids: IntSeq
    by_date: IntSeq
    """Record ids ordered by date (undated first), for ``after:``/``before:``."""
    _ids: dict[str, int] | None = field(default=None, repr=False)
    vocab_blob: bytes | None = field(default=None, repr=False)
    """The vocabulary in UTF-8 joined by NUL (scanned for words holding a string)."""
    _vocab_starts: array[int] | None = field(default=None, repr=False)
    """Where each word of ``vocab_blob`` starts (and one past its end, last)."""
    _contains_cache: dict[str, tuple[list[int], int]] = field(default_factory=dict, repr=False)
    """Tokens holding a needle inside them, lately looked for, with the limit asked for."""
    _fuzzy_cache: dict[str, list[str]] = field(default_factory=dict, repr=False)
    """Close words of the typo'd terms looked up lately (a query is retyped a key at a time)."""
    _close_cache: dict[str, set[int]] = field(default_factory=dict, repr=False)
    """Records holding a close word of a typo'd term, for the terms looked up lately: the
    typo'd word of a query stays as the next one is typed, key after key."""
    _inside_cache: dict[str, set[int] | None] = field(default_factory=dict, repr=False)
    """Records holding a string inside a word, for the strings looked up lately."""
    _group_of_gist: dict[int, int] | None = field(default=None, repr=False)

    def __len__(self) -> int:
        return len(self.kinds)

    # -- lookups -----------------------------------------------------------------------

    def prefix_range(self, prefix: str) -> tuple[int, int]:
        """Vocabulary positions [lo, hi) of the tokens starting with ``prefix``."""
        lo = bisect.bisect_left(self.vocab, prefix)
        hi = bisect.bisect_left(self.vocab, prefix + _MAX_CHAR, lo)
        return lo, hi

    def postings_size(self, lo: int, hi: int) -> int:
        return int(self.offsets[hi]) - int(self.offsets[lo]) if hi > lo else 0

    def token_ids(self, token: str) -> IntSeq:
        """Sorted ids of the records holding exactly ``token``."""
        i = bisect.bisect_left(self.vocab, token)
        if i < len(self.vocab) and self.vocab[i] == token:
            got: IntSeq = self.postings[int(self.offsets[i]) : int(self.offsets[i + 1])]
            return got
        return array("I")

    def token_size(self, token: str) -> int:
        """How many records hold exactly ``token`` (its postings are not sliced)."""
        i = bisect.bisect_left(self.vocab, token)
        if i < len(self.vocab) and self.vocab[i] == token:
            return int(self.offsets[i + 1]) - int(self.offsets[i])
        return 0

    def prefix_cost(self, prefix: str) -> int:
        size = getattr(self.heavy, "size", None)  # a cached segment's: nothing decoded
        if size is not None:
            n = size(prefix)
            if n is not None:
                return int(n)
        else:
            got = self.heavy.get(prefix)
            if got is not None:
                return len(got)
        return self.postings_size(*self.prefix_range(prefix))

    def prefix_ids(self, prefix: str) -> IntSeq | set[int]:
        """Ids of the records with a token starting with ``prefix`` (sorted array or set)."""
        got = self.heavy.get(prefix)
        if got is not None:
            return got
        lo, hi = self.prefix_range(prefix)
        if hi - lo == 1:
            one: IntSeq = self.postings[int(self.offsets[lo]) : int(self.offsets[hi])]
            return one
        return set(self.postings[int(self.offsets[lo]) : int(self.offsets[hi])])

    def words_ids(self, positions: Iterable[int], limit: int | None = None) -> set[int]:
        """Union of the postings of the vocabulary entries at ``positions``."""
        out: set[int] = set()
        off, post = self.offsets, self.postings
        for p in positions:
            out.update(post[int(off[p]) : int(off[p + 1])])
            if limit is not None and len(out) > limit:
                break
        return out

    def vocab_inside(self, needle: str, limit: int = 5000) -> list[int]:
        """Vocabulary positions of the tokens holding ``needle`` inside them, not at their
        start, in vocabulary order: at most ``limit`` (a list that long may be cut short).

        As a query grows, the tokens holding the longer needle inside them are among those
        holding the shorter one, or among the tokens that start with the shorter one but
        not with the longer: the last answers are kept and narrowed, and only that second
        block of the vocabulary is scanned again.
        """
        cache = self._contains_cache
        hit = cache.get(needle)
        if hit is not None and (len(hit[0]) < hit[1] or hit[1] >= limit):
            return hit[0][:limit]
        lo, hi = self.prefix_range(needle)
        # the longest shorter needle answered in full (three characters at least), looked
        # for among the few cached ones: slicing ``needle`` at every length would be
        # quadratic in it
        shorter_keys = sorted(
            (k for k, (v, cut) in cache.items() if 3 <= len(k) < len(needle) and len(v) < cut),
            key=len,
        )
        shorter_keys = [k for k in shorter_keys if needle.startswith(k)]
        if shorter_keys:
            shorter = shorter_keys[-1]
            vocab = self.vocab
            kept = [p for p in cache[shorter][0] if needle in vocab[p]]
            s_lo, s_hi = self.prefix_range(shorter)  # holds [lo, hi)
            before = self._scan_vocab(needle, s_lo, lo, limit)
            after = self._scan_vocab(needle, hi, s_hi, limit)
            got = sorted(set(kept).union(before, after))[:limit]
        else:
            got = self._scan_vocab(needle, 0, lo, limit)
            if len(got) < limit:
                got += self._scan_vocab(needle, hi, len(self.vocab), limit - len(got))
        if len(cache) > 64:
            cache.clear()
        cache[needle] = (got, limit)
        return got

    def _scan_vocab(self, needle: str, first: int, end: int, limit: int) -> list[int]:
        """Positions in [first, end) of the vocabulary of the tokens holding ``needle``."""
        raw = needle.encode("utf-8", "surrogatepass")
        if end <= first or limit <= 0 or not raw or b"\0" in raw:
            return []
        blob, starts = self.vocab_index()
        # a short needle is looked for by the regular expression engine (twice as fast as
        # ``bytes.find`` here); a long one (a pasted paragraph) by ``bytes.find``, which
        # needs no compiling. UTF-8 is self-synchronising: a byte match is a match of
        # characters. After a match the search goes on from the next word.
        search = re.compile(re.escape(raw)).search if len(raw) <= REGEX_NEEDLE else None
        pos, stop = starts[first], starts[end]
        out: list[int] = []
        while len(out) < limit:
            if search is not None:
                m = search(blob, pos, stop)
                at = -1 if m is None else m.start()
            else:
                at = blob.find(raw, pos, stop)
            if at < 0:
                break
            p = bisect.bisect_right(starts, at, first, end) - 1
            out.append(p)
            pos = starts[p + 1]
        return out

    def vocab_index(self) -> tuple[bytes, array[int]]:
        """The joined vocabulary and where each of its words starts (made once: a
        long-lived process makes it before the first keystroke, see ``SearchIndex.warm``)."""
        starts = self._vocab_starts
        if self.vocab_blob is None or starts is None:
            vocab = self.vocab
            if self.vocab_blob is None:
                self.vocab_blob = "\0".join(vocab).encode("utf-8", "surrogatepass")
            starts = array("I", [0])
            starts.extend(
                accumulate(
                    (len(t) if t.isascii() else len(t.encode("utf-8", "surrogatepass"))) + 1
                    for t in vocab
                )
            )
            self._vocab_starts = starts
        return self.vocab_blob, starts

    def facet_ids_of(self, key: str) -> IntSeq:
        i = bisect.bisect_left(self.facet_keys, key)
        if i < len(self.facet_keys) and self.facet_keys[i] == key:
            got: IntSeq = self.facet_ids[
                int(self.facet_offsets[i]) : int(self.facet_offsets[i + 1])
            ]
            return got
        return array("I")

    def facet_matching(self, name: str, test: Callable[[str], bool]) -> list[IntSeq]:
        """Id arrays of every ``name=value`` facet whose value passes ``test``."""
        lo = bisect.bisect_left(self.facet_keys, name + "=")
        hi = bisect.bisect_left(self.facet_keys, name + "=" + _MAX_CHAR, lo)
        return [
            self.facet_ids[int(self.facet_offsets[i]) : int(self.facet_offsets[i + 1])]
            for i in range(lo, hi)
            if test(self.facet_keys[i][len(name) + 1 :])
        ]

    def date_ids(self, lo_day: int | None, hi_day: int | None) -> IntSeq:
        """Ids dated on or after ``lo_day`` and strictly before ``hi_day`` (YYYYMMDD)."""
        dates = self.dates
        order = self.by_date
        key: Callable[[int], int] = lambda r: int(dates[r])  # noqa: E731
        a = bisect.bisect_left(order, lo_day if lo_day is not None else 1, key=key)
        b = bisect.bisect_left(order, hi_day, key=key) if hi_day is not None else len(order)
        return order[a:b] if b > a else array("I")

    def members(self, gid: int) -> range:
        """Record ids of a group: contiguous in rank order."""
        return range(int(self.group_starts[gid]), int(self.group_starts[gid + 1]))

    def rid_of(self, record_id: str) -> int | None:
        """The record id of a record's own id (``kpt-…/try-001``), first one if repeated."""
        if self._ids is None:
            ids: dict[str, int] = {}
            for rid in range(len(self)):
                ids.setdefault(self.records[rid].id, rid)
            self._ids = ids
        return self._ids.get(record_id)

    def first_of_gist(self, gist: int) -> int | None:
        """The best-ranked record of the group with this gist hash, if the segment has one."""
        if self._group_of_gist is None:
            first: dict[int, int] = {}
            for rid, h in enumerate(self.gists):
                if h:
                    first.setdefault(int(h), rid)
            self._group_of_gist = first
        return self._group_of_gist.get(gist) if gist else None

    def group_rids(self, rid: int) -> range:
        """Every record of ``rid``'s group, ``rid`` included."""
        return self.members(int(self.groups[rid]))


# -- building -------------------------------------------------------------------------------


class Gists(Protocol):
    """What grouping reads of the records' gists (see :func:`rank_order`)."""

    def key(self, i: int) -> Hashable | None:
        """Record ``i``'s learning as a key equal for the same kind and normalised gist
        (None: it has none)."""

    def near(self, i: int) -> tuple[Hashable, int] | None:
        """The block record ``i`` is compared in for near duplicates (its kind and first
        three characters) and the length of its text, or None when too short to compare."""

    def text(self, i: int) -> str:
        """The first :data:`NEAR_CHARS` characters of record ``i``'s normalised gist."""


class GistTexts:
    """:class:`Gists` of normalised gist texts held in memory."""

    def __init__(self, kinds: Sequence[str], gists: Sequence[str]) -> None:
        self.kinds, self.gists = kinds, gists

    def key(self, i: int) -> Hashable | None:
        return (self.kinds[i], self.gists[i]) if self.gists[i] else None

    def near(self, i: int) -> tuple[Hashable, int] | None:
        g = self.text(i)
        return ((self.kinds[i], g[:3]), len(g)) if len(g) >= NEAR_MIN else None

    def text(self, i: int) -> str:
        return self.gists[i][:NEAR_CHARS]


def _near_duplicates(order: list[int], gists: Gists, parent: list[int]) -> None:
    """Join groups whose learnings are near-identical (rapidfuzz ratio ≥ NEAR_RATIO).

    Work is bounded: only representatives of one kind whose texts open alike (the first
    three characters) are compared, sorted by length in blocks of ``NEAR_BLOCK``.
    """
    from rapidfuzz import fuzz, process

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    blocks: dict[Hashable, list[int]] = defaultdict(list)
    length: dict[int, int] = {}
    for i in order:
        near = gists.near(i)
        if near is not None:
            blocks[near[0]].append(i)
            length[i] = near[1]
    for members in blocks.values():
        if len(members) < 2:
            continue
        members.sort(key=length.__getitem__)
        for start in range(0, len(members), NEAR_BLOCK):
            chunk = members[start : start + NEAR_BLOCK]
            texts = [gists.text(i) for i in chunk]
            for a, text in enumerate(texts[:-1]):
                for _s, _score, b in process.extract(
                    text, texts[a + 1 :], scorer=fuzz.ratio, score_cutoff=NEAR_RATIO, limit=None
                ):
                    ra, rb = find(chunk[a]), find(chunk[a + 1 + b])
                    if ra != rb:
                        parent[max(ra, rb)] = min(ra, rb)


def build_segment(
    records: Sequence[SearchRecord],
    file_paths: list[str],
    file_of: Sequence[int],
    extra_facets: Callable[[SearchRecord], Iterable[str]] | None = None,
    near_duplicates: bool = True,
) -> Segment:
    """Index ``records`` (``file_of[i]`` is the index in ``file_paths`` of record ``i``)."""
    kinds = [r.kind for r in records]
    rank, groups, group_starts = rank_order(
        kinds,
        GistTexts(kinds, [gist_key(r.gist) if r.gist else "" for r in records]),
        [date_number(r.date) for r in records],
        [r.path for r in records],
        [r.line for r in records],
        [r.id for r in records],
        near_duplicates,
    )
    recs = [records[i] for i in rank]
    texts = [index_text(r) for r in recs]
    post: dict[str, array[int]] = {}
    for rid, text in enumerate(texts):
        add_postings(post, rid, text)
    vocab, offsets, flat = flatten(post)
    heavy = _heavy_prefixes(vocab, offsets, flat)
    facets: dict[str, array[int]] = {}
    for rid, r in enumerate(recs):
        add_facets(facets, rid, r, extra_facets)
    facet_keys, facet_offsets, facet_ids = flatten(facets)
    dates = array("I", (date_number(r.date) for r in recs))
    by_date = date_order(dates)
    return Segment(
        records=recs,
        texts=texts,
        titles=[normalize(r.title) for r in recs],
        vocab=vocab,
        offsets=offsets,
        postings=flat,
        heavy=heavy,
        kinds=bytes(KIND_CODE.get(r.kind, 255) for r in recs),
        dates=dates,
        groups=groups,
        group_starts=group_starts,
        files=array("I", (file_of[i] for i in rank)),
        file_paths=file_paths,
        hashes=array("Q", (content_hash(r) for r in recs)),
        gists=array("Q", (group_hash(r) for r in recs)),
        facet_keys=facet_keys,
        facet_offsets=facet_offsets,
        facet_ids=facet_ids,
        by_date=by_date,
    )


def rank_order(
    kinds: Sequence[str],
    gists: Gists,
    days: Sequence[int],
    places: Sequence[Any],
    lines: Sequence[int],
    ids: Sequence[Any],
    near_duplicates: bool = True,
) -> tuple[list[int], array[int], array[int]]:
    """The static rank of records given as columns (``places``: their paths, or the
    indices of their files among the sorted paths; ``ids``: their ids, or anything that
    orders the records of one file and line as their ids do): the record at each rank,
    each rank's group id, and the first rank of each group (then the count). Groups of the
    same learning: exact after normalising, then near-identical; then most recurring
    first, newest, kind, place."""
    n = len(kinds)
    first: dict[Hashable, int] = {}
    parent = list(range(n))
    for i in range(n):
        key = gists.key(i)
        if key is not None:
            parent[i] = first.setdefault(key, i)
    del first
    if near_duplicates:
        reps = [i for i in range(n) if parent[i] == i and gists.key(i) is not None]
        _near_duplicates(reps, gists, parent)

    def root(x: int) -> int:
        while parent[x] != x:
            x = parent[x]
        return x

    roots = [root(i) for i in range(n)]
    size: dict[int, int] = defaultdict(int)
    for g in roots:
        size[g] += 1
    rank = sorted(
        range(n),
        key=lambda i: (
            -size[roots[i]],
            roots[i] if size[roots[i]] > 1 else 0,
            -days[i],
            KIND_CODE.get(kinds[i], 99),
            places[i],
            lines[i],
            ids[i],
        ),
    )
    gid_of_root: dict[int, int] = {}
    groups = array("I", (gid_of_root.setdefault(roots[i], len(gid_of_root)) for i in rank))
    group_starts = array("I", [0])
    for rid in range(1, n):
        if groups[rid] != groups[rid - 1]:
            group_starts.append(rid)
    group_starts.append(n)
    if n == 0:
        group_starts = array("I", [0])
    return rank, groups, group_starts


def add_postings(post: dict[str, array[int]], rid: int, text: str) -> None:
    """Record ``rid`` under each token of its (normalised) text. Postings are arrays while
    they are gathered (4 bytes a posting: a list of ints costs 36, and a workspace of
    30,000 reports has tens of millions of postings)."""
    for tok in tokens(text):
        ids = post.get(tok)
        if ids is None:
            ids = post[tok] = array("I")
        ids.append(rid)


def add_facets(
    facets: dict[str, array[int]],
    rid: int,
    r: SearchRecord,
    extra_facets: Callable[[SearchRecord], Iterable[str]] | None = None,
) -> None:
    """Record ``rid`` under each filter key of ``r``."""
    keys = {f"kind={r.kind}", *(_facet_key(f) for f in r.facets)}
    if r.project:
        keys.add(f"project={normalize(r.project)}")
    if extra_facets is not None:
        keys.update(_facet_key(f) for f in extra_facets(r))
    for k in keys:
        ids = facets.get(k)
        if ids is None:
            ids = facets[k] = array("I")
        ids.append(rid)


def flatten(runs: dict[str, array[int]]) -> tuple[list[str], array[int], array[int]]:
    """The sorted keys of ``runs``, each one's offset in the flat array of them all, and
    that array. ``runs`` is emptied as it is read (its arrays freed one by one)."""
    keys = sorted(runs)
    offsets = array("I", [0])
    flat = array("I")
    for k in keys:
        flat.extend(runs.pop(k))
        offsets.append(len(flat))
    return keys, offsets, flat


def date_order(dates: IntSeq) -> array[int]:
    """Record ids ordered by date (undated first), then id."""
    return array("I", sorted(range(len(dates)), key=lambda r: (dates[r], r)))


def _facet_key(facet: str) -> str:
    name, _, value = facet.partition("=")
    return f"{name}={normalize(value).strip()}"


def _heavy_prefixes(vocab: list[str], offsets: IntSeq, flat: IntSeq) -> dict[str, IntSeq]:
    """Sorted unique ids of every prefix whose postings run is longer than ``HEAVY``."""
    out: dict[str, IntSeq] = {}
    by_range: dict[tuple[int, int], IntSeq] = {}

    def visit(prefix: str, lo: int, hi: int) -> None:
        size = int(offsets[hi]) - int(offsets[lo])
        if size <= HEAVY:
            return
        got = by_range.get((lo, hi))  # "tes" and "test" often cover the same words
        if got is None:
            got = by_range[(lo, hi)] = array(
                "I", sorted(set(flat[int(offsets[lo]) : int(offsets[hi])]))
            )
        out[prefix] = got
        depth = len(prefix)
        if depth >= HEAVY_DEPTH:
            return
        i = lo
        while i < hi:
            w = vocab[i]
            if len(w) <= depth:
                i += 1
                continue
            nxt = w[: depth + 1]
            j = bisect.bisect_left(vocab, nxt + _MAX_CHAR, i, hi)
            visit(nxt, i, j)
            i = j

    i = 0
    while i < len(vocab):
        c = vocab[i][:1]
        j = bisect.bisect_left(vocab, c + _MAX_CHAR, i)
        if not is_cjk(c):  # CJK terms are looked up as characters and pairs, never prefixes
            visit(c, i, j)
        i = j
    return out
