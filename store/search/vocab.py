"""The terms of the word and compound fields in one sorted UTF-8 block: while typing, a
prefix or in-word string stands for at most :data:`CAP` of them, the most frequent, not a
regex over tantivy's term dictionary (docs/scale.md)."""

from __future__ import annotations

import bisect
from array import array
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import tantivy

from store.search.index import NOTHING, SCHEMA_OBJ

#: The most terms one word of the query stands for while typing.
CAP = 256
#: Terms beyond this many are not sorted by frequency (see :meth:`Expansion._pick`).
SORT_MAX = 4096


class Terms:
    """One field's terms: sorted, ``\\n``-separated UTF-8, with each one's document count."""

    def __init__(self, chunks: Iterable[list[tuple[str, int]]]) -> None:
        """``chunks``: (term, count) in groups, each sorting before the next (a group at a
        time: 400,000 terms held twice would add 150 MB to the peak)."""
        self.starts = array("I")
        self.freq = array("I")
        parts: list[bytes] = []
        at = 1
        for pairs in chunks:
            rows = sorted((t.encode("utf-8", "surrogatepass"), n) for t, n in pairs if t)
            if not rows:
                continue
            for t, n in rows:
                self.starts.append(at)
                self.freq.append(min(n, 0xFFFFFFFF))
                at += len(t) + 1
            parts.append(b"\n".join(t for t, _n in rows))
            del rows, pairs
        self.blob = b"\n" + b"\n".join(parts) + b"\n"

    def term(self, i: int) -> bytes:
        at = self.starts[i]
        return self.blob[at : self.blob.index(b"\n", at)]

    def prefixed(self, prefix: bytes) -> range:
        """The indexes of the terms beginning with ``prefix``."""
        n = len(self.starts)
        lo = bisect.bisect_left(range(n), prefix, key=self.term)
        # 0xff is never a byte of UTF-8: every term going on from ``prefix`` sorts below it
        hi = bisect.bisect_left(range(lo, n), prefix + b"\xff", key=self.term)
        return range(lo, lo + hi)

    def inside(self, part: bytes, limit: int) -> tuple[list[int], bool]:
        """The first ``limit`` terms holding ``part`` after their first byte; whether more."""
        out: list[int] = []
        blob, find = self.blob, self.blob.find
        # the terms beginning with it are one block: a big one is passed over (its terms
        # holding it again further on are left for the pause)
        block = self.prefixed(part)
        skip = self.starts[block[0]] if len(block) > SORT_MAX else -1
        at = find(part, 1)
        while at >= 0:
            start = blob.rfind(b"\n", 0, at) + 1
            if start == at:  # at the term's start: it may hold it again further on
                at = find(part, blob.index(b"\n", self.starts[block[-1]]) if at == skip else at + 1)
                continue
            if len(out) >= limit:
                return out, True
            out.append(bisect.bisect_left(self.starts, start))
            at = find(part, blob.index(b"\n", at) + 1)
        return out, skip >= 0


@dataclass
class Expansion:
    """The terms words of one search stood for, and whether some stood for more."""

    vocab: Vocab
    capped: bool = False
    scale: float = 1.0
    """How many times a capped word's records outnumber those asked for (the most of any)."""
    queries: dict[tuple[str, str, str, bool], Any] = field(default_factory=dict)

    def query(self, fld: str, text: str, ends: str = "", inside: bool = False) -> Any:
        """A term-set query of the terms ``text`` begins or holds ``inside``, kept (a word
        is asked for in several tiers)."""
        key = (fld, text, ends, inside)
        got = self.queries.get(key)
        if got is None:
            terms = self.inside(fld, text) if inside else self.prefixed(fld, text, ends)
            got = self.queries[key] = (
                tantivy.Query.term_set_query(SCHEMA_OBJ, fld, terms) if terms else NOTHING
            )
        return got

    def _pick(self, fld: str, idx: list[int], more: bool = False) -> list[str]:
        """The terms of ``idx``; beyond :data:`CAP`, the most frequent (of a huge range,
        such as every lesson's id, the last: the newest)."""
        terms = self.vocab.fields[fld]
        freq = terms.freq
        if len(idx) > CAP or more:
            self.capped = True
            if len(idx) <= SORT_MAX:
                total = sum(freq[i] for i in idx)
                idx = sorted(idx, key=lambda i: (-freq[i], -i))[:CAP]
                asked = sum(freq[i] for i in idx)
            else:
                total, asked = len(idx), CAP
                idx = idx[-CAP:]
            self.scale = max(self.scale, total / max(1, asked), 1.0 + more)
        return [terms.term(i).decode("utf-8", "surrogatepass") for i in idx]

    def prefixed(self, fld: str, prefix: str, ends: str = "") -> list[str]:
        """Terms beginning with ``prefix`` (``ends``: itself or going on with one of them)."""
        terms, head = self.vocab.fields[fld], prefix.encode()
        heads = [prefix + e for e in ends] or [prefix]
        idx = [i for i in (terms.prefixed(head)[:1] if ends else []) if terms.term(i) == head]
        idx += [i for h in heads for i in terms.prefixed(h.encode())]
        got = self._pick(fld, idx)
        extra = [t for t in self.vocab.extra[fld] if t.startswith(tuple(heads))]
        return got + extra + ([prefix] if ends and prefix in self.vocab.extra[fld] else [])

    def inside(self, fld: str, part: str) -> list[str]:
        idx, more = self.vocab.fields[fld].inside(part.encode(), CAP)
        got = self._pick(fld, idx, more)
        return got + [t for t in self.vocab.extra[fld] if part in t[1:]]


@dataclass
class Vocab:
    fields: dict[str, Terms]
    built: int  # the index's build it was read from (``SearchIndex.builds``)
    extra: dict[str, list[str]] = field(default_factory=dict)
    seen: int = -1

    @classmethod
    def read(cls, searcher: Any, built: int) -> Vocab:
        """The terms, a first character at a time (each compound begins as a word does)."""
        words = searcher.terms_with_prefix("w", "")
        firsts = sorted(
            {t[0] for t, _n in words if t}, key=lambda c: c.encode("utf-8", "surrogatepass")
        )
        return cls(
            {"w": Terms([words]), "c": Terms(searcher.terms_with_prefix("c", c) for c in firsts)},
            built,
        )

    def refresh(self, new_terms: dict[str, set[str]]) -> None:
        """Take in the terms of the records added since it was read."""
        size = sum(map(len, new_terms.values()))
        if size != self.seen:
            self.extra = {f: sorted(terms) for f, terms in new_terms.items()}
            self.seen = size
