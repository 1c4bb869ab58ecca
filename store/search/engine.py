"""The search index of a workspace: a ranked, grouped answer to a query in a keystroke.

The index is a large immutable :class:`~store.search.segment.Segment` (built once, cached on
disk) plus a small *delta*: the records of files changed since, checked text by text, and
*tombstones* for the segment's records those files no longer hold. ``update_file`` re-reads
one file's records only: records whose content is unchanged keep their place, so appending
a lesson to a file of sixty thousand adds one record to the delta. When the delta grows
past a few thousand records, :meth:`SearchIndex.compacted` folds it into a new segment.

Thread safety: updates build their new state outside the lock and swap it in under it;
searches read under the lock. The UI searches in a thread worker and drops stale answers.
"""

from __future__ import annotations

import bisect
import gc
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, NamedTuple, Protocol

from store.search.match import (
    FUZZY,
    MIDWORD_MIN,
    PHRASE,
    PREFIX,
    SUBSTRING,
    VERIFY_MAX,
    Allowed,
    TextMatcher,
    Tiers,
    evaluate,
    holding,
    holds,
)
from store.search.model import SearchRecord, Stamp
from store.search.query import KPT_ITEM_KINDS, Filter, Query, QueryError, parse_day, parse_query
from store.search.segment import (
    Segment,
    build_segment,
    content_hash,
    date_number,
    group_hash,
    index_text,
)
from store.search.text import (
    MAX_TEXT,
    fuzzy_spans,
    has_word_start,
    highlight_spans,
    is_cjk,
    normalize,
    snippet,
    word_run,
)

TIER_SCORE = {PHRASE: 1.0, PREFIX: 0.8, SUBSTRING: 0.6, FUZZY: 0.4}
TIER_NAMES = {PHRASE: "exact", PREFIX: "prefix", SUBSTRING: "substring", FUZZY: "fuzzy"}
#: Fold the delta into a new segment past this many records (or a tenth of the segment).
COMPACT_AT = 5_000


class LedgerLike(Protocol):
    states: dict[str, Any]
    entries: list[Any]


class DeltaRecord(NamedTuple):
    record: SearchRecord
    text: str
    gist: int
    day: int


@dataclass(frozen=True, slots=True)
class Hit:
    """One line of the results: a record, or a group of near-identical ones."""

    kind: str
    id: str
    path: str
    line: int
    score: float
    title: str
    count: int
    """How many matching records this hit stands for (the same learning, recorded again)."""
    tier: int
    record: SearchRecord
    title_spans: tuple[tuple[int, int], ...] = ()
    snippet: str = ""
    snippet_spans: tuple[tuple[int, int], ...] = ()
    ref: Any = None
    """Where the record is in the index (for :meth:`SearchIndex.group_records`)."""

    def as_json(self, line: int | None = None) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "id": self.id,
            "path": self.path,
            "line": self.line if line is None else line,
            "score": self.score,
            "title": self.title,
            "count": self.count,
            "match": TIER_NAMES[self.tier],
        }


@dataclass
class SearchResult:
    query: Query | None
    hits: list[Hit] = field(default_factory=list)
    total: int = 0
    """Matching records (an estimate when ``exact`` is False)."""
    exact: bool = True
    error: QueryError | None = None
    elapsed: float = 0.0
    text: str = ""
    counted: bool = True
    """False when the count was left for later (``search(..., count=False)``): the same
    query searched with ``count=True`` gives the exact count. After a CJK term the hits are
    the same; after a word just begun (checked on the records walked only) a group's "×N"
    may be smaller, and, rarely, the hits other ones (a typo's close words, an exact phrase
    further down the list)."""


@dataclass
class _Narrow:
    """The last query and its matches: (all, at a word start or None), or how to make them."""

    query: Query
    version: int
    state: Any
    allowed: Allowed | None = None
    """The filters' records the matches were found among."""

    def holds_same(self, q: Query, version: int, allowed: Allowed | None) -> bool:
        """Whether ``q`` matches what this one does: the same words, phrases, exclusions
        and filters, in the same index (a space typed after a word, a word typed again)."""
        held = self.query
        return (
            self.version == version
            and self.allowed is allowed
            and (held.terms, held.phrases, held.excluded, held.filters)
            == (q.terms, q.phrases, q.excluded, q.filters)
        )

    def matches(self) -> tuple[Query, set[int], set[int] | None]:
        """The query and its matches, made now if they were not yet."""
        if callable(self.state):
            self.state = self.state()
        return self.query, self.state[0], self.state[1]


