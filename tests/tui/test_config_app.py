"""The config's app settings (issue 44): ``[keys]`` ids and ``theme`` are checked before
the app starts, each mistake one line naming the file and the nearest name."""

from __future__ import annotations

from pathlib import Path

import pytest

from store.ledger import set_channel
from tui.app import HurikaeriApp
from tui.cli.main import main


def start(
    tmp_path: Path,
    demo_root: Path,
    toml: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> tuple[int, str]:
    """``hurikaeri --config F --root DEMO`` with the app's run left out: (status, stderr)."""
    monkeypatch.setattr(HurikaeriApp, "run", lambda self, *a, **k: None)
    config = tmp_path / "config.toml"
    config.write_text(toml, encoding="utf-8")
    try:
        code = main(["--config", str(config), "--root", str(demo_root)])
    finally:
        set_channel(None)  # the app's channel, set by run_ui, left for no later test
    return code, capsys.readouterr().err


def test_a_typo_in_a_key_remap_names_the_nearest_binding_id(
    tmp_path: Path,
    demo_root: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    code, err = start(tmp_path, demo_root, '[keys]\n"review.aprove" = "y"\n', capsys, monkeypatch)
    assert code == 1 and len(err.splitlines()) == 1
    assert str(tmp_path / "config.toml") in err
    assert "'review.aprove' is not a binding id (did you mean 'review.approve'?)" in err


def test_key_remaps_of_real_ids_start(
    tmp_path: Path,
    demo_root: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    toml = '[keys]\n"review.approve" = "y"\n"app.problems" = "ctrl+e"\n"text_view.close" = "c"\n'
    code, err = start(tmp_path, demo_root, toml, capsys, monkeypatch)
    assert code == 0, err


def test_an_unknown_theme_is_one_error_line(
    tmp_path: Path,
    demo_root: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    code, err = start(tmp_path, demo_root, 'theme = "nordd"\n', capsys, monkeypatch)
    assert code == 1 and len(err.splitlines()) == 1
    assert "theme 'nordd' is not a theme (did you mean 'nord'?)" in err
    code, err = start(tmp_path, demo_root, 'theme = "bogus"\n', capsys, monkeypatch)
    assert code == 1 and "theme 'bogus' is not a theme (one of: " in err and "gruvbox" in err
