"""Promoting try-items into the files agents read next time.

Planned first (path, bytes before and after, diff), written only when confirmed as one
transaction. Hooks run code, so agent text never becomes a settings file or a script.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import ValidationError

from store.check.secrets import SecretHit, refusal, scan_added
from store.errors import cannot_read
from store.ledger import Ledger, now_iso
from store.located import loc_record
from store.models.knowledge import ProjectMemory, Skill
from store.models.kpt import ProblemItem
from store.read.textio import FileStamp
from store.review.items import ItemRef, ReviewError
from store.review.rule_text import rule_text
from store.tx.journal import FileWrite
from store.tx.transactions import Effect, TxPlan, TxResult, apply
from store.workspace import Workspace
from store.write.atomic import current_stamp
from store.write.markdown_edit import BulletPlan, MarkdownDoc, MarkdownTarget, bullet_text, closest
from store.write.policy import (
    MARKDOWN_SUFFIXES,
    PathRefused,
    promotion_kind,
    resolve_target,
    section_text_problem,
    target,
    target_problem,
)
from store.write.roundtrip import EditError, YamlEditor, new_yaml_document, plain_data
from store.write.textdiff import file_diff

#: how a refused secret is overridden, named for both ways in (#44)
OVERRIDE = "--allow-secret on the command line, o in the app's promote dialog"
MEMORY_KEYS = {"learned_behaviors", "known_issues", "preferences", "project_id", "last_updated"}
NearChoice = Literal["replace", "keep-both", "skip"]
Status = Literal["write", "identical", "near-duplicate", "skip", "refused"]


@dataclass(slots=True)
class Plan:
    """What promoting one try-item would do."""

    ref: ItemRef
    type: str
    raw_path: str
    section: str | None
    target: Path | None = None
    status: Status = "write"
    message: str = ""
    before: bytes | None = None
    after: bytes | None = None
    stamp: FileStamp | None = None
    near_text: str | None = None
    new_text: str = ""
    #: what looks like a secret in what the plan would add (it is then refused, unless
    #: planned with ``allow_secrets``)
    secrets: tuple[SecretHit, ...] = ()
    #: a memory target's entry as written (trigger, behavior, reason)
    entry: dict[str, str] | None = None

    @property
    def writes(self) -> bool:
        return self.status == "write" and self.after is not None and self.after != self.before

    def diff(self, label: str | None = None) -> str:
        return file_diff(self.before, self.after, label or str(self.target))


def policy_refusal(ws: Workspace, path: Path, target_type: str) -> str | None:
    """Why the policy refuses a ``target_type`` item into ``path`` (``None``: allowed); asked
    by retarget too."""
    ttype = target_type.strip().lower()
    if ttype == "hook" and path.suffix.lower() not in MARKDOWN_SUFFIXES:
        return (
            f"refused: {path} is a hook setting or script. Hooks run code, so hurikaeri never turns "
            "agent text into executable configuration; write the hook yourself, or point the target "
            "at a Markdown note"
        )
    problem = target_problem(ws, path, promotion_kind(ttype))
    return f"refused: {problem}" if problem else None


def prefill(ref: ItemRef) -> str:
    """The text a promotion of ``ref`` starts from: the rule its description carries
    (:func:`store.review.rule_text.rule_text`), which the person may reword."""
    return rule_text(ref.item.description or "")


def memory_prefill(ref: ItemRef, text: str | None = None) -> dict[str, str]:
    """A memory entry as it starts: trigger from the section or the addressed problem, behavior
    the rule text, reason the problems' root causes."""
    report = ref.report
    problems = {p.id: p for p in [*report.section("problem"), *report.section("omission")] if p.id}
    addressed = [problems[a] for a in (getattr(ref.item, "addresses", None) or []) if a in problems]
    target = getattr(ref.item, "persistence_target", None)
    section = section_title(target.section if target is not None else None)
    trigger = section if section and section not in MEMORY_KEYS else ""
    if not trigger and addressed:
        trigger = bullet_text(addressed[0].description or "")
    reasons = [
        bullet_text(p.root_cause) for p in addressed if isinstance(p, ProblemItem) and p.root_cause
    ] or [bullet_text(p.description or "") for p in addressed]
    return {
        "trigger": trigger or "always",
        "behavior": prefill(ref) if text is None else bullet_text(text),
        "reason": "; ".join(r for r in reasons if r) or f"from {ref.key}",
    }


