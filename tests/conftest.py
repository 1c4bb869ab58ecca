"""Shared test setup: pinned terminal environment and paths to fixtures."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from store.tx.agents import AGENT_VARIABLES

# No wall clock in an example's verdict: Hypothesis's default 200 ms deadline and its
# too-slow check fail examples on a loaded machine (a test's own settings can still set them).
settings.register_profile("hurikaeri", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("hurikaeri")

# Snapshots and colours must not depend on the developer's terminal.
os.environ.pop("NO_COLOR", None)
os.environ["TEXTUAL_THEME"] = "textual-dark"
os.environ.setdefault("TERM", "xterm-256color")
os.environ.pop("HURIKAERI_CONFIG", None)
# a person runs the tests: decisions are refused inside an agent's session (tests that
# are about that set the variables themselves)
for _name in AGENT_VARIABLES:
    os.environ.pop(_name, None)
os.environ["TZ"] = "UTC"  # dates shown in local time must not depend on the machine
time.tzset()

REPO = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"
DEMO = REPO / "assets" / "demo"
TAKT = FIXTURES / "takt-v0.33"
SEEDS = FIXTURES / "seeds"


@pytest.fixture
def demo_root(tmp_path: Path) -> Path:
    """A private copy of the demo workspace (without caches a run in the checkout left)."""
    root = tmp_path / "demo"
    shutil.copytree(
        DEMO, root, ignore=shutil.ignore_patterns("index-cache-*", "search-cache-*", "search-v*")
    )
    return root


@pytest.fixture(autouse=True)
def _no_user_config(
    monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Tests never read the developer's own config file."""
    home = tmp_path_factory.mktemp("xdg")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home))
    monkeypatch.delenv("HURIKAERI_CONFIG", raising=False)
    # the machine's ledger key (store.machine_key) is the session's own, never the user's
    monkeypatch.setenv("HURIKAERI_KEY_DIR", str(_key_dir(tmp_path_factory)))


_KEY_DIR: list[Path] = []


def _key_dir(factory: pytest.TempPathFactory) -> Path:
    """One key directory for the test session: this machine, as every test sees it."""
    if not _KEY_DIR:
        _KEY_DIR.append(factory.mktemp("machine-key"))
    return _KEY_DIR[0]
