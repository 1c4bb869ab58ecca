"""Rust regex syntax (the secret scanner's rules) read with Python's regex parser: what
every match of a pattern must hold (:func:`required`), and a Python pattern that matches
wherever the Rust one does (:func:`widened`). Anything not rewritten for certain is
refused (``None``), never guessed: the callers then assume the worst."""

from __future__ import annotations

import re
import warnings
from typing import Any

#: Rust's ASCII classes (``[[:alnum:]]``) as Python writes them inside a class.
_POSIX = {
    "alnum": "0-9A-Za-z",
    "alpha": "A-Za-z",
    "ascii": "\\x00-\\x7F",
    "blank": "\\t ",
    "cntrl": "\\x00-\\x1F\\x7F",
    "digit": "0-9",
    "graph": "!-~",
    "lower": "a-z",
    "print": " -~",
    "punct": "!-/:-@\\[-`{-~",
    "space": "\\t\\n\\v\\f\\r ",
    "upper": "A-Z",
    "word": "0-9A-Za-z_",
    "xdigit": "0-9A-Fa-f",
}
#: Escapes that mean the same in both syntaxes (a letter Python does not know is an
#: error there, so an escape outside this set is refused rather than guessed).
_SAME_ESCAPES = set("dDwWsSbBAnrtfv") | {chr(c) for c in range(128) if not chr(c).isalnum()}
#: Anchors and word boundaries (left out by ``widen``).
_ANCHORS = set("bBAzZ")
#: The flags :func:`widened` patterns are compiled with, to run on a text's bytes read as
#: Latin-1 (a character a byte), as the scanner's engine matches them (Unicode off:
#: classes and ``(?i)`` ASCII, a repeat counting bytes): any case, ``.`` any byte.
WIDE_FLAGS = re.ASCII | re.IGNORECASE | re.DOTALL
#: Inline flags of Rust's that change what matches only in ways the literals ignore (case,
#: ``.`` and newlines, anchors, greed, Unicode classes).
_FLAGS = set("imsuU")


