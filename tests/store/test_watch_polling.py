"""Whether the watcher polls is decided as watchfiles documents it (``force_polling``, then
``WATCHFILES_FORCE_POLLING``, then WSL), by our own code, and passed to it (#42: it was
watchfiles' private ``_default_force_polling``)."""

from __future__ import annotations

import platform

import pytest

from store.watch import polls


@pytest.mark.parametrize(
    ("given", "env", "release", "expected"),
    [
        (True, None, "6.1.0", True),
        (False, "1", "5.15.0-microsoft-standard-WSL2", False),  # the argument first
        (None, "1", "6.1.0", True),
        (None, "disable", "5.15.0-microsoft-standard-WSL2", False),  # then the variable
        (None, "False", "6.1.0", False),
        (None, None, "5.15.0-microsoft-standard-WSL2", True),  # then WSL
        (None, None, "6.1.0", False),
    ],
)
def test_polling_is_decided_as_watchfiles_documents(
    monkeypatch: pytest.MonkeyPatch,
    given: bool | None,
    env: str | None,
    release: str,
    expected: bool,
) -> None:
    if env is None:
        monkeypatch.delenv("WATCHFILES_FORCE_POLLING", raising=False)
    else:
        monkeypatch.setenv("WATCHFILES_FORCE_POLLING", env)
    real = platform.uname()
    monkeypatch.setattr(platform, "uname", lambda: real._replace(system="Linux", release=release))
    assert polls(given) is expected
