"""A small cache file of ours: a header naming its format, version and the SHA-256 of the JSON
body; anything else reads as empty, and writing never fails the caller."""

from __future__ import annotations

import contextlib
import hashlib
import json
from pathlib import Path
from typing import Any

from store.write.atomic import replace_file


def read_state(path: Path, fmt: str, version: int) -> dict[str, dict[str, Any]]:
    """The entries of ``path`` (a JSON object of objects), or ``{}`` when it is not one of
    ours, of this version, whole."""
    try:
        raw = path.read_bytes()
    except OSError:
        return {}
    head, _, body = raw.partition(b"\n")
    try:
        header = json.loads(head)
        ok = (
            isinstance(header, dict)
            and header.get("format") == fmt
            and header.get("version") == version
            and header.get("sha256") == hashlib.sha256(body).hexdigest()
        )
        entries = json.loads(body) if ok else None
    except (ValueError, RecursionError):
        return {}
    if not isinstance(entries, dict):
        return {}
    return {k: v for k, v in entries.items() if isinstance(v, dict)}


def write_state(path: Path, fmt: str, version: int, entries: dict[str, Any]) -> bool:
    """Write ``entries`` atomically with their header; False when it could not be written."""
    body = json.dumps(entries, ensure_ascii=False, separators=(",", ":")).encode()
    header = {"format": fmt, "version": version, "sha256": hashlib.sha256(body).hexdigest()}
    with contextlib.suppress(OSError):
        replace_file(path, [json.dumps(header).encode(), b"\n", body])
        return True
    return False