def normalized(pattern: str, *, widen: bool = False) -> str | None:
    """``pattern`` (Rust regex syntax) in Python's, for reading its structure; ``None``
    when it uses anything this does not rewrite for certain. Flags set in the middle
    (``p8e-(?i)…``) are dropped: the literals are compared case-folded anyway.

    ``widen``: a pattern Python's ``re`` (with :data:`WIDE_FLAGS`) matches wherever the
    scanner's does, and maybe elsewhere: the anchors and word boundaries are left out, and
    the flags set in it (case and ``.`` as the compile flags say, throughout). Unicode
    classes (``\\p{…}``) and the Unicode flag are refused: the scanner matches bytes."""
    out: list[str] = []
    i, n = 0, len(pattern)
    verbose = False
    in_class = -1  # where the open class's members start
    while i < n:
        c = pattern[i]
        if widen and not c.isascii():
            return None  # the scanner matches its UTF-8 bytes: not one character here
        if c == "\\":
            e = pattern[i + 1 : i + 2]
            if widen and e in ("p", "P"):
                return None
            if e in ("<", ">") or (e in ("b", "B") and pattern[i + 2 : i + 3] == "{"):
                return None  # word boundaries of newer Rust (\\<, \\b{start}): not literals
            if widen and e in _ANCHORS:
                if in_class >= 0:
                    return None
                i += 2
                continue
            if e == "z":
                out.append("\\Z")
                i += 2
            elif e in ("p", "P"):  # a Unicode class: any class does for the structure
                if pattern[i + 2 : i + 3] == "{":
                    end = pattern.find("}", i + 3)
                    if end < 0:
                        return None
                    i = end + 1
                else:
                    i += 3
                out.append("\\w")
            elif e in ("x", "u", "U") and pattern[i + 2 : i + 3] == "{":
                end = pattern.find("}", i + 3)
                try:
                    code = int(pattern[i + 3 : end], 16) if end > 0 else -1
                except ValueError:
                    return None
                if not 0 <= code <= 0x10FFFF or (widen and code > 0x7F):
                    return None
                out.append(f"\\U{code:08x}")
                i = end + 1
            elif e == "x" and re.fullmatch(r"[0-9A-Fa-f]{2}", pattern[i + 2 : i + 4]):
                out.append(pattern[i : i + 4])
                i += 4
            elif e in _SAME_ESCAPES:
                out.append(pattern[i : i + 2])
                i += 2
            else:
                return None
            continue
        if in_class >= 0:
            if c == "[" and pattern[i + 1 : i + 2] == ":":
                end = pattern.find(":]", i + 2)
                name = pattern[i + 2 : end] if end > 0 else ""
                if name not in _POSIX:
                    return None
                out.append(_POSIX[name])
                i = end + 2
                continue
            if c == "[" or pattern[i : i + 2] in ("&&", "--", "~~"):
                return None  # a nested class or a set operation
            if c == "]" and i > in_class:
                in_class = -1
            out.append(c)
            i += 1
            continue
        if c == "[":
            in_class = i + 1
            if pattern[in_class : in_class + 1] == "^":
                in_class += 1
            out.append(pattern[i:in_class])
            i = in_class
            if pattern[i : i + 1] == "]":  # a leading ']' is a member in both syntaxes
                out.append("]")
                i += 1
            continue
        if verbose and c == "#":
            end = pattern.find("\n", i)
            i = n if end < 0 else end
            continue
        if pattern.startswith("(?", i):
            m = re.match(r"\(\?([A-Za-z]*)(?:-([A-Za-z]*))?([:)])", pattern[i:])
            if m is not None:
                on, off, close = m.group(1), m.group(2) or "", m.group(3)
                if not set(on + off) <= _FLAGS | {"x"} or (widen and "u" in on):
                    return None
                if "x" in on + off:
                    if close == ":" or off or i > 0:
                        return None  # verbose for a part, or from the middle on
                    verbose = True
                if close == ")":
                    i += m.end()
                    continue
                if widen:  # case and dots as the compile flags say, throughout
                    out.append("(?:")
                    i += m.end()
                    continue
                keep_on = "".join(f for f in on if f in "ims")
                keep_off = "".join(f for f in off if f in "ims")
                out.append(f"(?{keep_on}{'-' + keep_off if keep_off else ''}:")
                i += m.end()
                continue
            if pattern.startswith("(?<", i) and pattern[i + 3 : i + 4].isalpha():
                out.append("(?P<")
                i += 3
                continue
            if not pattern.startswith(("(?P<", "(?:"), i):
                return None  # look-arounds and the rest: not Rust's
        if widen and c in "^$":
            i += 1
            continue
        out.append(c)
        i += 1
    if in_class >= 0:
        return None
    return ("(?x)" if verbose else "") + "".join(out)


def _parse(pattern: str) -> Any:
    python = normalized(pattern)
    if python is None:
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # "possible nested set" and the like
            return parse_python(python)
    except (re.error, FutureWarning, DeprecationWarning, OverflowError, RecursionError):
        return None


def read(pattern: str) -> tuple[frozenset[str] | None, int] | None:
    """What every match of ``pattern`` holds (:func:`required`) and the fewest characters
    a match has, from one reading; ``None`` when the pattern is not understood."""
    tree = _parse(pattern)
    return None if tree is None else (_required(list(tree)), int(tree.getwidth()[0]))


def required(pattern: str) -> frozenset[str] | None:
    """Literals (ASCII, case-folded) one of which every match of ``pattern`` holds;
    ``None`` when none can be told for certain."""
    got = read(pattern)
    return None if got is None else got[0]


