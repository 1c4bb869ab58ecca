"""Matching a query against a segment: which records match, and in which tier.

Tiers, best first: 0 the exact phrase (or the whole word, for one word; a CJK term wherever
it occurs), 1 every word found where a word starts, 2 some word found only inside a word
(``limit`` in ``ratelimiter``; words of three characters or more), 3 fuzzy (a typo away:
edit distance 1 — a swap of neighbours is one edit —, or 2 for words of eight characters or
more; matched against the vocabulary, then its postings), computed only when
the strict tiers hold fewer hits than asked for.

Two ways to the same answer: the *index path* combines postings (sets and sorted arrays,
all C-level work) and the *verification path* runs :class:`TextMatcher` over candidate
texts; the second is exact and is used whenever the candidates are few — for narrowing
(the new query extends the last one: only its matches are re-checked), for the unindexed
delta of changed files, and for CJK and punctuated terms.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from itertools import compress, repeat
from operator import contains, getitem
from typing import Any, TypeVar, cast

from store.search.query import Query
from store.search.segment import IntSeq, Segment
from store.search.text import has_whole_word, has_word_start, is_cjk, is_compound, word_parts

PHRASE, PREFIX, SUBSTRING, FUZZY = 0, 1, 2, 3
#: Candidate sets up to this size are checked text by text (exact tiers and counts).
VERIFY_MAX = 12_000
#: Words shorter than this match only where a word starts.
MIDWORD_MIN = 3
FUZZY_MIN = 4
#: A string inside more distinct words than this is too common to look for inside words.
MIDWORD_WORDS = 1_000
#: Postings of the words holding a string inside them past which it is too common to matter.
MIDWORD_BUDGET = 200_000
#: Sets of records kept between keys (see :func:`_midword`, :func:`_close_ids`): the last
#: three of each kind, none larger than this.
KEPT = 3
KEPT_SIZE = 30_000
K = TypeVar("K", set[int], set[int] | None)
Previous = Callable[[], tuple[Query, set[int], set[int] | None]]
"""The last query and its matches (all, at a word start or None), made when called: a
query that narrows from them calls it, a single word looked up afresh does not."""
#: The exact phrase is looked for among this many best-ranked prefix matches.
PHRASE_WINDOW = 3_000
#: A tier of at most this many ids is checked at once, even while typing (see Tiers.held).
CHECK_AT_ONCE = 2_048


def fuzzy_distance(term: str) -> int:
    return 2 if len(term) >= 8 else 1


@dataclass
class Term:
    text: str
    kind: str
    """``word``, ``compound``, ``cjk`` or ``parts`` (punctuated: checked on the text)."""
    cost: int = 0


class TextMatcher:
    """The tier of one normalised text for a query, or ``None`` when it does not match.

    Every check starts with a plain substring test (C speed); the word-boundary check
    looks only at the characters around the occurrences found.
    """

    def __init__(self, q: Query, fuzzy: dict[str, list[str]] | None = None) -> None:
        # each distinct word once: a pasted paragraph repeats its words
        self.terms = [t for t in dict.fromkeys(q.terms) if word_parts(t)]
        self.midword = [len(t) >= MIDWORD_MIN or is_cjk(t) for t in self.terms]
        self.free = q.free if q.free and word_parts(q.free) else ""
        self.required = q.phrases
        self.excluded = q.excluded
        self.fuzzy = [(fuzzy or {}).get(t, []) for t in self.terms]
        self.fuzzy_words = [w for ws in self.fuzzy for w in ws]

    def tier(self, text: str, allow_fuzzy: bool = False) -> int | None:
        for p in self.required:
            if p not in text:
                return None
        for e in self.excluded:
            if e in text:
                return None
        best = PREFIX
        for i, t in enumerate(self.terms):
            if t in text:
                if has_word_start(text, t):
                    continue
                if self.midword[i]:
                    best = SUBSTRING
                    continue
            if allow_fuzzy and any(w in text and has_whole_word(text, w) for w in self.fuzzy[i]):
                best = FUZZY
                continue
            return None
        if best == PREFIX and self.free and self.free in text and has_whole_word(text, self.free):
            return PHRASE
        return best


@dataclass
class Allowed:
    """The records a query's filters let through (``None`` include: all of them)."""

    include: set[int] | None
    exclude: set[int]
    mask: bytes | None = None

    def keep(self, ids: Iterable[int]) -> set[int]:
        got = self.include.intersection(ids) if self.include is not None else set(ids)
        return got - self.exclude if self.exclude else got

    def ok(self, rid: int) -> bool:
        if rid in self.exclude:
            return False
        return self.include is None or rid in self.include

    def count_in(self, ids: IntSeq) -> int:
        if self.mask is None:
            return len(ids)
        m = self.mask
        return sum(map(m.__getitem__, ids))

    @classmethod
    def of(cls, include: set[int] | None, exclude: set[int], size: int) -> Allowed:
        mask = None
        if include is not None or exclude:
            buf = bytearray(size) if include is not None else bytearray(b"\x01") * size
            if include is not None:
                for i in include:
                    buf[i] = 1
            for i in exclude:
                buf[i] = 0
            mask = bytes(buf)
        return cls(include, exclude, mask)


