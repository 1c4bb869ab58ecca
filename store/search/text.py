"""Text for search: normalisation, tokens, query terms and highlight spans. Words are runs of
letters and digits outside CJK (Han, kana), whose characters and pairs are indexed instead."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from functools import lru_cache
from itertools import chain, count, filterfalse, islice, repeat

#: Scripts without spaces between words: Han, hiragana, katakana (incl. ー and 々).
CJK = (
    "\u3005\u3006\u3040-\u309f\u30a0-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff"
    "\uf900-\ufaff\U00020000-\U0002fa1f"
)
#: A character that continues a word (letters and digits of word-separating scripts).
WORD_CHAR = f"[^\\W_{CJK}]"


def lazy_pattern(pattern: str) -> Callable[[], re.Pattern[str]]:
    """``pattern`` compiled when first used: the CJK ranges take 1-3 ms, a warm search needs
    few (and ``re``'s own cache drops its oldest)."""
    return lru_cache(maxsize=1)(lambda: re.compile(pattern))


_token = lazy_pattern(f"{WORD_CHAR}+|[{CJK}]")
_ASCII_TOKEN = re.compile(r"[^\W_]+")  # the same tokens in ASCII text, compiled in 0.03 ms
#: A word, or words joined by ``-._:``, from a word's start (possessive: a failure is one pass).
word_chain = lazy_pattern(f"(?<!{WORD_CHAR}){WORD_CHAR}++(?:[-._:]++{WORD_CHAR}++)*")
cjk_runs = lazy_pattern(f"[{CJK}]+")
_PUNCT_SPACE = re.compile(r"[\W_]+")
_SEPS = re.compile(r"[-._:]+")
_split_script = lazy_pattern(f"[{CJK}]+|[^{CJK}]+")
#: The characters of a record's text the index reads (and of a value, highlighting): every
#: pass is linear, and this bounds it per record (one may hold megabytes).
MAX_TEXT = 256 * 1024
#: Highlighting marks the first this many distinct words of a query.
HIGHLIGHT_TERMS = 64


def normalize(text: str) -> str:
    return text.lower() if text.isascii() else unicodedata.normalize("NFKC", text).casefold()


def gist_key(text: str) -> str:
    """Text reduced for finding duplicates: normalised, punctuation dropped, spaces collapsed."""
    return _PUNCT_SPACE.sub(" ", normalize(text)).strip()


def is_cjk(text: str) -> bool:
    """``text`` is CJK characters only."""
    return not text.isascii() and cjk_runs().fullmatch(text) is not None


#: Longer tokens are not indexed: a word by its head (queries too), a compound by its words.
TOKEN_MAX = 255
TAILS_MAX = 8


def index_terms(norm: str) -> tuple[list[str], list[str]]:
    """The words of normalised text apart by spaces (and the head of a long one), and its
    compounds with their compound tails from the first :data:`TAILS_MAX` joints
    (``kpt-2026-001``, ``2026-001``: a compound query is then a prefix)."""
    chains = word_chain().findall(norm)
    text = " ".join(chains)
    words = [text.replace("-", " ").replace(".", " ").replace("_", " ").replace(":", " ")]
    if max(map(len, chains), default=0) > TOKEN_MAX:  # the tokenizer drops such a word
        words += [w[:TOKEN_MAX] for w in words[0].split() if len(w) > TOKEN_MAX]
    if words[0] == text:
        return words, []
    out: list[str] = []
    for token in filterfalse(str.isalnum, chains):
        n = len(token)
        if n <= TOKEN_MAX:
            out.append(token)
        joints = list(islice(_SEPS.finditer(token, max(0, n - TOKEN_MAX)), TAILS_MAX + 1))
        out.extend(token[m.end() :] for m in joints[: min(TAILS_MAX, len(joints) - 1)])
    return words, out


def word_parts(term: str) -> list[str]:
    """The index tokens inside a query term, in order (``kpt-2026`` → ``kpt``, ``2026``)."""
    return (_ASCII_TOKEN if term.isascii() else _token()).findall(term)


def split_terms(text: str) -> list[str]:
    """Normalised free text split into terms: at spaces, and between CJK and other scripts."""
    out: list[str] = []
    for chunk in normalize(text).split():  # (a chunk of one script is found whole)
        out += [chunk] if chunk.isascii() else _split_script().findall(chunk)
    return out


def is_word_char(c: str) -> bool:
    return c.isalnum() if c.isascii() else word_run().match(c) is not None


#: Occurrences inside words looked at one by one before one linear pass takes over (``aaa``
#: is at every character of ``aaaa…``: one by one, a quadratic cost).
SCAN_MAX = 64


@lru_cache(maxsize=128)
def _bounded(term: str) -> re.Pattern[str]:
    """``term`` where a word starts: the literal first (a linear prefix scan), then a look
    back at the character before it."""
    return re.compile(f"{re.escape(term)}(?<!{WORD_CHAR}.{{{len(term)}}})", re.DOTALL)


def word_starts(text: str, term: str, limit: int = 64) -> list[int]:
    """Offsets where ``term`` starts a word (CJK: anywhere), by ``str.find`` up to
    :data:`SCAN_MAX` (no regex compiled per term)."""
    out: list[int] = []
    anywhere = is_cjk(term[:1])
    inside = 0
    i = text.find(term)
    while i >= 0 and len(out) < limit:
        if anywhere or i == 0 or not is_word_char(text[i - 1]):
            out.append(i)
        else:
            inside += 1
            if inside > SCAN_MAX:  # the rest in one pass (overlapping ones too)
                while len(out) < limit and (m := _bounded(term).search(text, i + 1)):
                    out.append(i := m.start())
                return out
        i = text.find(term, i + 1)
    return out


def _char_map(text: str) -> tuple[str, list[int] | None]:
    """``text`` normalised, and each character's source index (``None``: one for one)."""
    if text.isascii():
        return text.lower(), None
    norm = normalize(text)
    if len(norm) == len(text):
        return norm, None
    # character by character, each distinct character normalised once; the rest in C
    table = {ord(ch): normalize(ch) for ch in set(text)}
    lengths = map(len, map(table.__getitem__, map(ord, text)))
    where = list(chain.from_iterable(map(repeat, count(), lengths)))
    return text.translate(table), where


def _source(where: list[int] | None, a: int, b: int) -> tuple[int, int]:
    return (a, b) if where is None else (where[a], where[b - 1] + 1)


def highlight_spans(text: str, terms: list[str], limit: int = 64) -> list[tuple[int, int]]:
    """Sorted, merged spans of ``text`` (not its normal form) where the terms start a word;
    failing that, anywhere in its first :data:`MAX_TEXT` characters."""
    if not text or not terms:
        return []
    norm, where = _char_map(text[:MAX_TEXT])
    spans: list[tuple[int, int]] = []
    for term in list(dict.fromkeys(terms))[:HIGHLIGHT_TERMS]:
        if not term or term not in norm:
            continue
        starts = word_starts(norm, term, limit)
        if not starts:
            at = norm.find(term)
            while at >= 0 and len(starts) < limit:
                starts.append(at)
                at = norm.find(term, at + len(term))
        spans += [_source(where, a, a + len(term)) for a in starts]
    return merge_spans(spans)


word_run = lazy_pattern(f"{WORD_CHAR}+")


def fuzzy_spans(text: str, words: list[str]) -> list[tuple[int, int]]:
    """Spans of whole words of ``text`` that are in ``words`` (typo-tolerant matches)."""
    if not text or not words:
        return []
    norm, where = _char_map(text[:MAX_TEXT])
    wanted = set(words)
    found = [m.span() for m in word_run().finditer(norm) if m.group() in wanted]
    return merge_spans([_source(where, a, b) for a, b in found])


def merge_spans(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for a, b in sorted(spans):
        if out and a <= out[-1][1]:
            out[-1] = (out[-1][0], max(b, out[-1][1]))
        else:
            out.append((a, b))
    return out


def snippet(
    text: str, spans: list[tuple[int, int]], width: int = 90
) -> tuple[str, list[tuple[int, int]]]:
    """One line of ``text`` around its first span (there is one), the spans shifted to match."""
    flat = text.replace("\r", " ").replace("\n", " ")
    first = spans[0][0]
    start = max(0, first - width // 3)
    if start > 0:
        back = flat.rfind(" ", max(0, start - 12), first)
        start = back + 1 if back >= 0 else start
    end = min(len(flat), start + width)
    prefix = "…" if start > 0 else ""
    shown = prefix + flat[start:end] + ("…" if end < len(flat) else "")
    shift = len(prefix) - start
    moved = [
        (max(a + shift, len(prefix)), min(b + shift, len(prefix) + end - start))
        for a, b in spans
        if b > start and a < end
    ]
    return shown, [(a, b) for a, b in moved if b > a]
