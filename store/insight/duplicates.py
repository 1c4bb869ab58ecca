"""Duplicates and near-duplicates (normalised, rapidfuzz ``ratio`` ≥ 88) across all targets
(docs/promotion.md). Each rule is indexed under its rarest tokens and only rules sharing one
are scored: texts 88 % alike share a rare token too, and 50,000² pairs would not finish."""

from __future__ import annotations

import re
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from rapidfuzz import fuzz

from store.insight.targets import Rule

#: The score (0–100) from which two rules count as near-duplicates.
THRESHOLD = 88.0
#: Rules shorter than this (normalised) are compared only for equality.
MIN_CHARS = 8
#: Tokens each rule is indexed under (its rarest), and the most rules one token may index.
SIGNATURE = 3
MAX_BUCKET = 64

_NOISE = re.compile(r"[*_`~#>\[\]()\"'“”‘’「」『』【】、。,.;:!?！？：；…・]+")
_WORD = re.compile(r"[0-9a-z][0-9a-z_\-./]+")
_WIDE_RUN = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af\uf900-\ufaff]+")


#: what a rule names exactly: code, quoted strings and numbers (``4 sections`` is not ``8``)
_LITERAL = re.compile(
    r"`[^`]*`|\"[^\"]*\"|“[^”]*”|「[^」]*」|(?<![A-Za-z0-9_.])\d+(?:\.\d+)?(?![A-Za-z0-9_.])"
    r"|\]\([^)\s]*\)"  # a link's target
)
_TITLE = re.compile(r"^(?:\*\*|__)[^*_]+(?:\*\*|__)\s*[:：]?$")
_DEFINED = re.compile(r"^`[^`]+`\s*(?:—|–|-|:|：)\s")
_PLACEHOLDER = re.compile(r"\{\{[^}]*\}\}|\[(?:TODO|TBD|[A-Z_ ]{3,})\]|^(?:TODO|TBD|\.\.\.|…)$")
#: a sentence's end: punctuation, a Korean declarative (``…한다``), a Japanese rule's
#: ending (``…すること``, ``…しない``)
_QUOTED = re.compile(r"^(?:\"[^\"]+\"|“[^”]+”|「[^」]+」|'[^']+')$")
_SENTENCE = re.compile(r"(?:[.。!！?？]|다|こと|する|しない|ます|です)\s*$")
#: kana and Han (written without spaces: two characters count as a word; Hangul is spaced)
_WIDE_CHAR = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff]")
#: Fewer words than this, no sentence and no imperative is a label.
MIN_WORDS = 6
#: Words a short English rule begins with ("use uv for everything"); a label does not.
_IMPERATIVES_TEXT = (
    "always never do don't dont avoid prefer use run keep make write read check ask "
    "follow preserve add remove put call commit push ensure include exclude verify "
    "document update create delete skip stop wait treat report test install prefer "
    "mention"
)
IMPERATIVES = frozenset(_IMPERATIVES_TEXT.split())


@lru_cache(maxsize=1 << 17)
def substantive(text: str) -> bool:
    """Whether a bullet says a rule (not a title, label, term, code line or placeholder)."""
    t = text.strip()
    if not t or _TITLE.match(t) or _DEFINED.match(t) or _PLACEHOLDER.search(t):
        return False
    if t.endswith((":", "：")) or _QUOTED.match(t):
        return False  # a lead-in to what follows, or an example quoted whole
    if not re.search(r"\w", re.sub(r"`[^`]*`", " ", t)):
        return False  # only code: a path, a command line, an example
    wide = len(_WIDE_CHAR.findall(t))
    words = len(_WIDE_CHAR.sub(" ", t).split()) + wide / 2
    first = re.sub(r"[^\w']", " ", t).split()
    return (
        words >= MIN_WORDS
        or bool(_SENTENCE.search(t))
        or (bool(first) and first[0].casefold() in IMPERATIVES)
    )


@lru_cache(maxsize=1 << 17)
def literals(text: str) -> tuple[str, ...]:
    """The code spans, quoted strings and numbers of a rule, normalised and sorted."""
    return tuple(
        sorted(" ".join(m.strip('`"“”「」').casefold().split()) for m in _LITERAL.findall(text))
    )


#: a Markdown link: its text is the wording; its target too, unless it says the text again
_LINK = re.compile(r"\[([^\]\n]*)\]\(([^)\s]*)\)")