@dataclass
class Tiers:
    """Matching record ids of one segment, tier by tier (each a set or a sorted array)."""

    lists: list[Any] = field(default_factory=lambda: [set(), set(), set(), set()])
    counts: list[int] = field(default_factory=lambda: [0, 0, 0, 0])
    exact: bool = True
    """False when the count is an estimate: a huge tier was not looked into word by word,
    or a word just begun was checked only on the records shown."""
    minus: list[Any] = field(default_factory=lambda: [None, None, None, None])
    """Ids to skip while walking a tier (e.g. the exact words inside the prefix tier)."""
    checked: bool = True
    """False when walked ids still need the text check (unverified superset)."""
    fuzzy_checked: bool = True
    """False when the fuzzy tier's ids still need it (a word just begun was left out)."""
    held: str = ""
    """A string each id of the exact tier may lack, the one tier then (a set: a CJK term's
    records found by its character pairs): the ids the ranking walks are checked to hold
    it (and, when the count was left for later, those of the groups shown); the count is an
    estimate."""
    counted_later: bool = False
    """True when the count was left for later (``count=False``): the count an estimate;
    see :attr:`store.search.engine.SearchResult.counted` for the hits."""
    unfiltered: Allowed | None = None
    """Filters still to apply while walking (a huge precomputed prefix array)."""
    fuzzy_words: dict[str, list[str]] = field(default_factory=dict)
    state: tuple[set[int], set[int]] | Callable[[], tuple[set[int], set[int]]] | None = None
    """(all words anywhere, all words at a word start): what the next, longer query
    narrows from."""
    state_terms: tuple[str, ...] | None = None
    """The words ``state`` holds, when not all of the query's (a word just begun is not)."""
    later: Callable[[], object] | None = None
    """Work left out while typing that the ranking walk may still need: called when the
    list was not filled (the records holding a single word only inside words)."""
    state_whole: bool = False
    """``state`` holds every match of the query though the count is an estimate."""
    narrows: bool = True
    """False when a longer query may not narrow from these matches: no word of the query
    was looked up (punctuation alone matches nothing, but ``#1`` or ``(r`` may), or a word
    was too common to look for inside words (the records holding it there are left out)."""

    @property
    def total(self) -> int:
        return sum(self.counts)

    def all_ids(self) -> set[int]:
        """Every matching id (only called when the tiers are small)."""
        out: set[int] = set()
        for ids in self.lists:
            out.update(ids)
        return out


def analyse(seg: Segment, q: Query) -> list[Term]:
    out = []
    for t in q.terms:
        parts = word_parts(t)
        if not parts:
            continue
        core = t.strip("-._:")
        if is_cjk(t):
            term = Term(t, "cjk", min(map(seg.token_size, cjk_grams(t))))
        elif parts == [t]:
            term = Term(t, "word", seg.prefix_cost(t))
        elif parts == [core] and t.startswith(core):
            # a word being continued ("kpt-", "jwks."): the compound tokens it begins
            term = Term(t, "compound", seg.prefix_cost(t))
        elif is_compound(t):
            term = Term(t.strip("-._:"), "compound", seg.prefix_cost(t.strip("-._:")))
        else:
            term = Term(t, "parts", min(seg.prefix_cost(p) for p in parts))
        out.append(term)
    return out


