"""The secret scanner's rules load on a thread ahead of the first scan (``warm_up``, which the
app starts at launch and ``import-wrapup`` once it has a record to write): once per process,
the scan waits for it, and a library that cannot be loaded is reported by the scan that needs
it, not by the thread."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest

from store.check import secrets
from store.check.secrets import ScannerUnavailable, scan_text, warm_up

GH_TOKEN = "ghp_" + "zjgHWbmPZe9gwWQaq5mcdkU1gJQV3hDKJnQu"


class _SlowDetector(secrets._Detector):
    """Loads the real scanner after a pause, counting loads and who asked first."""

    def __init__(self, *, fail: bool = False) -> None:
        super().__init__()
        self.loads = 0
        self.fail = fail

    def scanner(self) -> Any:
        with self._lock:
            if self._scanner is None:
                self.loads += 1
                time.sleep(0.2)
                if self.fail:
                    raise ScannerUnavailable("the secret scanner is not installed")
                from kingfisher_sdk import Rules, Scanner

                self._scanner = Scanner(Rules(confidence=secrets.CONFIDENCE), redact=False)
            return self._scanner


@pytest.fixture
def fresh(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(secrets, "_WARMING", None)


def test_warm_up_loads_once_and_the_scan_waits_for_it(
    fresh: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    det = _SlowDetector()
    monkeypatch.setattr(secrets, "_DETECTOR", det)
    first = warm_up()
    assert warm_up() is first and first.daemon and first.is_alive()
    hits = scan_text(f"push with {GH_TOKEN}")  # blocks on the detector's lock meanwhile
    assert [h.label for h in hits] and hits[0].masked.startswith("ghp_")
    first.join(5)
    assert not first.is_alive() and det.loads == 1


def test_an_unavailable_scanner_is_said_by_the_scan_not_the_thread(
    fresh: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    raised: list[BaseException | None] = []
    monkeypatch.setattr(threading, "excepthook", lambda a: raised.append(a.exc_value))
    monkeypatch.setattr(secrets, "_DETECTOR", _SlowDetector(fail=True))
    warm_up().join(5)
    assert raised == []
    with pytest.raises(ScannerUnavailable, match="not installed"):
        scan_text("anything")