def plan_promotion(
    ws: Workspace,
    ref: ItemRef,
    near: NearChoice | None = None,
    base: dict[Path, bytes] | None = None,
    *,
    allow_secrets: bool = False,
    text: str | None = None,
    entry: dict[str, str] | None = None,
) -> Plan:
    """Plan one promotion. ``base``: contents changed by earlier plans of the batch; ``text``:
    the person's wording; ``entry``: a memory entry's fields. Secrets refuse it unless allowed."""
    if ref.section != "try":
        raise ReviewError(f"{ref.key} is a {ref.section} item; only try-items are promoted")
    target = getattr(ref.item, "persistence_target", None)
    if target is None or not target.path:
        raise ReviewError(f"{ref.key} has no persistence_target path; set one first (retarget)")
    ttype = (target.type or "").strip().lower()
    new_text = prefill(ref) if text is None else bullet_text(text)
    plan = Plan(ref, ttype, target.path, target.section, new_text=new_text)
    if promotion_kind(ttype) == "memory":
        fields = memory_prefill(ref, new_text)
        fields.update({k: bullet_text(v) for k, v in (entry or {}).items() if k in fields})
        plan.entry, plan.new_text = fields, fields["behavior"]
        if not all(fields.values()):
            empty = ", ".join(k for k, v in fields.items() if not v)
            raise ReviewError(f"{ref.key}: a memory entry needs a {empty}")
    if not plan.new_text:
        raise ReviewError(f"{ref.key}: nothing to write (the text is empty)")
    problem = section_text_problem(target.section)
    if problem:
        plan.status, plan.message = "refused", f"refused: {problem}"
        return plan
    try:
        plan.target = resolve_target(ws, target.path)
    except PathRefused as exc:
        plan.status, plan.message = "refused", str(exc)
        return plan
    path = plan.target
    suffix = path.suffix.lower()
    problem = policy_refusal(ws, path, ttype)
    if problem:
        plan.status, plan.message = "refused", problem
        return plan
    if base and path in base:
        plan.before = base[path]
    elif path.exists():
        try:
            plan.before = path.read_bytes()
            plan.stamp = current_stamp(path)
        except OSError as exc:
            plan.status, plan.message = "refused", cannot_read(path, exc)
            return plan
    try:
        if promotion_kind(ttype) == "memory":
            _plan_memory(plan, near)
        elif suffix in MARKDOWN_SUFFIXES:
            _plan_markdown(plan, near)
        elif ttype == "skill" and suffix in (".yaml", ".yml"):
            _plan_skill(plan, near)
        else:
            plan.status = "refused"
            plan.message = (
                f"refused: don't know how to write a {ttype or 'untyped'} target into {path.name}"
            )
    except (UnicodeDecodeError, EditError, ValidationError) as exc:
        # a target that is not the document its kind should be (a skill file holding a
        # list, a memory file with a wrong-typed field) is refused, not a crash
        plan.status, plan.message = "refused", f"refused: {path} cannot be edited safely ({exc})"
    if plan.writes and not allow_secrets:
        hits = scan_added(plan.before, plan.after or b"", str(path))
        if hits:
            plan.status, plan.message = "refused", refusal(hits, f"{ref.key}'s text", OVERRIDE)
            plan.secrets = tuple(hits)
    return plan


def _stops(plan: Plan, found: BulletPlan, near: NearChoice | None, same: str, like: str) -> bool:
    """Whether the entry already there (``found``) stops the new one; the plan then says so."""
    plan.near_text = found.existing_text
    if found.outcome == "identical":
        plan.status, plan.message = "identical", same
    elif found.outcome == "near-duplicate" and near is None:
        plan.status, plan.message = "near-duplicate", f"{like} ({found.score:.0f}% alike)"
    elif found.outcome == "near-duplicate" and near == "skip":
        plan.status, plan.message = "skip", f"skipped: {like}"
    else:
        return False
    return True


def _apply_bullet(target: MarkdownTarget, plan: Plan, near: NearChoice | None) -> bool:
    """Add the bullet (or not); returns whether the document changed."""
    bp = target.plan(plan.new_text)
    under = f"already under '{target.title}'"
    same = f"an identical bullet is {under} (line {(bp.existing_line or 0) + 1})"
    if _stops(plan, bp, near, same, f"a similar bullet is {under}"):
        return False
    if bp.outcome == "near-duplicate" and near == "replace" and bp.existing_line is not None:
        target.replace(bp.existing_line, plan.new_text)
    else:
        target.insert(plan.new_text)
    return True


def _plan_markdown(plan: Plan, near: NearChoice | None) -> None:
    doc = MarkdownDoc.parse(plan.before or b"")
    target = MarkdownTarget(doc, plan.section)
    if _apply_bullet(target, plan, near):
        plan.after = doc.render()