def _required(items: list[tuple[Any, Any]]) -> frozenset[str] | None:
    """What a sequence of parsed items requires (see :func:`required`): the best of what
    its mandatory parts each require, runs of literals counted whole."""
    import re._constants as c

    choices: list[frozenset[str]] = []
    run: list[str] = []

    def flush() -> None:
        if run:
            choices.append(frozenset(["".join(run)]))
            run.clear()

    for op, av in items:
        letter = _one_letter(op, av, c)
        if letter is not None:
            run.append(letter)
            continue
        if op is c.AT:  # an anchor takes no character: the run goes on
            continue
        flush()
        got: frozenset[str] | None = None
        if op is c.SUBPATTERN:
            got = _required(list(av[-1]))
        elif op in (c.MAX_REPEAT, c.MIN_REPEAT, c.POSSESSIVE_REPEAT) and av[0] >= 1:
            got = _required(list(av[2]))
        elif op is c.ATOMIC_GROUP:
            got = _required(list(av))
        elif op is c.BRANCH:
            each = [_required(list(b)) for b in av[1]]
            if all(e is not None for e in each):
                got = frozenset().union(*(e for e in each if e is not None))
        if got:
            choices.append(got)
    flush()
    if not choices:
        return None
    return max(choices, key=lambda s: (min(len(x) for x in s), -len(s)))


def _one_letter(op: Any, av: Any, c: Any) -> str | None:
    """The case-folded ASCII character a literal or a class of one letter's cases
    (``[Ss]``) matches; ``None`` for anything else."""
    codes: list[int]
    if op is c.LITERAL:
        codes = [av]
    elif op is c.IN and av and all(o is c.LITERAL for o, _v in av):
        codes = [v for _o, v in av]
    else:
        return None
    folded = {chr(v).casefold() for v in codes}
    if len(folded) != 1 or any(v >= 128 for v in codes):
        return None
    return folded.pop()


def widened(pattern: str, shortest: int = 3) -> str | None:
    """What any match of ``pattern`` holds, as a Python pattern to compile with
    :data:`WIDE_FLAGS`: the pattern widened (:func:`normalized`), its negated classes
    refusing no letter (the flags make every letter any case: ``[^a-z]`` would refuse
    ``A``, which the scanner may take); or, when it could make Python's backtracking take
    long over a hostile text (:func:`backtracking`), the longest stretch of it that could
    not (a match of the whole holds a match of any stretch of the parts it is a sequence
    of), of at least ``shortest`` characters. ``None`` when there is none."""
    wide = normalized(pattern, widen=True)
    if wide is None:
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            tree = list(parse_python(wide))
            if backtracking(tree) > MAX_BACKTRACKING:
                best = _best_stretch(tree, shortest)
                if best is None:
                    return None
                tree = best
            out = _unparsed(tree)
            re.compile(out, WIDE_FLAGS)
            return out
    except (re.error, ValueError, FutureWarning, DeprecationWarning, RecursionError):
        return None


#: What a repeat with no upper bound counts for in :func:`backtracking` (about the length
#: of a run it could take), and the most a widened pattern may come to.
UNBOUNDED = 1000
MAX_BACKTRACKING = 100_000


def backtracking(items: list[tuple[Any, Any]]) -> float:
    """How many ways, at most, Python's engine could try to match ``items`` from one
    place, roughly: repeats that follow each other over characters they share multiply
    their spans (one with no bound counts :data:`UNBOUNDED`); a repeat of something that
    itself varies counts without bound (nested repeats backtrack exponentially).
    ``\\s*:\\s*`` passes (the ``:`` stands between); ``.{0,100}?\\s+`` over a run of
    spaces does not."""
    import re._constants as c

    worst = 1.0
    chain, shared = 1.0, 0  # the repeats following each other, and their characters
    for op, av in _spliced(items):
        if op is c.AT:
            continue
        if op in (c.MAX_REPEAT, c.MIN_REPEAT, c.POSSESSIVE_REPEAT):
            lo, hi, body = av
            inner = backtracking(list(body))
            if inner > 1 and hi > 1:
                return float("inf")
            span = UNBOUNDED if hi == c.MAXREPEAT else hi - lo + 1
            chars = _chars(list(body))
            if span > 1:
                chain = chain * span if chars & shared else float(span)
                shared = shared | chars if chars & shared else chars
                worst = max(worst, chain, inner)
                continue
        elif op is c.BRANCH:
            worst = max(worst, sum(backtracking(list(b)) for b in av[1]))
            chars = _ALL
        else:
            chars = _chars([(op, av)])
        if not chars & shared:  # a character none of them takes: they are apart
            chain, shared = 1.0, 0
    return worst


