"""Finding KPT reports and items by id, and deciding on them (shared by the UI and the CLI)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from store.ledger import DECISIONS, ItemState, Ledger, Op, item_key
from store.models import KptReport
from store.models.kpt import SECTIONS, KptItem
from store.read.kinds import Kind
from store.read.loader import load_file
from store.review.errors import ReviewError as ReviewError
from store.workspace import Workspace

if TYPE_CHECKING:
    from store.review.transactions import TxResult


@dataclass(slots=True)
class ItemRef:
    report_id: str
    item_id: str
    section: str
    item: KptItem
    report: KptReport
    path: Path

    @property
    def key(self) -> str:
        """The ledger key; :class:`ReviewError` when the item or its report has no id
        (decisions on it are refused rather than shared with every other id-less item)."""
        key = item_key(self.report_id, self.item_id)
        if key is None:
            raise ReviewError(missing_id(self.report, self.section, self.item, str(self.path)))
        return key


def item_position(report: KptReport, section: str, item: KptItem) -> int:
    """The item's place in its section, from 1 (0 when it is not there)."""
    for n, other in enumerate(report.section(section), 1):
        if other is item:
            return n
    return 0


def missing_id(report: KptReport, section: str, item: KptItem, where: str) -> str:
    """Why a decision on an item cannot be recorded: it (or its report) has no id.
    ``where`` names the report file, for a report that has no id itself."""
    if not report.id:
        return f"the report {where} has no id; give it one (E: edit the file) — lint reports it"
    n = item_position(report, section, item)
    return (
        f"item {n} of {section} in {report.id} has no id; give it one (e: edit) — lint reports it"
    )


def report_paths(ws: Workspace) -> Iterator[Path]:
    """Every KPT report's file (``discover`` lists them first: nothing else is walked)."""
    for f in ws.discover():
        if f.kind is not Kind.KPT:
            return
        yield f.path


def _report_candidates(ws: Workspace, report_id: str) -> Iterator[Path]:
    """Where the report ``report_id`` may be, likeliest first: the file named after it
    (``kpt-YYYYMMDD-NNN.yaml``, as the skill writes it), the file the index cache last saw
    it in, then every report's file."""
    for d in ws.locations["kpt"]:
        for ext in (".yaml", ".yml"):
            path = d / f"{report_id}{ext}"
            if path.is_file():
                yield path
    from store.index.cache import report_path_hint

    hint = report_path_hint(ws, report_id)
    found = ws.found(hint) if hint is not None else None
    if found is not None and found.kind is Kind.KPT:  # never a file the cache made up
        yield found.path
    yield from report_paths(ws)


def find_report(ws: Workspace, report_id: str) -> tuple[Path, KptReport]:
    """The report with this id: by its file name first, then where the index cache saw
    it, then by reading the reports (each file read once)."""
    tried: set[Path] = set()
    for path in _report_candidates(ws, report_id):
        if path in tried:
            continue
        tried.add(path)
        loaded = load_file(path, Kind.KPT, ws.display(path))
        if isinstance(loaded.doc, KptReport) and loaded.doc.id == report_id:
            return path, loaded.doc
    raise ReviewError(f"no KPT report with id '{report_id}' under {ws.loc('kpt')}")


def split_ref(ref: str) -> tuple[str, str | None]:
    report_id, _, item_id = ref.strip().partition("/")
    if not report_id:
        raise ReviewError(f"'{ref}' is not a report id (KPT_ID) or an item (KPT_ID/ITEM_ID)")
    return report_id, item_id or None


def find_item(ws: Workspace, ref: str) -> ItemRef:
    report_id, item_id = split_ref(ref)
    if item_id is None and not ref.strip().endswith("/"):
        raise ReviewError(f"'{ref}' names a report; name an item as KPT_ID/ITEM_ID")
    path, report = find_report(ws, report_id)
    if item_id is None:  # 'KPT_ID/': what an item without an id would be called
        for section, item in report.items():
            if not item.id:
                raise ReviewError(missing_id(report, section, item, str(path)))
        raise ReviewError(f"'{ref}' names no item; name an item as KPT_ID/ITEM_ID")
    for section, item in report.items():
        if item.id == item_id:
            return ItemRef(report_id, item_id, section, item, report, path)
    known = ", ".join(i.id for _s, i in report.items() if i.id) or "none"
    raise ReviewError(f"report '{report_id}' has no item '{item_id}' (items: {known})")


def decide(
    ws: Workspace, ledger: Ledger, refs: list[str], op: Op, note: str | None
) -> list[ItemRef]:
    """Approve, reject or reopen items (``KPT_ID/ITEM_ID``) as one transaction; all are
    found before anything is recorded."""
    items = [find_item(ws, r) for r in refs]
    decide_keys(ws, [it.key for it in items], op, note, ledger=ledger)
    return items


def decide_keys(
    ws: Workspace,
    keys: list[str],
    op: Op,
    note: str | None = None,
    *,
    action: str | None = None,
    ledger: Ledger | None = None,
    who: str | None = None,
) -> TxResult:
    """Approve, reject or reopen the items under these ledger keys as one transaction
    (one undo): a decision on one item, or ``action="approve-section"`` for every pending
    item of a section. Nothing but the review state changes."""
    from store.review.transactions import Effect, TxPlan, apply

    if op not in DECISIONS:
        raise ReviewError(f"'{op}' is not a decision ({', '.join(DECISIONS)})")
    if not keys:
        raise ReviewError("no item to decide on")
    effects = [Effect(op, k, note or None) for k in keys]
    return apply(
        ws,
        TxPlan(action or op, list(keys), effects=effects, note=note or None, who=who),
        ledger=ledger,
    )


def item_json(
    it_section: str, report_id: str, item: KptItem, st: ItemState, position: int = 0
) -> dict[str, Any]:
    """An item with its review state; ``ref`` is ``None`` for an item without an id (it
    has no decisions: see :func:`missing_id`), ``position`` its place in its section."""
    data = item.model_dump(mode="json", by_alias=True, exclude_none=True)
    return {
        "ref": item_key(report_id, item.id),
        "section": it_section,
        "position": position,
        "state": st.state,
        "note": st.note,
        "decided_at": st.at,
        "decided_by": st.who,
        **({"decisions": decisions_json(st)} if len(st.decisions) > 1 else {}),
        "promoted": st.promoted,
        **data,
    }


def decisions_json(st: ItemState) -> list[dict[str, Any]]:
    """Each reviewer's standing decision (two or more: a team; differing: contested)."""
    return [
        {"state": d.state, "by": d.who, "at": d.at, "note": d.note}
        for d in sorted(st.decisions.values(), key=lambda d: (d.at, d.who))
    ]


def report_json(path: Path, report: KptReport, ledger: Ledger) -> dict[str, Any]:
    data = report.model_dump(mode="json", by_alias=True, exclude_none=True)
    rid = report.id or ""
    items = []
    for sec, item in report.items():
        key = item_key(rid, item.id)
        st = ledger.state(key) if key else ItemState()
        items.append(item_json(sec, rid, item, st, item_position(report, sec, item)))
    for sec in SECTIONS:
        data.pop(sec, None)
    return {"path": str(path), **data, "items": items}
