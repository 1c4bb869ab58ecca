"""One model for every write (docs/architecture.md "Transactions"): apply, recover, undo,
redo, history. The ledger is a record, never a licence to write (docs/trust-boundary.md):
recovery, undo and redo act only on this machine's signed lines (:meth:`Ledger.is_ours`)."""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any, Literal

from store import machine_key
from store.errors import ReviewError
from store.gc_pause import paused_gc
from store.ledger import (
    DECISIONS,
    Entry,
    Ledger,
    TxRecord,
    current_channel,
    new_id,
    now_iso,
)
from store.read.counted import counted
from store.read.diagnostics import Diagnostic
from store.tx.agents import PERSON_ACTIONS, check_person
from store.tx.journal import (
    FileWrite,
    Prepared,
    Unrestorable,
    kept_side,
    perform,
    prepare,
    record_now,
    record_path,
    remove_created_empty,
    replay_guard,
    turn_write,
    where,
    write_backups,
)
from store.tx.reviewed import KEEP, REVERT, Reviewed, key_of, sha256, target_like
from store.workspace import Workspace
from store.write.atomic import PathRefused, WriteError, remove_temp_files
from store.write.jsonl_edit import finish_interrupted_rewrites
from store.write.textdiff import bytes_diff

TxState = Literal["done", "undone", "blocked", "aborted", "open"]
#: What the history and lint say of a transaction in the reviewer's own ledger file whose
#: lines this machine did not write (forged, or pulled): it is never acted on.
NOT_OURS = (
    "not ours — not acted on: its ledger lines are not signed by hurikaeri on this machine "
    "(written before lines were signed, by another program, or elsewhere)"
)
LOCK_NAME = "tx.lock"


class UndoRefused(ReviewError):
    """An undo or redo that would lose changes made since, or cannot be done."""

    def __init__(self, message: str, diff: str = "", path: str | None = None) -> None:
        super().__init__(message)
        self.diff = diff
        self.path = path


@dataclass(slots=True)
class Effect:
    """A change of review state a transaction makes when it commits (folded like a decision)."""

    op: str
    target: str
    note: str | None = None
    data: dict[str, Any] = field(default_factory=dict)

    def as_record(self) -> dict[str, Any]:
        rec: dict[str, Any] = {"op": self.op, "target": self.target}
        if self.note:
            rec["note"] = self.note
        rec.update(self.data)
        return rec


@dataclass(slots=True)
class TxPlan:
    """What one action is about to do."""

    action: str
    subjects: list[str]
    files: list[FileWrite] = field(default_factory=list)
    effects: list[Effect] = field(default_factory=list)
    note: str | None = None
    undoes: str | None = None
    redoes: str | None = None
    channel: str | None = None  # ``None``: this process's channel


@dataclass(slots=True)
class FileView:
    """One file of a transaction, for people and for ``--json``."""

    path: str
    #: created, modified, deleted, appended, truncated, record changed/removed/added
    change: str
    before_sha256: str | None
    after_sha256: str | None
    record: str | None = None

    def as_json(self) -> dict[str, Any]:
        out = asdict(self)
        if not self.record:
            del out["record"]
        return out


@dataclass(slots=True)
class TxView:
    """One transaction as the history shows it."""

    id: str
    at: str
    who: str | None
    action: str
    subjects: list[str]
    files: list[FileView]
    state: TxState
    #: why it cannot be undone now (the file that changed since), or why it was aborted
    reason: str = ""
    undoes: str | None = None
    redoes: str | None = None
    note: str | None = None
    #: the review-state changes (op and target) it made
    effects: list[tuple[str, str]] = field(default_factory=list)
    #: the local reviewer's (in a team, only one's own are undone and redone)
    own: bool = True
    #: its lines are this machine's (``store.machine_key``): the only ones acted on
    trusted: bool = True
    #: where it was made (app, terminal, script; ``None``: not recorded)
    channel: str | None = None

    @property
    def title(self) -> str:
        subjects = self.subjects[:3]
        more = f" +{len(self.subjects) - 3} more" if len(self.subjects) > 3 else ""
        return f"{self.action} {', '.join(subjects)}{more}".strip()

    @property
    def undoable(self) -> bool:
        return (
            self.own
            and self.trusted
            and self.state == "done"
            and self.action not in ("undo", "redo")
        )

    def as_json(self) -> dict[str, Any]:
        effects = [{"op": op, "target": t} for op, t in self.effects]
        return _as_json(self) | {"reason": self.reason or None, "effects": effects}