#: Every byte (the widened patterns run on bytes read as Latin-1).
_ALL = (1 << 256) - 1


def _chars(items: list[tuple[Any, Any]]) -> int:
    """The bytes (a bit each) one character of ``items`` can be, in any case; every byte
    for anything but a single character's item."""
    import re._constants as c

    if len(items) != 1:
        return _ALL
    op, av = items[0]
    if op is c.LITERAL:
        return _cased(1 << av if av < 256 else 0)
    if op is c.NOT_LITERAL:
        return _ALL & ~_cased(1 << av if av < 256 else 0)
    if op is c.ANY:
        return _ALL
    if op is not c.IN:
        return _ALL
    negate = bool(av) and av[0][0] is c.NEGATE
    got = 0
    for o, v in av[1:] if negate else av:
        if o is c.LITERAL:
            got |= 1 << v if v < 256 else 0
        elif o is c.RANGE:
            lo, hi = v[0], min(v[1], 255)
            if lo <= hi:
                got |= ((1 << (hi - lo + 1)) - 1) << lo
        elif o is c.CATEGORY:
            got |= _CATEGORY_BYTES.get(str(v), _ALL)
        else:
            return _ALL
    got = _cased(got)
    return _ALL & ~got if negate else got


def _cased(bits: int) -> int:
    """``bits`` with each ASCII letter's other case."""
    for lo in (0x41, 0x61):
        letters = (bits >> lo) & ((1 << 26) - 1)
        bits |= letters << (0x61 if lo == 0x41 else 0x41)
    return bits


def _bits(test: Any) -> int:
    return sum(1 << b for b in range(256) if test(chr(b)))


_DIGIT = _bits(lambda ch: "0" <= ch <= "9")
_SPACE = _bits(lambda ch: ch in " \t\n\r\f\v")
_WORD = _bits(lambda ch: ch.isascii() and (ch.isalnum() or ch == "_"))
_CATEGORY_BYTES = {
    "CATEGORY_DIGIT": _DIGIT,
    "CATEGORY_NOT_DIGIT": _ALL & ~_DIGIT,
    "CATEGORY_SPACE": _SPACE,
    "CATEGORY_NOT_SPACE": _ALL & ~_SPACE,
    "CATEGORY_WORD": _WORD,
    "CATEGORY_NOT_WORD": _ALL & ~_WORD,
}


def parse_python(pattern: str) -> Any:
    import re._parser as sre_parse

    return sre_parse.parse(pattern)


def _spliced(items: list[tuple[Any, Any]]) -> list[tuple[Any, Any]]:
    """The sequence with the groups in it (each matched once) replaced by what they
    hold, down to the parts that are no group."""
    import re._constants as c

    out: list[tuple[Any, Any]] = []
    for op, av in items:
        if op is c.SUBPATTERN:
            out += _spliced(list(av[-1]))
        else:
            out.append((op, av))
    return out


def _best_stretch(items: list[tuple[Any, Any]], shortest: int) -> list[tuple[Any, Any]] | None:
    """The widest stretch of ``items`` within :data:`MAX_BACKTRACKING`; for alternatives
    (the whole being one), the alternatives of each one's (a match of the whole holds one
    of them); ``None`` when there is none of ``shortest`` characters or more."""
    import re._constants as c

    spliced = _spliced(items)
    if len(spliced) == 1 and spliced[0][0] is c.BRANCH:
        each = [_best_stretch(list(b), shortest) for b in spliced[0][1][1]]
        if all(e is not None for e in each):
            return [(c.BRANCH, (None, each))]
    stretches = [_trimmed(s) for s in _safe_stretches(spliced)]
    best = max(stretches, key=_least_width, default=None)
    return None if best is None or _least_width(best) < shortest else best


def _trimmed(items: list[tuple[Any, Any]]) -> list[tuple[Any, Any]]:
    """``items`` without the repeats of varying length they start or end with: a text
    holding a match of the whole holds one of the rest, and a leading ``[\\s\\S]{64,}``
    would be tried to the end of the text from every place (quadratic)."""
    import re._constants as c

    repeats = (c.MAX_REPEAT, c.MIN_REPEAT, c.POSSESSIVE_REPEAT)
    out = _spliced(items)
    while out and out[0][0] in repeats and out[0][1][0] != out[0][1][1]:
        out = out[1:]
    while out and out[-1][0] in repeats and out[-1][1][0] != out[-1][1][1]:
        out = out[:-1]
    return out or items


