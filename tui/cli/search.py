"""``hurikaeri search QUERY``: the search index from the command line.

Nothing here imports the models, so a warm search starts quickly; ``main`` is a standalone
entry with the same arguments (``python -m tui.cli.search``, and :mod:`tui.launch`).
Exit status 0 with hits, 1 with none, 2 for a malformed query.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

from store.models.kpt_terms import SECTIONS
from store.read.counted import counted
from store.read.textsafe import printable
from tui.cli.errors import (
    PROG,
    Parser,
    SubjectError,
    at_least,
    common_options,
    dump_json,
    failed,
    flags,
)

#: hits whose id names a report (located when the report's id is shared)
SHOWN_LOCATED = ("report", *SECTIONS)
DEFAULT_LIMIT = 20


def add_search_parser(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "search",
        parents=[common],
        help='fuzzy search across everything (words, "phrases", kind: project: tag: ... filters)',
        description=(
            'Words match fuzzily and must all match; "quoted phrases" match as written; '
            "filters: kind: project: outcome: scope: category: status: tag: impact: "
            "after:YYYY-MM[-DD] before:YYYY-MM[-DD]; a leading - negates (-kind:lesson). "
            "Put -- before a query that starts with -."
        ),
    )
    p.set_defaults(run=cmd_search)
    p.add_argument("query", nargs="+", metavar="QUERY", help="the query (several words are joined)")
    p.add_argument(
        "--limit",
        type=at_least(1),
        default=DEFAULT_LIMIT,
        metavar="N",
        help="hits to print (default 20)",
    )
    flags(
        p,
        json="print the hits as a JSON list, best first",
        rebuild="ignore the cache and index everything again",
    )


def _with_evidence(ws: Any, text: str) -> Any:
    """``text``, or with an ``evidence:`` filter the query with the records it stands for
    (the workspace read and every report's evidence checked: cached under .hurikaeri/)."""
    from store.search.query import evidence_query, with_evidence

    query = evidence_query(text)
    if query is None:
        return text
    from store.index.workspace_index import WorkspaceIndex
    from store.insight.evidence_cache import evidence_for

    wi = WorkspaceIndex(ws)
    wi.load_all()
    states = evidence_for(wi).update()
    return with_evidence(query, states.record_values() if states is not None else {})


def cmd_search(args: argparse.Namespace, ws: Any) -> int:
    """Run a search for parsed ``args`` on the workspace ``ws``."""
    from store.search.engine import SearchResult
    from store.search.facade import open_index

    text = " ".join(args.query)
    limit = max(1, int(args.limit))
    if args.rebuild:
        _drop_cache(ws)

    def ledger() -> Any:
        from store.ledger import Ledger

        return Ledger(ws.state_dir)

    progress = _progress if sys.stderr.isatty() else None
    query = _with_evidence(ws, text)
    index, _stats = open_index(ws, progress=progress)
    result: SearchResult = index.search(query, limit, ledger=ledger, spans=False)
    if progress is not None:
        sys.stderr.write("\r\x1b[K")
    if result.error is not None:
        print(f"{PROG}: error: {result.error.message}", file=sys.stderr)
        return 2
    from store.located import shown_id
    from store.search.facade import resolve_line

    def shown(hit: Any) -> str:
        return shown_id(ws, hit.id, Path(hit.path)) if hit.kind in SHOWN_LOCATED else hit.id

    if args.json:
        data = [{**hit.as_json(resolve_line(hit.record)), "id": shown(hit)} for hit in result.hits]
        dump_json(data)
    else:
        for hit in result.hits:
            where = f"{hit.path}:{resolve_line(hit.record)}"
            count = f"  ×{hit.count}" if hit.count > 1 else ""
            title = printable(hit.title, keep_newlines=False)
            head, where = (printable(s, keep_newlines=False) for s in (shown(hit), where))
            print(f"{hit.kind:<12} {head}{count}\n    {title}\n    {where}")
        about = "" if result.exact else "about "
        print(
            f"{len(result.hits)} of {about}{counted(result.total, 'match', 'matches')}",
            file=sys.stderr,
        )
    return 0 if result.hits else 1


def _drop_cache(ws: Any) -> None:
    import shutil

    from store.search.index import DIR_NAME

    shutil.rmtree(ws.state_dir / DIR_NAME, ignore_errors=True)


def _progress(done: int, total: int) -> None:
    sys.stderr.write(f"\rindexing {done}/{counted(total, 'file')}…")
    sys.stderr.flush()


def main(argv: Sequence[str] | None = None) -> int:
    """``hurikaeri search`` on its own (the same arguments, exit codes and messages)."""
    from store.config import load_config
    from store.workspace import Workspace
    from tui.visible_output import visible_output

    parser = Parser(prog=PROG)
    sub = parser.add_subparsers(dest="command", required=True, parser_class=Parser)
    add_search_parser(sub, common_options(Parser, None))
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] != "search":
        argv = ["search", *argv]
    try:
        args = parser.parse_args(argv)
        if args.root is not None and not args.root.is_dir():
            raise SubjectError(f"--root {args.root}: not a directory")
        ws = Workspace.resolve(args.root, load_config(args.config))
        with visible_output():  # hits carry agents' text
            return cmd_search(args, ws)
    except (Exception, KeyboardInterrupt) as exc:  # noqa: BLE001 - never a traceback
        return failed(exc)


def run(argv: Sequence[str] | None = None) -> NoReturn:
    """:func:`main` as a process of its own, without cycle collection: a cold build leaves a
    few hundred objects in cycles, a warm search's collections cost 3-5 ms, the exit's ~9."""
    import gc

    gc.disable()
    code = main(argv)
    gc.freeze()  # (the exit collects even so)
    sys.exit(code)


if __name__ == "__main__":
    run()
