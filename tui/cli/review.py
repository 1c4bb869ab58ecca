"""The review decisions: ``approve`` and ``reject`` (KPT items or inbox proposals),
``promote`` (a try-item into its persistence target) and ``retarget``. Each writes as a
person does: refused inside an agent's session (``PERSON_ONLY`` in :mod:`tui.cli.main`)."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from store.errors import ReviewError
from store.models.kpt_terms import TARGET_TYPES
from store.read.textsafe import printable
from tui.cli.errors import ALLOW_SECRET, JSON_WRITTEN, PROG, UsageError, dump_json, flags
from tui.cli.history import recovered_note, tx_json

if TYPE_CHECKING:
    from store.review.inbox import Decision
    from store.workspace import Workspace


def add_review_parsers(sub: Any, common: argparse.ArgumentParser) -> None:
    for name in ("approve", "reject"):
        p = sub.add_parser(
            name,
            parents=[common],
            help=f"{name} KPT items (KPT_ID/ITEM_ID) or inbox proposals (PROPOSAL_ID)",
        )
        p.set_defaults(run=cmd_decide)
        p.add_argument("ids", nargs="+", metavar="ID")
        p.add_argument("--note", help="a note kept with the decision")
        flags(p, json=JSON_WRITTEN)
        if name == "approve":
            flags(
                p,
                yes="write proposals' targets without asking (stale ones included)",
                dry_run="print what approving would write; write nothing",
                allow_secret=ALLOW_SECRET,
            )
    promote = sub.add_parser(
        "promote", parents=[common], help="write a try-item into its persistence target"
    )
    promote.set_defaults(run=cmd_promote)
    _item_args(promote)
    flags(
        promote,
        dry_run="print the diff, write nothing",
        yes="write without asking",
        json=JSON_WRITTEN,
    )
    promote.add_argument(
        "--near",
        choices=["replace", "keep-both", "skip"],
        help="what to do when a similar bullet is already there",
    )
    flags(promote, allow_secret=ALLOW_SECRET)
    promote.add_argument(
        "--text",
        metavar="TEXT",
        help="the wording to write ('-': read it from standard input); without it, the rule "
        "made from the description (--dry-run shows it). For a memory target: the behavior",
    )
    promote.add_argument("--trigger", metavar="T", help="a memory entry's trigger")
    promote.add_argument("--reason", metavar="R", help="a memory entry's reason")
    retarget_p = sub.add_parser(
        "retarget", parents=[common], help="set a try-item's persistence target"
    )
    retarget_p.set_defaults(run=cmd_retarget)
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
    flags(retarget_p, json=JSON_WRITTEN)


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


def cmd_decide(args: argparse.Namespace, ws: Workspace) -> int:
    """``approve`` and ``reject`` (``args.command``)."""
    from store.ledger import Ledger
    from store.review.items import decide

    op: Decision = args.command
    done = {"approve": "approved", "reject": "rejected"}[op]
    ledger = Ledger(ws.state_dir)
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
                op,
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
            stale = next((p for p in writes if p.stale), None)
            shown = ", ".join(ws.display(p.target) for p in writes if p.target is not None)
            why = f"; {stale.ref.id} is stale: {stale.stale}" if stale else ""
            _confirm(f"Write {shown}{' (stale)' if stale else ''}?", "approved", why)
        result = decide_proposals(ws, plans, allow_stale=True, ledger=ledger)
        if as_json:
            dump_json(tx_json(result, decided=[p.ref.id for p in plans]))
            return 0
        for plan in plans:
            where = f" → {plan.target}" if plan.target and op == "approve" else ""
            print(f"{done} {plan.ref.id}{where}")
        return 0
    items, result = decide(ws, ledger, args.ids, op, args.note)
    if as_json:
        dump_json(tx_json(result, decided=[it.key for it in items]))
        return 0
    for it in items:
        print(f"{done} {it.key}")
    return 0


def _confirm(question: str, verb: str, why: str = "") -> None:
    """Go on when the person answers yes on the terminal, else a :class:`ReviewError`."""
    if not sys.stdin.isatty():
        raise ReviewError(f"not {verb}: confirm with --yes (no terminal to ask on){why}")
    if input(f"{question} [y/N] ").strip().lower() not in ("y", "yes"):
        raise ReviewError(f"not {verb}: declined")


def cmd_promote(args: argparse.Namespace, ws: Workspace) -> int:
    from store.ledger import Ledger
    from store.review.items import find_item
    from store.review.promote import plan_promotion, promote_plans, section_title
    from tui.cli.exchange import read_input

    ledger = Ledger(ws.state_dir)
    ref = find_item(ws, item_ref(args))
    text = read_input("-")[0] if args.text == "-" else args.text  # bounded, UTF-8
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
        _confirm(f"Write this to {shown}?", "promoted")
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
    from store.review.retarget import retarget_items

    ref = find_item(ws, item_ref(args))
    recovered_note(ws)
    result = retarget_items(ws, [ref], args.type_, args.path, args.section)
    if args.json:
        target = {"type": args.type_, "path": args.path, "section": args.section}
        dump_json(tx_json(result, item=ref.key, target=target))
    elif result is None:
        print(f"{PROG}: {ref.key} already has that target", file=sys.stderr)
    else:
        print(f"retargeted {ref.key} → {args.type_} {args.path} {args.section or ''}".rstrip())
    return 0