def _safe_stretches(items: list[tuple[Any, Any]]) -> list[list[tuple[Any, Any]]]:
    """The runs of ``items``, taken in order, each as long as it stays within
    :data:`MAX_BACKTRACKING`."""
    runs: list[list[tuple[Any, Any]]] = [[]]
    for item in items:
        if backtracking([item]) > MAX_BACKTRACKING:
            runs.append([])
        elif backtracking([*runs[-1], item]) > MAX_BACKTRACKING:
            runs.append([item])
        else:
            runs[-1].append(item)
    return [r for r in runs if r]


def _least_width(items: list[tuple[Any, Any]]) -> int:
    import re._parser as sre_parse

    sub = sre_parse.SubPattern(sre_parse.State(), items)
    return int(sub.getwidth()[0])


def _unparsed(items: list[tuple[Any, Any]]) -> str:
    """Parsed items (of a widened pattern: no anchors, no flags) as a pattern again, each
    negated class refusing no letter (see :func:`widened`)."""
    import re._constants as c

    out: list[str] = []
    for op, av in items:
        if op is c.LITERAL:
            out.append(_char(av))
        elif op is c.NOT_LITERAL:
            out.append("[\\s\\S]" if chr(av).isascii() and chr(av).isalpha() else f"[^{_char(av)}]")
        elif op is c.ANY:
            out.append("[\\s\\S]")
        elif op is c.IN:
            out.append(_class(av))
        elif op is c.SUBPATTERN:
            out.append("(?:" + _unparsed(list(av[-1])) + ")")
        elif op is c.BRANCH:
            out.append("(?:" + "|".join(_unparsed(list(b)) for b in av[1]) + ")")
        elif op in (c.MAX_REPEAT, c.MIN_REPEAT, c.POSSESSIVE_REPEAT):
            lo, hi, body = av
            top = "" if hi == c.MAXREPEAT else str(hi)
            out.append(f"(?:{_unparsed(list(body))}){{{lo},{top}}}")
        else:
            raise ValueError(f"not written back: {op}")
    return "".join(out)


def _char(code: int) -> str:
    return f"\\U{code:08x}"


#: The ASCII letters, as ranges of code points.
_LETTERS = ((0x41, 0x5A), (0x61, 0x7A))


def _class(members: list[tuple[Any, Any]]) -> str:
    """A class again; a negated one without its letters (and ``[\\s\\S]`` when that
    leaves nothing to refuse)."""
    import re._constants as c

    negated = bool(members) and members[0][0] is c.NEGATE
    parts: list[str] = []
    for op, av in members[1:] if negated else members:
        if op is c.LITERAL:
            if not (negated and chr(av).isascii() and chr(av).isalpha()):
                parts.append(_char(av))
        elif op is c.RANGE:
            spans = [av]
            if negated:
                for lo, hi in _LETTERS:
                    spans = [
                        piece
                        for a, b in spans
                        for piece in ((a, min(b, lo - 1)), (max(a, hi + 1), b))
                        if piece[0] <= piece[1]
                    ]
            parts += [f"{_char(a)}-{_char(b)}" for a, b in spans]
        elif op is c.CATEGORY:
            parts.append(_CATEGORIES[str(av)])
        else:
            raise ValueError(f"not written back: {op}")
    if negated:
        return "[^" + "".join(parts) + "]" if parts else "[\\s\\S]"
    return "[" + "".join(parts) + "]"


_CATEGORIES = {
    "CATEGORY_DIGIT": "\\d",
    "CATEGORY_NOT_DIGIT": "\\D",
    "CATEGORY_SPACE": "\\s",
    "CATEGORY_NOT_SPACE": "\\S",
    "CATEGORY_WORD": "\\w",
    "CATEGORY_NOT_WORD": "\\W",
}
