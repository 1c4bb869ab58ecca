"""A screen of one list and the detail of its highlighted row; what it lists is read again
(``reload``, a worker) when the workspace changes. Textual calls these handlers besides a
subclass's own ``on_mount`` or ``on_workspace_changed``."""

from __future__ import annotations

from collections.abc import Sequence

from textual.screen import Screen

from screens.messages import WorkspaceChanged
from screens.widgets.virtual_table import Row, VirtualTable
from store.index.workspace_index import WorkspaceIndex


class ListScreen(Screen[None]):
    #: the id of the list's `VirtualTable`
    LIST = ""

    def __init__(self, index: WorkspaceIndex) -> None:
        super().__init__()
        self.index = index
        #: the key of the row whose detail is shown
        self.current: str | None = None

    @property
    def table(self) -> VirtualTable:
        return self.query_one(f"#{self.LIST}", VirtualTable)

    def on_mount(self) -> None:
        self.table.focus()
        self.reload()

    def on_workspace_changed(self, _event: WorkspaceChanged) -> None:
        self.reload()

    def on_virtual_table_highlighted(self, event: VirtualTable.Highlighted) -> None:
        if event.control is self.table:
            self.show_key(event.key)

    def reload(self) -> object:  # (a worker)
        raise NotImplementedError

    def show_detail(self, key: str | None) -> None:
        raise NotImplementedError

    def show_key(self, key: str | None, *, force: bool = False) -> None:
        """The detail of ``key``, unless it is shown already (``self.current`` is still the
        key shown before while ``show_detail`` runs)."""
        if key != self.current or force:
            self.show_detail(key)
            self.current = key

    def show_rows(self, rows: Sequence[Row], title: str) -> None:
        table = self.table
        table.set_rows(rows)
        table.border_title = title
        if self.current:
            table.move_to_key(self.current)
        self.show_key(table.cursor_key, force=True)