def superset(seg: Segment, term: Term, midword: bool = True) -> Any:
    """Ids of the records that may hold ``term`` (exact for words and compounds)."""
    if term.kind == "cjk":
        # the records holding each of its character pairs, rarest first; a pair in most
        # records costs more to intersect than the texts cost to read afterwards. Postings
        # are sliced only when used: a long term has as many pairs as characters.
        grams = sorted(cjk_grams(term.text), key=seg.token_size)
        out = set(seg.token_ids(grams[0]))
        for g in grams[1:]:
            if len(out) < 64 or seg.token_size(g) > len(out) * 2:
                break
            out.intersection_update(seg.token_ids(g))
        return out
    if term.kind == "parts":
        parts = word_parts(term.text)
        best = min(parts, key=seg.prefix_cost)
        return seg.prefix_ids(best)
    ids = seg.prefix_ids(term.text)
    if midword:
        # inside words too, with the budget of the tiers: a string inside too many words
        # (``None``) is not gathered here either
        more = _midword(seg, term.text)
        if more:
            return more.union(ids)
    return ids


def _within(seg: Segment, cands: set[int], term: Term) -> set[int]:
    """``cands`` ∩ ``superset(seg, term)``, without making the superset of a word: its
    prefix postings and the words holding it inside are each intersected with ``cands``."""
    if term.kind not in ("word", "compound"):
        return _intersect(cands, superset(seg, term))
    got = _intersect(cands, seg.prefix_ids(term.text))
    inside = _midword(seg, term.text)
    if inside:
        got |= cands.intersection(inside)
    return got


def evaluate(
    seg: Segment,
    q: Query,
    matcher: TextMatcher,
    allowed: Allowed | None,
    need: int,
    previous: Previous | None = None,
    count: bool = True,
) -> Tiers:
    """The tiers of ``seg`` for ``q``. ``previous`` gives the last query and its matches
    when the new query extends it: the new matches are among them, and only the words that
    changed need looking up (they are made only if asked for). With ``count`` False, work
    that only the count needs is left out (:attr:`Tiers.counted_later`): a CJK term's
    records are checked as the ranking walks them, and so is a word just begun that most
    records hold."""
    terms = analyse(seg, q)
    if not terms:
        if q.terms:  # only punctuation typed: nothing can match (a longer query may)
            return Tiers(narrows=False)
        return _no_text(seg, allowed)
    plain = not q.phrases and not q.excluded
    if len(terms) == 1 and terms[0].kind in ("word", "compound") and plain:
        tiers = _one_word(seg, terms[0].text, allowed, need, count)
    elif len(terms) == 1 and terms[0].kind == "cjk" and plain:
        tiers = _one_cjk(seg, terms[0].text, allowed, count)
    elif plain and all(t.kind in ("word", "compound") for t in terms):
        tiers = _words(seg, q, terms, matcher, allowed, previous, need, defer=not count)
    else:
        tiers = _general(seg, q, terms, matcher, allowed, previous)
    if tiers.total < need:
        _add_fuzzy(seg, q, terms, tiers, allowed, defer=not count)
    return tiers


def _no_text(seg: Segment, allowed: Allowed | None) -> Tiers:
    t = Tiers()
    if allowed is None or allowed.mask is None:
        t.lists[PREFIX] = range(len(seg))
        t.counts[PREFIX] = len(seg)
    elif allowed.include is not None:
        ids = allowed.include - allowed.exclude
        t.lists[PREFIX] = ids
        t.counts[PREFIX] = len(ids)
    else:
        t.lists[PREFIX] = range(len(seg))
        t.minus[PREFIX] = allowed.exclude
        t.counts[PREFIX] = len(seg) - len(allowed.exclude)
    return t


def holding(ids: Iterable[int], texts: Any, needle: str) -> list[int]:
    """The ids whose text holds ``needle``: one pass at C speed (no Python per id). The
    cache's texts answer themselves (compressed, with the CJK runs beside them)."""
    ids = ids if isinstance(ids, list) else list(ids)
    find = getattr(texts, "holding", None)
    if find is not None:
        got: list[int] = find(ids, needle)
        return got
    return list(compress(ids, map(contains, map(texts.__getitem__, ids), repeat(needle))))