def _plan_skill(plan: Plan, near: NearChoice | None) -> None:
    if plan.before is None:
        raise EditError("the skill file does not exist; create the skill first (inbox)")
    editor = YamlEditor(plan.target or Path("skill.yaml"), plan.before, plan.stamp)
    content = editor.get(["content"])
    if not isinstance(content, str):
        raise EditError("the skill has no text 'content' to add to")
    text = content if content.endswith("\n") else content + "\n"
    doc = MarkdownDoc.parse(text.encode("utf-8"))
    target = MarkdownTarget(doc, plan.section)
    if not _apply_bullet(target, plan, near):
        return
    editor.set(["content"], doc.render().decode("utf-8"))
    version = editor.get(["version"])
    editor.set(["version"], version + 1 if isinstance(version, int) else 1)
    editor.set(["updated_at"], now_iso())
    plan.after = editor.render()
    Skill.model_validate(plain_data(editor.data))  # what is written must still be a skill


def new_memory(path: Path, entry: dict[str, Any]) -> bytes:
    """A new ``project_memory.yaml`` at ``path`` holding one learned behavior."""
    doc = {"project_id": path.parent.name, "last_updated": now_iso(), "learned_behaviors": [entry]}
    return new_yaml_document(doc)


def _plan_memory(plan: Plan, near: NearChoice | None) -> None:
    entry = dict(plan.entry or memory_prefill(plan.ref, plan.new_text))
    path = plan.target or Path("project_memory.yaml")
    if plan.before is None:
        plan.after = new_memory(path, entry)
        return
    editor = YamlEditor(path, plan.before, plan.stamp)
    said = [
        (i, bullet_text(str(b.get("behavior", ""))))
        for i, b in enumerate(editor.get(["learned_behaviors"]) or [])
        if isinstance(b, dict)
    ]
    found = closest(said, plan.new_text)
    same = "the same learned behavior is already in the project memory"
    if _stops(plan, found, near, same, "a similar learned behavior is already there"):
        return
    if found.outcome == "near-duplicate" and near == "replace":
        editor.set(["learned_behaviors", found.existing_line or 0], entry)
    else:
        editor.append(["learned_behaviors"], entry)
    editor.set(["last_updated"], now_iso())
    plan.after = editor.render()
    ProjectMemory.model_validate(plain_data(editor.data))


def promote_plans(
    ws: Workspace, plans: list[Plan], *, ledger: Ledger | None = None
) -> TxResult | None:
    """Write every plan that writes as one transaction, each file once (``None``: none writes)."""
    writing = [p for p in plans if p.writes]
    if not writing:
        return None
    led = ledger if ledger is not None else Ledger(ws.state_dir)
    led.refresh()
    effects: list[Effect] = []
    files: dict[Path, FileWrite] = {}
    for p in writing:
        assert p.target is not None and p.after is not None
        guard = target(ws, promotion_kind(p.type))
        guard(p.target)  # every target allowed before anything is recorded or written
        key = p.ref.key
        if led.state(key).state != "approved" and not any(
            e.op == "approve" and e.target == key for e in effects
        ):
            effects.append(Effect("approve", key, data=_at(p.ref)))
        data: dict[str, Any] = {
            **_at(p.ref),
            "path": ws.display(p.target),
            "section": p.section,
            "type": p.type,
            "text": p.new_text,
        }
        if p.entry is not None:
            data["entry"] = dict(p.entry)
        effects.append(Effect("promote", key, data=data))
        fw = files.get(p.target)
        if fw is None:
            files[p.target] = FileWrite(p.target, p.before, p.after, guard)
        else:  # a later plan of the batch into the same file: planned on top of the first
            fw.after = p.after
    subjects = list(dict.fromkeys(p.ref.key for p in writing))
    note = "; ".join(f"{p.ref.key} as: {p.new_text}" for p in writing)
    plan = TxPlan("promote", subjects, list(files.values()), effects, note=note)
    return apply(ws, plan, ledger=led)


def section_title(section: str | None) -> str:
    """``"## パッケージ管理"`` → ``"パッケージ管理"`` (for ``PATH#SECTION`` labels)."""
    return (section or "").strip().lstrip("#").strip()


def promoted_label(data: dict[str, Any]) -> str:
    """``PATH#SECTION`` of a promote entry (the path as the ledger holds it)."""
    return f"{data.get('path')}#{section_title(data.get('section'))}"


def _at(ref: ItemRef) -> dict[str, str]:
    """Where the item's report lies, recorded with its effects (``store.located``)."""
    return loc_record(ref.loc)
