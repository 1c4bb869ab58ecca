"""A query on the tantivy index. Tiers, best first, each holding the one before: exact,
prefix (where a word starts), substring (inside a word, 3+ characters) and fuzzy (a typo away,
only when the others hold too few); in a tier, titles holding every word first, then the
static rank. Filters are made at each search: the ledger's states as they are now."""

from __future__ import annotations

import time
from bisect import bisect_right
from collections import Counter
from collections.abc import Callable, Sequence
from functools import lru_cache
from itertools import groupby
from operator import attrgetter, itemgetter
from re import escape  # (tantivy's regex syntax takes Python's escapes)
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

import tantivy

from store.models.kpt_terms import SECTIONS
from store.read.isotime import day_number as parse_day
from store.search.index import NOTHING, Q_MANIFEST, SearchIndex, unpack_record
from store.search.index import SCHEMA_OBJ as S
from store.search.model import SearchRecord
from store.search.query import Filter, Query, QueryError, parse_query
from store.search.text import (
    MAX_TEXT,
    TOKEN_MAX,
    fuzzy_spans,
    gist_key,
    highlight_spans,
    is_cjk,
    normalize,
    snippet,
    word_chain,
    word_parts,
    word_run,
)

if TYPE_CHECKING:  # (the vocabulary is the typing path's: a counted search reads none)
    from store.search.vocab import Expansion, Vocab

PHRASE, PREFIX, SUBSTRING, FUZZY = 0, 1, 2, 3
#: Constant scores of the tiers (each holds the ones before it) and the title bonus (1).
PHRASE_W, PREFIX_W, SUBSTRING_W = 8.0, 4.0, 2.0
TIER_SCORE = {PHRASE: 1.0, PREFIX: 0.8, SUBSTRING: 0.6, FUZZY: 0.4}
TIER_NAMES = {PHRASE: "exact", PREFIX: "prefix", SUBSTRING: "substring", FUZZY: "fuzzy"}
#: The least score of each tier above fuzzy, lowest first (tier FUZZY minus those reached).
TIER_FLOORS = (SUBSTRING_W, PREFIX_W + SUBSTRING_W, PHRASE_W + PREFIX_W + SUBSTRING_W)
#: Words shorter than this match only where a word starts; shorter than FUZZY_MIN, no typo.
MIDWORD_MIN = 3
FUZZY_MIN = 4
#: A CJK string of more pairs than this is looked for by this many of them (each pair of a
#: phrase is matched position by position: a pasted paragraph would cost seconds).
PAIRS_MAX = 24
#: The most records one search reads the group of (counts of near duplicates).
ALL = 10_000_000
#: The records a counted search collects at first (see ``Engine._ranked``).
COLLECT = 16_384
#: The order of records alike in rank: their file, line and id.
PLACE = attrgetter("path", "line", "id")

Q = tantivy.Query
MUST, NOT, SHOULD = tantivy.Occur.Must, tantivy.Occur.MustNot, tantivy.Occur.Should


class LedgerLike(Protocol):
    @property
    def states(self) -> dict[str, Any]: ...


Ledgerish = LedgerLike | Callable[[], LedgerLike] | None  # a callable: read when asked


class Hit(NamedTuple):
    """One line of the results: a record, or a group of near-identical ones (named tuples,
    not dataclasses: that module cost a warm search ~6 ms to import)."""

    kind: str
    id: str
    path: str
    line: int
    score: float
    title: str
    count: int  # type: ignore[assignment]  # (tuple's count() is not used on a hit)
    """How many matching records this hit stands for (the same learning, recorded again)."""
    tier: int
    record: SearchRecord
    title_spans: tuple[tuple[int, int], ...] = ()
    snippet: str = ""
    snippet_spans: tuple[tuple[int, int], ...] = ()
    ref: Any = None
    """Its near-duplicate group (0: none), or a tuple of them (:meth:`Engine.group_records`)."""

    def as_json(self, line: int) -> dict[str, Any]:
        out = {
            k: getattr(self, k) for k in ("kind", "id", "path", "line", "score", "title", "count")
        }
        return out | {"line": line, "match": TIER_NAMES[self.tier]}


class SearchResult(NamedTuple):
    query: Query | None
    hits: list[Hit] = []  # (one list for every empty result: never changed in place)
    total: int = 0  # matching records
    exact: bool = True
    error: QueryError | None = None
    elapsed: float = 0.0
    text: str = ""
    counted: bool = True
    """``False`` while typing: the total is "about", a ×N a group's size (counted at the pause)."""


