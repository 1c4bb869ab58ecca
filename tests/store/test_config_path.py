"""The default config file: where platformdirs puts the user config directory, found
without importing it on Linux (every command asks, a search among them)."""

from __future__ import annotations

import sys
from pathlib import Path

import platformdirs
import pytest

from store.config import default_config_path


@pytest.mark.skipif(sys.platform != "linux", reason="the XDG rule read without platformdirs")
@pytest.mark.parametrize(
    ("home", "xdg"),
    [
        ("/home/u", None),
        ("/home/u/", ""),
        ("/", None),
        ("/home/u", "/etc/xdg-conf/"),
        ("/home/u", "relative/conf"),
        ("relative-home", None),
        ("", "/x"),
    ],
)
def test_the_default_config_is_where_platformdirs_puts_it(
    monkeypatch: pytest.MonkeyPatch, home: str, xdg: str | None
) -> None:
    monkeypatch.setenv("HOME", home)
    if xdg is None:
        monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    else:
        monkeypatch.setenv("XDG_CONFIG_HOME", xdg)
    want = Path(platformdirs.user_config_dir("hurikaeri")) / "config.toml"
    assert default_config_path() == want