class SearchIndex:
    """Everything searchable in a workspace; see the module docstring."""

    def __init__(
        self,
        main: Segment,
        stamps: dict[str, Stamp],
        sessions: dict[str, tuple[str, str]] | None = None,
    ) -> None:
        self.main = main
        self.stamps = dict(stamps)
        """Identity of every file the index reflects (path → (size, mtime_ns))."""
        self._sessions = dict(sessions) if sessions is not None else None
        self.sessions_loader: Callable[[], dict[str, tuple[str, str]]] | None = None
        """Reads the session table on first use (a cached index: only a delta needs it)."""
        self.main_stamps = dict(stamps)
        """Identity of the files as the segment holds them (what the cache file records)."""
        self.cache_token: str | None = None
        """The cache file the segment was read from or written to (None: not on disk)."""
        self.tomb: set[int] = set()
        self.delta: list[DeltaRecord] = []
        self.delta_of: dict[str, list[DeltaRecord]] = {}
        self.version = 0
        self.lock = threading.RLock()
        self._by_file: dict[int, list[int]] | None = None
        self._file_index = {p: i for i, p in enumerate(main.file_paths)}
        self._narrow: _Narrow | None = None
        self._allowed: dict[tuple[Any, ...], Allowed] = {}

    # -- building ----------------------------------------------------------------------

    @classmethod
    def build(
        cls,
        files: dict[str, tuple[Stamp, list[SearchRecord]]],
        near_duplicates: bool = True,
    ) -> SearchIndex:
        """An index of ``files``: path → (stamp, its records)."""
        paths = sorted(files)
        records: list[SearchRecord] = []
        file_of: list[int] = []
        for i, p in enumerate(paths):
            recs = files[p][1]
            records.extend(recs)
            file_of.extend([i] * len(recs))
        sessions = join_sessions(records)
        seg = build_segment(
            records,
            paths,
            file_of,
            extra_facets=lambda r: session_facets(r, sessions),
            near_duplicates=near_duplicates,
        )
        return cls(seg, {p: files[p][0] for p in paths}, sessions)

    def live_records(self) -> dict[str, list[SearchRecord]]:
        """Every current record, by file (for a rebuild)."""
        out: dict[str, list[SearchRecord]] = {p: [] for p in self.stamps}
        seg = self.main
        for rid in range(len(seg)):
            if rid not in self.tomb:
                p = seg.file_paths[int(seg.files[rid])]
                if p in out:
                    out[p].append(seg.records[rid])
        for d in self.delta:
            if d.record.path in out:
                out[d.record.path].append(d.record)
        return out

    def compacted(self) -> SearchIndex:
        """A new index with the delta folded into the segment (seconds of work: a worker)."""
        with self.lock:
            live = self.live_records()
            stamps = dict(self.stamps)
        files = {p: (stamps[p], recs) for p, recs in live.items()}
        return SearchIndex.build(files)

    @property
    def sessions(self) -> dict[str, tuple[str, str]]:
        """session_id → (project, outcome), joined from summaries, lessons and reports."""
        if self._sessions is None:
            self._sessions = self.sessions_loader() if self.sessions_loader is not None else {}
        return self._sessions

    def join_delta_sessions(self) -> None:
        """Add what the delta's records know of their sessions to the session table."""
        for d in self.delta:
            self._join(d.record)

    def _join(self, r: SearchRecord) -> None:
        if r.session_id and (r.project or r.kind == "report"):
            proj, outcome = self.sessions.get(r.session_id, ("", ""))
            self.sessions[r.session_id] = (r.project or proj, _outcome(r) or outcome)

    def materialize(self) -> None:
        """Decode the segment's texts into memory (a cached segment reads them from the
        mapped file one at a time). Not done by the app: it costs the texts' size in
        memory (+430 MB at 10,000 reports and 100,000 lessons) for about 1 ms at the 95th
        percentile of a keystroke; the benchmarks use it to compare."""
        seg = self.main
        if not isinstance(seg.texts, list):
            seg.texts = list(seg.texts)
        if not isinstance(seg.titles, list):
            seg.titles = list(seg.titles)
        self.warm()

    def warm(self) -> None:
        """Get ready for a long-lived process's first keystrokes."""
        # hundreds of thousands of long-lived objects: keep the cycle collector from
        # walking them again at every full collection (a pause in the middle of typing)
        gc.freeze()
        # the fuzzy tier's first use would otherwise pay for importing rapidfuzz
        import rapidfuzz.distance
        import rapidfuzz.process  # noqa: F401

        # and the first close words highlighted, for compiling what finds the words
        word_run()
        # and the first word looked for inside words, for making the vocabulary's index
        self.main.vocab_index()
        # and the first CJK terms, for checking the CJK text they read (mapped, not copied)
        check = getattr(self.main.texts, "check_cjk", None)
        if callable(check):
            check()

    @property
    def needs_compaction(self) -> bool:
        return len(self.delta) > max(COMPACT_AT, len(self.main) // 10)

    def __len__(self) -> int:
        return len(self.main) - len(self.tomb) + len(self.delta)

    # -- updating ----------------------------------------------------------------------

    def _main_ids_of(self, path: str) -> list[int]:
        if self._by_file is None:
            by: dict[int, list[int]] = {}
            for rid, f in enumerate(self.main.files):
                by.setdefault(int(f), []).append(rid)
            self._by_file = by
        i = self._file_index.get(path)
        return [] if i is None else self._by_file.get(i, [])

    def update_file(
        self, path: str, stamp: Stamp | None, records: list[SearchRecord] | None
    ) -> bool:
        """Replace what the index holds of one file (``records`` None: the file is gone).

        Records whose content did not change keep their place in the segment; only new or
        changed ones go to the delta. Returns True when anything changed.
        """
        with self.lock:
            old_main = [r for r in self._main_ids_of(path) if r not in self.tomb]
            old_delta = self.delta_of.get(path, [])
            main_hashes = {int(self.main.hashes[r]): r for r in old_main}
        keep_main: set[int] = set()
        new_delta: list[DeltaRecord] = []
        delta_keep = {content_hash(d.record): d for d in old_delta}
        for rec in records or []:
            h = content_hash(rec)
            rid = main_hashes.pop(h, None)
            if rid is not None:
                keep_main.add(rid)
                continue
            d = delta_keep.pop(h, None)
            new_delta.append(d if d is not None else _delta(rec))
        gone = set(old_main) - keep_main
        changed = bool(gone) or len(new_delta) != len(old_delta) or bool(delta_keep)
        with self.lock:
            if stamp is None:
                self.stamps.pop(path, None)
            else:
                self.stamps[path] = stamp
            if not changed:
                return False
            self.tomb |= gone
            if new_delta:
                self.delta_of[path] = new_delta
            else:
                self.delta_of.pop(path, None)
            self.delta = [d for recs in self.delta_of.values() for d in recs]
            for d in new_delta:
                self._join(d.record)
            self.version += 1
            self._narrow = None
            self._allowed.clear()
        return True

    # -- searching ---------------------------------------------------------------------

    def search(
        self,
        text: str | Query,
        limit: int = 50,
        *,
        ledger: LedgerLike | Callable[[], LedgerLike] | None = None,
        spans: bool = True,
        count: bool = True,
    ) -> SearchResult:
        """The best ``limit`` hits for ``text`` (a :class:`SearchResult` with ``error`` set
        when the query is malformed). With ``count`` False, work that only the count needs
        may be left out (``counted`` False; see :attr:`SearchResult.counted`) — for a query
        being typed, counted once the typing pauses."""
        t0 = time.perf_counter()
        raw = text if isinstance(text, str) else text.text
        try:
            q = parse_query(text) if isinstance(text, str) else text
        except QueryError as exc:
            return SearchResult(None, error=exc, text=raw)
        with self.lock:
            try:
                allowed = self._allowed_for(q.filters, ledger)
            except QueryError as exc:
                return SearchResult(q, error=exc, text=raw)
            matcher = TextMatcher(q)
            previous = self._narrowed(q, allowed)
            last = previous.matches if previous is not None else None
            tiers = evaluate(self.main, q, matcher, allowed, limit, last, count)
            deltas = self._delta_matches(q, matcher, tiers, ledger)
            hits, dropped = self._assemble(q, tiers, deltas, allowed, limit, spans)
            if len(hits) < limit and tiers.later is not None:
                tiers.later()  # what was left out while typing, needed after all
                hits, dropped = self._assemble(q, tiers, deltas, allowed, limit, spans)
            # what the walk checked and dropped, in a tier it walked to the end, is known
            # not to match (an unchecked superset's count is an estimate until then)
            total = tiers.total + len(deltas) - self._tombed(tiers) - dropped
            self._narrow = self._next_narrow(q, tiers, allowed)
        return SearchResult(
            q,
            hits,
            max(total, len(hits)),
            tiers.exact,
            elapsed=time.perf_counter() - t0,
            text=raw,
            counted=not tiers.counted_later,
        )

    def prepare_next(self) -> None:
        """Make now what the next, longer query narrows from (the last query's matches,
        made on demand otherwise): for a search thread with nothing else to do, so that
        the next key of a query being typed does not make them."""
        with self.lock:
            if self._narrow is not None and self._narrow.version == self.version:
                self._narrow.matches()

    def forget_narrowing(self) -> None:
        """The next query is looked up afresh, narrowing from nothing kept."""
        with self.lock:
            self._narrow = None

    def _narrowed(self, q: Query, allowed: Allowed | None) -> _Narrow | None:
        """What ``q`` narrows from, if it extends the last query among the same filters'
        records (a ``status:`` filter's change with a review decision), its matches made
        only if the search of ``q`` asks for them: a single word is looked up afresh."""
        prev = self._narrow
        if (
            prev is None
            or prev.version != self.version
            or prev.allowed is not allowed
            or not q.narrows(prev.query)
        ):
            return None
        for old, new in zip(prev.query.terms, q.terms, strict=False):
            if len(old) < MIDWORD_MIN <= len(new) and not is_cjk(old):
                return None  # the new word also matches inside words: the old set lacks those
        return prev

    def _next_narrow(self, q: Query, tiers: Tiers, allowed: Allowed | None) -> _Narrow | None:
        """What the next query narrows from. When ``q`` matches what the last one did (a
        space typed after a word), the last one's is kept, made already if it was: typing
        ``rate`` then a space then ``l`` makes the matches of ``rate`` once, not twice."""
        if not tiers.narrows:
            return None
        held: Query | None = None
        state: Any = None
        if tiers.state is not None and (
            tiers.exact or tiers.state_whole or tiers.state_terms is not None
        ):
            held = q if tiers.state_terms is None else replace(q, terms=tiers.state_terms)
            state = tiers.state
        elif tiers.exact and tiers.checked and q.terms and tiers.total <= VERIFY_MAX * 2:
            lists = tiers.lists
            held, state = q, lambda: (set().union(*lists), None)
        if held is None:
            return None
        prev = self._narrow
        if prev is not None and prev.holds_same(held, self.version, allowed):
            return prev
        return _Narrow(held, self.version, state, allowed)

    def _tombed(self, tiers: Tiers) -> int:
        if not self.tomb:
            return 0
        n = 0
        for ids, minus in zip(tiers.lists, tiers.minus, strict=True):
            for rid in self.tomb:
                if _contains(ids, rid) and not (minus is not None and _contains(minus, rid)):
                    n += 1
        return n

    # -- filters -------------------------------------------------------------------------

    def _allowed_for(
        self, filters: Sequence[Filter], ledger: LedgerLike | Callable[[], LedgerLike] | None
    ) -> Allowed | None:
        if not filters:
            return None
        led = None
        if any(f.name == "status" for f in filters):
            led = _ledger(ledger)
        key = (tuple(filters), self.version, id(led), len(led.entries) if led else 0)
        got = self._allowed.get(key)
        if got is not None:
            return got
        include: set[int] | None = None
        exclude: set[int] = set()
        for f in filters:
            ids = self._filter_ids(f, led)
            if f.negated:
                exclude |= ids
            else:
                include = ids if include is None else include & ids
        got = Allowed.of(include, exclude, len(self.main))
        if len(self._allowed) > 16:
            self._allowed.clear()
        self._allowed[key] = got
        return got

    def _filter_ids(self, f: Filter, ledger: LedgerLike | None) -> set[int]:
        seg = self.main
        out: set[int] = set()
        if f.ids is not None:  # records named by the caller (evidence:)
            out = {rid for k in f.ids if (rid := seg.rid_of(k)) is not None}
        elif f.name == "kind":
            for k in f.values:
                out.update(seg.facet_ids_of(f"kind={k}"))
        elif f.name == "project":
            for ids in seg.facet_matching("project", lambda v: any(x in v for x in f.values)):
                out.update(ids)
        elif f.name in ("after", "before"):
            day = parse_day(f.values[0]) or 0
            out.update(seg.date_ids(day, None) if f.name == "after" else seg.date_ids(None, day))
        elif f.name == "status":
            out = self._status_ids(f.values, ledger)
        else:
            for ids in seg.facet_matching(f.name, lambda v: any(v.startswith(x) for x in f.values)):
                out.update(ids)
        return out

    def _status_ids(self, values: Sequence[str], ledger: LedgerLike | None) -> set[int]:
        seg = self.main
        out: set[int] = set()
        states = ledger.states if ledger is not None else {}
        for v in values:
            out.update(seg.facet_ids_of(f"status={v}"))  # proposals
        decided: dict[str, str] = {}
        promoted: set[str] = set()
        for key, st in states.items():
            decided[key] = st.state
            if st.promoted:
                promoted.add(key)
        wanted = set(values)
        if "pending" in wanted:
            items: set[int] = set()
            for k in KPT_ITEM_KINDS:
                items.update(seg.facet_ids_of(f"kind={k}"))
            for key, state in decided.items():
                if state != "pending":
                    rid = seg.rid_of(key)
                    if rid is not None:
                        items.discard(rid)
            out |= items
        for key, state in decided.items():
            if (state in wanted and state != "pending") or (
                "promoted" in wanted and key in promoted
            ):
                rid = seg.rid_of(key)
                if rid is not None:
                    out.add(rid)
        return out

    def _record_ok(
        self, r: SearchRecord, filters: Sequence[Filter], ledger: LedgerLike | None
    ) -> bool:
        return all(_record_filter(r, f, ledger, self.sessions) != f.negated for f in filters)

    # -- the delta ---------------------------------------------------------------------

    def _delta_matches(
        self,
        q: Query,
        matcher: TextMatcher,
        tiers: Tiers,
        ledger: LedgerLike | Callable[[], LedgerLike] | None,
    ) -> list[tuple[int, DeltaRecord]]:
        if not self.delta:
            return []
        led = _ledger(ledger) if any(f.name == "status" for f in q.filters) else None
        fuzzy = TextMatcher(q, tiers.fuzzy_words) if tiers.fuzzy_words else None
        out = []
        for d in self.delta:
            if q.filters and not self._record_ok(d.record, q.filters, led):
                continue
            if not q.terms:
                out.append((PREFIX, d))
                continue
            tier = matcher.tier(d.text)
            if tier is None and fuzzy is not None:
                tier = fuzzy.tier(d.text, allow_fuzzy=True)
            if tier is not None:
                out.append((tier, d))
        return out

    def _position(self, d: DeltaRecord) -> float:
        """Where a delta record sits in the segment's rank order (with its group, if any)."""
        seg = self.main
        first = seg.first_of_gist(d.gist)
        if first is not None:
            return first - 0.5
        dates = seg.dates
        i = bisect.bisect_left(
            range(len(seg)),
            (-1, -d.day),
            key=lambda rid: (-len(seg.group_rids(rid)), -int(dates[rid])),
        )
        return i - 0.5

    # -- ranking ------------------------------------------------------------------------

    def _assemble(
        self,
        q: Query,
        tiers: Tiers,
        deltas: list[tuple[int, DeltaRecord]],
        allowed: Allowed | None,
        limit: int,
        spans: bool,
    ) -> tuple[list[Hit], int]:
        """The best ``limit`` groups: tier, then a hit in the title, then rank order.

        Members of a group are contiguous in rank order, so each tier is walked group by
        group (the rest of a group is skipped with one bisection), and the title check
        runs on twice ``limit`` groups per tier at most.
        """
        seg = self.main
        per_tier = limit * 2 if q.terms else limit
        unchecked = [not tiers.checked] * FUZZY + [not tiers.fuzzy_checked]
        verifier = TextMatcher(q, tiers.fuzzy_words) if any(unchecked) else None
        seen: set[int] = set()
        cands: list[tuple[int, int, float, Any]] = []
        dropped = 0  # records checked and dropped, in the tiers walked to their end
        terms = list(dict.fromkeys(q.terms))
        for tier in range(4):
            ids = tiers.lists[tier]
            if not ids:
                continue
            if len(cands) >= limit:
                break  # a lower tier cannot reach the first ``limit`` hits
            ordered: Any = sorted(ids) if isinstance(ids, (set, frozenset)) else ids
            minus = _membership(tiers.minus[tier])
            held = tiers.held if tier == PHRASE else ""
            got = tier_dropped = 0
            i, n = 0, len(ordered)
            budget = 20_000  # ids looked at in this tier (skipped ones included)
            while i < n and got < per_tier and budget > 0:
                budget -= 1
                rid = int(ordered[i])
                g = int(seg.groups[rid])
                _first, end = self._span(rid)
                if g in seen:
                    i = bisect.bisect_left(ordered, end, i + 1) if end > rid + 1 else i + 1
                    continue
                if (
                    rid in self.tomb
                    or (minus is not None and rid in minus)
                    or (tiers.unfiltered is not None and not tiers.unfiltered.ok(rid))
                ):
                    i += 1
                    continue
                if held and not holds(seg.texts, rid, held):
                    tier_dropped += 1
                    i += 1
                    continue
                actual = tier
                # the fuzzy tier is exact as it is (close words' postings, or checked),
                # unless a word just begun was left out of it
                if verifier is not None and unchecked[tier]:
                    checked = verifier.tier(seg.texts[rid], allow_fuzzy=tier == FUZZY)
                    if checked is None:
                        tier_dropped += 1
                        i += 1
                        continue
                    actual = checked
                seen.add(g)
                bonus = self._title_bonus(seg.titles[rid], terms) if terms else 0
                cands.append((actual, -bonus, float(rid), rid))
                got += 1
                i = bisect.bisect_left(ordered, end, i + 1) if end > rid + 1 else i + 1
            if i >= n:
                dropped += tier_dropped
        delta_groups: dict[Any, int] = {}
        for tier, d in deltas:
            key = self._group_key(d)
            delta_groups[key] = delta_groups.get(key, 0) + 1
            if key[0] == "m" and key[1] in seen:
                continue
            bonus = self._title_bonus(normalize(d.record.title), terms) if terms else 0
            cands.append((tier, -bonus, self._position(d), d))
        cands.sort(key=lambda c: c[:3])
        hits: list[Hit] = []
        taken: set[Any] = set()
        fuzzy = tiers.fuzzy_words
        counter: _Counter | None = None
        for tier, neg_bonus, _pos, ref in cands:
            gkey = self._group_key(ref)
            if gkey in taken:
                continue
            taken.add(gkey)
            count = delta_groups.get(gkey, 0)
            if gkey[0] == "m":
                anchor = ref if isinstance(ref, int) else seg.first_of_gist(ref.gist)
                if anchor is not None:
                    if counter is None:
                        counter = _Counter(tiers, self.tomb, allowed, seg.texts)
                    count += self._count_group(counter, anchor)
            hits.append(self._hit(q, tier, -neg_bonus, ref, max(1, count), fuzzy, spans))
            if len(hits) >= limit:
                break
        return hits, dropped

    def _span(self, rid: int) -> tuple[int, int]:
        """[first, end) of ``rid``'s group in rank order."""
        m = self.main.members(int(self.main.groups[rid]))
        return m.start, m.stop

    def _count_group(self, counter: _Counter, rid: int) -> int:
        """Matching, live, allowed records of ``rid``'s group in the segment."""
        first, end = self._span(rid)
        if end - first == 1:
            return 1
        return counter.count(first, end)

    def group_records(self, hit: Hit, limit: int = 50) -> list[SearchRecord]:
        """The records a hit stands for (its group in the segment and the delta), best first."""
        seg = self.main
        out: list[SearchRecord] = []
        gkey = self._group_key(hit.ref)
        with self.lock:
            if gkey[0] == "m":
                anchor = hit.ref if isinstance(hit.ref, int) else seg.first_of_gist(hit.ref.gist)
                if anchor is not None:
                    first, end = self._span(anchor)
                    for r in range(first, end):
                        if r not in self.tomb:
                            out.append(seg.records[r])
                        if len(out) >= limit:
                            return out
            for d in self.delta:
                if self._group_key(d) == gkey:
                    out.append(d.record)
        return out[:limit]

    def _group_key(self, ref: Any) -> tuple[str, int]:
        seg = self.main
        if isinstance(ref, int):
            return ("m", int(seg.groups[ref]))
        first = seg.first_of_gist(ref.gist)
        if first is not None:
            return ("m", int(seg.groups[first]))
        return ("d", ref.gist or id(ref))

    @staticmethod
    def _title_bonus(title: str, terms: list[str]) -> int:
        return int(all(has_word_start(title, t) for t in terms))

    def _hit(
        self,
        q: Query,
        tier: int,
        bonus: int,
        ref: Any,
        count: int,
        fuzzy: dict[str, list[str]],
        spans: bool,
    ) -> Hit:
        rec = self.main.records[ref] if isinstance(ref, int) else ref.record
        score = round(TIER_SCORE[tier] + 0.1 * bonus, 3) if q.terms else 0.0
        tspans: list[tuple[int, int]] = []
        snip: str = ""
        sspans: list[tuple[int, int]] = []
        if spans and q.terms:
            terms = list(dict.fromkeys(q.terms))
            fz = [w for ws in fuzzy.values() for w in ws]
            tspans = highlight_spans(rec.title, terms) or fuzzy_spans(rec.title, fz)
            if not tspans:
                for value in rec.values():
                    value = value[:MAX_TEXT]  # highlighting reads no further
                    norm = normalize(value)
                    if not any(t in norm for t in terms) and not any(w in norm for w in fz):
                        continue
                    found = highlight_spans(value, terms) or fuzzy_spans(value, fz)
                    if found:
                        snip, sspans = snippet(value, found)
                        break
        return Hit(
            rec.kind,
            rec.id,
            rec.path,
            rec.line,
            score,
            rec.title,
            count,
            tier,
            rec,
            tuple(tspans),
            snip,
            tuple(sspans),
            ref,
        )


class _Counter:
    """Counts the matching records in a span of rank order (a group), across the tiers."""

    def __init__(
        self, tiers: Tiers, tomb: set[int], allowed: Allowed | None, texts: Any = None
    ) -> None:
        #: the exact tier's ids, still to be checked to hold ``tiers.held`` when the count
        #: was left for later (the hits, their counts included, are a full search's); a
        #: tier too large to check is counted as it is, an estimate like its total
        self.held = (
            (tiers.held, tiers.lists[PHRASE], texts) if tiers.held and tiers.counted_later else None
        )
        self.sets: list[Any] = []
        self.arrays: list[Any] = []
        for ids, minus in zip(tiers.lists, tiers.minus, strict=True):
            if not ids:
                continue
            if isinstance(ids, (set, frozenset, range)):
                self.sets.append(ids)
            else:
                self.arrays.append(ids)  # minus ⊂ ids here: the exact words of the prefix
                if minus is not None and not isinstance(minus, (set, frozenset)):
                    break  # the exact-word array is inside the prefix array: counted once
        small = all(isinstance(x, (set, frozenset)) for x in self.sets)
        #: several sets of ids, a record in two of them counted once: the union of what
        #: each holds of a group (made per group, of its few ids: a union of the sets
        #: themselves, made at every key, cost up to a millisecond)
        self.union_per_group = (
            small and len(self.sets) > 1 and sum(len(x) for x in self.sets) <= 200_000
        )
        self.tomb = tomb
        self.allowed = allowed if tiers.unfiltered is not None else None

    def count(self, first: int, end: int) -> int:
        span = range(first, end)
        if self.held is not None:  # the one tier, a superset: the group's ids are checked
            needle, ids, texts = self.held
            live = [r for r in sorted(ids.intersection(span)) if self._live(r)]
            return len(holding(live, texts, needle))
        if self.allowed is not None or self.tomb:
            return sum(1 for r in span if self._has(r))
        if self.union_per_group:
            n = len(set().union(*(ids.intersection(span) for ids in self.sets)))
            return n + self._in_arrays(first, end)
        n = 0
        for ids in self.sets:
            n += (
                len(ids.intersection(span))
                if isinstance(ids, (set, frozenset))
                else len(range(max(first, ids.start), min(end, ids.stop)))
                if isinstance(ids, range)
                else 0
            )
        return n + self._in_arrays(first, end)

    def _in_arrays(self, first: int, end: int) -> int:
        return sum(bisect.bisect_left(a, end) - bisect.bisect_left(a, first) for a in self.arrays)

    def _live(self, r: int) -> bool:
        return r not in self.tomb and (self.allowed is None or self.allowed.ok(r))

    def _has(self, r: int) -> bool:
        if not self._live(r):
            return False
        if any(r in ids for ids in self.sets):
            return True
        return any(_contains(arr, r) for arr in self.arrays)


def _membership(ids: Any) -> Any:
    """Something ``in`` works on quickly: sets and ranges as they are, arrays by bisection."""
    if ids is None or isinstance(ids, (set, frozenset, range)):
        return ids
    return _Sorted(ids)


class _Sorted:
    def __init__(self, ids: Any) -> None:
        self.ids = ids

    def __contains__(self, rid: object) -> bool:
        ids = self.ids
        i = bisect.bisect_left(ids, rid)
        return i < len(ids) and ids[i] == rid


def _contains(ids: Any, rid: int) -> bool:
    if isinstance(ids, (set, frozenset, range)):
        return rid in ids
    i = bisect.bisect_left(ids, rid)
    return i < len(ids) and ids[i] == rid


def _delta(rec: SearchRecord) -> DeltaRecord:
    return DeltaRecord(rec, index_text(rec), group_hash(rec), date_number(rec.date))


def _ledger(ledger: LedgerLike | Callable[[], LedgerLike] | None) -> LedgerLike | None:
    if ledger is None:
        return None
    if callable(ledger):
        return ledger()
    return ledger


def _outcome(r: SearchRecord) -> str:
    for f in r.facets:
        if f.startswith("outcome="):
            return f[len("outcome=") :]
    return ""


def join_sessions(records: Iterable[SearchRecord]) -> dict[str, tuple[str, str]]:
    """session_id → (project, outcome): summaries and lessons know the project, reports
    the outcome; a KPT report inherits the project and a lesson the outcome this way."""
    return join_session_rows(session_row(r) for r in records if r.session_id)


def session_row(r: SearchRecord) -> tuple[str, str, str]:
    """What a record tells of its session: (session id, project, outcome)."""
    return r.session_id, r.project, _outcome(r) if r.kind == "report" else ""


def join_session_rows(rows: Iterable[tuple[str, str, str]]) -> dict[str, tuple[str, str]]:
    """:func:`join_sessions` of rows (:func:`session_row`) in the records' order."""
    out: dict[str, tuple[str, str]] = {}
    for sid, project, outcome in rows:
        if sid and (project or outcome):
            p, o = out.get(sid, ("", ""))
            out[sid] = (p or project, o or outcome)
    return out


def session_facets(r: SearchRecord, sessions: dict[str, tuple[str, str]]) -> list[str]:
    if not r.session_id or r.session_id not in sessions:
        return []
    project, outcome = sessions[r.session_id]
    out = []
    if project and not r.project:
        out.append(f"project={normalize(project)}")
    if outcome and not any(f.startswith("outcome=") for f in r.facets):
        out.append(f"outcome={outcome}")
    return out


def _record_filter(
    r: SearchRecord, f: Filter, ledger: LedgerLike | None, sessions: dict[str, tuple[str, str]]
) -> bool:
    """Does ``r`` pass ``f`` (ignoring negation)? The delta's records are checked this way."""
    joined = sessions.get(r.session_id, ("", "")) if r.session_id else ("", "")
    if f.ids is not None:
        return r.id in f.ids
    if f.name == "kind":
        return r.kind in f.values
    if f.name == "project":
        project = normalize(r.project or joined[0])
        return bool(project) and any(v in project for v in f.values)
    if f.name in ("after", "before"):
        day = date_number(r.date)
        limit = parse_day(f.values[0]) or 0
        return day > 0 and (day >= limit if f.name == "after" else day < limit)
    if f.name == "status":
        if r.kind == "proposal":
            return any(fa == f"status={v}" for fa in r.facets for v in f.values)
        if r.kind not in KPT_ITEM_KINDS:
            return False
        st = ledger.states.get(r.id) if ledger is not None else None
        state = st.state if st is not None else "pending"
        return state in f.values or ("promoted" in f.values and bool(st and st.promoted))
    values = [normalize(fa.partition("=")[2]) for fa in r.facets if fa.startswith(f.name + "=")]
    if f.name == "outcome" and not values and joined[1]:
        values = [normalize(joined[1])]
    return any(v.startswith(x) for v in values for x in f.values)
