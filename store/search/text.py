"""Text for search: normalisation (NFKC, casefolded), tokens for the index, query terms and
highlight spans. Words are runs of letters and digits outside CJK (Han, kana), whose
characters and pairs are indexed instead (docs/search.md).
"""

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
    """``pattern`` compiled when first asked for: one holding the CJK ranges takes 1-3 ms
    to compile, and a warm search needs few of them (``re``'s own cache drops its oldest
    patterns as new ones come)."""
    return lru_cache(maxsize=1)(lambda: re.compile(pattern))


_token = lazy_pattern(f"{WORD_CHAR}+|[{CJK}]")
_ASCII_TOKEN = re.compile(r"[^\W_]+")  # the same tokens in ASCII text, compiled in 0.03 ms
#: Words joined by ``-._:``, from where a word starts, possessive: a failed attempt costs one
#: pass over one word, not one per character of it (O(n²) for a word of n characters).
compound_pattern = lazy_pattern(f"(?<!{WORD_CHAR}){WORD_CHAR}++(?:[-._:]++{WORD_CHAR}++)+")
_cjk_char = lazy_pattern(f"[{CJK}]")
_PUNCT_SPACE = re.compile(r"[\W_]+")
_SPACES = re.compile(r"\s+")
_split_script = lazy_pattern(f"[{CJK}]+|[^{CJK}]+")
#: The most characters of one record's text that the index reads (its start; the title is
#: kept besides), and of one value that highlighting reads. Every pass over agent text is
#: linear, and this bounds it per record too (a record may hold megabytes).
MAX_TEXT = 256 * 1024
#: Highlighting marks the first this many distinct words of a query.
HIGHLIGHT_TERMS = 64


def normalize(text: str) -> str:
    """NFKC and casefold: the form every comparison uses."""
    if text.isascii():
        return text.lower()
    return unicodedata.normalize("NFKC", text).casefold()


def gist_key(text: str) -> str:
    """Text reduced for finding duplicates: normalised, punctuation dropped, spaces collapsed."""
    return _PUNCT_SPACE.sub(" ", normalize(text)).strip()


def is_cjk(text: str) -> bool:
    """True when ``text`` is made of CJK characters only (no word boundaries in it)."""
    return bool(text) and not text.isascii() and _cjk_char().sub("", text) == ""


_SEPS = re.compile(r"[-._:]+")


#: Tokens longer than this are not indexed: a longer word is by its first this many
#: characters (a query word as long is looked up by those: see ``engine.Term``), a longer
#: compound by its words. Tails indexed per compound:
TOKEN_MAX = 255
TAILS_MAX = 8
#: A word, or words joined by ``-._:`` (a compound), from where a word starts; possessive,
#: so one pass over the text (:data:`compound_pattern` is the same with a joint required).
_chain = lazy_pattern(f"(?<!{WORD_CHAR}){WORD_CHAR}++(?:[-._:]++{WORD_CHAR}++)*")


def index_terms(norm: str) -> tuple[list[str], list[str]]:
    """The words of normalised text apart by spaces (and the head of each longer than
    :data:`TOKEN_MAX`), and its compound tokens with their tails from each of their first
    :data:`TAILS_MAX` inner word starts that are compounds too (``kpt-2026-001``,
    ``2026-001``: a compound query where a word starts is a prefix; a one-word tail never
    matches one), each at most :data:`TOKEN_MAX` long."""
    chains = _chain().findall(norm)
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


def is_compound(term: str) -> bool:
    """A term with punctuation between word characters, looked up as one compound token."""
    return (
        compound_pattern().fullmatch(term.strip("-._:")) is not None and len(word_parts(term)) > 1
    )


def split_terms(text: str) -> list[str]:
    """Normalised free text split into terms: at spaces, and between CJK and other scripts."""
    out: list[str] = []
    for chunk in normalize(text).split():
        if not chunk.isascii() and _cjk_char().search(chunk) and not is_cjk(chunk):
            out.extend(p for p in _split_script().findall(chunk) if p.strip())
        else:
            out.append(chunk)
    return out


def collapse(text: str) -> str:
    return _SPACES.sub(" ", text).strip()


_word_char = lazy_pattern(WORD_CHAR)


def is_word_char(c: str) -> bool:
    """A character that continues a word: a letter or digit of a script with spaces."""
    return c.isalnum() if c.isascii() else _word_char().match(c) is not None


#: Occurrences of a term inside words looked at one by one before one linear pass takes
#: over (``aaa`` occurs at every character of ``aaaa…``: one by one, a quadratic cost).
SCAN_MAX = 64


