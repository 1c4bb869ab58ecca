"""The query language (docs/search.md, "Query syntax"): words that must all match,
``"phrases"``, ``name:a,b`` filters, a leading ``-`` negating any; ``evidence:`` states come
from the caller (:func:`with_evidence`). An unknown filter or kind, or a bad date, is a
:class:`QueryError`; ``12:30`` and URLs are plain words."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import NamedTuple

from store.models.kpt_terms import SECTIONS
from store.read.isotime import day_number as parse_day
from store.search.text import lazy_pattern, normalize, split_terms

#: Every kind of record the search index holds, in the order lists show them.
KINDS: tuple[str, ...] = (
    "lesson",
    "try",
    "problem",
    "keep",
    "omission",
    "report",
    "summary",
    "skill",
    "pattern",
    "anti_pattern",
    "memory",
    "proposal",
    "feedback",
    "discussion",
    "piece",
    "movement",
)
KIND_ALIASES: dict[str, tuple[str, ...]] = {
    "kpt": ("report", *SECTIONS),
    "item": SECTIONS,
    "items": SECTIONS,
    "prob": ("problem",),
    "omit": ("omission",),
    "antipattern": ("anti_pattern",),
    "anti-pattern": ("anti_pattern",),
    "knowledge": ("skill", "pattern", "anti_pattern", "memory"),
    "kb": ("skill", "pattern", "anti_pattern", "memory"),
    "inbox": ("proposal",),
    "step": ("movement",),
    "workflow": ("piece",),
    "fb": ("feedback",),
}
STATUSES = ("pending", "approved", "rejected", "contested", "promoted")
#: The ``evidence:`` values, ``missing`` first (the one a reviewer asks for).
EVIDENCE = ("missing", "found", "partial", "none", "unchecked")
EVIDENCE_ALIASES: dict[str, tuple[str, ...]] = {
    "not_found": ("missing",),
    "notfound": ("missing",),
    "no_transcript": ("none",),
    "notranscript": ("none",),
}
FILTERS = (
    "kind",
    "project",
    "outcome",
    "scope",
    "category",
    "status",
    "tag",
    "impact",
    "after",
    "before",
    "evidence",
)
#: filter → its values, their aliases, what a value is and its list's name (for errors)
EXPAND: dict[str, tuple[tuple[str, ...], Mapping[str, tuple[str, ...]], str, str]] = {
    "kind": (KINDS, KIND_ALIASES, "kind", "kinds"),
    "status": (STATUSES, {}, "status", "statuses"),
    "evidence": (EVIDENCE, EVIDENCE_ALIASES, "evidence state", "evidence"),
}
_FILTER_TOKEN = re.compile(r"([A-Za-z][A-Za-z_-]*):(.*)", re.S)


class QueryError(ValueError):
    """A query that cannot mean what was typed."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class Filter(NamedTuple):
    name: str
    values: tuple[str, ...]
    negated: bool = False
    ids: frozenset[str] | None = None
    """The records it stands for, when the index cannot tell (``evidence:``)."""


class Query(NamedTuple):
    text: str
    terms: tuple[str, ...] = ()  # normalised words that must all match (phrases' too)
    phrases: tuple[str, ...] = ()  # quoted, to appear as written
    excluded: tuple[str, ...] = ()  # words or phrases that must not appear
    filters: tuple[Filter, ...] = ()
    free: str = ""  # the positive free text: the best match is this phrase


#: A token: ``-`` (negating), then a quote to its closing mark (or the end), or a run of
#: other characters, a ``"`` in it quoting to the next (``name:"two words"``).
_token = lazy_pattern(
    r'(?P<neg>-(?=\S))?(?:"(?P<q1>[^"]*)"?|“(?P<q2>[^”]*)”?|「(?P<q3>[^」]*)」?'
    r'|(?P<word>(?:[^\s"]|"[^"]*"?)+))'
)


