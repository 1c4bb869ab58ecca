"""The sessions list's first page as last shown, drawn at a start before anything is read;
anything unexpected reads as no page, cells are shown literally."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Any

from store.workspace import Workspace
from store.write.atomic import replace_file

NAME = "first-page-v1.json"
#: Rows kept: more than any terminal shows at once.
ROWS = 120
#: A larger file is not read (a page of ROWS rows is a few tens of kilobytes).
MAX_BYTES = 1 << 20
#: The fields of a row, each a string: the session's key first.
FIELDS = ("key", "date", "project", "outcome", "kpto", "review", "title")


def page_path(ws: Workspace) -> Path:
    return ws.state_dir / NAME


def read(ws: Workspace) -> list[dict[str, str]]:
    """The rows kept last time; ``[]`` when none or not what this version writes."""
    try:
        with open(page_path(ws), "rb") as fh:
            data = fh.read(MAX_BYTES + 1)
    except OSError:
        return []
    if len(data) > MAX_BYTES:
        return []
    try:
        doc = json.loads(data)
    except ValueError:
        return []
    rows = doc.get("rows") if isinstance(doc, dict) and doc.get("format") == NAME else None
    if not isinstance(rows, list):
        return []
    rows = rows[:ROWS]
    for row in rows:
        if not isinstance(row, list) or len(row) != len(FIELDS):
            return []
        if not all(isinstance(cell, str) for cell in row):
            return []
    return [dict(zip(FIELDS, row, strict=True)) for row in rows]


def write(ws: Workspace, rows: list[dict[str, Any]]) -> bool:
    """Keep the first :data:`ROWS` of ``rows``; ``False`` when it could not be written."""
    doc = {
        "format": NAME,
        "rows": [[str(row.get(f, "")) for f in FIELDS] for row in rows[:ROWS]],
    }
    text = json.dumps(doc, ensure_ascii=False, separators=(",", ":"))
    # (a lone surrogate, which JSON lets an agent write, as its \\u escape: read back the same)
    data = text.encode("utf-8", "backslashreplace")
    with contextlib.suppress(OSError):
        replace_file(page_path(ws), [data])
        return True
    return False
