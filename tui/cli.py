"""The ``hurikaeri`` command line: the UI by default, subcommands for scripts and hooks.

Exit status, one rule for every command: 2 when the command line itself is wrong (an
unknown command or option, a missing argument, a value an option does not take: argparse
and :class:`UsageError`); 1 when what it names has problems (an unknown id, a path that is
not there, lint errors, a refused or declined write: :class:`SubjectError`,
``ReviewError``, a write error); 0 otherwise. Errors are one line on standard error, never
a traceback.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

# Only what building the parser and reporting errors need: each command imports its own
# modules when it runs, so `--help`, `--version` and the small commands hooks call after
# every session do not load the models, the insight code or the UI.
from store.config import ConfigError, load_config
from store.read.textsafe import printable
from store.review.errors import ReviewError
from store.workspace import Workspace
from tui.cli_history import (
    add_history_parsers,
    cmd_history,
    cmd_redo,
    cmd_undo,
    dump_json,
    recovered_note,
    tx_json,
)
from tui.cli_meta import add_meta_parser, cmd_meta
from tui.cli_search import add_search_parser, cmd_search
from tui.visible_output import visible_output

if TYPE_CHECKING:
    from store.ledger import Op
    from store.read.diagnostics import Diagnostic

PROG = "hurikaeri"
#: A try-item's persistence target types (``store.models.kpt.TARGET_TYPES``, which loads
#: pydantic: repeated here for the parser; a test keeps the two equal).
TARGET_TYPES = ("claude_md", "skill", "hook", "memory")


class UsageError(Exception):
    """The command line itself is wrong (exit status 2): an unknown command or option, a
    missing or malformed argument, a value the option does not take."""


class SubjectError(Exception):
    """What the command line names is not usable (exit status 1): a path that is not
    there or cannot be read, a config file that is broken."""


class _Version(argparse.Action):
    """``--version``: the version (:data:`store.__version__`)."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, help="print the version and exit")

    def __call__(self, parser: argparse.ArgumentParser, *_args: Any, **_kw: Any) -> NoReturn:
        from store import __version__

        print(f"{PROG} {__version__}")
        parser.exit(0)


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message} (see '{self.prog} --help')")


def _common(default: Any) -> _Parser:
    """``--root`` and ``--config``, accepted before and after the subcommand.

    The subcommands' copies default to ``SUPPRESS``: an option given before the subcommand
    is kept instead of being overwritten by the subparser's own default (argparse's
    behaviour with a shared parent)."""
    p = _Parser(add_help=False)
    p.add_argument(
        "--root",
        type=Path,
        default=default,
        help="workspace root (default: ~/.claude or the config's)",
    )
    p.add_argument(
        "--config",
        type=Path,
        default=default,
        help="config file (default: $HURIKAERI_CONFIG or the user config dir)",
    )
    return p


