"""A unified diff of two versions of a file's bytes, as the screens and the CLI show it."""

from __future__ import annotations

import difflib


def bytes_diff(before: bytes | None, after: bytes | None, a: str, b: str) -> str:
    """``before`` → ``after`` (``None``: no file) as a unified diff, undecodable bytes replaced."""

    def lines(data: bytes | None) -> list[str]:
        return (data or b"").decode("utf-8", "replace").splitlines(True)

    return "".join(difflib.unified_diff(lines(before), lines(after), a, b))


def file_diff(before: bytes | None, after: bytes | None, name: str) -> str:
    """A write of the file ``name`` as git shows it (``/dev/null``: a new file)."""
    return bytes_diff(before, after, "/dev/null" if before is None else f"a/{name}", f"b/{name}")