def _and(qs: Sequence[Any]) -> Any:
    if any(q is NOTHING for q in qs):
        return NOTHING
    return qs[0] if len(qs) == 1 else Q.boolean_query([(MUST, q) for q in qs])


def _or(qs: Sequence[Any]) -> Any:
    qs = [q for q in qs if q is not NOTHING]
    if not qs:
        return NOTHING
    return qs[0] if len(qs) == 1 else Q.boolean_query([(SHOULD, q) for q in qs])


def _without(q: Any, *nots: Any) -> Any:
    return NOTHING if q is NOTHING else Q.boolean_query([(MUST, q), *((NOT, n) for n in nots)])


@lru_cache(maxsize=512)  # compiling an automaton costs as much as running it, at every key
def _re(fld: str, pattern: str) -> Any:
    return Q.regex_query(S, fld, pattern)


@lru_cache(maxsize=128)
def _fuzzy(text: str) -> Any:
    return Q.fuzzy_term_query(S, "w", text, fuzzy_distance(text), True, True)


@lru_cache(maxsize=256)
def cjk_query(t: str) -> Any:
    """Records holding the CJK string ``t``: its character, its pair, or its pairs' phrase."""
    if len(t) <= 2:
        return Q.term_query(S, "u" if len(t) == 1 else "g", t)
    n = len(t) - 1  # pairs; a long string by PAIRS_MAX of them, spread over it, at their places
    at = range(n) if n <= PAIRS_MAX else {i * (n - 1) // (PAIRS_MAX - 1) for i in range(PAIRS_MAX)}
    return Q.phrase_query(S, "g", [(i, t[i : i + 2]) for i in sorted(at)])


class Term(NamedTuple):
    text: str
    kind: str
    """``word``, ``compound``, ``cjk`` or ``parts`` (words with other punctuation)."""

    def start(self, ex: Expansion | None = None) -> Any:
        """Where a word starts (CJK: anywhere); with ``ex``, as the vocabulary expands it."""
        t = self.text
        if self.kind in ("word", "compound"):
            f = self.kind[0]
            return ex.query(f, t) if ex else _re(f, escape(t) + ".*")
        if self.kind == "cjk":
            return cjk_query(t)
        return _and([Term(p, "cjk" if is_cjk(p) else "word").start(ex) for p in word_parts(t)])

    @property
    def midword(self) -> bool:
        return MIDWORD_MIN <= len(self.text) <= TOKEN_MAX and self.kind in ("word", "compound")

    def inside(self, ex: Expansion | None = None) -> Any | None:
        """Inside a word only (``None``: not looked for there)."""
        if not self.midword:
            return None
        t, f = self.text, self.kind[0]
        return ex.query(f, t, inside=True) if ex else _re(f, ".+" + escape(t) + ".*")

    def whole(self, ex: Expansion | None = None) -> Any:
        t = self.text
        if self.kind == "word":
            return Q.term_query(S, "w", t)
        if self.kind == "compound":
            return ex.query("c", t, "-._:") if ex else _re("c", escape(t) + "([-._:].*)?")
        if self.kind == "cjk":
            return cjk_query(t)
        return _and([Term(p, "cjk" if is_cjk(p) else "word").whole(ex) for p in word_parts(t)])

    @property
    def typo_tolerant(self) -> bool:
        return self.kind == "word" and len(self.text) >= FUZZY_MIN and not self.text.isdigit()

    def close(self) -> Any | None:
        """The words a typo away, or words they begin."""
        return _fuzzy(self.text) if self.typo_tolerant else None

    def in_title(self) -> Any:
        parts = list(self.text) if self.kind == "cjk" else word_parts(self.text)
        return _and(
            [Q.term_query(S, "tu", p) if is_cjk(p) else _re("tw", escape(p) + ".*") for p in parts]
        )


def fuzzy_distance(term: str) -> int:
    return 2 if len(term) >= 8 else 1


def analyse(text: str) -> Term | None:
    """The kind of a query word; a word longer than a token is looked up by its head."""
    text = text[:TOKEN_MAX]
    parts = word_parts(text)
    if not parts:
        return None
    core = text.strip("-._:")
    if is_cjk(text):
        return Term(text, "cjk")
    if parts == [text]:
        return Term(text, "word")
    if parts == [core] and text.startswith(core):
        return Term(text, "compound")  # a word being continued: "kpt-", "jwks."
    if len(parts) > 1 and word_chain().fullmatch(core) is not None:  # (so: a joint)
        return Term(core, "compound")
    return Term(text, "parts")


def _contains(text: str) -> Any:
    """Records whose text holds ``text`` (a phrase as words, a word anywhere in a word)."""
    if is_cjk(text):
        return cjk_query(text)
    words = text.split()
    if len(words) > 1:
        if all(word_parts(w) == [w] for w in words):
            # as written: the words in a row, the last one possibly going on ("rate limit"
            # in "rate limiter"), as a substring of the text would
            return Q.phrase_prefix_query(S, "w", [(i, w) for i, w in enumerate(words)])
        return _and([_contains(w) for w in words])
    term = analyse(text)
    if term is None:
        return NOTHING
    if term.kind == "word":
        return _re("w", ".*" + escape(text) + ".*")
    if term.kind == "compound":
        return _re("c", ".*" + escape(term.text) + ".*")
    return _and([_contains(p) for p in word_parts(text)])


class Engine:
    """Searches of one :class:`SearchIndex`."""

    def __init__(self, index: SearchIndex) -> None:
        self.index = index
        self._vocab: Vocab | None = None
        self._reading: Reading | None = None

    def search(
        self,
        text: str | Query,
        limit: int = 50,
        *,
        ledger: Ledgerish = None,
        spans: bool = True,
        count: bool = True,
    ) -> SearchResult:
        """The best ``limit`` hits for ``text`` (``error`` set when it is malformed)."""
        t0 = time.perf_counter()
        raw = text if isinstance(text, str) else text.text
        try:
            q = parse_query(text) if isinstance(text, str) else text
        except QueryError as exc:
            return SearchResult(None, error=exc, text=raw)
        s = self._reading
        if s is None or s.searcher is not self.index.searcher():
            s = self._reading = Reading(self.index.searcher())
        try:
            terms = [t for t in map(analyse, dict.fromkeys(q.terms)) if t is not None]
            ex = None
            if not count:
                from store.search.vocab import Expansion

                ex = Expansion(self.vocabulary())
            hits, total, exact = self._tiers(s, q, terms, ledger, limit, spans, count, ex)
            if ex is not None and ex.capped:  # some word stood for more terms than were asked
                total, exact = min(len(self.index), max(total, round(total * ex.scale))), False
        except ValueError:  # a query tantivy cannot run (a regex too large): nothing found
            hits, total, exact = [], 0, True
        # while typing, a group's ×N is its size: its matches are counted at the pause
        counted = exact and (count or all(h.count == 1 for h in hits))
        return SearchResult(
            q, hits, total, exact=exact, elapsed=time.perf_counter() - t0, text=raw, counted=counted
        )

    def vocabulary(self) -> Vocab:
        """The index's terms, read when first needed (and after each build)."""
        index = self.index
        v = self._vocab
        if v is None or v.built != index.builds:
            from store.search.vocab import Vocab

            v = self._vocab = Vocab.read(index.searcher(), index.builds)
        v.refresh(index.new_terms)
        return v

    def _tiers(
        self,
        s: Any,
        q: Query,
        terms: list[Term],
        ledger: Ledgerish,
        limit: int,
        spans: bool,
        count: bool,
        ex: Expansion | None,
    ) -> tuple[list[Hit], int, bool]:
        if q.terms and not terms:
            return [], 0, True  # only punctuation typed: nothing matches (a longer query may)
        filters = [(f.negated, self._filter(s, f, ledger)) for f in q.filters]
        must = [f for negated, f in filters if not negated] + [_contains(p) for p in q.phrases]
        nots = [f for negated, f in filters if negated] + [_contains(e) for e in q.excluded]

        def scoped(qq: Any) -> Any:
            base = _and([qq, *must]) if must else qq
            return _without(base, *nots) if nots else base

        if not terms:
            everything = scoped(_and(must) if must else _without(Q.all_query(), Q_MANIFEST))
            found, total, groups = self._ranked(s, everything, [], limit, count)
            return self._hits(s, q, found, groups, spans, limit), total, True
        exact = _and([t.whole(ex) for t in terms])
        if len(terms) > 1 and q.free == " ".join(t.text for t in terms if t.kind == "word"):
            exact = Q.phrase_query(S, "w", [(i, t.text) for i, t in enumerate(terms)])
        start = _and([t.start(ex) for t in terms])
        classes = [(exact, PHRASE_W), (start, PREFIX_W), (_and([t.in_title() for t in terms]), 1)]
        if not count and any(t.midword for t in terms):
            found, total, _counts = self._ranked(s, scoped(start), classes, limit, count)
            if len(found) >= limit:  # the list is full: inside words can wait for the pause
                return self._hits(s, q, found, None, spans, limit, terms), total, False
        strict = _and([_or([t.start(ex), *filter(None, [t.inside(ex)])]) for t in terms])
        classes.append((strict, SUBSTRING_W))
        last = scoped(strict)
        found, total, groups = self._ranked(s, last, classes, limit, count)
        if total < limit and any(t.typo_tolerant for t in terms):
            typo = [_or([t.start(ex), *filter(None, [t.inside(ex), t.close()])]) for t in terms]
            last = scoped(_and(typo))
            found, total, groups = self._ranked(s, last, classes, limit, count)
        return self._hits(s, q, found, groups, spans, limit, terms), total, True

    @staticmethod
    def _ranked(
        s: Any, matching: Any, classes: list[tuple[Any, float]], limit: int, exact: bool = True
    ) -> tuple[list[tuple[int, int, Any, int]], int, Any]:
        """(tier, title bonus, address, group) of the best ``limit`` groups of ``matching``,
        the records matching, and what counts each group (:meth:`_hits`): its count when all
        were collected, else ``matching`` (while typing, ``None``: its size). Each class is
        a constant score (bits: a score says its tier and title bonus); one score in rank
        order (while typing, not ``exact``: of those tantivy collected first)."""
        if matching is NOTHING:  # a word typed that no term of the index holds: not searched
            return [], 0, None
        # a query given twice (a CJK string is its own prefix) is asked once, weights added
        weights: dict[int, list[Any]] = {id(matching): [matching, 0.0]}
        for c, w in classes:
            weights.setdefault(id(c), [c, 0.0])[1] += w
        first = weights.pop(id(matching))
        q = Q.boolean_query(
            [(MUST, Q.const_score_query(*first))]
            + [(SHOULD, Q.const_score_query(c, w)) for c, w in weights.values()]
        )

        def scored(score: float) -> Any:
            """The records of one score (the classes' weights are distinct bits)."""
            rest = int(score - first[1])
            return Q.boolean_query(
                [(MUST, first[0])]
                + [(MUST if rest & int(w) == int(w) else NOT, c) for c, w in weights.values()]
            )

        more = limit + limit // 2 + 2  # a few more: near-identical wordings may join (_hits)

        def best(
            hits: list[tuple[float, Any]], placed: bool = True
        ) -> list[tuple[int, int, Any, int]]:
            """The first ``more`` groups of ``hits``, by score, rank, then place (unless not
            ``placed``: as tantivy listed them, reading no record)."""
            out: list[tuple[int, int, Any, int]] = []
            seen: set[int] = set()
            for score, part in groupby(hits, key=itemgetter(0)):
                addrs = [a for _s, a in part]
                ranks, gists = (s.fast_field_values(f, addrs) for f in ("rank", "gist"))
                tier = FUZZY - bisect_right(TIER_FLOORS, score) if classes else PREFIX
                by_rank = sorted(range(len(addrs)), key=ranks.__getitem__, reverse=True)
                for _r, run in groupby(by_rank, key=ranks.__getitem__):
                    tied = list(run)
                    if len(tied) > 1 and placed:
                        tied.sort(key=lambda k: PLACE(s.record(addrs[k])))
                    for k in tied:
                        g = gists[k]
                        if g and g in seen:
                            continue
                        seen.add(g)
                        out.append((tier, int(score) % 2, addrs[k], g or 0))
                        if len(out) >= more:
                            return out
            return out

        page = max(limit * 64, 2000)  # the cost is in the matching records, not in how many
        # counted, up to COLLECT records at once: when that is all of them, neither the last
        # score's order by rank nor the groups' counts need another search (each walks terms)
        want = max(page, COLLECT) if exact else page
        while True:
            # four times as many at each try: each search scores every match again
            got = s.search(q, want, count=True)
            hits = got.hits
            if len(hits) < want or not exact:
                # typed, of many more: no order by place (the pause's count puts them in
                # order; here it would read hundreds of tied records for one letter)
                out = best(hits, placed=len(hits) < want)
                if len(hits) < want and exact:  # every match: no search again to count groups
                    gists = s.fast_field_values("gist", [a for _s, a in hits])
                    return out, got.count, Counter(g for g in gists if g)
                if len(out) >= more or len(hits) < want:
                    return out, got.count, matching if exact else None
                want *= 4
                continue
            # tantivy breaks a tie of scores by segment, not by rank: the last score's
            # records (maybe cut short) are asked for again, best rank first
            cut = hits[-1][0]
            hits = [h for h in hits if h[0] > cut]
            n = want
            while True:
                ranked = s.search(scored(cut), n, count=False, order_by_field="rank").hits
                done = len(ranked) < n
                if not done:  # the last rank's records may go on past ``n``: not yet
                    ranked = [h for h in ranked if h[0] != ranked[-1][0]]
                out = best(hits + [(cut, a) for _r, a in ranked])
                if len(out) >= more:
                    return out, got.count, matching
                if done:  # that score is done: lower ones are needed
                    break
                n *= 4
            want = 4 * (len(hits) + n)

    def _hits(
        self,
        s: Any,
        q: Query,
        found: list[tuple[int, int, Any, int]],
        matching: Any | Counter[int] | None,
        spans: bool,
        limit: int,
        terms: list[Term] | None = None,
    ) -> list[Hit]:
        """The best ``limit`` hits of ``found``, near-identical wordings one hit, each group's
        count its records ``matching`` (a Counter: counted; ``None``: its size, typing)."""
        counts: Counter[int] = Counter()
        gists = sorted({g for _t, _b, _a, g in found if g})
        if isinstance(matching, Counter):
            counts = matching
        elif gists and matching is None:
            ranks = s.fast_field_values("rank", [a for _t, _b, a, g in found])
            counts = Counter({g: r >> 48 for (_t, _b, _a, g), r in zip(found, ranks, strict=True)})
        elif gists:
            got = s.search(_and([matching, Q.term_set_query(S, "gist", gists)]), ALL, count=False)
            counts = Counter(s.fast_field_values("gist", [a for _r, a in got.hits]))
        rows = [
            (s.record(addr), tier, bonus, g, max(1, counts[g])) for tier, bonus, addr, g in found
        ]
        out = []
        for rec, tier, bonus, ref, n in near_repeats(rows)[:limit]:
            score = round(TIER_SCORE[tier] + 0.1 * bonus, 3) if q.terms else 0.0
            marks = _marks(q, rec, tier, terms or []) if spans and q.terms else NO_MARKS
            head = (rec.kind, rec.id, rec.path, rec.line, score, rec.title, n, tier, rec)
            out.append(Hit(*head, *marks, ref))
        return out

    def _filter(self, s: Any, f: Filter, ledger: Ledgerish) -> Any:
        if f.ids is not None:  # records named by the caller (evidence:)
            return Q.term_set_query(S, "id", sorted(f.ids)) if f.ids else Q.empty_query()
        if f.name == "kind":
            return Q.term_set_query(S, "kind", list(f.values))
        if f.name in ("after", "before"):
            day, after = parse_day(f.values[0]) or 0, f.name == "after"
            lo, hi = (day, 99_999_999) if after else (1, day)  # (before: that day left out)
            return Q.range_query(S, "day", tantivy.FieldType.Unsigned, lo, hi, True, after)
        if f.name == "status":
            return self._status(f.values, ledger() if callable(ledger) else ledger)
        if f.name == "project":
            own = _or([_re("project", ".*" + escape(v) + ".*") for v in f.values])
            return self._joined(s, own)
        own = _or([_re("facet", escape(f"{f.name}={v}") + ".*") for v in f.values])
        return self._joined(s, own) if f.name == "outcome" else own

    @staticmethod
    def _joined(s: Any, own: Any) -> Any:
        """``own`` or its sessions' records (a KPT report names no project, its summary does)."""
        got = s.search(own, ALL, count=False)
        sids = {v for v in s.fast_field_values("sidh", [a for _r, a in got.hits]) if v}
        return _or([own, Q.term_set_query(S, "sidh", sorted(sids))]) if sids else own

    @staticmethod
    def _status(values: Sequence[str], ledger: LedgerLike | None) -> Any:
        wanted = set(values)
        states = ledger.states if ledger is not None else {}
        parts = [Q.term_set_query(S, "facet", [f"status={v}" for v in values])]  # proposals
        named = [
            key
            for key, st in states.items()
            if (st.state in wanted and st.state != "pending")
            or ("promoted" in wanted and st.promoted)
        ]
        if named:
            parts.append(Q.term_set_query(S, "id", named))
        if "pending" in wanted:
            decided = [key for key, st in states.items() if st.state != "pending"]
            items = Q.term_set_query(S, "kind", list(SECTIONS))
            parts.append(_without(items, Q.term_set_query(S, "id", decided)) if decided else items)
        return _or(parts)

    def group_records(self, hit: Hit, limit: int = 50) -> list[SearchRecord]:
        """The records a hit stands for (its group), best first."""
        refs = sorted(set(hit.ref)) if isinstance(hit.ref, tuple) else [hit.ref]
        if not any(refs):
            return [hit.record]
        q = Q.term_set_query(S, "gist", [r for r in refs if r])
        out = self.index.records_where(q, limit, order_by_field="rank")
        return out if 0 not in refs else [hit.record, *(r for r in out if r != hit.record)]


class Reading:
    """A searcher reading each record once (ties are ordered by them, then the hits drawn;
    the next key's search of the same commit finds most again)."""

    KEEP = 2048  # records; then forgotten at once (a key reads about a hundred)

    def __init__(self, searcher: Any) -> None:
        self.searcher = searcher
        self.records: dict[tuple[int, int], SearchRecord] = {}

    def __getattr__(self, name: str) -> Any:
        return getattr(self.searcher, name)

    def record(self, addr: Any) -> SearchRecord:
        key = (addr.segment_ord, addr.doc)
        rec = self.records.get(key)
        if rec is None:
            if len(self.records) >= self.KEEP:
                self.records = {}
            rec = self.records[key] = unpack_record(bytes(self.searcher.doc(addr)["rec"][0]))
        return rec


#: Wordings this alike (rapidfuzz's ratio of their gists) are one learning recorded again.
NEAR = 92.0


#: a hit's gist as compared, kept: the next key's hits are mostly the same records
_gist_key = lru_cache(maxsize=4096)(gist_key)

Row = tuple[SearchRecord, int, int, Any, int]
"""A hit before it is drawn: record, tier, title bonus, group(s), count."""


def near_repeats(rows: list[Row]) -> list[Row]:
    """Rows of one kind with near-identical gists as the first of them, counting all (the
    index groups only equal gists; this costs a page's comparisons)."""
    from rapidfuzz import fuzz, process

    kept: list[Row] = []
    keys: list[str] = []
    for row in rows:
        rec = row[0]
        key = _gist_key(rec.gist) if rec.gist else ""
        got = process.extractOne(key, keys, scorer=fuzz.ratio, score_cutoff=NEAR) if key else None
        if got is not None and kept[got[2]][0].kind == rec.kind:
            first, tier, bonus, ref, n = kept[got[2]]
            refs = ref if isinstance(ref, tuple) else (ref,)
            kept[got[2]] = (first, tier, bonus, (*refs, row[3] or 0), n + row[4])
            continue
        kept.append(row)
        keys.append(key or "\x00")
    return kept


def close_words(text: str, terms: Sequence[Term]) -> list[str]:
    """The words of ``text`` (normalised) a typo away from a term, or beginning so."""
    from rapidfuzz import process
    from rapidfuzz.distance import OSA

    words = list(set(word_run().findall(text)))
    out: set[str] = set()
    for t in (t for t in terms if t.typo_tolerant):
        k, n = fuzzy_distance(t.text), len(t.text)
        for cut, cutoff in ((n + 1, k), (n, min(k, 1))):
            heads = [w[:cut] for w in words]
            near = process.extract(
                t.text, heads, scorer=OSA.distance, score_cutoff=cutoff, limit=None
            )
            out.update(words[i] for _h, _d, i in near if not words[i].startswith(t.text))
    return sorted(out)


Spans = tuple[tuple[int, int], ...]
Marks = tuple[Spans, str, Spans]
NO_MARKS: Marks = ((), "", ())


def _marks(q: Query, rec: SearchRecord, tier: int, terms: Sequence[Term]) -> Marks:
    """Title spans of the words, else a snippet of the first value holding them, its spans."""
    words = list(dict.fromkeys(q.terms))
    fz = close_words(normalize(rec.search_text()[:MAX_TEXT]), terms) if tier == FUZZY else []
    tspans = highlight_spans(rec.title, words) or fuzzy_spans(rec.title, fz)
    if tspans:
        return tuple(tspans), "", ()
    for value in rec.values():
        value = value[:MAX_TEXT]  # highlighting reads no further
        norm = normalize(value)
        if any(t in norm for t in words) or any(w in norm for w in fz):
            found = highlight_spans(value, words) or fuzzy_spans(value, fz)
            if found:
                snip, sspans = snippet(value, found)
                return (), snip, tuple(sspans)
    return NO_MARKS