def holds(texts: Any, rid: int, needle: str) -> bool:
    """Whether the text of ``rid`` holds ``needle`` (:func:`holding` for one id)."""
    find = getattr(texts, "holds", None)
    if find is not None:
        return bool(find(rid, needle))
    return needle in texts[rid]


def holding_texts(ids: Iterable[int], texts: Any, needles: Sequence[str]) -> list[tuple[int, str]]:
    """(id, text) of the ids whose text holds every needle, each text read once."""
    ids = ids if isinstance(ids, list) else list(ids)
    read = getattr(texts, "holding_texts", None)
    if read is not None:
        got: list[tuple[int, str]] = read(ids, needles)
        return got
    values = list(map(texts.__getitem__, ids))
    for needle in needles:
        keep = list(map(contains, values, repeat(needle)))
        ids = list(compress(ids, keep))
        values = list(compress(values, keep))
    return list(zip(ids, values, strict=True))


def _one_cjk(seg: Segment, term: str, allowed: Allowed | None, count: bool = True) -> Tiers:
    """A single CJK term: every record holding it, as written, is an exact match."""
    t = Tiers()
    if len(term) <= 2:  # a character or a pair: indexed as such
        ids: Any = seg.token_ids(term)
        if allowed is not None and allowed.mask is not None:
            ids = allowed.keep(ids)
    else:
        cands = superset(seg, Term(term, "cjk"))
        if allowed is not None and allowed.mask is not None:
            cands = allowed.keep(cands)
        if len(cands) > VERIFY_MAX or (not count and len(cands) > CHECK_AT_ONCE):
            # records holding each pair of the term, almost always the term itself: the
            # ones the ranking walks are checked; the count is an estimate (while typing,
            # reading thousands of texts would be for the count alone)
            t.held = term
            t.exact = False
            t.counted_later = len(cands) <= VERIFY_MAX
            ids = cands
        else:
            ids = set(holding(sorted(cands), seg.texts, term))
    t.lists[PHRASE] = ids
    t.counts[PHRASE] = len(ids)
    return t


def _verify(
    seg: Segment, ids: Iterable[int], matcher: TextMatcher, allowed: Allowed | None
) -> Tiers:
    t = Tiers()
    lists: list[set[int]] = [set(), set(), set(), set()]
    texts = seg.texts
    if allowed is not None and allowed.mask is not None:
        ids = allowed.keep(ids)
    # what every match must hold, checked at C speed before the word-boundary checks
    needles = sorted({*matcher.terms, *matcher.required}, key=len, reverse=True)
    tier_of = matcher.tier
    for rid, text in holding_texts(ids, texts, needles):
        tier = tier_of(text)
        if tier is not None:
            lists[tier].add(rid)
    t.lists = list(lists)
    t.counts = [len(x) for x in lists]
    return t


def _midword(seg: Segment, word: str) -> set[int] | None:
    """Ids of records holding ``word`` inside a token (not at its start); None when the
    tokens holding it have more than ``MIDWORD_BUDGET`` postings (too common to matter).

    The answer is never changed by the caller: the last few are kept, as a word is looked
    for again at the next key (by the typo'd tier, or while the next word is typed)."""
    if len(word) < MIDWORD_MIN:
        return set()
    cache = seg._inside_cache
    if word in cache:
        return _kept(cache, word)
    return _gather_inside(seg, word, _words_inside(seg, word))


def _words_inside(seg: Segment, word: str) -> list[int] | None:
    """Vocabulary positions of the words holding ``word`` inside them; None when too common
    (see :func:`_midword`): the scan of the vocabulary, without gathering their records."""
    extra = seg.vocab_inside(word, MIDWORD_WORDS + 1)
    if len(extra) > MIDWORD_WORDS or (
        extra and sum(seg.postings_size(p, p + 1) for p in extra) > MIDWORD_BUDGET
    ):
        return None
    return extra


def _gather_inside(seg: Segment, word: str, extra: list[int] | None) -> set[int] | None:
    """The records of the words at ``extra`` (:func:`_words_inside`), kept for ``word``."""
    got = None if extra is None else seg.words_ids(extra) if extra else set()
    _keep(seg._inside_cache, word, got)
    return got


def _kept(cache: dict[str, K], key: str) -> K:
    """The answer kept for ``key``, now the last one to go."""
    got = cache[key] = cache.pop(key)
    return got


