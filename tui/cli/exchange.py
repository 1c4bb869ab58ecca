"""What comes in and goes out: ``import-wrapup`` appends a wrap-up input's summary and
lessons; ``export-feedback`` turns a KPT report into prompt-improver feedback."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from store.errors import cannot_read
from store.read.textsafe import printable
from tui.cli.errors import ALLOW_SECRET, JSON_WRITTEN, SubjectError, dump_json, flags
from tui.cli.history import recovered_note, tx_json

if TYPE_CHECKING:
    from store.workspace import Workspace


def add_exchange_parsers(sub: Any, common: argparse.ArgumentParser) -> None:
    imp = sub.add_parser(
        "import-wrapup", parents=[common], help="append a wrap-up input JSON's summary and lessons"
    )
    imp.set_defaults(run=cmd_import_wrapup)
    imp.add_argument(
        "file", metavar="FILE|-", help="the save-wrapup input JSON, or - for standard input"
    )
    flags(imp, json="print the new ids as JSON", allow_secret=ALLOW_SECRET)
    exp = sub.add_parser(
        "export-feedback", parents=[common], help="convert a KPT report to prompt-improver feedback"
    )
    exp.set_defaults(run=cmd_export_feedback)
    exp.add_argument("kpt_id", metavar="KPT_ID")
    flags(
        exp,
        dry_run="print the feedback, write nothing",
        force="export again even if already exported",
        json=JSON_WRITTEN,
    )


def read_input(name: str) -> tuple[str, str]:
    """The text of an input file (``-``: standard input) and its name for messages, as
    :func:`read_input_bytes` reads it, UTF-8 (a BOM is dropped)."""
    data, source = read_input_bytes(name)
    try:
        return data.decode("utf-8").removeprefix("\ufeff"), source
    except UnicodeDecodeError as exc:
        raise SubjectError(
            f"{source}: not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start})"
        ) from exc


def read_input_bytes(name: str) -> tuple[bytes, str]:
    """The bytes of an input file (``-``: standard input) and its name for messages: a
    regular file (a directory, a FIFO or a device is refused without waiting on it), at most
    MAX_DOCUMENT_BYTES. Anything else is a :class:`SubjectError`."""
    from store.read.textio import MAX_DOCUMENT_BYTES, NotReadable, read_regular

    source = "<stdin>" if name == "-" else name
    try:
        if name == "-":
            data = sys.stdin.buffer.read(MAX_DOCUMENT_BYTES + 1)
            if len(data) > MAX_DOCUMENT_BYTES:
                raise NotReadable("file-too-large", f"over {MAX_DOCUMENT_BYTES:,} bytes; not read")
        else:
            data, _ = read_regular(Path(name), MAX_DOCUMENT_BYTES)
    except NotReadable as exc:
        raise SubjectError(f"{source}: {exc}") from exc
    except (OSError, ValueError) as exc:
        raise SubjectError(cannot_read(source, exc)) from exc
    return data, source


def cmd_import_wrapup(args: argparse.Namespace, ws: Workspace) -> int:
    from store.ledger import Ledger
    from store.review.wrapup import import_wrapup

    text, source = read_input(args.file)
    ledger = Ledger(ws.state_dir)  # read once: recovery, then the import's own
    recovered_note(ws, ledger)
    plan = import_wrapup(ws, text, source, ledger=ledger, allow_secrets=args.allow_secret)
    ids = {
        "summary": plan.summary["id"],
        "user_lessons": [r["id"] for r in plan.user_lessons],
        "ai_lessons": [r["id"] for r in plan.ai_lessons],
        "summary_path": str(plan.summary_path),
        "already_imported": plan.already_imported,
        "already_there": sorted(plan.present),
    }
    if args.json:
        dump_json(tx_json(plan.tx, **ids))
    elif plan.already_imported:
        sid = printable(str(plan.summary.get("session_id")), keep_newlines=False)
        print(
            f"already imported: session {sid} is in "
            f"{plan.summary_path} as {ids['summary']} with its lessons; nothing written"
        )
    else:
        for rid in [ids["summary"], *ids["user_lessons"], *ids["ai_lessons"]]:
            where = f" to {plan.summary_path}" if rid == ids["summary"] else ""
            print(f"already there {rid}" if rid in plan.present else f"appended {rid}{where}")
    return 0


def cmd_export_feedback(args: argparse.Namespace, ws: Workspace) -> int:
    from store.review.feedback_export import export_feedback
    from store.write.roundtrip import new_yaml_document

    if not args.dry_run:
        recovered_note(ws)
    out = export_feedback(ws, args.kpt_id, force=args.force, dry_run=args.dry_run)
    if args.json:
        extra = {"feedback_id": out.feedback.get("id"), "feedback_path": str(out.feedback_path)}
        if args.dry_run:
            extra |= {"dry_run": True, "feedback": out.feedback}
        dump_json(tx_json(out.tx, **extra))
        return 0
    if args.dry_run:
        sys.stdout.write(printable(new_yaml_document(out.feedback).decode()))
        return 0
    print(f"wrote {out.feedback_path}; {args.kpt_id} now records generated_feedback_id")
    return 0
