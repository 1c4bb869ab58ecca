"""Carry an edit made on a re-serialised document back onto the original lines.

ruamel's dump of an unedited file (the *base*) may respell ``null`` or re-space a flow
sequence; only the difference between the base and the edited dump is applied to the
original lines, so every untouched line stays as the file had it.
"""

from __future__ import annotations

from difflib import SequenceMatcher

Op = tuple[str, int, int, int, int]


def _ops(a: list[str], b: list[str]) -> list[Op]:
    return SequenceMatcher(None, a, b, autojunk=False).get_opcodes()  # type: ignore[return-value]


def _norm_ops(base: list[str], original: list[str]) -> list[Op]:
    """How the dump lines up with the file, line by line where lengths agree (a respelling
    keeps the line count), so an edit widens only over the respelled lines it touches."""
    if len(base) == len(original):
        return [
            ("equal" if a == b else "replace", i, i + 1, i, i + 1)
            for i, (a, b) in enumerate(zip(base, original, strict=True))
        ]
    out: list[Op] = []
    for tag, a1, a2, b1, b2 in _ops(base, original):
        if tag == "replace" and a2 - a1 == b2 - b1:
            out.extend(("replace", a1 + k, a1 + k + 1, b1 + k, b1 + k + 1) for k in range(a2 - a1))
        else:
            out.append((tag, a1, a2, b1, b2))
    return out


def _position(ops: list[Op], i: int) -> int:
    for tag, a1, a2, b1, _b2 in ops:
        if a1 <= i < a2:
            return b1 + (i - a1) if tag == "equal" else b1
    return ops[-1][4] if ops else 0


def _span(ops: list[Op], i1: int, i2: int, boundary_inserts: bool) -> tuple[int, int]:
    lo: int | None = None
    hi: int | None = None
    for tag, a1, a2, b1, b2 in ops:
        if a1 == a2:
            inside = (i1 <= a1 <= i2) if boundary_inserts else (i1 < a1 < i2)
            if not inside:
                continue
            seg = (b1, b2)
        else:
            s, e = max(a1, i1), min(a2, i2)
            if s >= e:
                continue
            seg = (b1 + s - a1, b1 + e - a1) if tag == "equal" else (b1, b2)
        lo = seg[0] if lo is None else min(lo, seg[0])
        hi = seg[1] if hi is None else max(hi, seg[1])
    if lo is None or hi is None:
        pos = _position(ops, i1)
        return pos, pos
    return lo, hi


def merge_edit(original: list[str], base: list[str], edited: list[str]) -> list[str]:
    """``original`` with the change ``base → edited`` applied (lists of lines)."""
    if base == original:
        return list(edited)
    if base == edited:
        return list(original)
    norm = _norm_ops(base, original)
    hunks = [(a1, a2) for tag, a1, a2, _b1, _b2 in _ops(base, edited) if tag != "equal"]
    # widen each hunk over any respelled region it touches, then join touching hunks
    widened: list[list[int]] = []
    for i1, i2 in hunks:
        changed = True
        while changed:
            changed = False
            for tag, a1, a2, _b1, _b2 in norm:
                if tag == "equal" or a1 == a2:
                    continue
                overlaps = max(a1, i1) < min(a2, i2) or (i1 == i2 and a1 < i1 < a2)
                if overlaps and (a1 < i1 or a2 > i2):
                    i1, i2 = min(i1, a1), max(i2, a2)
                    changed = True
        if widened and i1 <= widened[-1][1]:
            widened[-1][1] = max(widened[-1][1], i2)
        else:
            widened.append([i1, i2])
    edit_ops = _ops(base, edited)
    out: list[str] = []
    o_pos = 0
    for i1, i2 in widened:
        o1, o2 = _span(norm, i1, i2, boundary_inserts=False)
        j1, j2 = _span(edit_ops, i1, i2, boundary_inserts=True)
        out.extend(original[o_pos:o1])
        out.extend(edited[j1:j2])
        o_pos = max(o_pos, o2)
    out.extend(original[o_pos:])
    return out