def _keep(cache: dict[str, K], key: str, ids: K) -> None:
    """Keep ``ids`` for ``key`` among the last few answers (sets not too large): the
    oldest one goes."""
    if ids is not None and len(ids) > KEPT_SIZE:
        return
    while len(cache) >= KEPT:
        del cache[next(iter(cache))]
    cache[key] = ids


def _one_word(
    seg: Segment, word: str, allowed: Allowed | None, need: int = 0, count: bool = True
) -> Tiers:
    """A single word: exact word, then word prefix, then inside a word.

    With ``count`` False and at least ``need`` records holding the word where a word
    starts, the records holding it only inside a word are not gathered (the postings of up
    to a thousand words: 5 ms for ``rat``): the list is filled before it reaches them. The
    count is then an estimate; the search gathers them after all if the list is not full
    (:attr:`Tiers.later`), and so does the next word's narrowing (``Tiers.state``)."""
    t = Tiers()
    exact = seg.token_ids(word)
    prefix = seg.prefix_ids(word)
    if allowed is not None and allowed.mask is not None:
        exact_s = allowed.keep(exact)
        if isinstance(prefix, set) or allowed.include is not None or len(prefix) <= VERIFY_MAX * 4:
            prefix_s: Any = allowed.keep(prefix)
            t.lists[PREFIX] = prefix_s - exact_s
            t.counts[PREFIX] = len(t.lists[PREFIX])
        else:
            t.lists[PREFIX] = prefix
            t.minus[PREFIX] = exact_s
            t.counts[PREFIX] = allowed.count_in(prefix) - len(exact_s)
            t.unfiltered = allowed
        t.lists[PHRASE] = exact_s
        t.counts[PHRASE] = len(exact_s)
        total_prefix = t.counts[PHRASE] + t.counts[PREFIX]
    else:
        t.lists[PHRASE] = exact
        t.counts[PHRASE] = len(exact)
        t.lists[PREFIX] = prefix
        t.minus[PREFIX] = exact
        t.counts[PREFIX] = len(prefix) - len(exact)
        total_prefix = len(prefix)
    if len(word) < MIDWORD_MIN:
        if t.unfiltered is None and t.total <= VERIFY_MAX * 4:
            _one_word_state(t, set)
        return t
    if total_prefix > VERIFY_MAX * 2:
        t.exact = False  # too common to look inside words: the count is a lower bound
        return t
    lists = t.lists

    def inside(mid: set[int] | None) -> set[int]:
        """The substring tier: ``mid`` less the prefix tiers, within the filters."""
        if not mid:
            return set()
        mid = mid.difference(prefix)  # a new set: the one found is kept as it is
        return allowed.keep(mid) if allowed is not None and allowed.mask is not None else mid

    if not count and total_prefix >= need > 0:
        kept = word in seg._inside_cache
        extra = None if kept else _words_inside(seg, word)
        found: object = seg._inside_cache[word] if kept else extra
        if found is None:
            t.exact = False  # too common to look inside words (as below)
            return t
        if found:
            t.exact = False
            t.counted_later = True

            def gathered() -> set[int]:
                if t.later is not None:  # once, when it succeeds (a cache block may not)
                    got = _midword(seg, word) if kept else _gather_inside(seg, word, extra)
                    lists[SUBSTRING] = inside(got)
                    t.counts[SUBSTRING] = len(lists[SUBSTRING])
                    t.later = None
                return cast("set[int]", lists[SUBSTRING])

            t.later = gathered
            if t.unfiltered is None:
                # made only when a next word asks for it, or between keys (prepare_next):
                # at most VERIFY_MAX * 2 records and the MIDWORD_BUDGET postings gathered
                _one_word_state(t, gathered)
                t.state_whole = True
            return t
    mid = _midword(seg, word)
    if mid is None:
        t.exact = False  # too common to look inside words: the count is a lower bound
        return t
    lists[SUBSTRING] = inside(mid)
    t.counts[SUBSTRING] = len(lists[SUBSTRING])
    if t.exact and t.unfiltered is None and t.total <= VERIFY_MAX * 4:
        _one_word_state(t, lambda: lists[SUBSTRING])
    return t


