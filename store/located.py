"""Reports that share an id (each machine counts from ``kpt-YYYYMMDD-001``), told apart by
where they lie: ``kpt-20260208-001@3fa2c1/keep-001`` names the hash of the report's path.
Every decision records the path, so it stays with its report when a namesake arrives."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from store.workspace import Workspace

TAG_LEN = 6
_HEX = "0123456789abcdef"


def place_text(display: str) -> str:
    """A path as the ledger records it: UTF-8 always (a non-UTF-8 byte written ``\\xff``)."""
    return display.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def loc_record(display: str | None) -> dict[str, str]:
    return {"loc": place_text(display)} if display else {}


def loc_tag(display: str) -> str:
    import hashlib  # (only a shared id's: a warm search imports none)

    return hashlib.sha256(place_text(display).encode("utf-8")).hexdigest()[:TAG_LEN]


def report_key(report_id: str, display: str | None) -> str:
    return f"{report_id}@{loc_tag(display)}" if display is not None else report_id


def split_located(key: str) -> tuple[str, str] | None:
    """``kpt-1@3fa2c1/keep-001`` → (``kpt-1/keep-001``, ``3fa2c1``); ``None``: not located."""
    rid, at, rest = key.partition("@")
    if not at:
        return None
    place, slash, item = rest.partition("/")
    if len(place) != TAG_LEN or place.strip(_HEX) or not rid or "/" in rid or rid.isspace():
        return None
    return rid + slash + item, place


def plain_key(key: str) -> str:
    got = split_located(key)
    return got[0] if got is not None else key


def place_of(target: str, data: Mapping[str, Any]) -> str | None:
    """Where a ledger line says its report lies: a located key's place, else its ``loc``'s."""
    got = split_located(target)
    if got is not None:
        return got[1]
    loc = data.get("loc")
    return loc_tag(loc) if isinstance(loc, str) and loc else None


def shown_id(ws: Workspace, record_id: str, path: Path) -> str:
    """A report's or item's id as ``show`` takes it: located when a file of that name lies
    in another KPT directory too (by name: fast, and a located id is never wrong)."""
    rid, sep, rest = record_id.partition("/")
    if not rid.startswith("kpt-") or "@" in rid:
        return record_id
    named = (d / f"{rid}{ext}" for d in ws.locations["kpt"] for ext in (".yaml", ".yml"))
    if not any(p != path and p.is_file() for p in named):
        return record_id
    return report_key(rid, ws.display(path)) + sep + rest
