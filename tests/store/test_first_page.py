"""The sessions list's first page kept for the next start: read back as written, and
anything unexpected in the file read as no page at all (it is drawn before any check)."""

from __future__ import annotations

import json
from pathlib import Path

from store.index import first_page
from store.workspace import Workspace


def _row(n: int) -> dict[str, str]:
    return {
        "key": f"sid:s{n}",
        "date": "2026-01-02",
        "project": "api",
        "outcome": "success",
        "kpto": "1/2/3/0",
        "review": f"{n}/3",
        "title": f"[bold]session {n}[/bold] \x1b[31m",
    }


def test_written_rows_read_back(tmp_path: Path) -> None:
    ws = Workspace(tmp_path)
    rows = [_row(n) for n in range(first_page.ROWS + 5)]
    assert first_page.write(ws, rows)
    assert first_page.read(ws) == rows[: first_page.ROWS]
    first_page.page_path(ws).unlink()
    assert first_page.read(ws) == []


def test_a_title_with_a_lone_surrogate_reads_back(tmp_path: Path) -> None:
    """JSON lets an agent write ``"\\ud800"`` in a summary: the page is kept all the same."""
    ws = Workspace(tmp_path)
    rows = [_row(1), {**_row(2), "title": "zap \ud800 title"}]
    assert first_page.write(ws, rows)
    assert first_page.read(ws) == rows


def test_anything_unexpected_is_no_page(tmp_path: Path) -> None:
    ws = Workspace(tmp_path)
    assert first_page.read(ws) == []  # no file
    path = first_page.page_path(ws)
    path.parent.mkdir(parents=True, exist_ok=True)
    good = {"format": first_page.NAME, "rows": [list(_row(1).values())]}
    for doc in (
        b"{not json",
        json.dumps({**good, "format": "first-page-v0.json"}).encode(),
        json.dumps({**good, "rows": [[1, 2, 3, 4, 5, 6, 7]]}).encode(),
        json.dumps({**good, "rows": [["too", "short"]]}).encode(),
        json.dumps({**good, "rows": "x"}).encode(),
        json.dumps([good]).encode(),
        b" " * (first_page.MAX_BYTES + 1),
    ):
        path.write_bytes(doc)
        assert first_page.read(ws) == []
    path.write_bytes(json.dumps(good).encode())
    assert first_page.read(ws) == [_row(1)]
