"""Texts the secret scanner cannot flag, told without loading it.

Loading Kingfisher's rules takes ~0.2 s in every process (its disk cache included), and a
hook runs ``import-wrapup`` after every session. Most texts hold no secret, and most of the
scanner's rules cannot match without a literal of their own (``ghp_``, ``xoxb-``,
``bitbucket``): a text holding none of them, in any case, nor in any base64 run, cannot be
flagged, and needs no scan.

The literals are worked out once per installed scanner from its own rules (their patterns,
Rust regex syntax read with Python's regex parser after the few differences are rewritten:
:mod:`store.check.rust_regex`) and kept in the user's cache directory. Soundness before
speed: a pattern whose syntax is not understood for certain means there is no prefilter
at all (every text is scanned), and so does anything unexpected in the cached file.

What a text must hold to be flagged (:meth:`Prefilter.may_hold`), looked for in its UTF-8
bytes as the scanner reads them (a character a byte, ASCII letters in any case): one of a
rule's literals, then a match of the rule's pattern widened for Python's engine; or a
match of the few rules' patterns that require no literal long enough. The same in what
the base64 runs of the text decode to (the scanner decodes base64; two layers here, at
every alignment, either alphabet). A text holding a NUL (the scanner reads a text of NULs
between letters as UTF-16 or -32) or longer than :data:`MAX_TEXT` is always scanned.
"""

from __future__ import annotations

import binascii
import contextlib
import json
import math
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from store.check.rust_regex import WIDE_FLAGS, read, widened

#: Bumped when what is kept or how it is worked out changes.
FORMAT = 2

#: A rule whose literals are shorter than this is tried as its (widened) pattern alone:
#: one or two characters are in nearly every text.
SHORTEST_LITERAL = 3
#: Texts longer than this (in UTF-8 bytes, or decoded from base64) are scanned whatever
#: they hold (the widened patterns run in Python's backtracking engine).
MAX_TEXT = 1 << 16


@dataclass(frozen=True, slots=True)
class Prefilter:
    """What the scanner's rules need, in two stages: each literal a rule requires (one of)
    with the rules' patterns widened (:func:`~store.check.rust_regex.widened`; ``None``:
    the literal alone decides, the pattern being too costly for Python's engine), the
    patterns of the rules that require no literal long enough (tried on every text), and
    the shortest run of base64 whose decoding could hold a whole match."""

    literals: dict[str, tuple[str | None, ...]]
    always: tuple[str, ...]
    base64_run: int

    def may_hold(self, text: str) -> bool:
        """Whether the scanner could flag anything in ``text`` (``False``: for certain
        not)."""
        data = text.encode("utf-8", "surrogatepass")
        if b"\0" in data or len(data) > MAX_TEXT:
            return True  # (a text of NULs between letters is read as UTF-16 or -32)
        view = data.decode("latin-1")  # the scanner matches bytes: a character each
        if self._found(view):
            return True
        for _layer in range(2):  # base64 decoded, and decoded again
            view = _decoded_runs(view, self.base64_run)
            if not view:
                return False
            if len(view) > MAX_TEXT or self._found(view):
                return True
        return False

    def _found(self, view: str) -> bool:
        """Whether ``view`` (bytes as Latin-1) holds a literal and, past it, a match of a
        rule's widened pattern, or a match of a rule's that needs no literal."""
        lowered = view.encode("latin-1").lower().decode("latin-1")  # ASCII letters only
        for lit, patterns in self.literals.items():
            if lit in lowered and any(_matches(p, view) for p in patterns):
                return True
        return any(_matches(p, view) for p in self.always)

    def as_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "literals": {k: list(v) for k, v in self.literals.items()},
            "always": list(self.always),
            "base64_run": self.base64_run,
        }

    @classmethod
    def from_json(cls, data: Any) -> Prefilter | None:
        """The prefilter ``data`` (read back) describes; ``None`` for anything else."""
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            return None
        literals, always, run = data.get("literals"), data.get("always"), data.get("base64_run")
        if not isinstance(literals, dict) or not literals or type(run) is not int or run < 4:
            return None
        if not isinstance(always, list) or not all(isinstance(x, str) for x in always):
            return None
        out: dict[str, tuple[str | None, ...]] = {}
        for lit, patterns in literals.items():
            if not (isinstance(lit, str) and lit and lit == lit.casefold()):
                return None
            if not isinstance(patterns, list) or not patterns:
                return None
            if not all(x is None or isinstance(x, str) for x in patterns):
                return None
            out[lit] = tuple(patterns)
        return cls(out, tuple(always), run)  # (each pattern compiled when first needed)


