"""``hurikaeri show ID`` for every id ``search`` prints that is not a KPT report or item.

Lessons, summaries, proposals, feedback, skills, patterns, anti-patterns, memory entries,
pieces, movements and discussions are found by :func:`store.lookup.find_thing`; the
text view lists what search indexes of the thing (the same labels as the search preview),
``--json`` adds the part of the file it comes from, as written there.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any

from store.read.textsafe import printable
from store.review.errors import ReviewError

if TYPE_CHECKING:
    from store.lookup import Thing
    from store.workspace import Workspace


def show_other(args: argparse.Namespace, ws: Workspace) -> bool:
    """Show ``args.id`` when it names something other than a KPT report or item.

    ``False`` when it names nothing else but a KPT report has that id (the caller shows
    the report); :class:`ReviewError` when nothing has it."""
    from store.lookup import KINDS_FOUND, AmbiguousId, find_thing, id_kinds, quoted_id

    ident = args.id.strip()
    try:
        thing = find_thing(ws, ident)
    except AmbiguousId as e:
        raise ReviewError(str(e)) from None
    if thing is None:
        if id_kinds(ident) is None and _is_report(ws, ident):
            return False
        kinds = ", ".join(k.replace("_", "-") for k in KINDS_FOUND)
        raise ReviewError(
            f"nothing has the id '{quoted_id(ident)}' (looked for a KPT report or item, "
            f"{kinds}; 'hurikaeri search' prints the ids)"
        )
    if args.json:
        json.dump(thing.as_json(), sys.stdout, ensure_ascii=False, indent=2, default=str)
        sys.stdout.write("\n")
    else:
        print(render_thing(thing, ws.display))
    return True


def _is_report(ws: Workspace, ident: str) -> bool:
    from store.review.errors import AmbiguousReport
    from store.review.items import find_report, split_ref

    try:
        find_report(ws, split_ref(ident)[0])
    except AmbiguousReport:
        return True  # said by show itself
    except ReviewError:
        return False
    return True


def render_thing(thing: Thing, display: Any) -> str:
    """A plain-text view: kind and id, title, where it is, then each field (control
    characters made visible; a multi-line value indented under its label)."""
    from pathlib import Path

    r = thing.record
    lines = [
        f"{r.kind}: {printable(r.id, keep_newlines=False)}",
        f"title: {printable(r.title, keep_newlines=False)}",
        f"path: {printable(display(Path(r.path)))}:{thing.line}",
    ]
    for label, value in (
        ("status", thing.status),
        ("date", r.date),
        ("project", r.project),
        ("session_id", r.session_id),
    ):
        if value:
            lines.append(f"{label}: {printable(value, keep_newlines=False)}")
    for label, value in zip(r.fields[0::2], r.fields[1::2], strict=True):
        if value == r.title:  # already the title line
            continue
        text = printable(value).rstrip("\n")
        if "\n" in text:
            lines.append(f"{label}:")
            lines.extend(f"  {line}" for line in text.splitlines())
        else:
            lines.append(f"{label}: {text}")
    return "\n".join(lines)