def build_parser() -> argparse.ArgumentParser:
    common = _common(argparse.SUPPRESS)
    parser = _Parser(
        prog=PROG,
        description="Review what AI coding agents learned: KPT reports, lessons, skills, proposals.",
        parents=[_common(None)],
    )
    parser.add_argument("--version", action=_Version)
    sub = parser.add_subparsers(dest="command", parser_class=_Parser)
    demo = sub.add_parser(
        "demo", parents=[common], help="open the UI on a fresh temporary copy of the demo workspace"
    )
    demo.add_argument(
        "--keep", action="store_true", help="keep the copy after the app closes (removed otherwise)"
    )
    lint = sub.add_parser(
        "lint", parents=[common], help="check the workspace, or the given files and directories"
    )
    lint.add_argument("paths", nargs="*", type=Path, metavar="PATH")
    lint.add_argument("--json", action="store_true", help="print diagnostics as a JSON list")
    show = sub.add_parser(
        "show",
        parents=[common],
        help="show anything by the id 'search' prints (a report or item with its review state)",
    )
    show.add_argument(
        "id",
        metavar="ID",
        help="KPT_ID, KPT_ID/ITEM_ID, a lesson (ll-…), summary (ws-…), proposal (prop-…), "
        "feedback (fb-…), skill, pattern, memory entry, piece, movement or discussion",
    )
    show.add_argument("--json", action="store_true", help="print it as JSON")
    show.add_argument(
        "--markdown",
        action="store_true",
        help="the whole session as Markdown (report, summary, lessons, decisions)",
    )
    show.add_argument("-o", "--output", type=Path, help="write the Markdown to this file")
    imp = sub.add_parser(
        "import-wrapup", parents=[common], help="append a wrap-up input JSON's summary and lessons"
    )
    imp.add_argument(
        "file", metavar="FILE|-", help="the save-wrapup input JSON, or - for standard input"
    )
    imp.add_argument("--json", action="store_true", help="print the new ids as JSON")
    imp.add_argument(
        "--allow-secret",
        action="store_true",
        help="write what the secret scan flags (when it is no real secret)",
    )
    exp = sub.add_parser(
        "export-feedback", parents=[common], help="convert a KPT report to prompt-improver feedback"
    )
    exp.add_argument("kpt_id", metavar="KPT_ID")
    exp.add_argument("--dry-run", action="store_true", help="print the feedback, write nothing")
    exp.add_argument("--force", action="store_true", help="export again even if already exported")
    exp.add_argument("--json", action="store_true", help="print what was written as JSON")
    for name, verb in (("approve", "approve"), ("reject", "reject")):
        p = sub.add_parser(
            name,
            parents=[common],
            help=f"{verb} KPT items (KPT_ID/ITEM_ID) or inbox proposals (PROPOSAL_ID)",
        )
        p.add_argument("ids", nargs="+", metavar="ID")
        p.add_argument("--note", help="a note kept with the decision")
        p.add_argument("--json", action="store_true", help="print what was written as JSON")
        if name == "approve":
            p.add_argument(
                "--yes",
                action="store_true",
                help="write proposals' targets without asking (stale ones included)",
            )
            p.add_argument(
                "--dry-run",
                action="store_true",
                help="print what approving would write; write nothing",
            )
            p.add_argument(
                "--allow-secret",
                action="store_true",
                help="write what the secret scan flags (when it is no real secret)",
            )
    add_history_parsers(sub, common)
    promote = sub.add_parser(
        "promote", parents=[common], help="write a try-item into its persistence target"
    )
    _item_args(promote)
    promote.add_argument("--dry-run", action="store_true", help="print the diff, write nothing")
    promote.add_argument("--yes", action="store_true", help="write without asking")
    promote.add_argument("--json", action="store_true", help="print what was written as JSON")
    promote.add_argument(
        "--near",
        choices=["replace", "keep-both", "skip"],
        help="what to do when a similar bullet is already there",
    )
    promote.add_argument(
        "--allow-secret",
        action="store_true",
        help="write what the secret scan flags (when it is no real secret)",
    )
    promote.add_argument(
        "--text",
        metavar="TEXT",
        help="the wording to write ('-': read it from standard input); without it, the rule "
        "made from the description (--dry-run shows it). For a memory target: the behavior",
    )
    promote.add_argument("--trigger", metavar="T", help="a memory entry's trigger")
    promote.add_argument("--reason", metavar="R", help="a memory entry's reason")
    match = sub.add_parser(
        "match", parents=[common], help="which knowledge-base skills would load for a task, scored"
    )
    match.add_argument("text", metavar="TEXT", help="the task's objective")
    match.add_argument(
        "--file",
        action="append",
        default=[],
        dest="files",
        metavar="F",
        help="a file the task modifies (repeatable)",
    )
    match.add_argument("--type", dest="task_type", metavar="T", help="the task type")
    match.add_argument("--json", action="store_true", help="print the kept skills as JSON")
    match.add_argument("--all", action="store_true", help="also list skills below the threshold")
    stats = sub.add_parser("stats", parents=[common], help="counts and effect metrics")
    stats.add_argument("--json", action="store_true", help="print them as JSON")
    add_meta_parser(sub, common)
    add_search_parser(sub, common)
    from tui.cli_targets import add_targets_parser  # argparse only: cheap to import

    add_targets_parser(sub, common)
    from tui.cli_evidence import add_evidence_parser  # argparse only: cheap to import

    add_evidence_parser(sub, common)
    from tui.cli_usage import add_usage_parser  # argparse only: cheap to import

    add_usage_parser(sub, common)
    from tui.cli_sync import add_sync_parser  # argparse only: cheap to import

    add_sync_parser(sub, common)
    from tui.cli_changes import add_changes_parsers  # argparse only: cheap to import

    add_changes_parsers(sub, common)
    serve = sub.add_parser(
        "serve", parents=[common], help="serve the app to a web browser (textual-serve)"
    )
    serve.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to bind (default: 127.0.0.1, this machine only)",
    )
    serve.add_argument("--port", type=int, default=8000, help="port (default: 8000)")
    retarget_p = sub.add_parser(
        "retarget", parents=[common], help="set a try-item's persistence target"
    )
    _item_args(retarget_p)
    retarget_p.add_argument(
        "--type",
        required=True,
        dest="type_",
        metavar="T",
        choices=TARGET_TYPES,
        help="claude_md, skill, hook or memory",
    )
    retarget_p.add_argument("--path", required=True, metavar="P")
    retarget_p.add_argument("--section", metavar="S")
    retarget_p.add_argument("--json", action="store_true", help="print what was written as JSON")
    from tui.cli_completion import add_completion_parser  # argparse only: cheap to import

    add_completion_parser(sub)
    return parser