@lru_cache(maxsize=128)
def _bounded(term: str) -> re.Pattern[str]:
    """``term`` where a word starts: the literal first (the regex engine's linear prefix
    scan), then a constant-time look back over it (``.{n}``) at the character before."""
    return re.compile(f"{re.escape(term)}(?<!{WORD_CHAR}.{{{len(term)}}})", re.DOTALL)


def _bounded_starts(text: str, term: str, pos: int, limit: int) -> list[int]:
    """Offsets from ``pos`` on where ``term`` starts a word (overlapping ones too): at most
    ``limit`` searches, each scanning on from the last hit."""
    pattern = _bounded(term)
    out: list[int] = []
    while len(out) < limit:
        m = pattern.search(text, pos)
        if m is None:
            break
        out.append(m.start())
        pos = m.start() + 1
    return out


def word_starts(text: str, term: str, limit: int = 64) -> list[int]:
    """Offsets where ``term`` starts a word (CJK terms: anywhere): ``str.find`` and a look
    at the character before, no regex to compile per term up to :data:`SCAN_MAX`."""
    out: list[int] = []
    anywhere = is_cjk(term[:1])
    inside = 0
    i = text.find(term)
    while i >= 0 and len(out) < limit:
        if anywhere or i == 0 or not is_word_char(text[i - 1]):
            out.append(i)
        else:
            inside += 1
            if inside > SCAN_MAX:
                return out + _bounded_starts(text, term, i + 1, limit - len(out))
        i = text.find(term, i + 1)
    return out


# -- highlighting ------------------------------------------------------------------------------


def _char_map(text: str) -> tuple[str, list[int] | None]:
    """``text`` normalised, and the source index of each output character (``None``: the
    same index — normalising kept every character one for one, the usual case)."""
    if text.isascii():
        return text.lower(), None
    norm = normalize(text)
    if len(norm) == len(text):
        return norm, None
    # character by character, each distinct character normalised once; the rest in C
    table = {
        ord(ch): ch.lower() if ch.isascii() else unicodedata.normalize("NFKC", ch).casefold()
        for ch in set(text)
    }
    lengths = map(len, map(table.__getitem__, map(ord, text)))
    where = list(chain.from_iterable(map(repeat, count(), lengths)))
    return text.translate(table), where


def _source(where: list[int] | None, a: int, b: int) -> tuple[int, int]:
    if where is None:
        return a, b
    return where[a], where[b - 1] + 1


def highlight_spans(text: str, terms: list[str], limit: int = 64) -> list[tuple[int, int]]:
    """Where the query terms occur in ``text`` (as displayed), as sorted, merged spans.

    A term is marked where a word starts with it; failing that, anywhere (a match inside a
    word, or a CJK term). Spans are offsets into ``text`` itself, not its normal form; only
    its first :data:`MAX_TEXT` characters are looked at.
    """
    if not text or not terms:
        return []
    norm, where = _char_map(text[:MAX_TEXT])
    size = len(norm) if where is None else len(where)
    spans: list[tuple[int, int]] = []
    for term in list(dict.fromkeys(terms))[:HIGHLIGHT_TERMS]:
        if not term or term not in norm:
            continue
        found = [(i, i + len(term)) for i in word_starts(norm, term, limit)]
        if not found:
            start = norm.find(term)
            while start >= 0 and len(found) < limit:
                found.append((start, start + len(term)))
                start = norm.find(term, start + len(term))
        for a, b in found[:limit]:
            if b > a and b <= size:
                spans.append(_source(where, a, b))
    return merge_spans(spans)


#: A run of word characters.
word_run = lazy_pattern(f"{WORD_CHAR}+")


def fuzzy_spans(text: str, words: list[str]) -> list[tuple[int, int]]:
    """Spans of whole words of ``text`` that are in ``words`` (typo-tolerant matches)."""
    if not text or not words:
        return []
    norm, where = _char_map(text[:MAX_TEXT])
    size = len(norm) if where is None else len(where)
    wanted = set(words)
    spans = [
        _source(where, m.start(), m.end())
        for m in word_run().finditer(norm)
        if m.group() in wanted and m.end() <= size
    ]
    return merge_spans(spans)


def merge_spans(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for a, b in sorted(spans):
        if out and a <= out[-1][1]:
            if b > out[-1][1]:
                out[-1] = (out[-1][0], b)
        else:
            out.append((a, b))
    return out


def snippet(
    text: str, spans: list[tuple[int, int]], width: int = 90
) -> tuple[str, list[tuple[int, int]]]:
    """One line of ``text`` around its first span, with the spans shifted to match."""
    flat = text.replace("\r", " ").replace("\n", " ")
    if not spans:
        return flat[:width], []
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