def _one_word_state(t: Tiers, substring: Callable[[], set[int]]) -> None:
    """What the next keystroke narrows from (made only if a next word needs it): every
    record with the word anywhere, and those with it at a word start."""
    lists = t.lists

    def state() -> tuple[set[int], set[int]]:
        prefix_set = set(lists[PHRASE]) | set(lists[PREFIX])
        return prefix_set | substring(), prefix_set

    t.state = state


def cjk_grams(term: str) -> set[str]:
    """The indexed pieces of a CJK term: its character pairs (itself, if one character)."""
    return {term[i : i + 2] for i in range(len(term) - 1)} or {term}


def _is_token(seg: Segment, word: str) -> bool:
    i = bisect.bisect_left(seg.vocab, word)
    return i < len(seg.vocab) and seg.vocab[i] == word


def _intersect(cands: set[int], ids: Any) -> set[int]:
    """``cands`` ∩ ``ids`` for a set or a sorted array, whichever way is cheaper."""
    if isinstance(ids, (set, frozenset)) or len(ids) < len(cands) * 16:
        return cands.intersection(ids)
    got = set()
    for r in cands:
        i = bisect.bisect_left(ids, r)
        if i < len(ids) and ids[i] == r:
            got.add(r)
    return got


def _words(
    seg: Segment,
    q: Query,
    terms: list[Term],
    matcher: TextMatcher,
    allowed: Allowed | None,
    previous: Previous | None,
    need: int = 50,
    defer: bool = False,
) -> Tiers:
    """Words only: tiers from postings alone. ``prefix`` holds every word at a word start,
    ``anywhere`` every word at least inside a word; only the exact-phrase check reads
    texts, and only for records that hold the phrase as a substring."""
    t = Tiers()
    prefix: set[int] | None = None
    anywhere: set[int] | None = None
    todo = sorted(terms, key=lambda x: x.cost)
    last = previous() if previous is not None else None
    narrowed_from: tuple[str, ...] = ()
    if last is not None and last[2] is not None:
        # never changed here (each step below makes a new set): the next key may narrow
        # from them again
        old_query, anywhere, prefix = last
        narrowed_from = old_query.terms
        old = set(narrowed_from)
        todo = [x for x in todo if x.text not in old]
    deferred: list[str] = []
    for term in todo:
        if defer and anywhere is not None and len(term.text) <= 2 and term.cost > 4 * len(anywhere):
            # a word just begun, in most records, while the query is typed: checked on the
            # records shown only (the count waits for a pause in the typing)
            deferred.append(term.text)
            continue
        ids = seg.prefix_ids(term.text)
        mid = _midword(seg, term.text)
        if mid is None:
            t.exact = False  # too common to look for inside words: those are left out
            t.narrows = False
            mid = set()
        if prefix is None or anywhere is None:
            prefix = set(ids)
            if allowed is not None and allowed.mask is not None:
                prefix = allowed.keep(prefix)
                mid = allowed.keep(mid) if mid else mid
            anywhere = prefix | mid if mid else set(prefix)
            continue
        got = _intersect(anywhere, ids)  # one pass over the postings: prefix ⊆ anywhere
        prefix = prefix.intersection(got)
        if mid:
            got |= anywhere.intersection(mid)
        anywhere = got
    prefix = prefix or set()
    anywhere = anywhere or set()
    texts = seg.texts
    free = matcher.free
    exact: set[int] = set()
    ends = word_parts(free)
    if free and ends and not all(_is_token(seg, w) for w in {ends[0], ends[-1]}):
        free = ""  # its first or last word is in no record as a whole word: no exact phrase
    if free:
        # The phrase is looked for among the best-ranked records of the prefix tier, a
        # block at a time, until enough are found to fill the list (at most PHRASE_WINDOW):
        # beyond them, an exact phrase keeps its place in rank order (counts are exact).
        ordered = sorted(prefix) if len(prefix) > 512 else list(prefix)
        for start in range(0, min(len(ordered), PHRASE_WINDOW), 512):
            block = holding_texts(ordered[start : start + 512], texts, (free,))
            exact.update(r for r, text in block if has_whole_word(text, free))
            if len(exact) >= need * 4:
                break
    t.lists = [exact, prefix - exact if exact else prefix, anywhere - prefix, set()]
    t.counts = [len(x) for x in t.lists]
    if t.narrows:  # what a longer query narrows from: every record that may match it
        t.state = (anywhere, prefix)
    if deferred:
        t.checked = t.exact = False  # the count is an estimate until the word grows
        t.counted_later = True
        t.state_terms = _held_terms(q.terms, deferred, narrowed_from)
    return t


