"""Exporting a KPT report as prompt-improver feedback: previewed, confirmed, then written.

The feedback document is drafted without writing anything and shown in a confirmation;
only on ``Export`` are the feedback file and the report's ``feedback_integration`` written
(both in one step; ``u`` undoes it). Used by the session screen's ``F``.
"""

from __future__ import annotations

import asyncio
from typing import Any

from textual.content import Content
from textual.screen import Screen

from screens.messages import FilesWritten
from screens.widgets.literal import literal
from store.review.feedback_export import export_feedback
from store.review.items import ReviewError
from store.workspace import Workspace
from store.write.atomic import WriteError
from store.write.roundtrip import new_yaml_document


async def export_as_feedback(screen: Screen[Any], ws: Workspace, report_id: str) -> None:
    """Preview, confirm and write; the app is told which files were written."""
    from screens.dialogs.confirm import ConfirmScreen

    try:
        preview = await asyncio.to_thread(export_feedback, ws, report_id, dry_run=True)
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
    try:
        out = await asyncio.to_thread(export_feedback, ws, report_id)
    except (ReviewError, WriteError) as exc:
        screen.notify(str(exc), severity="error", markup=False)
        return
    screen.app.post_message(FilesWritten(frozenset({out.report_path, out.feedback_path})))
    screen.notify(f"Exported {out.feedback_path.stem}", markup=False, timeout=3)