def _item_args(p: argparse.ArgumentParser) -> None:
    """A try-item as ``KPT_ID/TRY_ID`` (as every other command names items) or ``KPT_ID TRY_ID``."""
    p.add_argument("kpt_id", metavar="KPT_ID[/TRY_ID]")
    p.add_argument("try_id", nargs="?", metavar="TRY_ID")


def item_ref(args: argparse.Namespace) -> str:
    """The ``KPT_ID/TRY_ID`` that :func:`_item_args` read, in either form."""
    if args.try_id is None:
        if "/" not in args.kpt_id.strip().strip("/"):
            raise UsageError(f"'{args.kpt_id}' names no item: give KPT_ID/TRY_ID or KPT_ID TRY_ID")
        return str(args.kpt_id)
    if "/" in args.kpt_id:
        raise UsageError(f"'{args.kpt_id} {args.try_id}': give KPT_ID/TRY_ID or KPT_ID TRY_ID")
    return f"{args.kpt_id}/{args.try_id}"


def demo_source() -> Path:
    import assets

    return Path(assets.__file__).parent / "demo"


def copy_demo() -> Path:
    target = Path(tempfile.mkdtemp(prefix="hurikaeri-demo-"))
    shutil.copytree(demo_source(), target, dirs_exist_ok=True, symlinks=True)
    _sign_demo_ledger(target / ".hurikaeri" / "ledger.jsonl")
    return target


def _sign_demo_ledger(path: Path) -> None:
    """The demo's decision log, as shipped, is hurikaeri's own: signed for this copy with
    this machine's key, so that its history can be undone in the demo like the person's
    own (a ledger line is acted on only when signed here: see the trust boundary). Only
    the copy ``demo`` has just made is signed; nothing else ever is."""
    from store import machine_key
    from store.read.jsonl import encode_record

    try:
        lines = path.read_bytes().splitlines(keepends=True)
    except OSError:
        return
    out = []
    for raw in lines:
        try:
            record = json.loads(raw)
        except ValueError:
            out.append(raw)
            continue
        if isinstance(record, dict):
            sig = machine_key.sign(path.parent, record)
            if sig is not None:
                record["sig"] = sig
                raw = encode_record(record)
        out.append(raw)
    path.write_bytes(b"".join(out))


