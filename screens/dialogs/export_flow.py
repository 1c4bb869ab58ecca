"""Exporting a KPT report as prompt-improver feedback (``F``): drafted and shown first, then
the feedback file and the report's ``feedback_integration`` in one step (``u`` undoes it)."""

from __future__ import annotations

import asyncio
from typing import Any

from textual.content import Content
from textual.screen import Screen

from screens.messages import FilesWritten
from screens.widgets.literal import literal
from screens.writing import run_write
from store.index.workspace_index import WorkspaceIndex
from store.review.feedback_export import AlreadyExported, export_feedback
from store.review.items import ReviewError
from store.write.roundtrip import new_yaml_document


async def export_as_feedback(screen: Screen[Any], index: WorkspaceIndex, report_id: str) -> None:
    """Preview, confirm and write (one transaction: the feedback file and the report's
    ``feedback_integration``); a report exported before asks whether to export again."""
    from screens.dialogs.confirm import ConfirmScreen

    ws, led = index.ws, index.ledger
    force = False
    while True:
        try:
            preview = await asyncio.to_thread(
                export_feedback, ws, report_id, dry_run=True, force=force
            )
            break
        except AlreadyExported as exc:  # (never with force)
            question = Content.assemble(
                literal(f"{report_id} was already exported as {exc.feedback_id}.\n"),
                "Export it again as a new feedback file?",
            )
            if not await screen.app.push_screen_wait(ConfirmScreen(question, "Export again")):
                return
            force = True
        except ReviewError as exc:
            screen.notify(str(exc), severity="warning", markup=False)
            return
    text = new_yaml_document(preview.feedback).decode()
    ok = await screen.app.push_screen_wait(
        ConfirmScreen(
            Content.assemble(
                Content.styled("Export as prompt-improver feedback?\n", "bold"),
                literal(f"{ws.display(preview.feedback_path)}\n\n"),
                literal("\n".join(text.splitlines()[:18]) + "\n…", "dim"),
                "\n\nThe report then records feedback_integration.enabled and generated_feedback_id.",
            ),
            "Export",
        )
    )
    if not ok:
        return
    outcome = await run_write(
        screen,
        f"export {report_id}",
        lambda: export_feedback(ws, report_id, force=force, ledger=led),
    )
    if not outcome.ok or outcome.value is None:
        return
    out = outcome.value
    screen.app.post_message(FilesWritten(frozenset({out.report_path, out.feedback_path})))
    screen.notify(f"Exported {out.feedback_path.stem}. u undoes.", markup=False, timeout=3)
