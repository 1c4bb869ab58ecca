"""The palette's "Screenshot": an SVG of the screen saved where it can be (Textual's own
saves to ~/Downloads only, and says "Failed" when that folder does not exist)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

from platformdirs import user_downloads_path
from textual.app import App


def screenshot_folder() -> Path:
    """The user's downloads folder when there is one, else the current directory, else the
    home directory, else the temporary one."""
    for folder in (user_downloads_path(), Path.cwd(), Path.home()):
        if folder.is_dir() and os.access(folder, os.W_OK):
            return folder
    return Path(tempfile.gettempdir())


def take_screenshot(app: App[Any], filename: str | None = None, path: str | None = None) -> None:
    folder = Path(path) if path else screenshot_folder()
    try:
        saved = app.save_screenshot(filename, str(folder))
    except OSError as exc:
        why = exc.strerror or type(exc).__name__
        app.notify(
            f"Not saved in {folder}: {why}", title="Screenshot", severity="error", markup=False
        )
        return
    app.notify(f"Saved to {saved}", title="Screenshot", markup=False)