@dataclass(slots=True)
class TxResult:
    """What :func:`apply` (and every action, undo and redo) wrote."""

    id: str
    action: str
    who: str
    at: str
    subjects: list[str]
    files: list[FileView]
    entries: list[Entry]
    undoes: str | None = None
    redoes: str | None = None
    #: absolute paths of the files written (for the app's own-writes filter)
    paths: list[Path] = field(default_factory=list)

    @property
    def recorded(self) -> bool:
        return bool(self.id)

    def as_json(self) -> dict[str, Any]:
        return _as_json(self, leave=("entries", "paths"))


def _as_json(view: TxView | TxResult, leave: tuple[str, ...] = ()) -> dict[str, Any]:
    """A transaction's fields in their order as ``--json`` gives them (``id`` as ``tx``, each
    file as JSON), but those it ``leave``s out."""
    out = {f.name: getattr(view, f.name) for f in fields(view) if f.name not in leave}
    return {"tx": out.pop("id"), **out, "files": [f.as_json() for f in view.files]}


def _still_to_turn(led: Ledger, plan: TxPlan) -> None:
    """An undo or redo checked again under the lock: another process may have turned the
    same transaction since it was chosen."""
    if plan.undoes or plan.redoes:
        led.refresh()
    if plan.undoes and plan.undoes in led.undone:
        raise UndoRefused(f"refused: [{plan.undoes}] was undone meanwhile; nothing was changed")
    if plan.redoes and plan.redoes not in led.undone:
        raise UndoRefused(f"refused: [{plan.redoes}] was redone meanwhile; nothing was changed")


@contextlib.contextmanager
def tx_lock(ws: Workspace) -> Iterator[None]:
    """The workspace's transaction lock: held from before the first check to after the
    ``commit``, so a transaction found open while holding it belongs to a dead process."""
    try:
        ws.state_dir.mkdir(parents=True, exist_ok=True)
        fd = os.open(
            ws.state_dir / LOCK_NAME, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600
        )
    except OSError as exc:
        raise WriteError(
            f"{ws.state_dir / LOCK_NAME}: cannot take the transaction lock: "
            f"{exc.strerror or exc}; nothing was changed"
        ) from exc
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def apply(ws: Workspace, plan: TxPlan, *, ledger: Ledger | None = None) -> TxResult:
    """Carry out one transaction; a refused or changed file raises before anything is written,
    a failed write after putting back what was written."""
    led = ledger if ledger is not None else Ledger(ws.state_dir)
    channel = plan.channel or current_channel()
    if plan.action in PERSON_ACTIONS and check_person(plan.action, ws.config, os.environ):
        channel = "agent"  # inside an agent's session, as the person's config allows
    tx = new_id()
    head: dict[str, Any] = {
        "id": tx,
        "at": now_iso(),
        "op": "begin",
        "target": plan.subjects[0] if plan.subjects else plan.action,
        "tx": tx,
        "action": plan.action,
        "who": led.who,  # the ledger's reviewer (store.team.reviewer)
        "channel": channel,
        "subjects": list(plan.subjects),
    }
    head.update(
        (k, v)
        for k, v in [("note", plan.note), ("undoes", plan.undoes), ("redoes", plan.redoes)]
        if v
    )
    head["effects"] = _marked(led, plan.effects)
    if not plan.files:
        with tx_lock(ws) if plan.undoes or plan.redoes else contextlib.nullcontext():
            _still_to_turn(led, plan)
            led.append({**head, "op": "commit"})
        follow(ws, led, plan)  # the reviewed state moves with our writes (#45)
        return _result(ws, led, tx)
    seen: set[str] = set()
    for fw in plan.files:  # each file once: a second change must be planned on the first
        real = os.path.realpath(fw.path)
        if real in seen:
            raise ReviewError(
                f"{ws.display(fw.path)} would be written twice in one {plan.action}; "
                "do these one at a time"
            )
        seen.add(real)
    with tx_lock(ws):
        led.refresh()
        _recover_locked(ws, led)
        _still_to_turn(led, plan)
        prepared: list[Prepared] = []
        try:
            for fw in plan.files:
                prepared.append(prepare(ws, fw))
            idle = [p for p in prepared if p.idle]
            for p in idle:  # nothing to change after all (an append found its lines there)
                p.close()
                prepared.remove(p)
            if not prepared and not plan.effects:
                who = str(head["who"])  # nothing recorded: ``id`` empty
                return TxResult("", plan.action, who, now_iso(), plan.subjects, [], [])
            for i, p in enumerate(prepared):
                write_backups(ws, tx, i, p)
            led.append({**head, "op": "begin", "files": [p.rec for p in prepared]})
            try:
                for p in prepared:
                    perform(ws, p)
            except BaseException as exc:
                begun = led.tx(tx)
                assert begun is not None  # its begin was just read back
                _abort(ws, led, begun, f"{type(exc).__name__}: {exc}")
                raise
            end = _line("commit", head["target"], tx)
            fixes = [{"i": i, **p.fix} for i, p in enumerate(prepared) if p.fix]
            if fixes:
                end["files"] = fixes
            led.append(end)
            follow(ws, led, plan)
        finally:
            for p in prepared:
                p.close()
    return _result(ws, led, tx)


