"""``hurikaeri meta``: the seed-002 block ending an agent's reply, as JSON (the seed's
``codex_extract_metadata``, ``codex_get_status``, ``codex_get_verdict``). Exit status 1 when
the block has errors (the JSON printed all the same) or the file cannot be read."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from store.models.reply_terms import REPLY_KINDS, ReplyKind
from store.read.textsafe import printable
from tui.cli.errors import PROG, dump_json

if TYPE_CHECKING:  # imported by cmd_meta: the parser is built without the models
    from store.read.diagnostics import DiagnosticSink
    from store.workspace import Workspace

FIELDS = (
    "status",
    "verdict",
    "findings",
    "open_questions",
    "decisions",
    "blockers",
    "next_steps",
    "extra",
    "source",
    "kind",
)


def add_meta_parser(sub: Any, common: argparse.ArgumentParser) -> None:
    meta = sub.add_parser(
        "meta",
        parents=[common],
        help="print the YAML block between '---' lines ending an agent's reply as JSON",
    )
    meta.set_defaults(run=cmd_meta)
    meta.add_argument(
        "file",
        nargs="?",
        default="-",
        metavar="FILE",
        help="the reply (a Markdown file); '-' or nothing reads standard input",
    )
    meta.add_argument(
        "--kind",
        choices=REPLY_KINDS,
        help="review or discussion: decides the fallback status (default: guessed from the text)",
    )
    meta.add_argument(
        "--field",
        choices=FIELDS,
        help="print only this value (lists one item per line, findings as JSON lines)",
    )


def _read(name: str, sink: DiagnosticSink) -> str | None:
    from store.read.textio import MAX_DOCUMENT_BYTES, decode, looks_binary, read_text

    if name == "-":
        data = sys.stdin.buffer.read(MAX_DOCUMENT_BYTES + 1)
        if len(data) > MAX_DOCUMENT_BYTES:
            sink.error("file-too-large", f"input over {MAX_DOCUMENT_BYTES:,} bytes is not read")
            return None
        if looks_binary(data):
            sink.error("binary-file", "input contains NUL bytes: it is binary, not text")
            return None
        return decode(data, sink)
    return read_text(Path(name), sink).text


def _field_lines(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, list):
        return [
            json.dumps(v, ensure_ascii=False) if isinstance(v, dict) else printable(str(v))
            for v in value
        ]
    if isinstance(value, dict):
        return [json.dumps(value, ensure_ascii=False)] if value else []
    return [printable(str(value))]


def cmd_meta(args: argparse.Namespace, ws: Workspace | None = None) -> int:
    """Run ``meta``; ``ws`` is unused (the reply need not be in a workspace)."""
    from store.read.diagnostics import DiagnosticSink
    from store.read.metadata_block import parse_reply, reply_json

    name = str(args.file)
    if name != "-" and not Path(name).exists():
        print(f"{PROG}: error: {name}: no such file", file=sys.stderr)
        return 1
    sink = DiagnosticSink("<stdin>" if name == "-" else name)
    text = _read(name, sink)
    if text is None:
        for d in sink.items:
            print(f"{PROG}: {printable(d.format(), keep_newlines=False)}", file=sys.stderr)
        return 1
    kind: ReplyKind | None = args.kind
    reply = parse_reply(text, sink, kind)
    data = reply_json(reply, sink.items)
    if args.field:
        for line in _field_lines(data[args.field]):
            print(line)
    else:
        dump_json(data)
    for d in sink.items:
        print(printable(d.format(), keep_newlines=False), file=sys.stderr)
    return 1 if any(d.severity == "error" for d in sink.items) else 0
