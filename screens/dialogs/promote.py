"""Promoting try-items: the exact path, type, section and diff first, a write only on "yes".
The wording is edited in place and planned again after the last key (diff, size, duplicate
check, secret scan), in a thread."""

from __future__ import annotations

import asyncio
from pathlib import Path

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.timer import Timer
from textual.widgets import Button, Footer, Input, Static

from screens.dialogs.budget_prompt import (
    Write,
    budget_checks,
    confirm_budgets,
    merge_writes,
)
from screens.dialogs.promote_fields import PromoteFields, Wording
from screens.dialogs.secret_prompt import confirm_secret_override
from screens.messages import FilesWritten
from screens.widgets.diff_view import DiffView
from screens.widgets.literal import literal, visible
from screens.writing import run_write
from store.index.workspace_index import WorkspaceIndex
from store.read.counted import counted
from store.review.items import ItemRef, ReviewError
from store.review.promote import NearChoice, Plan, plan_promotion, promote_plans


class PromoteScreen(ModalScreen[bool]):
    """Dismissed with True when something was written."""

    DEFAULT_CSS = """
    PromoteScreen {
        .near { height: auto; width: 1fr; padding: 0 1; border: round $warning 60%; }
    }
    """

    #: the dialog's keys work at once (y writes); e moves into the text field
    AUTO_FOCUS = "#promote-diff"
    #: how long typing pauses before the diff follows the field (seconds)
    REPLAN_DELAY = 0.25

    BINDINGS = [
        Binding("y", "write", "Write", id="promote.write"),
        Binding("ctrl+s", "write", "Write", id="promote.write_typed", show=False, priority=True),
        Binding("e", "edit", "Edit text", id="promote.edit"),
        Binding("r", "near('replace')", "Replace", id="promote.replace", show=False),
        Binding("b", "near('keep-both')", "Keep both", id="promote.keep_both", show=False),
        Binding("s", "near('skip')", "Skip", id="promote.skip", show=False),
        Binding("escape,n", "cancel", "Cancel", id="promote.cancel"),
        Binding("o", "override_secret", "Write a secret", id="promote.override", show=False),
    ]

    def __init__(self, index: WorkspaceIndex, refs: list[ItemRef]) -> None:
        super().__init__()
        self.index = index
        self.refs = refs
        self.plans: list[Plan] = []
        self.near: NearChoice | None = None
        #: the person's explicit override of the secret scan (asked for with ``o``)
        self.allow_secrets = False
        #: "CLAUDE.md: 883 → 895/2,500 tokens (within budget)" per target written
        self.budgets: list[str] = []
        #: the wording the shown plans were made from
        self.planned: Wording | None = None
        self.replan_timer: Timer | None = None

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog wide"):
            yield Static(
                Content.styled("Planning…", "$text-muted"), id="promote-head", classes="dialog-text"
            )
            yield PromoteFields(self.refs, id="promote-fields")
            with Horizontal(id="promote-near"):
                yield Static(id="near-existing", classes="near")
                yield Static(id="near-new", classes="near")
            yield DiffView(id="promote-diff", classes="dialog-body")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Write (y)", variant="primary", id="write")
                yield Button("Replace (r)", id="replace")
                yield Button("Keep both (b)", id="keep-both")
                yield Button("Skip (s)", id="skip")
                yield Button("Cancel (Esc)", id="cancel")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#promote-near").display = False
        for bid in ("write", "replace", "keep-both", "skip"):
            self.query_one(f"#{bid}", Button).display = False
        self.replan()

    @work(exclusive=True, group="promote-plan", exit_on_error=False)
    async def replan(self) -> None:
        """Plan again from what the fields hold now, in a thread (a newer plan, the fields
        changed since, cancels this one)."""
        wording = self.query_one(PromoteFields).wording()
        plans, budgets = await asyncio.to_thread(self.make_plans, wording)
        self.show_plans(plans, budgets, wording)

    @on(Input.Changed)
    def typed(self, event: Input.Changed) -> None:
        """The diff follows the field a moment after the last key."""
        event.stop()
        if self.replan_timer is not None:
            self.replan_timer.stop()
        self.replan_timer = self.set_timer(self.REPLAN_DELAY, self.replan)

    @on(Input.Submitted)
    def field_done(self, event: Input.Submitted) -> None:
        """Enter in a field: back to the dialog's keys (y writes)."""
        event.stop()
        self.leave_field()

    def leave_field(self) -> None:
        self.query_one("#promote-diff", DiffView).focus()

    def action_edit(self) -> None:
        # the text itself first (a memory entry's behavior), then whatever field there is
        inputs = sorted(self.query(Input), key=lambda i: "-behavior-" not in (i.id or ""))
        if inputs:
            inputs[0].focus()
            inputs[0].cursor_position = len(inputs[0].value)

    def make_plans(self, wording: Wording) -> tuple[list[Plan], list[str]]:
        plans: list[Plan] = []
        changed: dict[Path, bytes] = {}
        for ref, (text, entry) in zip(self.refs, wording, strict=True):
            try:
                plan = plan_promotion(
                    self.index.ws,
                    ref,
                    self.near,
                    changed,
                    allow_secrets=self.allow_secrets,
                    text=text,
                    entry=entry,
                )
            except ReviewError as exc:
                plan = Plan(ref, "", "", None, status="refused", message=_why(ref, exc))
            if plan.writes and plan.target is not None and plan.after is not None:
                changed[plan.target] = plan.after
            plans.append(plan)
        checks = budget_checks(self.index.ws, _writes(plans))
        return plans, [c.summary for c in checks if c.budget is not None]

    def show_plans(self, plans: list[Plan], budgets: list[str], wording: Wording) -> None:
        self.plans, self.budgets, self.planned = plans, budgets, wording
        self.refresh_bindings()
        ws = self.index.ws
        head: list[Content] = [Content.styled(f"Promote {counted(len(plans), 'try-item')}", "bold")]
        diffs: list[str] = []
        for p in plans:
            head.append(literal(p.ref.key, "bold"))
            if p.target is not None:
                head.append(
                    Content.assemble(
                        "  ",
                        literal(p.type or "?", "$accent", keep_newlines=False),
                        " → ",
                        literal(str(p.target)),
                        "  under ",
                        literal((p.section or "").strip() or "—", keep_newlines=False),
                    )
                )
            style = {"write": "$success", "refused": "$error", "identical": "$text-muted"}.get(
                p.status, "$warning"
            )
            if p.message:
                head.append(Content.assemble("  ", literal(p.message, style)))
            if p.secrets:
                head.append(Content.styled("  o: write it anyway (asks first)", "$text-muted"))
            if p.writes:
                diffs.append(p.diff(ws.display(p.target) if p.target else p.raw_path))
        head += [literal(f"size: {b}", "$text-muted") for b in self.budgets]
        self.query_one("#promote-head", Static).update(Content("\n").join(head))
        near = [p for p in plans if p.status == "near-duplicate"]
        self.query_one("#promote-near").display = bool(near)
        if near:
            p = near[0]
            self.query_one("#near-existing", Static).update(
                Content.assemble(
                    Content.styled("already there\n", "bold"), literal(p.near_text or "")
                )
            )
            self.query_one("#near-new", Static).update(
                Content.assemble(Content.styled("new\n", "bold"), literal(p.new_text))
            )
        writing = any(p.writes for p in plans)
        self.query_one("#promote-diff", DiffView).load_text(
            visible("".join(diffs)) if diffs else "(nothing would be written)"
        )
        self.query_one("#write", Button).display = writing and not near
        for bid in ("replace", "keep-both", "skip"):
            self.query_one(f"#{bid}", Button).display = bool(near)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """``y`` is in the footer only when something would be written; ``e`` when there
        is a field to edit."""
        if action == "write":
            return any(p.writes for p in self.plans) or self.planned is None
        if action == "edit":
            return bool(self.query(Input))
        return True

    def action_near(self, choice: NearChoice) -> None:
        if any(p.status == "near-duplicate" for p in self.plans):
            self.near = choice
            self.replan()

    @on(Button.Pressed)
    def pressed(self, event: Button.Pressed) -> None:
        bid = event.button.id or ""
        if bid == "write":
            self.action_write()
        elif bid in ("replace", "keep-both", "skip"):
            self.action_near(bid)  # type: ignore[arg-type]
        else:
            self.dismiss(False)

    def action_write(self) -> None:
        if self.planned is None:
            return  # nothing is written before its diff has been shown
        if self.query_one(PromoteFields).wording() != self.planned:
            # typed since the diff was made: nothing is written before the diff of what was
            # typed has been shown; it is made now, and the next y (or ctrl+s) writes it
            if self.replan_timer is not None:
                self.replan_timer.stop()
            self.replan()
            self.notify(
                "The diff now shows what you typed: press y (or ctrl+s) to write it.",
                timeout=4,
                markup=False,
            )
            return
        if any(p.status == "near-duplicate" for p in self.plans) or not any(
            p.writes for p in self.plans
        ):
            return
        self.write_plans()

    @work(exclusive=True, group="promote-write", exit_on_error=False)
    async def write_plans(self) -> None:
        """Every plan that writes as one transaction (one undo), in a thread."""
        ws, led, plans = self.index.ws, self.index.ledger, list(self.plans)
        what = "promote " + ", ".join(dict.fromkeys(p.ref.key for p in plans))
        if not await confirm_budgets(self, ws, _writes(plans)):
            return
        outcome = await run_write(self, what, lambda: promote_plans(ws, plans, ledger=led))
        if not outcome.ok:
            return
        if outcome.value is not None:
            self.app.post_message(FilesWritten(frozenset(outcome.value.paths), review=True))
        self.dismiss(True)

    def action_cancel(self) -> None:
        if isinstance(self.focused, Input):  # Esc in a field leaves it; Esc again cancels
            self.leave_field()
            return
        self.dismiss(False)

    @work(exclusive=True, group="promote-override", exit_on_error=False)
    async def action_override_secret(self) -> None:
        """Plan again with the secret scan overridden, after an explicit yes."""
        hits = [h for p in self.plans for h in p.secrets]
        if hits and await confirm_secret_override(self, hits, "this try-item's text"):
            self.allow_secrets = True
            self.replan()


def _why(ref: ItemRef, exc: ReviewError) -> str:
    """The store's refusal, in the app's words: a missing target names the key that sets it."""
    target = getattr(ref.item, "persistence_target", None)
    if ref.section == "try" and (target is None or not target.path):
        return f"{ref.key} has no target yet: press Esc, then t on the item to set one"
    return str(exc)


def _writes(plans: list[Plan]) -> list[Write]:
    """One write per file: the first plan's bytes before, the last plan's after."""
    return merge_writes((p.target, p.before, p.after) for p in plans if p.writes)