def _line(op: str, target: str, tx: str) -> dict[str, Any]:
    """A new ledger line ending the transaction ``tx``."""
    return {"id": new_id(), "at": now_iso(), "op": op, "target": target, "tx": tx}


def _marked(led: Ledger, effects: list[Effect]) -> list[dict[str, Any]]:
    """The effects as recorded; a decision on an item that is contested as this reviewer
    sees it now settles the disagreement (``resolves``, see :mod:`store.ledger`)."""
    out = []
    if any(e.op in DECISIONS for e in effects):
        led.refresh()
    for e in effects:
        rec = e.as_record()
        st = led.state(e.target)
        if e.op in DECISIONS and st.contested:
            rec["resolves"] = sorted(d.id for d in st.decisions.values())
        out.append(rec)
    return out


def _abort(
    ws: Workspace, led: Ledger, rec: TxRecord, reason: str, *, recovered: bool = False
) -> tuple[list[str], list[str]]:
    """Put back the files of an unfinished transaction and record ``abort``; returns those
    put back and those that could not be (changed by someone else since)."""
    left: list[str] = []
    restored: list[str] = []
    action = _policy_action(led, rec)
    for frec in reversed(rec.files):
        try:
            st = where(ws, frec)
            if st.where == "after":
                p = prepare(ws, turn_write(ws, frec, st, action, back=True))
                try:
                    perform(ws, p)
                finally:
                    p.close()
                restored.append(str(frec.get("path")))
            elif st.where == "changed":
                if remove_created_empty(ws, frec, action):
                    restored.append(str(frec.get("path")))
                else:
                    left.append(str(frec.get("path")))
        except (WriteError, OSError) as exc:
            left.append(f"{frec.get('path')} ({exc})")
    end = {**_line("abort", rec.begin.target, rec.id), "reason": reason[:500]}
    end.update(
        (k, v) for k, v in [("recovered", recovered), ("restored", restored), ("left", left)] if v
    )
    led.append(end)
    return restored, left


def _policy_action(led: Ledger, rec: TxRecord) -> str:
    """The action whose write policy holds for ``rec``'s files (an undo's: what it undid)."""
    turned = (rec.undoes or rec.redoes) if rec.action in ("undo", "redo") else None
    if not turned:
        return rec.action
    found = led.tx(turned)
    return found.action if found is not None else rec.action


@dataclass(slots=True)
class Recovered:
    """A transaction a killed process left half done, rolled back by :func:`recover`."""

    id: str
    action: str
    subjects: list[str]
    left: list[str]  # neither as before nor as after: left alone
    restored: list[str] = field(default_factory=list)


def recover(ws: Workspace, *, ledger: Ledger | None = None) -> list[Recovered]:
    """Roll back and mark aborted what a killed process left between ``begin`` and ``commit``;
    no lock is taken when there is none (every live transaction holds the lock)."""
    led = _ledger(ws, ledger)
    if not _ours_open(led):
        return []
    with tx_lock(ws):
        led.refresh()
        return _recover_locked(ws, led)


def _ours_open(led: Ledger) -> list[TxRecord]:
    """The unfinished transactions recovery may roll back (any other: lint says so)."""
    return [t for t in led.open_transactions() if led.is_ours(t)]


def _recover_locked(ws: Workspace, led: Ledger) -> list[Recovered]:
    if not _ours_open(led):
        return []
    # a ledger line cut short (a crash mid-write) is ended first: were it a commit, it
    # would otherwise be completed only after the files had been rolled back
    led.complete_torn()
    # an in-place rewrite a killed process left half done is finished first (its redo
    # file), so the record is whole before it is compared
    dirs = {
        record_path(ws, f).parent
        for rec in _ours_open(led)
        for f in rec.files
        if f.get("how") == "record"
    }
    if dirs:
        finish_interrupted_rewrites(sorted(dirs))
    out = []
    root = Path(os.path.realpath(ws.root))
    for rec in _ours_open(led):
        why = "the process was killed before it finished"
        restored, left = _abort(ws, led, rec, why, recovered=True)
        out.append(Recovered(rec.id, rec.action, rec.subjects, left, restored))
        for f in rec.files:  # a write killed before its rename left its temp file
            real = Path(os.path.realpath(record_path(ws, f)))
            if real.is_relative_to(root):
                remove_temp_files(real)
    return out


def _result(ws: Workspace, led: Ledger, tx: str) -> TxResult:
    rec = led.tx(tx)
    assert rec is not None
    return TxResult(
        tx,
        rec.action,
        rec.who or "",
        rec.at,
        rec.subjects,
        [_file_view(f) for f in rec.files],
        led.effects(tx),
        rec.undoes,
        rec.redoes,
        [record_path(ws, f) for f in rec.files],
    )


