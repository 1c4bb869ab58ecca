"""``hurikaeri show ID``: a KPT report or item with its review state (or the whole
session as Markdown), and every other id ``search`` prints (:func:`store.lookup.find_thing`)."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from store.errors import ReviewError
from store.read.textsafe import printable
from tui.cli.errors import SubjectError, dump_json, flags
from tui.cli.evidence import evidence_json

if TYPE_CHECKING:
    from store.lookup import Thing
    from store.workspace import Workspace


def add_show_parser(sub: Any, common: argparse.ArgumentParser) -> None:
    show = sub.add_parser(
        "show",
        parents=[common],
        help="show anything by the id 'search' prints (a report or item with its review state)",
    )
    show.set_defaults(run=cmd_show)
    show.add_argument(
        "id",
        metavar="ID",
        help="KPT_ID, KPT_ID/ITEM_ID, a lesson (ll-…), summary (ws-…), proposal (prop-…), "
        "feedback (fb-…), skill, pattern, memory entry, piece, movement or discussion",
    )
    flags(
        show,
        json="print it as JSON",
        markdown="the whole session as Markdown (report, summary, lessons, decisions)",
    )
    show.add_argument("-o", "--output", type=Path, help="write the Markdown to this file")


def cmd_show(args: argparse.Namespace, ws: Workspace) -> int:
    from store.ledger import Ledger
    from store.review.items import (
        ambiguous,
        find_item,
        find_report_at,
        item_json,
        item_position,
        report_json,
        split_ref,
    )

    if args.markdown:
        from store.index.workspace_index import WorkspaceIndex
        from store.insight.markdown_export import session_markdown
        from store.write.atomic import atomic_write, current_stamp
        from store.write.policy import export_file

        index = WorkspaceIndex(ws)
        index.load_all()
        report_id, _ = split_ref(args.id)
        shared = index.shared_ids().get(report_id)
        if shared:
            raise ambiguous(
                report_id, [index.ws.display(s.report.path) for s in shared if s.report]
            )
        session = index.find_report(report_id) or index.sessions.get(f"sid:{report_id}")
        if session is None:
            raise ReviewError(f"no session with report or session id '{report_id}'")
        text = session_markdown(index, session)
        if args.output:
            out = Path(os.path.abspath(args.output))
            if not out.parent.is_dir():
                raise SubjectError(f"-o {args.output}: the directory {out.parent} does not exist")
            guard = export_file(ws)
            guard(out)  # before anything is read: a FIFO there is never opened
            atomic_write(out, text.encode("utf-8"), current_stamp(out), guard=guard)
            print(f"wrote {out}")
        else:
            sys.stdout.write(printable(text))
        return 0
    if not args.id.strip().startswith("kpt-") and show_other(args, ws):  # a lesson, skill, …
        return 0
    report_id, item_id = split_ref(args.id)
    ledger = Ledger(ws.state_dir)
    if item_id is None:
        at = find_report_at(ws, report_id)
        path, report = at.path, at.report
        data = report_json(path, report, ledger, at.key)
    else:
        it = find_item(ws, args.id)
        data = {
            "path": str(it.path),
            **item_json(
                it.section,
                it.key.partition("/")[0],
                it.item,
                ledger.state(it.key),
                item_position(it.report, it.section, it.item),
            ),
        }
    if args.json:
        subject = report if item_id is None else it.report
        data["evidence"] = evidence_json(ws, subject, item_id)
        dump_json(data)
    else:
        print(render_show(data, item_id is None))
    return 0


def render_show(data: dict[str, Any], is_report: bool) -> str:
    """A plain-text view of a report or an item (control characters made visible)."""
    lines: list[str] = []
    items: list[dict[str, Any]] = data.pop("items", []) if is_report else []
    for key, value in data.items():
        if value in (None, [], {}):
            continue
        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        lines.append(f"{key}: {printable(text, keep_newlines=False)}")  # one line per key
    for item in items:
        state = item["state"]
        ref = item["ref"] or f"(no id: item {item['position']} of {item['section']})"
        row = f"{ref}  {item.get('description', '')}"  # one line: no agent text starts a row
        lines.append(f"  [{state}] {printable(row, keep_newlines=False)}")
        for d in item.get("decisions", []):  # a team's: each reviewer's, contested or not
            said = f"{d['state']} by {d['by']} at {d['at']}"  # (a ledger's: agents write there)
            lines.append(f"      {printable(said, keep_newlines=False)}")
        if item.get("note"):
            lines.append(f"      note: {printable(item['note'], keep_newlines=False)}")
    return "\n".join(lines)


def show_other(args: argparse.Namespace, ws: Workspace) -> bool:
    """Show ``args.id`` when it names something other than a KPT report or item; ``False``
    when only a KPT report has that id; :class:`ReviewError` when nothing has it."""
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
        dump_json(thing.as_json())
    else:
        print(render_thing(thing, ws.display))
    return True


def _is_report(ws: Workspace, ident: str) -> bool:
    from store.errors import AmbiguousReport
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