def _held_terms(
    terms: tuple[str, ...], deferred: list[str], narrowed_from: tuple[str, ...]
) -> tuple[str, ...]:
    """The words the matches found hold, place by place, when ``deferred`` were not looked
    up: a word narrowed from holds in place of the word just begun that extends it (``s``
    for ``se``, its records already ``s``-words only), and a word just begun that extends
    nothing holds no word. The next query narrows from these words, so they must be the
    matches' own: a longer word than they hold would let it skip what it must look up."""
    held: list[str] = []
    for place, term in enumerate(terms):
        if term not in deferred:
            held.append(term)
        elif place < len(narrowed_from):
            held.append(narrowed_from[place])
    return tuple(held)


def _general(
    seg: Segment,
    q: Query,
    terms: list[Term],
    matcher: TextMatcher,
    allowed: Allowed | None,
    previous: Previous | None,
) -> Tiers:
    """Several words (or phrases, exclusions, CJK or punctuated terms): intersect the
    cheapest postings first; once the candidates are few, read their texts instead."""
    texts = seg.texts
    todo = sorted(terms, key=lambda x: x.cost)
    cands: set[int] | None = None
    if previous is not None:
        old_query, found, _ = previous()
        cands = set(found)
        old = set(old_query.terms)
        todo = [t for t in todo if t.text not in old]
    filtered = False
    complete = True
    for term in todo:
        if cands is not None and len(cands) <= VERIFY_MAX // 4:
            break  # few enough: the matcher below reads their texts
        if cands is not None and (term.kind in ("cjk", "parts") or len(cands) * 8 < term.cost):
            # where it would match: anywhere (CJK, three characters and more), or where a
            # word starts
            word = term.text
            if term.kind == "cjk" or len(word) >= MIDWORD_MIN:
                cands = set(holding(cands, texts, word))
            else:
                cands = {
                    r
                    for r, text in holding_texts(cands, texts, (word,))
                    if has_word_start(text, word)
                }
            continue
        ids: Any = superset(seg, term, midword=False)
        mid = _midword(seg, term.text) if term.kind in ("word", "compound") else set()
        if mid is None:  # too common to look for inside words: those are left out
            complete = False
        if cands is None:
            base = set(ids)
            if mid:
                base |= mid
            cands = allowed.keep(base) if allowed is not None and allowed.mask is not None else base
            filtered = True
        else:
            got = cands.intersection(ids)
            if mid:
                got |= cands.intersection(mid)
            cands = got
    if cands is None:
        cands = set()
    if not filtered and allowed is not None and allowed.mask is not None:
        cands = allowed.keep(cands)
    if len(cands) <= VERIFY_MAX:
        t = _verify(seg, cands, matcher, None)
        t.exact = t.narrows = complete
        return t
    # too many to read: keep them in rank order as one tier, checked as they are walked
    t = Tiers()
    t.lists[PREFIX] = cands
    t.counts[PREFIX] = len(cands)
    t.exact = False
    t.checked = False
    return t