def _file_view(f: dict[str, Any]) -> FileView:
    how = f.get("how") or "replace"
    before, after = f.get("before_sha256"), f.get("after_sha256")
    if how == "replace":
        change = "created" if before is None else "deleted" if after is None else "modified"
    elif how == "record":
        change = (
            "record added"
            if before is None
            else "record removed"
            if f.get("removes")
            else "record changed"
        )
    elif how == "append":
        change = "created" if f.get("before_size") is None else "appended"
    else:
        change = "deleted" if f.get("after_size") is None else "truncated"
    return FileView(
        str(f.get("path")), change, before, after, str(f["record"]) if f.get("record") else None
    )


@dataclass(slots=True)
class _Unit(TxRecord):
    """A transaction as history, undo and redo see it: its record as read then."""

    entries: list[Entry] = field(default_factory=list)
    #: when it was last applied: its own place, or that of the redo that applied it again
    applied: int = -1

    @property
    def channel(self) -> str | None:
        c = self.begin.data.get("channel")
        return str(c) if c else None


def _units(led: Ledger) -> list[_Unit]:
    """Every transaction, oldest first (each a copy of its record as it is now)."""
    with led.lock, paused_gc():
        groups: dict[str, list[Entry]] = {}
        for e in led.folded:
            groups.setdefault(e.group, []).append(e)
        units = [
            _Unit(r.id, r.begin, r.status, r.end, r.seq, groups.get(r.id, []), r.seq)
            for r in led.txs.values()
        ]
    units.sort(key=lambda u: u.seq)
    by_id = {u.id: u for u in units}
    for u in units:  # a redo applies a transaction again: it is as new as the redo
        if u.action == "redo" and u.status == "committed" and u.redoes in by_id:
            target = by_id[u.redoes]
            target.applied = max(target.applied, u.seq)
    return units


def _applied(u: _Unit) -> bool:
    """Committed, and neither an undo nor a redo: what undo and redo act on."""
    return u.status == "committed" and u.action not in ("undo", "redo")


def _state(ws: Workspace, led: Ledger, u: _Unit) -> tuple[TxState, str]:
    if u.status == "aborted":
        return "aborted", str(u.end.data.get("reason") or "") if u.end else ""
    if led.is_own(u.src) and not led.is_ours(u):  # shown as it folds, never acted on
        folded: TxState = (
            "open" if u.status == "open" else "undone" if u.id in led.undone else "done"
        )
        return folded, NOT_OURS
    if u.status == "open":
        return "open", "in progress, or left by a process that stopped (recovered on start)"
    if u.action in ("undo", "redo"):
        return "done", ""
    if u.id in led.undone:
        return "undone", ""
    for f in reversed(u.files):
        st = where(ws, f, content=False)
        if st.where != "after":
            why = st.why or "it changed since"
            return "blocked", f"{f.get('path')}: {why}"
    return "done", ""


def _find(led: Ledger, units: list[_Unit], tx_id: str) -> _Unit:
    tx_id = tx_id.strip()
    for u in units:
        if u.id == tx_id:
            return u
    hits = [u for u in units if tx_id and u.id.startswith(tx_id)]
    if len(hits) == 1:
        return hits[0]
    if len(hits) > 1:
        raise ReviewError(f"'{tx_id}' names {len(hits)} transactions; give more of the id")
    raise ReviewError(f"no transaction '{tx_id}' in the history ('hurikaeri history' lists them)")


def _view(ws: Workspace, led: Ledger, u: _Unit) -> TxView:
    state, reason = _state(ws, led, u)
    return TxView(
        u.id,
        u.at,
        u.who,
        u.action,
        u.subjects,
        [_file_view(f) for f in u.files],
        state,
        reason,
        u.undoes,
        u.redoes,
        u.note,
        [(e.op, e.target) for e in u.entries],
        led.is_own(u.src),
        led.is_ours(u),
        u.channel,
    )


def _ledger(ws: Workspace, ledger: Ledger | None) -> Ledger:
    led = ledger if ledger is not None else Ledger(ws.state_dir)
    led.refresh()
    return led


def follow(ws: Workspace, ledger: Ledger, plan: TxPlan) -> None:
    """Move the reviewed state with a committed transaction; never fails it (only a copy)."""
    with contextlib.suppress(OSError, ValueError):
        _follow(ws, ledger, plan)


