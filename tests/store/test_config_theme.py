"""Remembering the theme in the config file: one line changed or added, every other byte
kept, nothing written that would read differently (issue 44)."""

from __future__ import annotations

from pathlib import Path

import pytest

from store.config import ConfigError, load_config
from store.write.theme import save_theme


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("", 'theme = "nord"\n'),
        ('root = "~/x"', 'root = "~/x"\ntheme = "nord"\n'),
        ("theme = 'dracula'  # mine\r\n[keys]\n", 'theme = "nord"  # mine\r\n[keys]\n'),
        ('# top\n\n[keys]\ntheme = "x"\n', 'theme = "nord"\n# top\n\n[keys]\ntheme = "x"\n'),
        (
            'root = """\n~/a\n"""\n\n[keys]\n',
            'root = """\n~/a\n"""\ntheme = "nord"\n\n[keys]\n',
        ),
    ],
)
def test_one_line_changes(tmp_path: Path, before: str, after: str) -> None:
    path = tmp_path / "config.toml"
    path.write_bytes(before.encode())
    save_theme(path, "nord")
    assert path.read_bytes() == after.encode()
    assert load_config(path).theme == "nord"


def test_a_missing_file_is_created_with_its_directory(tmp_path: Path) -> None:
    path = tmp_path / "hurikaeri" / "config.toml"
    save_theme(path, "nord")
    assert path.read_text() == 'theme = "nord"\n'


def test_a_broken_file_is_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text("root = [\n")
    with pytest.raises(ConfigError, match="the theme was not remembered"):
        save_theme(path, "nord")
    assert path.read_text() == "root = [\n"