def _add_fuzzy(
    seg: Segment,
    q: Query,
    terms: list[Term],
    tiers: Tiers,
    allowed: Allowed | None,
    defer: bool = False,
) -> None:
    """Typo-tolerant matches for the words of the query, as tier 3.

    The typo'd words are looked up in the vocabulary (:func:`fuzzy_words`), and the tier
    is set algebra over postings: for every term, the records holding it (as the strict
    tiers would) or one of its close words; their intersection, less what the strict tiers
    hold. Texts are read only when a term's postings are a superset (CJK, punctuated
    terms) or the query has phrases or exclusions, and then only the intersection's.
    """
    fuzzy: dict[str, list[str]] = {}
    for term in terms:
        if term.kind == "word" and len(term.text) >= FUZZY_MIN and not term.text.isdigit():
            words = fuzzy_words(seg, term.text)
            if words:
                fuzzy[term.text] = words
    if not fuzzy:
        return
    tiers.fuzzy_words = fuzzy
    # postings alone decide the tier (no phrase, no exclusion, no term read in texts)
    exact_sets = (
        all(t.kind in ("word", "compound") for t in terms) and not q.phrases and not q.excluded
    )
    # the typo'd terms first (their close words are usually rarer), then by cost
    order = sorted(terms, key=lambda t: (t.text not in fuzzy, t.cost))
    cands: set[int] | None = None
    for term in order:
        if (
            defer
            and cands is not None
            and exact_sets
            and term.text not in fuzzy
            and len(term.text) <= 2
            and term.cost > 4 * len(cands)
        ):
            # a word just begun, in most records, while the query is typed: checked on the
            # records shown only, as in the strict tiers (intersecting its postings costs
            # more than the search)
            tiers.fuzzy_checked = tiers.exact = False
            tiers.counted_later = True
            continue
        close = _close_ids(seg, term.text) if term.text in fuzzy else set()
        if cands is None:
            strict = superset(seg, term)
            cands = close.union(strict) if close else set(strict)
            if allowed is not None and allowed.mask is not None:
                cands = allowed.keep(cands)
        else:
            got = _within(seg, cands, term)
            if close:
                got |= cands.intersection(close)
            cands = got
        if not cands:
            return
    if not cands:
        return
    cands.difference_update(tiers.all_ids())
    if exact_sets:
        found = cands
    else:
        matcher = TextMatcher(q, fuzzy)
        texts = seg.texts
        found = set()
        ordered = sorted(cands)
        # a block of texts at a time, read once each (those without a phrase: not at all)
        for start in range(0, len(ordered), 512):
            for rid, text in holding_texts(ordered[start : start + 512], texts, matcher.required):
                if len(found) >= VERIFY_MAX:
                    break
                if matcher.tier(text, allow_fuzzy=True) == FUZZY:
                    found.add(rid)
            if len(found) >= VERIFY_MAX:
                tiers.exact = False
                break
    tiers.lists[FUZZY] = found
    tiers.counts[FUZZY] = len(found)


def _close_ids(seg: Segment, term: str) -> set[int]:
    """The records holding a word a typo away from ``term`` (never changed by the caller:
    the last few are kept, as the other words of the query are typed)."""
    cache = seg._close_cache
    if term in cache:
        return _kept(cache, term)
    got = seg.words_ids(_positions(seg, fuzzy_words(seg, term)))
    _keep(cache, term, got)
    return got


def _positions(seg: Segment, words: list[str]) -> list[int]:
    out = []
    for w in words:
        lo, hi = seg.prefix_range(w)
        if hi > lo and seg.vocab[lo] == w:
            out.append(lo)
    return out


def fuzzy_words(seg: Segment, term: str) -> list[str]:
    """Vocabulary words a typo away from ``term`` (whole words, or words it begins).

    A typo is an edit: a character inserted, dropped, replaced, or two neighbours swapped
    (``confgi``, optimal string alignment distance). Blocked by the first character: a slip
    in the very first letter is rare and would cost a pass over the whole vocabulary. The
    last answers are kept: the other words of a query are looked up again at every key.
    """
    cache = seg._fuzzy_cache
    got = cache.get(term)
    if got is None:
        got = _fuzzy_words(seg, term)
        if len(cache) >= 64:
            cache.clear()
        cache[term] = got
    return got


def _fuzzy_words(seg: Segment, term: str) -> list[str]:
    from rapidfuzz import process
    from rapidfuzz.distance import OSA

    k = fuzzy_distance(term)
    lo, hi = seg.prefix_range(term[0])
    if hi <= lo:
        return []
    block = seg.vocab[lo:hi]
    n = len(term)
    got: set[str] = set()
    # each word cut to the term's length (+1: a character dropped from the term), at C
    # speed; the words sharing a head are compared once
    for cut, cutoff in ((n + 1, k), (n, min(k, 1))):
        heads: dict[str, None] = dict.fromkeys(map(getitem, block, repeat(slice(0, cut))))
        choices: list[str] = list(heads)
        for head, dist, _i in process.extract(
            term, choices, scorer=OSA.distance, score_cutoff=cutoff, limit=None
        ):
            if dist > cutoff or head.startswith(term):
                continue
            a, b = seg.prefix_range(head)
            for w in seg.vocab[a:b]:
                if w[:cut] == head and not w.startswith(term):
                    got.add(w)
    return sorted(got)[:200]