def _follow(ws: Workspace, ledger: Ledger, plan: TxPlan) -> None:
    rv = Reviewed.load(ws)
    if not rv.exists:
        return
    origin, effects, back = plan.action, [e.as_record() for e in plan.effects], False
    if plan.undoes or plan.redoes:
        rec = ledger.tx(plan.undoes or plan.redoes or "")
        if rec is None:
            return
        origin, effects, back = rec.action, rec.effects, bool(plan.undoes)
    if origin == REVERT:
        return
    if origin == KEEP:
        for eff in effects:
            if eff.get("op") == KEEP and isinstance(eff.get("path"), str):
                side = "from" if back else "to"
                digest, at = eff.get(side), eff.get(f"{side}_at")
                rv.point(
                    eff["path"],
                    digest if isinstance(digest, str) else None,
                    at if isinstance(at, str) else None,
                )
        rv.save(ledger)
        return
    moved = False
    for fw in plan.files:
        key = key_of(ws, fw.path)
        if key not in rv.entries and not target_like(ws, Path(fw.path)):
            continue
        if fw.how == "replace":
            before = None if fw.before is None else sha256(fw.before)
            if key in rv.entries and before != rv.sha(key):
                continue  # it held changes not reviewed yet: they stay to review
            rv.set(key, fw.after)
        else:
            try:
                rv.set(key, Path(fw.path).read_bytes())
            except FileNotFoundError:
                rv.set(key, None)
        moved = True
    if moved:
        rv.save(ledger)


def not_ours(ws: Workspace, *, ledger: Ledger | None = None) -> list[Diagnostic]:
    """Lint's warnings on the reviewer's transactions whose lines this machine did not sign."""
    try:
        led = _ledger(ws, ledger)
    except (OSError, WriteError) as exc:  # a ledger that cannot be read at all says so
        return [Diagnostic(ws.display(ws.state_dir), None, "error", "ledger-refused", str(exc))]
    messages: list[str] = []
    finished: list[_Unit] = []
    for u in _units(led):
        if not led.is_own(u.src) or u.status == "aborted":
            continue
        if u.status == "open" and not led.is_ours(u):
            messages.append(f"unfinished {u.title} [{u.id}] is {NOT_OURS}: no file was rolled back")
        elif u.files and not led.is_ours(u):
            finished.append(u)
    if finished:
        ids = ", ".join(u.id for u in finished[:5]) + (" …" if len(finished) > 5 else "")
        messages.append(
            f"{counted(len(finished), 'transaction')} that wrote files ({ids}) "
            f"{'is' if len(finished) == 1 else 'are'} {NOT_OURS}; "
            "undo and redo never act on them"
        )
    where_ = ws.display(led.path)
    return [Diagnostic(where_, None, "warning", "ledger-not-ours", m) for m in messages]


def history(
    ws: Workspace, *, limit: int | None = None, ledger: Ledger | None = None
) -> list[TxView]:
    """Transactions newest first, each with its state (:data:`TxState`)."""
    led = _ledger(ws, ledger)
    units = list(reversed(_units(led)))
    if limit is not None:
        units = units[: max(limit, 0)]
    return [_view(ws, led, u) for u in units]


def get(ws: Workspace, tx_id: str, *, ledger: Ledger | None = None) -> TxView:
    """One transaction by id (a unique prefix will do)."""
    led = _ledger(ws, ledger)
    return _view(ws, led, _find(led, _units(led), tx_id))


def tx_diff(ws: Workspace, tx_id: str, *, ledger: Ledger | None = None) -> str:
    """What the transaction changed (from the kept copies), and what changed since."""
    led = _ledger(ws, ledger)
    u = _find(led, _units(led), tx_id)
    by = f" by {u.who}" if u.who else ""
    out = [f"# {u.action} {', '.join(u.subjects)}  [{u.id}] {u.at}{by}"]
    out += [f"# review state: {e.op} {e.target}" for e in u.entries]
    if not u.files:
        out.append("# (no file written: review state only)")
    done = _applied(u) and u.id not in led.undone
    for f in u.files:
        path = str(f.get("path"))
        how = f.get("how") or "replace"
        label = {
            "append": f"{path} (lines appended)",
            "truncate": f"{path} (lines taken off the end)",
            "record": f"{path} (record {f.get('record') or ''})",
        }.get(how, path)
        before, after = kept_side(ws, f, "before"), kept_side(ws, f, "after")
        created = how == "replace" and f.get("before_sha256") is None
        deleted = how == "replace" and f.get("after_sha256") is None
        text = bytes_diff(
            None if created else before,
            None if deleted else after,
            "/dev/null" if created else f"a/{label}",
            "/dev/null" if deleted else f"b/{label}",
        )
        out.append(text.rstrip("\n") if text else f"# {label}: no copy of the change is kept")
        if done and how == "replace":
            st = where(ws, f)
            if st.where != "after":
                since = bytes_diff(after, st.now, f"{path} as hurikaeri wrote it", f"{path} now")
                out += [f"# {path} changed since:", since.rstrip("\n")]
    return "\n".join(out) + "\n"


