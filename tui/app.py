"""The Textual app and its factory, shared by the command line and the tests."""

from __future__ import annotations

from pathlib import Path

from textual.app import App
from textual.binding import Binding

from screens.workspace_files import WorkspaceFilesScreen
from store.config import Config
from store.workspace import Workspace


class HurikaeriApp(App[None]):
    """hurikaeri: the daily review of what AI coding agents learned."""

    CSS_PATH = "app.tcss"
    TITLE = "hurikaeri"
    BINDINGS = [
        Binding("q", "quit", "Quit", id="app.quit"),
        Binding("ctrl+p", "command_palette", "Commands", show=False, id="app.palette"),
    ]

    def __init__(self, workspace: Workspace, *, watch: bool = True) -> None:
        super().__init__()
        self.workspace = workspace
        self.watch_files = watch
        self.sub_title = str(workspace.root)

    def on_mount(self) -> None:
        if self.workspace.config.keys:
            self.set_keymap(self.workspace.config.keys)
        if self.workspace.config.theme:
            self.theme = self.workspace.config.theme
        self.push_screen(WorkspaceFilesScreen(self.workspace))


def create_app(
    root: Path | None = None, config: Config | None = None, *, watch: bool = True
) -> HurikaeriApp:
    """Build the app for a workspace root (the default root when ``None``)."""
    cfg = config or Config()
    return HurikaeriApp(Workspace.resolve(root, cfg), watch=watch)