def run_ui(workspace: Workspace) -> int:
    from store.ledger import set_channel
    from tui.app import create_app

    set_channel("app")  # what the app records, and what its undo takes back
    create_app(workspace).run()
    return 0


def cmd_lint(args: argparse.Namespace, ws: Workspace) -> int:
    from store.insight.lint import lint_paths, lint_workspace

    if not args.paths:
        default_root_check(args, ws)
    diags: list[Diagnostic] = list(lint_paths(args.paths, ws) if args.paths else lint_workspace(ws))
    if args.json:
        json.dump([d.as_dict() for d in diags], sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
    else:
        for d in diags:
            print(d.format())
        errors = sum(1 for d in diags if d.severity == "error")
        files = len({d.path for d in diags})
        print(
            f"{errors} error(s), {len(diags) - errors} warning(s) in {files} file(s)"
            if diags
            else "no problems found",
            file=sys.stderr,
        )
    return 1 if any(d.severity == "error" for d in diags) else 0


def default_root_check(args: argparse.Namespace, ws: Workspace) -> None:
    """The default root (no ``--root``, no ``root`` in the config) holds nothing of ours:
    a :class:`SubjectError` saying so and what to do, rather than "no problems found"."""
    if args.root is None and ws.config.root is None:
        why = ws.nothing_here()
        if why is not None:
            raise SubjectError(why)


def read_input(name: str) -> tuple[str, str]:
    """The text of an input file (``-``: standard input) and its name for messages:
    a regular file (a directory or a FIFO is refused without waiting on it), at most
    MAX_DOCUMENT_BYTES, UTF-8 (a BOM is dropped). Anything else is a :class:`SubjectError`."""
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
        raise SubjectError(
            f"{source}: cannot read: {getattr(exc, 'strerror', None) or exc}"
        ) from exc
    try:
        return data.decode("utf-8").removeprefix("\ufeff"), source
    except UnicodeDecodeError as exc:
        raise SubjectError(
            f"{source}: not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start})"
        ) from exc


def cmd_import_wrapup(args: argparse.Namespace, ws: Workspace) -> int:
    from store.ledger import Ledger
    from store.review.wrapup import import_wrapup

    text, source = read_input(args.file)
    # read once, its transactions alone: recovery, then the import's own (it decides nothing)
    ledger = Ledger(ws.state_dir, reports=())
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
        print(
            f"already imported: session {plan.summary.get('session_id')} is in "
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


def cmd_show(args: argparse.Namespace, ws: Workspace) -> int:
    from store.ledger import Ledger, report_of
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
    if not args.id.strip().startswith("kpt-"):  # a lesson, proposal, skill, … (tui/cli_show)
        from tui.cli_show import show_other

        if show_other(args, ws):
            return 0
    report_id, item_id = split_ref(args.id)
    ledger = Ledger(ws.state_dir, reports=[report_of(report_id)])  # its lines alone
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
        from tui.cli_evidence import evidence_json

        subject = report if item_id is None else it.report
        data["evidence"] = evidence_json(ws, subject, item_id)
        json.dump(data, sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
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
        lines.append(f"{key}: {printable(text)}")
    for item in items:
        state = item["state"]
        ref = item["ref"] or f"(no id: item {item['position']} of {item['section']})"
        lines.append(f"  [{state}] {ref}  {printable(str(item.get('description', '')))}")
        for d in item.get("decisions", []):  # a team's: each reviewer's, contested or not
            lines.append(f"      {d['state']} by {printable(str(d['by']))} at {d['at']}")
        if item.get("note"):
            lines.append(f"      note: {printable(item['note'])}")
    return "\n".join(lines)


def cmd_decide(args: argparse.Namespace, ws: Workspace, op: Op) -> int:
    from store.ledger import Ledger, report_of
    from store.review.items import decide_keys, find_item

    # the lines about what is decided on alone (and every transaction): not the whole fold
    ledger = Ledger(ws.state_dir, reports=[report_of(i.strip()) for i in args.ids])
    recovered_note(ws, ledger)
    as_json = getattr(args, "json", False)
    proposals: list[str] = []
    if any("/" not in i for i in args.ids):  # KPT_ID/ITEM_ID is no proposal: no inbox read
        from store.review.inbox import is_proposal_id

        proposals = [i for i in args.ids if is_proposal_id(ws, i)]
    if proposals:
        from store.review.inbox import decide_proposals, find_proposal, plan_decision

        if len(proposals) != len(args.ids):
            raise UsageError("decide on KPT items and proposals in separate commands")
        plans = [
            plan_decision(
                ws,
                find_proposal(ws, pid),
                "approve" if op == "approve" else "reject",
                args.note,
                allow_secrets=getattr(args, "allow_secret", False),
            )
            for pid in proposals
        ]
        for plan in plans:
            if plan.refused:
                raise ReviewError(f"{plan.ref.id}: {plan.refused}; nothing was written")
        writes = [p for p in plans if p.target is not None and p.after is not None]
        for plan in writes if not as_json else []:
            assert plan.target is not None
            label = ws.display(plan.target)
            print(f"# {plan.ref.id} → {label}" + (f"  (stale: {plan.stale})" if plan.stale else ""))
            sys.stdout.write(printable(plan.diff(label)))
        if getattr(args, "dry_run", False):
            if as_json:
                diffs = {p.ref.id: p.diff(ws.display(p.target)) for p in writes if p.target}
                dump_json(tx_json(None, dry_run=True, diffs=diffs))
            return 0
        if writes and not getattr(args, "yes", False):
            stale = [p for p in writes if p.stale]
            if not sys.stdin.isatty():
                raise ReviewError(
                    "not approved: confirm with --yes (no terminal to ask on)"
                    + (f"; {stale[0].ref.id} is stale: {stale[0].stale}" if stale else "")
                )
            shown = ", ".join(ws.display(p.target) for p in writes if p.target is not None)
            answer = input(f"Write {shown}{' (stale)' if stale else ''}? [y/N] ").strip().lower()
            if answer not in ("y", "yes"):
                raise ReviewError("not approved: declined")
        result = decide_proposals(ws, plans, allow_stale=True, ledger=ledger)
        if as_json:
            dump_json(tx_json(result, decided=[p.ref.id for p in plans]))
            return 0
        for plan in plans:
            where = f" → {plan.target}" if plan.target and op == "approve" else ""
            print(f"{op}d {plan.ref.id}{where}" if op.endswith("e") else f"{op}ed {plan.ref.id}")
        return 0
    items = [find_item(ws, r) for r in args.ids]  # every item found before anything is recorded
    result = decide_keys(ws, [it.key for it in items], op, args.note, ledger=ledger)
    if as_json:
        dump_json(tx_json(result, decided=[it.key for it in items]))
        return 0
    for it in items:
        print(f"{op}d {it.key}" if op.endswith("e") else f"{op}ed {it.key}")
    return 0


def cmd_promote(args: argparse.Namespace, ws: Workspace) -> int:
    from store.ledger import Ledger
    from store.review.items import find_item
    from store.review.promote import plan_promotion, promote_plans, section_title

    ledger = Ledger(ws.state_dir)
    ref = find_item(ws, item_ref(args))
    text = sys.stdin.read() if args.text == "-" else args.text
    entry = {k: v for k, v in (("trigger", args.trigger), ("reason", args.reason)) if v is not None}
    plan = plan_promotion(
        ws, ref, args.near, allow_secrets=args.allow_secret, text=text, entry=entry
    )
    shown = str(plan.target) if plan.target else plan.raw_path
    if plan.status == "refused":
        raise ReviewError(plan.message)
    if plan.status == "identical":
        print(f"{PROG}: nothing to write: {plan.message}", file=sys.stderr)
        return 0
    if plan.status == "near-duplicate":
        print(f"existing: {printable(plan.near_text or '')}\nnew:      {printable(plan.new_text)}")
        raise ReviewError(f"{plan.message}; choose with --near replace|keep-both|skip")
    if plan.status == "skip":
        print(f"{PROG}: {plan.message}", file=sys.stderr)
        return 0
    diff = plan.diff(ws.display(plan.target) if plan.target else shown)
    if args.json and args.dry_run:
        worded = {"entry": plan.entry} if plan.entry else {"text": plan.new_text}
        dump_json(tx_json(None, dry_run=True, path=shown, diff=diff, **worded))
        return 0
    if not args.json:
        print(f"# {plan.type} → {shown}  section: {plan.section or '-'}")
        for name, value in (plan.entry or {"text": plan.new_text}).items():
            print(f"# {name}: {printable(value)}")
        sys.stdout.write(printable(diff))
    if args.dry_run:
        return 0
    if not args.yes:
        if not sys.stdin.isatty():
            raise ReviewError("not promoted: confirm with --yes (no terminal to ask on)")
        answer = input(f"Write this to {shown}? [y/N] ").strip().lower()
        if answer not in ("y", "yes"):
            raise ReviewError("not promoted: declined")
    recovered_note(ws)
    result = promote_plans(ws, [plan], ledger=ledger)
    if args.json:
        dump_json(
            tx_json(result, promoted=ref.key, path=shown, section=plan.section, text=plan.new_text)
        )
        return 0
    print(f"promoted {ref.key} → {shown}#{section_title(plan.section)}")
    print(f"  as: {printable(plan.new_text)}")
    return 0


def cmd_retarget(args: argparse.Namespace, ws: Workspace) -> int:
    from store.review.items import find_item
    from store.review.retarget import retarget_item

    ref = find_item(ws, item_ref(args))
    recovered_note(ws)
    before, after, result = retarget_item(ws, ref, args.type_, args.path, args.section)
    if args.json:
        target = {"type": args.type_, "path": args.path, "section": args.section}
        dump_json(tx_json(result, item=ref.key, target=target))
    elif before == after:
        print(f"{PROG}: {ref.key} already has that target", file=sys.stderr)
    else:
        print(f"retargeted {ref.key} → {args.type_} {args.path} {args.section or ''}".rstrip())
    return 0


def cmd_match(args: argparse.Namespace, ws: Workspace) -> int:
    from store.insight.matching import MatchTask, all_scores, applicable_patterns, load_knowledge
    from store.insight.matching import match as match_skills

    knowledge = load_knowledge(ws)
    task = MatchTask(args.text, files=tuple(args.files), task_type=args.task_type)
    scores = all_scores(knowledge, task) if args.all else match_skills(knowledge, task)
    patterns = applicable_patterns(knowledge, task)
    if args.json:
        json.dump(
            [sc.as_dict() for sc in scores], sys.stdout, ensure_ascii=False, indent=2, default=str
        )
        sys.stdout.write("\n")
        return 0
    if not scores:
        print("no skill would load (none scores above 0.5)")
    for sc in scores:
        mark = "load" if sc.kept else "    "
        parts = (
            f"kw {sc.keyword_points:.1f} + files {sc.file_points:.1f} + type {sc.type_points:.1f}"
        )
        rate = f"× {sc.success_rate:.2f}{' (assumed)' if sc.success_rate_assumed else ''}"
        print(f"{mark} {sc.score:.2f}  {printable(sc.skill_id)}  ({parts} {rate})")
    for hit in patterns:
        print(
            f"{hit.kind}: {printable(hit.pattern_id)}  (matched: {printable(', '.join(hit.reasons))})"
        )
    return 0


def cmd_stats(args: argparse.Namespace, ws: Workspace) -> int:
    from store.index.workspace_index import WorkspaceIndex
    from store.insight.effect import as_json as effect_json
    from store.insight.effect import effect_metrics
    from store.insight.stats import workspace_counts, workspace_stats

    default_root_check(args, ws)
    index = WorkspaceIndex(ws)
    index.load_all()
    counts = workspace_counts(index)
    metrics = effect_metrics(index)
    figures = workspace_stats(index)
    if args.json:
        json.dump(
            {"counts": counts.as_dict(), **figures, "effect": effect_json(metrics)},
            sys.stdout,
            ensure_ascii=False,
            indent=2,
        )
        sys.stdout.write("\n")
        return 0
    print(
        f"sessions {counts.sessions} (KPT reports {counts.kpt_reports}), lessons {counts.lessons}"
    )
    print("items: " + ", ".join(f"{k} {v}" for k, v in counts.items.items()))
    print(f"inbox pending {counts.inbox_pending}, files with errors {counts.files_with_errors}")
    for label, figure in (
        ("outcomes per week", figures["outcomes_per_week"]),
        ("problem categories", figures["problem_categories"]),
        ("try-items", figures["try_items"]),
    ):
        if figure:  # a label with nothing after it says nothing (no KPT report yet)
            print(f"{label}: " + ", ".join(_figure(k, v) for k, v in figure.items()))
    for c in figures["recurring_problems"][:10]:
        after = {
            None: "",
            True: " — recurred after promotion",
            False: " — not seen since promotion",
        }[c["recurred_after_promotion"]]
        print(f"recurring ×{c['count']}: {printable(c['description'], keep_newlines=False)}{after}")
    print("effect metrics (seed 003):")
    for m in metrics:
        value = (
            "n/a"
            if m.value is None
            else (f"{m.value:.3f}" if isinstance(m.value, float) else str(m.value))
        )
        print(f"  {m.name:<40} {value:>10}  {printable(m.basis)}")
    return 0


def _figure(key: str, value: Any) -> str:
    """``2026-W45 f1/s3`` for a week's outcomes (each by its initial), ``bug 4`` for a count."""
    if isinstance(value, dict):
        return f"{key} " + "/".join(f"{k[0]}{v}" for k, v in sorted(value.items()))
    return f"{key} {value}"


def cmd_serve(args: argparse.Namespace, ws: Workspace) -> int:
    """The same app in a browser, behind a token and an Origin check (see tui.cli_serve)."""
    from tui.cli_serve import cmd_serve as serve

    return serve(args, ws)


def cmd_targets(args: argparse.Namespace, ws: Workspace) -> int:
    """The files agents load and their findings (see tui.cli_targets)."""
    from tui.cli_targets import cmd_targets as targets

    return targets(args, ws)


def cmd_evidence(args: argparse.Namespace, ws: Workspace) -> int:
    """A report's evidence checked against its transcript (see tui.cli_evidence)."""
    from tui.cli_evidence import cmd_evidence as evidence

    return evidence(args, ws)


def cmd_usage(args: argparse.Namespace, ws: Workspace) -> int:
    """Each rule's and skill's usage and effect (see tui.cli_usage)."""
    from tui.cli_usage import cmd_usage as usage

    return usage(args, ws)


def cmd_sync(args: argparse.Namespace, ws: Workspace) -> int:
    """Share the review through the workspace's git repository (see tui.cli_sync)."""
    from tui.cli_sync import cmd_sync as run_sync

    return run_sync(args, ws)


def cmd_changes(args: argparse.Namespace, ws: Workspace) -> int:
    """Changes since the last review, keep and revert (see tui.cli_changes)."""
    from tui import cli_changes

    run = {"changes": cli_changes.cmd_changes, "keep": cli_changes.cmd_keep}
    return run.get(args.command, cli_changes.cmd_revert)(args, ws)


def cmd_approve(args: argparse.Namespace, ws: Workspace) -> int:
    return cmd_decide(args, ws, "approve")


def cmd_reject(args: argparse.Namespace, ws: Workspace) -> int:
    return cmd_decide(args, ws, "reject")


COMMANDS: dict[str, Callable[[argparse.Namespace, Workspace], int]] = {
    "lint": cmd_lint,
    "show": cmd_show,
    "approve": cmd_approve,
    "reject": cmd_reject,
    "undo": cmd_undo,
    "redo": cmd_redo,
    "history": cmd_history,
    "promote": cmd_promote,
    "retarget": cmd_retarget,
    "import-wrapup": cmd_import_wrapup,
    "export-feedback": cmd_export_feedback,
    "search": cmd_search,
    "meta": cmd_meta,
    "serve": cmd_serve,
    "match": cmd_match,
    "stats": cmd_stats,
    "targets": cmd_targets,
    "evidence": cmd_evidence,
    "usage": cmd_usage,
    "sync": cmd_sync,
    "changes": cmd_changes,
    "keep": cmd_changes,
    "revert": cmd_changes,
}


#: The commands that decide or write as a person does: refused inside an agent's session
#: (:mod:`store.review.agents`), unless they only show what they would do (``--dry-run``).
#: ``sync`` publishes the person's decisions under their name.
PERSON_ONLY = frozenset(
    {"approve", "reject", "promote", "retarget", "undo", "redo", "keep", "revert", "sync"}
)


def main(argv: Sequence[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(argv)
        if args.command == "import-wrapup":  # reads no YAML: the loader is looked for only
            from importlib.util import find_spec

            c_loader = find_spec("_ruamel_yaml") is not None
        else:
            from store.read.yamlload import C_LOADER_AVAILABLE as c_loader
        if not c_loader:
            print(
                f"{PROG}: error: ruamel.yaml's C loader (ruamel.yaml.clib) is not installed; "
                "install it with 'pip install ruamel.yaml.clib' (or reinstall hurikaeri)",
                file=sys.stderr,
            )
            return 2
        if args.command == "completion":  # needs no config and no workspace
            from tui.cli_completion import cmd_completion

            return cmd_completion(build_parser(), args.shell)
        config = load_config(args.config)
        if args.command == "demo":
            root = copy_demo()  # the app's header shows where it is while it runs
            try:
                status = run_ui(Workspace(root, config))
            finally:
                if args.keep:
                    print(f"The demo workspace is kept at {root}", file=sys.stderr)
                else:
                    shutil.rmtree(root, ignore_errors=True)
                    print(f"Removed the demo copy {root} (--keep keeps it)", file=sys.stderr)
            return status
        if args.root is not None and not args.root.is_dir():
            raise SubjectError(f"--root {args.root}: not a directory")
        ws = Workspace.resolve(args.root, config)
        command = COMMANDS.get(args.command or "")
        person = args.command in PERSON_ONLY and not getattr(args, "dry_run", False)
        waived = getattr(args, "allow_secret", False)  # judging a hit no secret is a person's
        if person or waived:
            from store.review.agents import check_person

            what = args.command if person else f"{args.command} --allow-secret"
            check_person(what, config, os.environ)
        if command is not None:
            with visible_output():  # what they print comes from agents' files
                return command(args, ws)
        return run_ui(ws)
    except UsageError as exc:
        print(f"{PROG}: error: {printable(str(exc))}", file=sys.stderr)
        return 2
    except (SubjectError, ConfigError) as exc:
        print(f"{PROG}: error: {printable(str(exc))}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except Exception as exc:  # noqa: BLE001 - the promise is: never a traceback
        if isinstance(exc, ReviewError) or _is_write_error(exc):
            print(f"{PROG}: {printable(str(exc))}", file=sys.stderr)
        else:
            print(f"{PROG}: error: {type(exc).__name__}: {printable(str(exc))}", file=sys.stderr)
        return 1


def _is_write_error(exc: Exception) -> bool:
    """A refused or failed write (``store.write.atomic.WriteError``): only a command that
    imported that module can raise one, so it is not imported here to ask."""
    atomic = sys.modules.get("store.write.atomic")
    return atomic is not None and isinstance(exc, atomic.WriteError)