def _file_phrase(f: dict[str, Any], *, back: bool) -> str:
    path = str(f.get("path"))
    how = f.get("how") or "replace"
    if how in ("append", "truncate"):
        adds = (how == "append") != back
        n = abs((f.get("after_size") or 0) - (f.get("before_size") or 0))
        absent = f.get("before_size" if back else "after_size") is None
        if not adds and absent:
            return f"deletes {path}"
        if adds:
            return f"appends {n:,} bytes to {path}" + (" (a new file)" if absent else "")
        return f"takes the {n:,} bytes appended off the end of {path}"
    if how == "record":
        rid = f.get("record") or "a record"
        if f.get("removes"):
            return f"puts {rid} back into {path}" if back else f"removes {rid} from {path}"
        return f"restores {rid} in {path}" if back else f"rewrites {rid} in {path}"
    if _deletes(f, back=back):
        return f"deletes {path}"
    if _deletes(f, back=not back):
        return f"recreates {path}" if back else f"creates {path}"
    return f"restores {path}" if back else f"rewrites {path}"


def _effect_phrase(led: Ledger, u: _Unit, e: Entry, *, back: bool) -> str:
    what = "the proposal" if e.data.get("kind") == "proposal" else e.target
    if e.op in ("approve", "reject", "reopen"):
        if not back:
            return f"{e.op}s {what}"
        return f"sets {what} back to {led.state_without(e.target, u.id).state}"
    if e.op == "archive":
        return f"shows {e.target} again" if back else f"archives {e.target}"
    if e.op == "restore":
        return f"archives {e.target} again" if back else f"restores {e.target}"
    if e.op == "promote":
        return f"marks {e.target} as not promoted" if back else f"marks {e.target} as promoted"
    return ""


def _describe(led: Ledger, u: _Unit, *, back: bool) -> str:
    parts = [_file_phrase(f, back=back) for f in (reversed(u.files) if back else u.files)]
    seen: set[tuple[str, str]] = set()
    for e in u.entries:
        phrase = _effect_phrase(led, u, e, back=back)
        if phrase and (e.op, e.target) not in seen:
            seen.add((e.op, e.target))
            parts.append(phrase)
    return ", ".join(p for p in parts if p) or "changes the review state only"


def describe_turn(
    ws: Workspace, tx_id: str | None = None, *, redo: bool = False, ledger: Ledger | None = None
) -> str:
    """What undoing ``tx_id`` (default: the newest done) would do, or why it cannot, in a line;
    ``redo``: what redoing it (default: the one undone last) would do."""
    back = not redo
    verb = "undo" if back else "redo"
    led = _ledger(ws, ledger)
    units = _units(led)
    try:
        u = (
            _find(led, units, tx_id)
            if tx_id
            else (_last_here if back else _last_undone)(led, units)
        )
    except UndoRefused as exc:  # made elsewhere: only an undo without an id asks so
        return str(exc).replace("refused: ", f"Cannot {verb} without an id: ", 1)
    except ReviewError as exc:
        return str(exc)
    if u is None:
        return f"Nothing to {verb}."
    try:  # the checks the undo or redo itself makes, nothing written
        u, back = _turned(led, units, u, back=back)
        verb = "undo" if back else "redo"
        _check_turn(led, u, back=back)
    except UndoRefused as exc:
        return f"Cannot {verb} " + str(exc).removeprefix("refused: ")
    except ReviewError as exc:  # an undo naming a transaction the ledger lacks
        return str(exc)
    try:
        _turn_files(ws, led, units, u, back=back)
    except UndoRefused as exc:  # a file changed since, or its kept copy is missing
        why = str(exc).removeprefix("refused: ").removesuffix("; nothing was changed")
        return f"Cannot {verb} {u.title}: {why}."
    return f"{verb.capitalize()}: {u.title} — {_describe(led, u, back=back)}"


def next_turn(ws: Workspace, *, redo: bool = False, ledger: Ledger | None = None) -> TxView | None:
    """The transaction an undo without an id takes back now (``redo``: a redo applies again,
    the one undone last), or ``None``: none, or made elsewhere (:func:`describe_turn` says
    which; its id makes the undo the one asked about)."""
    led = _ledger(ws, ledger)
    try:
        u = (_last_undone if redo else _last_here)(led, _units(led))
    except UndoRefused:
        return None
    return _view(ws, led, u) if u is not None else None


def _last(led: Ledger, units: list[_Unit]) -> _Unit | None:
    """The transaction done most recently (blocked or not), a redo counting as done then."""
    done = [u for u in units if _applied(u) and led.is_own(u.src) and u.id not in led.undone]
    done.sort(key=lambda u: u.applied, reverse=True)
    return next((u for u in done if led.is_ours(u)), None)