def _link(m: re.Match[str]) -> str:
    return m[1] if m[1].strip("` ") in m[2] else f"{m[1]} {m[2]}"


@lru_cache(maxsize=1 << 17)
def normalise(text: str) -> str:
    t = unicodedata.normalize("NFKC", _LINK.sub(_link, text)).casefold()
    return " ".join(_NOISE.sub(" ", t).split())


def tokens(norm: str) -> set[str]:
    """Words of two or more characters, and character pairs of CJK and Hangul runs."""
    out = set(_WORD.findall(norm))
    for run in _WIDE_RUN.findall(norm):
        if len(run) == 1:
            out.add(run)
        out.update(run[i : i + 2] for i in range(len(run) - 1))
    return out


@dataclass(slots=True)
class DuplicateGroup:
    """Rules saying the same thing: ``exact`` when their texts are equal once normalised;
    ``score`` is the lowest similarity of a member to the first one."""

    rules: list[Rule]
    exact: bool
    score: float = 100.0

    def as_json(self) -> dict[str, Any]:
        return {
            "exact": self.exact,
            "score": round(self.score, 1),
            "rules": [{"path": str(r.path), "line": r.line, "text": r.text} for r in self.rules],
        }


def find_duplicates(rules: Sequence[Rule]) -> list[DuplicateGroup]:
    """Groups of two or more rules that are duplicates or near-duplicates, largest first."""
    by_norm: dict[str, list[int]] = {}
    said: set[str] = set()  # texts that one of their wordings says as a rule
    for i, r in enumerate(rules):
        n = normalise(r.text)
        if n:
            by_norm.setdefault(n, []).append(i)
            if n not in said and substantive(r.text):
                said.add(n)
    by_norm = {k: v for k, v in by_norm.items() if k in said}
    keys = list(by_norm)
    # near-duplicates among the distinct texts
    toks = [tokens(k) if len(k) >= MIN_CHARS else set() for k in keys]
    df = Counter(t for ts in toks for t in ts)
    index: dict[str, list[int]] = defaultdict(list)
    for k, ts in enumerate(toks):
        shared = [t for t in ts if df[t] > 1]  # a token of one rule finds nothing
        for t in sorted(shared, key=lambda t: (df[t], t))[:SIGNATURE]:
            index[t].append(k)
    similar: dict[int, set[int]] = defaultdict(set)
    seen: set[int] = set()
    n_keys = len(keys)
    scorer = fuzz.ratio
    for members in index.values():
        if len(members) < 2 or len(members) > MAX_BUCKET:
            continue
        for x in range(len(members)):
            a = members[x]
            ka, la = keys[a], len(keys[a])
            for y in range(x + 1, len(members)):
                b = members[y]
                lb = len(keys[b])
                pair = a * n_keys + b if a < b else b * n_keys + a
                if pair in seen or min(la, lb) * 2 * 100 < THRESHOLD * (la + lb):
                    continue  # scored already, or ratio can't reach the threshold
                seen.add(pair)
                if scorer(ka, keys[b], score_cutoff=THRESHOLD) and literals(
                    rules[by_norm[ka][0]].text
                ) == literals(rules[by_norm[keys[b]][0]].text):
                    similar[a].add(b)
                    similar[b].add(a)
    # star groups, not chains: a rule joins the group of a rule it is itself like (A~B and
    # B~C does not make A and C one rule); the best-connected rules lead
    clusters: list[list[int]] = []
    taken: set[int] = set()
    for k in sorted(similar, key=lambda k: (-len(similar[k]), k)):
        if k in taken:
            continue
        members = [k, *sorted(m for m in similar[k] if m not in taken)]
        taken.update(members)
        clusters.append(members)
    clusters += [[k] for k in range(len(keys)) if k not in taken and len(by_norm[keys[k]]) > 1]
    groups: list[DuplicateGroup] = []
    for ks in clusters:
        members = [i for k in ks for i in by_norm[keys[k]]]
        if len(members) < 2:
            continue
        exact = len(ks) == 1
        score = 100.0
        if not exact:
            first = keys[ks[0]]
            score = min(scorer(first, keys[k]) for k in ks[1:])
        groups.append(DuplicateGroup([rules[i] for i in sorted(members)], exact, score))
    groups.sort(key=lambda g: (-len(g.rules), -g.score, str(g.rules[0].path), g.rules[0].line))
    return groups
