"""Discussions: agents' replies and the seed-002 metadata block at their end, at a glance.

The list shows every reply under ``discussions/`` (and the directories the config adds):
status, verdict, findings by severity and the number of open questions; a value from the
seed's fallbacks (no block, or a broken one) is marked ``*``. The highlighted reply shows
where its metadata came from, its diagnostics, then its findings (high first, each with its
suggestion), blockers, open questions, decisions, next steps and any fields the seed does
not define, and below them the body rendered as Markdown. ``enter`` (or ``tab``) moves into
the entries.

What a discussion brought up is acted on through the normal review, never written behind
the person's back, and never into the agent's files:

- ``p`` drafts a **KPT report made by the person** (:mod:`store.review.person_report`) from the
  highlighted entry, or from the entries picked with ``space``: a finding or blocker becomes
  a problem (a finding's suggestion a try-item addressing it), a next step a try-item. The
  dialog shows the exact YAML that will be written to ``hurikaeri/kpt-YYYYMMDD-NNN.yaml``
  (the next free number) and lets the person edit it; it is checked as a KPT report and
  written only on ``Ctrl+S``. Its items then wait in Sessions for review and promotion like
  any agent's, and ``u`` undoes the write while the file is unchanged.
- ``R`` drafts a **proposal** for the inbox from the highlighted entry (an anti-pattern
  from a finding or blocker, a skill from a next step, a pattern from a decision) in the
  same dialog as a session's ``R``; it joins the inbox only when saved there.

Replies are parsed in a thread worker, and again only when their file changed.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen, Screen
from textual.widgets import Button, Footer, Header, Markdown, OptionList, Static, TextArea
from textual.widgets.option_list import Option

from store.index.sessions import Session
from store.index.workspace_index import WorkspaceIndex
from store.models.kpt import KeepItem, KptItem, ProblemItem, TryItem
from store.read.diagnostics import Diagnosed, Diagnostic
from store.read.kinds import Kind
from store.read.loader import load_file
from store.read.metadata_block import Reply, findings_by_severity
from store.read.textio import FileStamp
from store.review.person_report import (
    Pick,
    PickKind,
    check_person_report,
    draft_person_report,
    render_report,
    report_path,
    write_person_report,
)
from store.write.atomic import WriteError
from tui.messages import FilesWritten, ReviewChanged, WorkspaceChanged
from tui.widgets.literal import literal, visible
from tui.widgets.virtual_table import Column, Row, VirtualTable

COLUMNS = [
    Column("status", "Status", 9),
    Column("verdict", "Verdict", 7),
    Column("findings", "Findings", 9),
    Column("blockers", "Block", 5),
    Column("open", "Open", 4),
    Column("decisions", "Dec.", 4),
    Column("next", "Next", 4),
    Column("name", "Discussion", None, min_width=16),
]
STATUS_STYLE = {"continue": "$warning", "stop": "$success"}
VERDICT_STYLE = {"pass": "$success", "conditional": "$warning", "fail": "$error"}
VERDICT_SHORT = {"conditional": "cond."}
SEVERITY_STYLE = {"high": "bold $error", "medium": "bold $warning", "low": "$text-muted"}
SECTIONS: list[tuple[str, str, str]] = [
    ("blockers", "Blockers", "⛔ "),
    ("open_questions", "Open questions", "? "),
    ("decisions", "Decisions", "✓ "),
    ("next_steps", "Next steps", "→ "),
]
ENTRY_PREFIX = {
    "blockers": "blocker",
    "open_questions": "question",
    "decisions": "decision",
    "next_steps": "next_step",
}
#: Option id prefix → what ``p`` makes of it.
PICKABLE: dict[str, PickKind] = {
    "finding": "finding",
    "blocker": "blocker",
    "next_step": "next_step",
}


@dataclass(slots=True)
class Discussion(Diagnosed):
    path: Path
    display: str
    stamp: FileStamp | None
    reply: Reply | None
    diagnostics: list[Diagnostic]


def read_discussion(path: Path, display: str) -> Discussion:
    loaded = load_file(path, Kind.DISCUSSION, display)
    return Discussion(path, display, loaded.stamp, loaded.reply, list(loaded.diagnostics))


def _short_name(display: str) -> str:
    parts = Path(display).parts
    if parts and parts[0] == "discussions":
        parts = parts[1:]
    text = "/".join(parts) if parts else display
    return text[:-3] if text.endswith(".md") else text


def findings_cell(reply: Reply | None) -> Content:
    if reply is None or not reply.findings:
        return Content.styled("—", "$text-muted")
    parts: list[Content] = []
    for sev, group in findings_by_severity(reply.findings):
        letter = sev[:1].upper() if sev else "?"
        style = SEVERITY_STYLE.get(sev, "$text-muted")
        if parts:
            parts.append(Content(" "))
        parts.append(Content.styled(f"{len(group)}{letter}", style))
    return Content.assemble(*parts)


def count_cell(reply: Reply | None, name: str, style: str) -> Content:
    n = len(reply.texts(name)) if reply is not None else 0
    return Content.styled(str(n), f"bold {style}") if n else Content.styled("·", "$text-muted")


def status_cell(reply: Reply | None) -> Content:
    status = reply.status if reply else None
    if not status:
        return Content.styled("—", "$text-muted")
    fallback = reply is not None and "status" in reply.fallback
    style = STATUS_STYLE.get(status, "$text-muted")
    return Content.assemble(
        literal(status, style + (" italic" if fallback else "")),
        Content.styled("*" if fallback else "", "$text-muted"),
    )


def verdict_cell(reply: Reply | None) -> Content:
    verdict = reply.verdict if reply else None
    if not verdict:
        return Content.styled("—", "$text-muted")
    fallback = reply is not None and "verdict" in reply.fallback
    style = VERDICT_STYLE.get(verdict, "$text-muted")
    return Content.assemble(
        literal(VERDICT_SHORT.get(verdict, verdict), style + (" italic" if fallback else "")),
        Content.styled("*" if fallback else "", "$text-muted"),
    )


def head_view(d: Discussion) -> Content:
    r = d.reply
    out: list[Content] = [literal(d.display, "bold")]
    if r is None:
        out.append(Content.styled("This file could not be read as text.", "$error"))
    else:
        parts = [Content.styled(r.kind, "bold $accent")]
        for name, value in (("status", r.status), ("verdict", r.verdict)):
            if value:
                style = {**STATUS_STYLE, **VERDICT_STYLE}.get(value, "")
                parts += [Content(f" · {name} "), literal(value, f"bold {style}")]
                if name in r.fallback:
                    parts.append(Content.styled(" (fallback)", "$text-muted italic"))
        out.append(Content.assemble(*parts))
        if r.source == "block":
            out.append(Content.styled(f"metadata block at line {r.block_line}", "$text-muted"))
        else:
            why = (
                f"the block at line {r.block_line} could not be read"
                if r.block_line
                else "no metadata block"
            )
            rule = f"status {r.fallback.get('status')} as for a {r.kind}"
            if "verdict" in r.fallback:
                rule += f", verdict from {r.fallback['verdict'].upper()} in the text"
            out.append(Content.styled(f"{why}: the seed's fallbacks apply ({rule})", "$warning"))
    for diag in d.diagnostics:
        style = "$error" if diag.severity == "error" else "$warning"
        mark = "✗" if diag.severity == "error" else "⚠"
        where = f"line {diag.line}" if diag.line else "file"
        out.append(
            Content.assemble(
                Content.styled(f"{mark} {where}: ", f"bold {style}"),
                literal(diag.message, keep_newlines=False),
                Content.styled(f" [{diag.code}]", "dim"),
            )
        )
    return Content("\n").join(out)


def hang(prefix: Content, text: Content, width: int | None) -> Content:
    """``prefix`` then ``text``, its wrapped lines indented under the text (not the prefix)."""
    if width is None:
        return Content.assemble(prefix, text)
    indent = prefix.cell_length
    out: list[Content] = []
    for n, part in enumerate(text.split("\n", allow_blank=True)):
        for m, line in enumerate(part.wrap(max(12, width - indent))):
            lead = prefix if n == 0 and m == 0 else Content(" " * indent)
            out.append(Content.assemble(lead, line))
    return Content("\n").join(out) if out else prefix


def entry_options(
    reply: Reply | None, picked: set[str], width: int | None = None
) -> list[Option | None]:
    """The reply's metadata as options; ids ``finding:N``, ``blocker:N``, ``next_step:N``…

    With ``width`` long texts are wrapped under themselves rather than under the markers."""
    if reply is None:
        return []

    def mark(key: str) -> Content:
        return Content.styled("▸ " if key in picked else "  ", "bold $accent")

    out: list[Option | None] = []

    def heading(title: str, count: int) -> None:
        if out:
            out.append(None)
        out.append(Option(Content.styled(f"{title} ({count})", "bold underline"), disabled=True))

    findings = reply.findings
    if findings:
        heading("Findings", len(findings))
        for sev, group in findings_by_severity(findings):
            for i, f in group:
                key = f"finding:{i}"
                label = (sev or "—").upper()
                lines = [
                    hang(
                        Content.assemble(
                            mark(key),
                            Content.styled(
                                f"{label[:6]:<7}", SEVERITY_STYLE.get(sev, "$text-muted")
                            ),
                        ),
                        literal(f.message or "(no message)"),
                        width,
                    )
                ]
                if f.suggestion:
                    lines.append(
                        hang(
                            Content.assemble(Content(" " * 9), Content.styled("→ ", "$success")),
                            literal(f.suggestion, "$text-muted"),
                            width,
                        )
                    )
                for k, v in (f.model_extra or {}).items():
                    lines.append(hang(Content(" " * 11), literal(f"{k}: {v}", "dim"), width))
                out.append(Option(Content("\n").join(lines), id=key))
    for name, title, bullet in SECTIONS:
        items = reply.texts(name)
        if not items:
            continue
        heading(title, len(items))
        prefix = ENTRY_PREFIX[name]
        for i, text in enumerate(items):
            key = f"{prefix}:{i}"
            lead = Content.assemble(mark(key), Content.styled(bullet, "bold"))
            out.append(Option(hang(lead, literal(text), width), id=key))
    if reply.extra:
        heading("Fields the seed does not define", len(reply.extra))
        for k, v in reply.extra.items():
            out.append(Option(literal(f"  {k}: {v}"), id=f"extra:{k}"))
    if not out:
        text = (
            "The metadata block lists nothing else."
            if reply.block is not None
            else "No metadata block: only the fallback status and verdict above."
        )
        out.append(Option(Content.styled(text, "$text-muted"), disabled=True))
    return out


class DiscussionsScreen(Screen[None]):
    """Agent discussions and what their metadata blocks say."""

    TITLE = "Discussions"

    BINDINGS = [
        Binding("p", "to_kpt", "To KPT report", id="discussions.to_kpt"),
        Binding("R", "propose", "Propose", id="discussions.propose"),
        Binding("space", "toggle_pick", "Pick", id="discussions.pick"),
        Binding("u", "app.undo", "Undo", id="discussions.undo", show=False),
        Binding("escape", "back", "Back", id="discussions.back"),
    ]

    def __init__(self, index: WorkspaceIndex) -> None:
        super().__init__()
        self.index = index
        self.discussions: dict[str, Discussion] = {}
        self.current: str | None = None
        self.picked: dict[str, set[str]] = {}
        self._cache: dict[Path, Discussion] = {}

    def compose(self) -> ComposeResult:
        yield Header()
        yield VirtualTable(COLUMNS, id="disc-list")
        yield Static(id="disc-head")
        with Horizontal(id="disc-detail"):
            yield OptionList(id="disc-items")
            with VerticalScroll(id="disc-body-scroll"):
                yield Markdown(id="disc-body", open_links=False)
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one("#disc-list", VirtualTable)
        table.border_title = "Discussions"
        table.border_subtitle = "* fallback value (no readable block)"
        self.query_one("#disc-items", OptionList).border_title = "Metadata"
        self.query_one("#disc-body-scroll", VerticalScroll).border_title = "Reply"
        table.focus()
        self.reload()

    def on_workspace_changed(self, _event: WorkspaceChanged) -> None:
        self.reload()

    def on_resize(self, _event: events.Resize) -> None:
        self.call_after_refresh(self.refresh_entries)

    # -- loading -------------------------------------------------------------------

    def _files(self) -> list[tuple[Path, str, FileStamp | None]]:
        with self.index.lock:
            files = list(self.index.files.values())
        return sorted(
            ((f.path, f.display, f.stamp) for f in files if f.kind is Kind.DISCUSSION),
            key=lambda t: t[1],
        )

    @work(thread=True, exclusive=True, group="discussions-load")
    def reload(self) -> None:
        found: list[Discussion] = []
        cache: dict[Path, Discussion] = {}
        for path, display, stamp in self._files():
            d = self._cache.get(path)
            if d is None or d.stamp != stamp or stamp is None:
                d = read_discussion(path, display)
            cache[path] = d
            found.append(d)
        self.app.call_from_thread(self.show_list, found, cache)

    def show_list(self, found: list[Discussion], cache: dict[Path, Discussion]) -> None:
        self._cache = cache
        self.discussions = {str(d.path): d for d in found}
        rows: list[Row] = []
        for d in found:
            problems: list[Content] = []
            if d.errors:
                problems.append(Content.styled(f" ✗{d.errors}", "$error"))
            rows.append(
                (
                    str(d.path),
                    (
                        status_cell(d.reply),
                        verdict_cell(d.reply),
                        findings_cell(d.reply),
                        count_cell(d.reply, "blockers", "$error"),
                        count_cell(d.reply, "open_questions", "$warning"),
                        count_cell(d.reply, "decisions", "$success"),
                        count_cell(d.reply, "next_steps", "$accent"),
                        Content.assemble(
                            literal(_short_name(d.display), keep_newlines=False), *problems
                        ),
                    ),
                )
            )
        table = self.query_one("#disc-list", VirtualTable)
        table.set_rows(rows)
        table.border_title = f"Discussions ({len(rows)})"
        if self.current:
            table.move_to_key(self.current)
        self.show(table.cursor_key, force=True)

    # -- showing -------------------------------------------------------------------

    @on(VirtualTable.Highlighted, "#disc-list")
    def row_highlighted(self, event: VirtualTable.Highlighted) -> None:
        self.show(event.key)

    @on(VirtualTable.Selected, "#disc-list")
    def row_selected(self, _event: VirtualTable.Selected) -> None:
        self.query_one("#disc-items", OptionList).focus()

    def show(self, key: str | None, *, force: bool = False) -> None:
        if key == self.current and not force:
            return
        self.current = key
        head = self.query_one("#disc-head", Static)
        body = self.query_one("#disc-body", Markdown)
        d = self.discussions.get(key or "")
        if d is None:
            head.update(
                Content.styled(
                    "No discussions here yet. Agents' replies go under discussions/.",
                    "$text-muted",
                )
            )
            self.refresh_entries()
            body.update("")
            return
        head.update(head_view(d))
        self.refresh_entries()
        self.query_one("#disc-body-scroll", VerticalScroll).scroll_home(animate=False)
        text = d.reply.body if d.reply is not None else ""
        body.update(visible(text) if text.strip() else "*The reply has no text besides its block.*")

    def refresh_entries(self) -> None:
        items = self.query_one("#disc-items", OptionList)
        before = items.highlighted
        d = self.discussions.get(self.current or "")
        items.clear_options()
        if d is None:
            return
        width = items.scrollable_content_region.width - 2
        items.add_options(
            entry_options(
                d.reply, self.picked.get(self.current or "", set()), width if width > 20 else None
            )
        )
        if before is not None and before < items.option_count:
            items.highlighted = before
        else:
            for i in range(items.option_count):
                if not items.get_option_at_index(i).disabled:
                    items.highlighted = i
                    break

    # -- acting --------------------------------------------------------------------

    def action_back(self) -> None:
        if self.focused is self.query_one("#disc-items", OptionList):
            self.query_one("#disc-list", VirtualTable).focus()
        else:
            self.app.pop_screen()

    def highlighted_entry(self) -> str | None:
        items = self.query_one("#disc-items", OptionList)
        opt = items.highlighted_option
        return opt.id if opt is not None and not opt.disabled else None

    def action_toggle_pick(self) -> None:
        key = self.highlighted_entry()
        if key is None or key.split(":", 1)[0] not in PICKABLE or self.current is None:
            self.notify(
                "Pick findings, blockers and next steps (move to them with enter or tab).",
                timeout=3,
            )
            return
        picked = self.picked.setdefault(self.current, set())
        picked ^= {key}
        self.refresh_entries()

    def _picks(self) -> list[Pick]:
        keys = sorted(self.picked.get(self.current or "", set()), key=_entry_order)
        if not keys:
            key = self.highlighted_entry()
            keys = [key] if key and key.split(":", 1)[0] in PICKABLE else []
        return [Pick(PICKABLE[k.split(":")[0]], int(k.split(":")[1])) for k in keys]

    def action_to_kpt(self) -> None:
        d = self.discussions.get(self.current or "")
        if d is None or d.reply is None:
            return
        picks = self._picks()
        if not picks:
            self.notify(
                "Highlight a finding, blocker or next step (enter moves to them), "
                "or pick several with space.",
                title="Nothing to write",
                timeout=4,
            )
            return
        rid, data = draft_person_report(self.index.ws, d.reply, d.display, picks)
        key = self.current

        def done(path: Path | None) -> None:
            if path is not None and key is not None:
                self.picked.pop(key, None)
                self.refresh_entries()

        self.app.push_screen(
            PersonReportDialog(self.index, rid, render_report(data), d.display), done
        )

    def action_propose(self) -> None:
        d = self.discussions.get(self.current or "")
        key = self.highlighted_entry()
        if d is None or d.reply is None or key is None:
            self.notify("Highlight a finding, blocker, decision or next step first.", timeout=3)
            return
        kind, _, num = key.partition(":")
        if kind not in ("finding", "blocker", "decision", "next_step"):
            self.notify("Proposals are drafted from findings, blockers, decisions and next steps.")
            return
        i = int(num)
        ref = f"{d.display}#{kind.replace('_', '-')}-{i + 1}"
        item: KptItem
        if kind == "finding":
            f = d.reply.findings[i]
            note = f"From {d.display}, finding {i + 1} (severity {f.severity or 'not given'})"
            if f.suggestion:
                note += f". Suggested: {f.suggestion}"
            item = ProblemItem(id=ref, description=f.message or "", evidence=ref)
            section = "problem"
        elif kind == "blocker":
            note = f"From {d.display}, blocker {i + 1}"
            item = ProblemItem(id=ref, description=d.reply.blockers[i], evidence=ref)
            section = "problem"
        elif kind == "decision":
            note = f"From {d.display}, decision {i + 1}"
            item = KeepItem(id=ref, description=d.reply.decisions[i], evidence=ref)
            section = "keep"
        else:
            note = f"From {d.display}, next step {i + 1}"
            item = TryItem(id=ref, description=d.reply.next_steps[i])
            section = "try"
        from screens.propose import ProposeScreen

        session = Session(f"discussion:{d.display}")
        self.app.push_screen(ProposeScreen(self.index, session, section, item, note))


def _entry_order(key: str) -> tuple[int, int]:
    kind, _, num = key.partition(":")
    order = {"finding": 0, "blocker": 1, "next_step": 2}
    return order.get(kind, 9), int(num) if num.isdigit() else 0


class PersonReportDialog(ModalScreen[Path | None]):
    """The KPT report a person is about to write, as YAML: edit, then write or cancel."""

    BINDINGS = [
        Binding("ctrl+s", "save", "Write", id="discussions.kpt_write"),
        Binding("escape", "cancel", "Cancel", id="discussions.kpt_cancel"),
    ]

    def __init__(self, index: WorkspaceIndex, report_id: str, text: str, source: str) -> None:
        super().__init__()
        self.index = index
        self.report_id = report_id
        self.text = text
        self.source = source

    def compose(self) -> ComposeResult:
        ws = self.index.ws
        target = ws.display(report_path(ws, self.report_id))
        with Vertical(classes="dialog wide", id="disc-kpt-dialog"):
            yield Static(
                Content.assemble(
                    Content.styled("A KPT report made by you\n", "bold"),
                    Content("From "),
                    literal(self.source, "bold"),
                    Content(". It will be written to "),
                    literal(target, "bold $accent"),
                    Content(
                        " exactly as below (edit it if you like); its items then wait in "
                        "Sessions for review. The discussion itself is not changed."
                    ),
                ),
                classes="dialog-text",
            )
            yield TextArea(self.text, id="disc-kpt-yaml", language=None, soft_wrap=False)
            yield Static(id="disc-kpt-errors")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Write report (Ctrl+S)", variant="primary", id="save")
                yield Button("Cancel (Esc)", id="cancel")

    def on_mount(self) -> None:
        self.query_one("#disc-kpt-yaml", TextArea).focus()

    @on(Button.Pressed, "#save")
    def action_save(self) -> None:
        ws = self.index.ws
        errors = self.query_one("#disc-kpt-errors", Static)
        text = self.query_one("#disc-kpt-yaml", TextArea).text
        diags = check_person_report(ws, self.report_id, text)
        bad = [d for d in diags if d.severity == "error"]
        if bad:
            errors.update(
                literal("Not written:\n" + "\n".join(d.format() for d in bad[:8]), "$error")
            )
            return
        try:
            path = write_person_report(ws, self.index.ledger, self.report_id, text)
        except WriteError as exc:
            errors.update(literal(str(exc), "$error"))
            return
        self.app.post_message(FilesWritten(frozenset({path})))
        self.app.post_message(ReviewChanged())
        self.notify(
            f"Wrote {ws.display(path)}: its items are in Sessions for review (u undoes).",
            markup=False,
            timeout=4,
        )
        self.dismiss(path)

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)