def _last_here(led: Ledger, units: list[_Unit]) -> _Unit | None:
    """What an undo without an id takes back, when this channel made it (else refused)."""
    u = _last(led, units)
    here = current_channel()
    if u is None or u.channel == here:
        return u
    by = _WHERE.get(
        u.channel or "", f"by {u.channel}" if u.channel else "before channels were recorded"
    )
    raise UndoRefused(
        f"refused: the last change, {u.title} [{u.id}], was made {by}, not {_here(here)}; "
        f"undo it by its id (hurikaeri undo {u.id}) if that is what you mean; nothing was changed"
    )


_WHERE = {
    "app": "in the app",
    "terminal": "in a terminal",
    "script": "by a script",
    "agent": "by an agent (as the config allows)",
}


def _here(channel: str) -> str:
    return {"app": "in the app", "terminal": "in this terminal"}.get(channel, "by this script")


def _last_undone(led: Ledger, units: list[_Unit]) -> _Unit | None:
    """The transaction undone most recently, unless a new action of ours came after that undo
    (as in every editor; it is still redone by its id)."""
    newest = max((u.seq for u in units if _applied(u) and led.is_own(u.src)), default=-1)
    when: dict[str, int] = {}
    by_id = {u.id: u for u in units}
    for u in units:
        if u.action == "undo" and u.status == "committed" and u.undoes:
            when[u.undoes] = u.seq
    for uid, seq in sorted(when.items(), key=lambda kv: kv[1], reverse=True):
        if seq < newest:
            return None  # undone before the newest action: no longer redone by default
        hit = by_id.get(uid)
        if hit is not None and led.is_own(hit.src) and hit.id in led.undone and led.is_ours(hit):
            return hit
    return None


def _refusal(
    ws: Workspace,
    led: Ledger,
    units: list[_Unit],
    u: _Unit,
    f: dict[str, Any],
    why: str,
    verb: str,
) -> UndoRefused:
    """Why ``verb`` of ``u`` cannot touch the file of record ``f``, and what to undo first."""
    path = str(f.get("path"))
    later = next(
        (
            v
            for v in sorted(units, key=lambda x: x.applied, reverse=True)
            if v.applied > u.applied
            and _applied(v)
            and v.id not in led.undone
            and any(str(g.get("path")) == path for g in v.files)
        ),
        None,
    )
    hint = f" (undo {later.title} [{later.id}] first)" if later and verb == "undo" else ""
    st = where(ws, f)
    how = f.get("how") or "replace"
    diff = ""
    expected = kept_side(ws, f, "after" if verb == "undo" else "before")
    if how == "record":  # one record against one record, not the whole file
        rid = f.get("record") or "the record"
        now = record_now(st.now, f)
        diff = bytes_diff(
            expected, now, f"{path} ({rid}, as hurikaeri left it)", f"{path} ({rid}, now)"
        )
    elif how == "replace":
        diff = bytes_diff(expected, st.now, f"{path} as hurikaeri left it", f"{path} now")
    elif st.now is not None:
        size = f.get("after_size" if verb == "undo" else "before_size") or 0
        if len(st.now) > size:
            diff = bytes_diff(
                b"", st.now[size:], f"{path} (end, as hurikaeri left it)", f"{path} (end, now)"
            )
    if why == "it changed since":
        why = "changed since hurikaeri wrote it"
    return UndoRefused(
        f"refused: {record_path(ws, f)}: {why}; {verb} would lose those changes{hint}; "
        "nothing was changed",
        diff,
        path,
    )


def _check_guard(ws: Workspace, f: dict[str, Any], *, deletes: bool, action: str) -> None:
    """A path a transaction's record names is written only where its action writes now,
    and deleted only where an action of its kind creates files."""
    path = record_path(ws, f)
    try:
        replay_guard(ws, f, deletes=deletes, action=action)(Path(os.path.realpath(path)))
    except PathRefused as exc:
        raise UndoRefused(f"{exc}; nothing was restored", path=str(f.get("path"))) from exc


def _deletes(f: dict[str, Any], *, back: bool) -> bool:
    how = f.get("how") or "replace"
    side = "before" if back else "after"
    if how in ("append", "truncate"):
        return f.get(f"{side}_size") is None
    if how == "record":
        return False
    return f.get(f"{side}_sha256") is None


def undo(ws: Workspace, tx_id: str, *, ledger: Ledger | None = None) -> TxResult:
    """Undo one transaction by id as a new one, or :class:`UndoRefused` naming the file that
    changed since (with the diff). Undoing an undo is a redo; a redo, what it applied."""
    led = _ledger(ws, ledger)
    recover(ws, ledger=led)
    units = _units(led)
    return _turn_unit(ws, led, units, *_turned(led, units, _find(led, units, tx_id), back=True))


