"""Finding KPT reports and items by id, and deciding on them (shared by the UI and the CLI)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from store.errors import AmbiguousReport
from store.errors import ReviewError as ReviewError
from store.ledger import DECISIONS, ItemState, Ledger, Op, item_key
from store.located import loc_record, loc_tag, report_key, split_located
from store.models import KptReport
from store.models.kpt import SECTIONS, KptItem
from store.read.kinds import Kind
from store.read.loader import load_file
from store.workspace import Workspace

if TYPE_CHECKING:
    from store.tx.transactions import TxResult


@dataclass(slots=True)
class ItemRef:
    report_id: str
    item_id: str
    section: str
    item: KptItem
    report: KptReport
    path: Path
    #: the report's path as the workspace shows it (recorded with every decision)
    loc: str = ""
    #: another report carries the same id: the key names the report's place too
    shared: bool = False

    @property
    def key(self) -> str:
        """The ledger key (located when the report's id is shared); :class:`ReviewError` when the
        item or its report has no id."""
        rkey = report_key(self.report_id, self.loc if self.shared else None)
        key = item_key(rkey, self.item_id) if self.report_id else None
        if key is None:
            raise ReviewError(missing_id(self.report, self.section, self.item, str(self.path)))
        return key


def item_position(report: KptReport, section: str, item: KptItem) -> int:
    """The item's place in its section, from 1 (0 when it is not there)."""
    return next((n for n, o in enumerate(report.section(section), 1) if o is item), 0)


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


def _report_candidates(ws: Workspace, report_id: str) -> Iterator[Path | None]:
    """Where the report may be, likeliest first: files named after it, the index cache's hint,
    then (after ``None``) every report's file."""
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
    yield None  # the likely places end here
    yield from report_paths(ws)


@dataclass(frozen=True, slots=True)
class FoundReport:
    path: Path
    report: KptReport
    #: the path as the workspace shows it
    loc: str
    #: another report was found with the same id
    shared: bool

    @property
    def key(self) -> str:
        """``KPT_ID``, located (``KPT_ID@PLACE``) when the id is shared."""
        return report_key(self.report.id or "", self.loc if self.shared else None)


def find_reports(
    ws: Workspace, report_id: str, *, every: bool = False
) -> list[tuple[Path, KptReport]]:
    """The reports with this id where they are likely to be, else the first found by reading
    every report (``every``: all of them)."""
    tried: set[Path] = set()
    out: list[tuple[Path, KptReport]] = []
    likely = True
    for path in _report_candidates(ws, report_id):
        if path is None:  # the likely places end here
            if out and not every:
                break
            likely = False
            continue
        if path in tried:
            continue
        tried.add(path)
        loaded = load_file(path, Kind.KPT, ws.display(path))
        if isinstance(loaded.doc, KptReport) and loaded.doc.id == report_id:
            out.append((path, loaded.doc))
            if not likely and not every:
                break
    return out


def find_report_at(ws: Workspace, ref: str) -> FoundReport:
    """The report ``KPT_ID`` or ``KPT_ID@PLACE`` (``store.located``); a shared id named without
    its place is refused."""
    got = split_located(ref)
    report_id, place = got if got is not None else (ref, None)
    found = [(p, r, ws.display(p)) for p, r in find_reports(ws, report_id)]
    if not found:
        from store.lookup import quoted_id

        raise ReviewError(f"no KPT report with id '{quoted_id(report_id)}' under {ws.loc('kpt')}")
    shared = len(found) > 1
    if place is not None:
        if not any(loc_tag(loc) == place for _p, _r, loc in found):  # not named after it
            found = [(p, r, ws.display(p)) for p, r in find_reports(ws, report_id, every=True)]
            shared = len(found) > 1
        for path, report, loc in found:
            if loc_tag(loc) == place:
                return FoundReport(path, report, loc, shared)
        where = ", ".join(loc for _p, _r, loc in found)
        raise ReviewError(f"no report with id '{report_id}' lies at @{place} (it lies at {where})")
    if shared:
        raise ambiguous(report_id, [loc for _p, _r, loc in found])
    path, report, loc = found[0]
    return FoundReport(path, report, loc, False)


def ambiguous(report_id: str, locs: list[str]) -> AmbiguousReport:
    """The refusal of a report id several reports carry, naming each one's located id."""
    choices = "; ".join(f"{report_key(report_id, loc)} ({loc})" for loc in locs)
    return AmbiguousReport(
        f"{len(locs)} reports have the id '{report_id}' — name one with its place: {choices}"
    )


def find_report(ws: Workspace, report_id: str) -> tuple[Path, KptReport]:
    """The report with this id (or located id): see :func:`find_report_at`."""
    got = find_report_at(ws, report_id)
    return got.path, got.report


def split_ref(ref: str) -> tuple[str, str | None]:
    report_id, _, item_id = ref.strip().partition("/")
    if not report_id:
        raise ReviewError(f"'{ref}' is not a report id (KPT_ID) or an item (KPT_ID/ITEM_ID)")
    return report_id, item_id or None


def not_an_item(ws: Workspace, ref: str) -> str:
    """What ``ref`` (no ``/``) is, said to a command that takes KPT items: a report, another
    thing search lists (a lesson, a summary…), or nothing."""
    from store.lookup import AmbiguousId, find_thing, quoted_id

    ask = "name an item as KPT_ID/ITEM_ID ('hurikaeri show KPT_ID' lists a report's items)"
    try:
        find_report_at(ws, ref)
    except AmbiguousReport:
        return f"'{quoted_id(ref)}' names a report; {ask}"
    except ReviewError:
        pass
    else:
        return f"'{quoted_id(ref)}' names a report; {ask}"
    try:
        thing = find_thing(ws, ref)
    except AmbiguousId as e:
        return f"'{quoted_id(ref)}' names {len(e.places)} records ({', '.join(e.places)}), not a KPT item: {ask}"
    if thing is not None:
        where = f"{ws.display(Path(thing.record.path))}:{thing.line}"
        kind = thing.record.kind.replace("_", "-")
        return f"'{quoted_id(ref)}' is a {kind} ({where}), not a KPT item: {ask}"
    return f"nothing has the id '{quoted_id(ref)}' ('hurikaeri search' prints the ids); {ask}"


def find_item(ws: Workspace, ref: str) -> ItemRef:
    report_id, item_id = split_ref(ref)
    if item_id is None and not ref.strip().endswith("/"):
        raise ReviewError(not_an_item(ws, ref.strip()))
    at = find_report_at(ws, report_id)
    path, report = at.path, at.report
    if item_id is None:  # 'KPT_ID/': what an item without an id would be called
        for section, item in report.items():
            if not item.id:
                raise ReviewError(missing_id(report, section, item, str(path)))
        raise ReviewError(f"'{ref}' names no item; name an item as KPT_ID/ITEM_ID")
    for section, item in report.items():
        if item.id == item_id:
            return ItemRef(report.id or "", item_id, section, item, report, path, at.loc, at.shared)
    known = ", ".join(i.id for _s, i in report.items() if i.id) or "none"
    raise ReviewError(f"report '{report_id}' has no item '{item_id}' (items: {known})")


def decide(
    ws: Workspace, ledger: Ledger, refs: list[str], op: Op, note: str | None
) -> tuple[list[ItemRef], TxResult]:
    """Approve, reject or reopen items (``KPT_ID/ITEM_ID``), all found first, as one transaction
    (each report read once: where it lies is known from then on)."""
    found = (find_item(ws, r) for r in refs)
    items = list({it.key: it for it in found}.values())  # an item named twice: decided once
    locs = {it.key.partition("/")[0]: it.loc for it in items}
    return items, decide_keys(ws, [it.key for it in items], op, note, ledger=ledger, locs=locs)


def decide_keys(
    ws: Workspace,
    keys: list[str],
    op: Op,
    note: str | None = None,
    *,
    action: str | None = None,
    ledger: Ledger | None = None,
    locs: Mapping[str, str] | None = None,
) -> TxResult:
    """Approve, reject or reopen the items under these ledger keys as one transaction; each
    decision records where its report lies (``store.located``)."""
    from store.tx.transactions import Effect, TxPlan, apply

    if op not in DECISIONS:
        raise ReviewError(f"'{op}' is not a decision ({', '.join(DECISIONS)})")
    if not keys:
        raise ReviewError("no item to decide on")
    where = report_locs(ws, keys, locs)
    # each effect records where its report lies (nothing when it was not found)
    effects = [
        Effect(op, k, note or None, loc_record(where.get(k.partition("/")[0]))) for k in keys
    ]
    return apply(
        ws,
        TxPlan(action or op, list(keys), effects=effects, note=note or None),
        ledger=ledger,
    )


def report_locs(
    ws: Workspace, keys: list[str], known: Mapping[str, str] | None = None
) -> dict[str, str]:
    """Where the report of each key lies: ``known`` first, else found (a report not found has
    none; a shared id without its place raises :class:`AmbiguousReport`)."""
    out = dict(known or {})
    for rkey in dict.fromkeys(k.partition("/")[0] for k in keys):
        if rkey in out:
            continue
        try:
            out[rkey] = find_report_at(ws, rkey).loc
        except AmbiguousReport:
            raise
        except ReviewError:
            continue
    return out


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


def report_json(
    path: Path, report: KptReport, ledger: Ledger, rkey: str | None = None
) -> dict[str, Any]:
    """A report with its items' review states (``rkey``: its located id when shared)."""
    data = report.model_dump(mode="json", by_alias=True, exclude_none=True)
    rid = rkey or report.id or ""
    items = []
    for sec, item in report.items():
        key = item_key(rid, item.id)
        st = ledger.state(key) if key else ItemState()
        items.append(item_json(sec, rid, item, st, item_position(report, sec, item)))
    for sec in SECTIONS:
        data.pop(sec, None)
    return {"path": str(path), **data, "items": items}
