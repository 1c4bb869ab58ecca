"""Reports that share an id, told apart by where they lie.

Each author's machine counts report ids from ``kpt-YYYYMMDD-001``, so in a team's workspace
two reports can carry one id. Their items must stay distinct: while an id is shared, an
item's key names the report's place too — ``kpt-20260208-001@3fa2c1/keep-001``, the six
hex digits being the start of the SHA-256 of the report's path as the workspace shows it
(``team/bob/hurikaeri/kpt-20260208-001.yaml``). A key without ``@`` is the plain
``KPT_ID/ITEM_ID`` of a report whose id is its own.

Every decision records the report's path (``loc``) beside its key, so a decision made while
the id was still unique stays with its report when another report with that id arrives
later (a ``git pull``). A report's state under a located key folds the lines of its plain
key that were made on it — by the located key, or with its path — and the lines that name
no place (written before places were recorded), which were always about every report of
that id. A report moved to another path is a new place: its earlier decisions stay under
the old one while the id is shared.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from store.workspace import Workspace

#: hex digits of the place in a located key
TAG_LEN = 6
_HEX = "0123456789abcdef"


def place_text(display: str) -> str:
    """A path as the ledger records it: UTF-8 always (a byte of a file name that is not
    UTF-8 is written ``\\xff``), the same text for the same path on every machine."""
    return display.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def loc_record(display: str | None) -> dict[str, str]:
    """What an effect on an item records of where its report lies (nothing when unknown)."""
    return {"loc": place_text(display)} if display else {}


def loc_tag(display: str) -> str:
    """The place of a report (its path as the workspace shows it) in a located key."""
    return hashlib.sha256(place_text(display).encode("utf-8")).hexdigest()[:TAG_LEN]


def report_key(report_id: str, display: str | None) -> str:
    """``KPT_ID`` located at ``display`` (``None``: the id is the report's own)."""
    return f"{report_id}@{loc_tag(display)}" if display is not None else report_id


def split_located(key: str) -> tuple[str, str] | None:
    """(the plain key, the place) of a located report or item key; ``None`` for any other.
    ``kpt-1@3fa2c1/keep-001`` → (``kpt-1/keep-001``, ``3fa2c1``); ``kpt-1@3fa2c1`` →
    (``kpt-1``, ``3fa2c1``)."""
    rid, at, rest = key.partition("@")
    if not at:
        return None
    place, slash, item = rest.partition("/")
    if len(place) != TAG_LEN or place.strip(_HEX) or not rid or "/" in rid or rid.isspace():
        return None
    return rid + slash + item, place


def plain_key(key: str) -> str:
    """The key without its place (any key that is not located: itself)."""
    got = split_located(key)
    return got[0] if got is not None else key


def place_of(target: str, data: Mapping[str, Any]) -> str | None:
    """Where a ledger line says its item's report lies: the place of a located key, else
    of the path it recorded; ``None`` for a line that names none."""
    got = split_located(target)
    if got is not None:
        return got[1]
    loc = data.get("loc")
    return loc_tag(loc) if isinstance(loc, str) and loc else None


def shared_ids(pairs: Iterable[tuple[str, str]]) -> dict[str, list[str]]:
    """Of (report id, path) pairs: each id two or more paths carry, with its paths sorted."""
    paths: dict[str, set[str]] = {}
    for rid, where in pairs:
        paths.setdefault(rid, set()).add(where)
    return {rid: sorted(p) for rid, p in paths.items() if len(p) > 1}


def shown_id(ws: Workspace, record_id: str, path: Path) -> str:
    """A report's or item's id as ``show`` takes it: located when a file named after the
    report id lies in another KPT directory too (the reports of a shared id, as the skill
    names them). Checked by name only, fast enough for every hit of a search; a located
    id always names the report at ``path``, so a guess never misleads."""
    rid, sep, rest = record_id.partition("/")
    if not rid.startswith("kpt-") or "@" in rid:
        return record_id
    named = (d / f"{rid}{ext}" for d in ws.locations["kpt"] for ext in (".yaml", ".yml"))
    if not any(p != path and p.is_file() for p in named):
        return record_id
    return report_key(rid, ws.display(path)) + sep + rest