def _expand(
    value: str, choices: tuple[str, ...], aliases: Mapping[str, tuple[str, ...]]
) -> tuple[str, ...]:
    """The values of ``choices`` that ``value`` names: itself, an alias, a plural or a start."""
    v = normalize(value).replace(" ", "_")
    if v in choices:
        return (v,)
    if v in aliases:
        return aliases[v]
    if v.endswith("s") and v[:-1] in choices:
        return (v[:-1],)
    v = v.replace("-", "_")
    return aliases.get(v) or tuple(c for c in choices if c.startswith(v))


def _filter(name: str, raw: str, neg: bool) -> Filter | None:
    raw = raw[1:].removesuffix('"') if raw.startswith('"') else raw  # name:"a, b" or name:"a
    values = [v.strip() for v in raw.split(",") if v.strip()]
    if not values:
        return None  # still being typed: "kind:"
    if name in EXPAND:
        choices, aliases, what, label = EXPAND[name]
        got: list[str] = []
        for v in values:
            found = _expand(v, choices, aliases)
            if not found:
                listed = ", ".join(choices) + (", kpt, item" if name == "kind" else "")
                raise QueryError(f"unknown {what} '{v}'; {label}: {listed}")
            got += [x for x in found if x not in got]
        return Filter(name, tuple(got), neg)
    if name in ("after", "before"):
        if len(values) != 1 or parse_day(values[0]) is None:
            raise QueryError(f"{name}: expects a date, YYYY-MM-DD or YYYY-MM, not '{raw}'")
        return Filter(name, (values[0],), neg)
    return Filter(name, tuple(normalize(v) for v in values), neg)


def parse_query(text: str) -> Query:
    """Parse what was typed into the search box (or given to ``hurikaeri search``)."""
    terms: list[str] = []
    phrases: list[str] = []
    excluded: list[str] = []
    filters: list[Filter] = []
    free: list[str] = []
    for t in _token().finditer(text):
        neg = t["neg"] is not None
        quote = next((q for q in t.group("q1", "q2", "q3") if q is not None), None)
        tok = t["word"] if quote is None else quote
        if quote is not None:
            phrase = " ".join(normalize(tok).split())
            if not phrase:
                continue
            if neg:
                excluded.append(phrase)
            else:
                phrases.append(phrase)
                terms.extend(split_terms(phrase))
                free.append(phrase)
            continue
        m = _FILTER_TOKEN.fullmatch(tok)
        if m and not m.group(2).startswith("/"):
            name = m.group(1).lower()
            name = "status" if name == "state" else name  # state:contested
            if name in FILTERS:
                f = _filter(name, m.group(2), neg)
                if f is not None:
                    filters.append(f)
                continue
            raise QueryError(
                f"unknown filter '{m.group(1)}:'; filters: {', '.join(f + ':' for f in FILTERS)}"
                " (quote the word to search for it)"
            )
        words = split_terms(tok)
        if neg:
            excluded.extend(words)
        elif words:
            terms.extend(words)
            free.append(normalize(tok))
    return Query(
        text,
        tuple(terms),
        tuple(phrases),
        tuple(excluded),
        tuple(filters),
        " ".join(" ".join(free).split()),
    )


def evidence_query(text: str) -> Query | None:
    """The parsed query when it has an ``evidence:`` filter (evidence to check first); else
    ``None``, a broken one included (the search says what is wrong)."""
    try:
        query = parse_query(text)
    except QueryError:
        return None
    return query if any(f.name == "evidence" and f.ids is None for f in query.filters) else None


def with_evidence(query: Query, states: Mapping[str, str]) -> Query:
    """``query`` with each ``evidence:`` filter given its records' ids: ``states`` maps an id
    (``kpt-…/try-001``) to one of :data:`EVIDENCE` (a record not in it matches none)."""
    filters = tuple(
        f._replace(ids=frozenset(k for k, v in states.items() if v in f.values))
        if f.name == "evidence"
        else f
        for f in query.filters
    )
    return query._replace(filters=filters)