_COMPILED: dict[str, re.Pattern[str]] = {}


def _matches(pattern: str | None, text: str) -> bool:
    """Whether ``pattern`` (``None``: the literal alone) finds anything in ``text``; a
    pattern that does not compile (a damaged cache) finds everything."""
    if pattern is None:
        return True
    try:
        return _compiled(pattern).search(text) is not None
    except (re.error, RecursionError, OverflowError):
        return True


def _compiled(pattern: str) -> re.Pattern[str]:
    got = _COMPILED.get(pattern)
    if got is None:
        got = _COMPILED[pattern] = re.compile(pattern, WIDE_FLAGS)
    return got


_BASE64_RUN = re.compile(r"[A-Za-z0-9+/_=-]+")


def _decoded_runs(text: str, shortest: int) -> str:
    """Every base64 run of ``text`` of at least ``shortest`` characters, decoded from
    each of its four alignments (URL-safe letters read as the standard ones), as bytes
    read as Latin-1, the pieces joined by NULs; ``""`` when there is none."""
    pieces: list[str] = []
    for m in _BASE64_RUN.finditer(text):
        run = m.group().replace("=", "").replace("-", "+").replace("_", "/")
        if len(run) < shortest:
            continue
        for start in range(4):
            part = run[start:]
            if len(part) % 4 == 1:  # a last character alone decodes to nothing
                part = part[:-1]
            part += "=" * (-len(part) % 4)  # the last group, however short, decoded
            if part:
                with contextlib.suppress(binascii.Error, ValueError):
                    pieces.append(binascii.a2b_base64(part).decode("latin-1"))
    return "\0".join(pieces)


def build(patterns: Iterable[str]) -> Prefilter | None:
    """The prefilter for rules with these patterns; ``None`` when any of them is not
    understood for certain (every text must then be scanned)."""
    by_literal: dict[str, set[str | None]] = {}
    always: set[str] = set()
    shortest: int | None = None
    for pattern in patterns:
        reading = read(pattern)
        if reading is None:
            return None
        got, width = reading
        shortest = width if shortest is None else min(shortest, width)
        wide = widened(pattern, SHORTEST_LITERAL)
        if got and min(len(x) for x in got) >= SHORTEST_LITERAL:
            for lit in got:
                by_literal.setdefault(lit, set()).add(wide)
        elif wide is not None:
            always.add(wide)
        else:
            return None
    if not by_literal or shortest is None:
        return None
    literals = {
        lit: tuple(sorted(ps, key=lambda p: (p is not None, p or "")))
        if None not in ps
        else (None,)
        for lit, ps in sorted(by_literal.items())
    }
    return Prefilter(literals, tuple(sorted(always)), max(4, math.ceil(shortest * 4 / 3)))


# -- the cache ---------------------------------------------------------------------


def scanner_identity() -> str | None:
    """The installed scanner's native library, as size and modification time (a new
    release means new rules); ``None`` when it is not installed."""
    import importlib.util

    with contextlib.suppress(ImportError, ValueError):
        spec = importlib.util.find_spec("kingfisher_sdk")
        if spec is None or not spec.submodule_search_locations:
            return None
        for folder in spec.submodule_search_locations:
            for name in sorted(os.listdir(folder)):
                if name.startswith("_native.") and name.endswith((".so", ".pyd")):
                    st = os.stat(os.path.join(folder, name))
                    return f"{name}-{st.st_size}-{st.st_mtime_ns}"
    return None


def cache_file(confidence: str, identity: str) -> Path:
    import platformdirs

    folder = Path(platformdirs.user_cache_dir("hurikaeri", appauthor=False))
    return folder / f"secret-prefilter-v{FORMAT}-{confidence}-{identity}.json"


def read_cached(confidence: str) -> Prefilter | None:
    """The prefilter kept for the installed scanner's rules at ``confidence``, if any."""
    identity = scanner_identity()
    if identity is None:
        return None
    try:
        data = json.loads(cache_file(confidence, identity).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return Prefilter.from_json(data)


def keep(prefilter: Prefilter, confidence: str) -> None:
    """Keep ``prefilter`` for later processes (best effort: a cache)."""
    identity = scanner_identity()
    if identity is None:
        return
    from store.write.atomic import replace_file

    with contextlib.suppress(OSError):
        replace_file(cache_file(confidence, identity), [json.dumps(prefilter.as_json()).encode()])
