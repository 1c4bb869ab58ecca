"""The theme chosen is remembered in the config file, every other byte kept, and the
palette's "Screenshot" saves where it can and says where (issue 44)."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.app import App
from textual.widgets import Input, OptionList

from store.config import load_config
from tests.tui.helpers import ready, settled, until
from tui.app import create_app

CONFIG = """\
# my hurikaeri settings
reviewer = "me@example.com"   # who I am

[keys]
"review.approve" = "a,y"      # both
"""


def first_command(app: App[None]) -> str:
    options = app.screen.query(OptionList)
    if not options or not options.first().option_count:
        return ""
    return str(options.first().get_option_at_index(0).prompt).split("\n")[0]


async def test_the_chosen_theme_is_remembered_across_restarts(
    demo_root: Path, tmp_path: Path
) -> None:
    path = tmp_path / "config.toml"
    path.write_text(CONFIG, encoding="utf-8")
    app = create_app(demo_root, load_config(path), watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        app.theme = "nord"  # as the palette's "Theme" does
        await until(pilot, lambda: "nord" in path.read_text(encoding="utf-8"))
    text = path.read_text(encoding="utf-8")
    head, keys = CONFIG.split("\n[keys]")
    assert text == head + 'theme = "nord"\n' + "\n[keys]" + keys  # the rest byte for byte
    again = create_app(demo_root, load_config(path), watch=False)
    async with again.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        assert again.theme == "nord"
        again.theme = "gruvbox"
        await until(pilot, lambda: "gruvbox" in path.read_text(encoding="utf-8"))
    assert path.read_text(encoding="utf-8") == text.replace('"nord"', '"gruvbox"')


async def test_the_palette_screenshot_without_a_downloads_folder(
    demo_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    here = tmp_path / "here"
    here.mkdir()
    monkeypatch.setenv("HOME", str(home))  # no ~/Downloads
    monkeypatch.delenv("XDG_DOWNLOAD_DIR", raising=False)
    monkeypatch.chdir(here)
    app = create_app(demo_root, watch=False)
    told: list[str] = []
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        monkeypatch.setattr(app, "notify", lambda message, **kw: told.append(str(message)))
        await pilot.press("ctrl+p")
        await until(pilot, lambda: isinstance(app.focused, Input))
        await pilot.press(*"Screenshot")
        # every provider has answered the last query: the list of an earlier one ("Scr")
        # has it first too, and the last one's first batch would clear it under the enter
        await settled(pilot)
        await until(pilot, lambda: first_command(app) == "Screenshot")
        await pilot.press("enter")
        await until(pilot, lambda: bool(told))
    saved = list(here.glob("*.svg"))
    assert len(saved) == 1 and told == [f"Saved to {saved[0]}"]