def undo_last(ws: Workspace, *, ledger: Ledger | None = None) -> TxResult | None:
    """Undo the newest transaction done (``None``: there is none)."""
    led = _ledger(ws, ledger)
    recover(ws, ledger=led)
    units = _units(led)
    u = _last_here(led, units)
    return _turn_unit(ws, led, units, u, back=True) if u is not None else None


def redo(
    ws: Workspace, tx_id: str | None = None, *, ledger: Ledger | None = None
) -> TxResult | None:
    """Apply an undone transaction again (default: the one undone last; ``None``: none), or
    :class:`UndoRefused` naming the file that changed since; ``tx_id`` may name the undo."""
    led = _ledger(ws, ledger)
    recover(ws, ledger=led)
    units = _units(led)
    u = _find(led, units, tx_id) if tx_id else _last_undone(led, units)
    return _turn_unit(ws, led, units, *_turned(led, units, u, back=False)) if u else None


def _turned(led: Ledger, units: list[_Unit], u: _Unit, *, back: bool) -> tuple[_Unit, bool]:
    """What turning ``u`` acts on: undoing or redoing an undo redoes what it undid, undoing
    a redo undoes what it applied (only an undo or redo of ours is followed)."""
    follows = (u.action == "undo" and u.undoes) or (back and u.action == "redo" and u.redoes)
    if not follows:
        return u, back
    _check_owner(led, u, "undo" if back else "redo")
    if u.action == "undo":
        return _find(led, units, u.undoes or ""), False
    return _find(led, units, u.redoes or ""), True


def _check_owner(led: Ledger, u: _Unit, verb: str) -> None:
    if not led.is_own(u.src):
        by = u.who or u.src
        raise UndoRefused(
            f"refused: {u.title} [{u.id}] is {by}'s; you {verb} only your own "
            "(decide the item again instead)"
        )
    if not led.is_ours(u):
        why = machine_key.problem(led.state_dir)
        raise UndoRefused(
            f"refused: {u.title} [{u.id}] is {NOT_OURS}; no {verb} of it; nothing was changed"
            + (f" ({why})" if why else "")
        )


def _check_turn(led: Ledger, u: _Unit, *, back: bool) -> None:
    """Refuse what cannot be undone (or redone) whatever its files are."""
    _check_owner(led, u, "undo" if back else "redo")
    if back and u.status != "committed":
        raise UndoRefused(f"refused: {u.title} [{u.id}] was never completed ({u.status})")
    if back and u.id in led.undone:
        raise UndoRefused(f"refused: {u.title} [{u.id}] is already undone (redo applies it again)")
    if not back and u.action == "redo":
        raise UndoRefused(f"refused: [{u.id}] is a redo; redo the transaction it applied again")
    if not back and (u.status != "committed" or u.id not in led.undone):
        raise UndoRefused(f"refused: {u.title} [{u.id}] is not undone; nothing to redo")


def _turn_unit(ws: Workspace, led: Ledger, units: list[_Unit], u: _Unit, back: bool) -> TxResult:
    _check_turn(led, u, back=back)
    writes = _turn_files(ws, led, units, u, back=back)
    plan = TxPlan("undo" if back else "redo", u.subjects, writes, note=u.title)
    plan.undoes, plan.redoes = (u.id, None) if back else (None, u.id)
    try:
        return apply(ws, plan, ledger=led)
    except PathRefused as exc:
        raise UndoRefused(f"{exc}; nothing was restored") from exc


def _turn_files(
    ws: Workspace, led: Ledger, units: list[_Unit], u: _Unit, *, back: bool
) -> list[FileWrite]:
    """The writes that take ``u``'s files back (undo, last first) or forward (redo), every
    file checked first to be exactly as ``u`` left it (undo) or found it (redo)."""
    verb, expected = ("undo", "after") if back else ("redo", "before")
    writes: list[FileWrite] = []
    for f in reversed(u.files) if back else u.files:
        _check_guard(ws, f, deletes=_deletes(f, back=back), action=u.action)
        st = where(ws, f)
        if st.where != expected:
            raise _refusal(ws, led, units, u, f, st.why or "it changed since", verb)
        try:
            writes.append(turn_write(ws, f, st, u.action, back=back))
        except Unrestorable as exc:
            raise UndoRefused(str(exc), path=str(f.get("path"))) from exc
    return writes


__all__ = [
    "NOT_OURS",
    "Effect",
    "FileView",
    "FileWrite",
    "Recovered",
    "TxPlan",
    "TxResult",
    "TxView",
    "UndoRefused",
    "apply",
    "describe_turn",
    "get",
    "history",
    "next_turn",
    "not_ours",
    "recover",
    "redo",
    "tx_diff",
    "undo",
    "undo_last",
]
