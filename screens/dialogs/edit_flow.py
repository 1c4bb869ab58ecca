"""Editing a whole file in ``$EDITOR`` on a private copy: a result with errors offers to
reopen or discard, a file changed meanwhile offers the conflict choice."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from textual.app import SuspendNotSupported
from textual.content import Content
from textual.screen import Screen

from screens.messages import FilesWritten
from screens.widgets.literal import literal
from screens.writing import run_write
from store.index.workspace_index import WorkspaceIndex
from store.read.kinds import Kind
from store.review.external_edit import ExternalEdit, save_external_edit
from store.review.item_edit import disk_diff
from store.workspace import Workspace
from store.write.atomic import ConflictError
from store.write.policy import action_writes, in_place_for


async def edit_in_editor(
    screen: Screen[Any],
    index: WorkspaceIndex,
    path: Path,
    kind: Kind | None,
    *,
    subject: str | None = None,
) -> bool:
    """Run the edit; True when the file was written (the app has been told). The write is
    one transaction (``edit-file``, ``subject`` marked edited; ``u`` undoes it)."""
    from screens.dialogs.confirm import ConfirmScreen
    from screens.dialogs.conflict import ConflictScreen

    app = screen.app
    ws, led = index.ws, index.ledger
    try:
        edit = ExternalEdit.start(path, kind, ws.state_dir / "edits", in_place_for(ws, kind))
    except OSError as exc:
        screen.notify(f"Cannot edit {path}: {exc}", severity="error", markup=False)
        return False
    display = ws.display(path)
    try:
        while True:
            if not _run_editor(screen, edit):
                return False
            if not edit.changed:
                screen.notify("No changes.", timeout=2)
                return False
            problems = edit.problems()
            if not problems:
                break
            listing = "\n".join(p.format() for p in problems[:8])
            again = await app.push_screen_wait(
                ConfirmScreen(
                    Content.assemble(
                        Content.styled("The edited file has errors:\n", "bold $error"),
                        literal(listing),
                        "\n\nReopen the editor to fix them? (No discards the edit; the file stays as it was.)",
                    ),
                    "Reopen editor",
                )
            )
            if not again:
                screen.notify("Edit discarded; the file is unchanged.", timeout=3)
                return False
        what = f"edit {display}"
        try:
            outcome = await run_write(
                screen,
                what,
                lambda: save_external_edit(ws, edit, subject=subject, ledger=led),
                expect=(ConflictError,),
            )
        except ConflictError as exc:
            choice = await app.push_screen_wait(
                ConflictScreen(display, str(exc), disk_diff(path, edit.original, display))
            )
            if choice != "keep":
                screen.notify(
                    "Your edit was not written." if choice == "cancel" else "Reloaded from disk."
                )
                return False
            outcome = await run_write(
                screen,
                what,
                lambda: save_external_edit(ws, edit, force=True, subject=subject, ledger=led),
            )
        if not outcome.ok:
            return False
        app.post_message(FilesWritten(frozenset({path}), review=subject is not None))
        screen.notify(f"Saved {display}", timeout=2, markup=False)
        return True
    finally:
        edit.discard()


def start_edit(
    screen: Screen[Any],
    index: WorkspaceIndex,
    path: Path,
    kind: Kind | None,
    *,
    subject: str | None = None,
    then: Callable[[], None] | None = None,
) -> None:
    """:func:`edit_in_editor` in a worker of ``screen``'s; ``then`` runs once written."""

    async def edit() -> None:
        if await edit_in_editor(screen, index, path, kind, subject=subject) and then:
            then()

    screen.run_worker(edit(), group="external-edit", exclusive=True, exit_on_error=False)


def _run_editor(screen: Screen[Any], edit: ExternalEdit) -> bool:
    """Run the editor with the UI suspended; False (said) when it cannot run."""
    try:
        try:
            with screen.app.suspend():
                edit.run_editor()
        except SuspendNotSupported:
            edit.run_editor()
    except OSError as exc:
        screen.notify(str(exc), severity="error", markup=False)
        return False
    return True


async def edit_copy(screen: Screen[Any], ws: Workspace, path: Path, data: bytes) -> bytes | None:
    """``data`` (``path`` as shown) edited in ``$EDITOR`` on a private copy: the result, or
    ``None`` when the editor could not run or nothing was changed (said)."""
    try:
        edit = ExternalEdit.start(
            path, None, ws.state_dir / "edits", action_writes(ws, "keep"), original=data
        )
    except OSError as exc:
        screen.notify(f"Cannot edit {path}: {exc}", severity="error", markup=False)
        return None
    try:
        if not _run_editor(screen, edit):
            return None
        if not edit.changed:
            screen.notify("No changes.", timeout=2)
            return None
        return edit.result
    finally:
        edit.discard()
