"""Every module of ``screens/``, widgets included, holds at most 400 lines (#42): a screen
or widget that grows past it is split by what its pieces hold."""

from __future__ import annotations

from tests.conftest import REPO

MOST = 400


def test_no_screen_module_is_longer_than_400_lines() -> None:
    modules = sorted((REPO / "screens").rglob("*.py"))
    assert len(modules) > 20  # the package was found
    sizes = {
        p.relative_to(REPO).as_posix(): len(p.read_text("utf-8").splitlines()) for p in modules
    }
    assert {path: n for path, n in sizes.items() if n > MOST} == {}
