"""Browser mode end to end: `hurikaeri serve` in headless Chromium (Debian's, via Playwright).

Skipped, with the reason and the Debian packages to install, where Chromium or the Japanese
and Korean fonts are missing (``.ci/run`` installs them); nothing downloads a browser.
"""

from __future__ import annotations

import queue
import re
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import DEMO, REPO

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
#: The Debian packages this test needs, as .ci/run installs them.
PACKAGES = {"chromium": "chromium", "ja": "fonts-ipafont-gothic", "ko": "fonts-nanum"}


def _has_font(lang: str) -> bool:
    """A font covering ``lang`` is installed (fontconfig's own answer)."""
    fc_list = shutil.which("fc-list")
    if fc_list is None:
        return False
    try:
        out = subprocess.run(
            [fc_list, f":lang={lang}", "family"], capture_output=True, text=True, timeout=30
        )
    except (OSError, subprocess.SubprocessError):
        return False
    return out.returncode == 0 and bool(out.stdout.strip())


def missing_packages() -> list[str]:
    """The Debian packages to install before this test can run (empty: it runs)."""
    missing = [] if CHROMIUM else [PACKAGES["chromium"]]
    return missing + [PACKAGES[lang] for lang in ("ja", "ko") if not _has_font(lang)]


MISSING = missing_packages()
needs_browser = pytest.mark.skipif(
    bool(MISSING),
    reason=(
        "needs Chromium and Japanese and Korean fonts; install the Debian packages: "
        f"apt-get install {' '.join(MISSING)} (.ci/run installs them)"
    ),
)
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-quic",
    "--no-first-run",
    "--disable-component-update",
    "--disable-sync",
]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    """The URL ``hurikaeri serve`` prints (it carries the access token), once it listens."""
    root = tmp_path / "demo"
    shutil.copytree(DEMO, root)
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "tui", "serve", "--root", str(root), "--port", str(port)],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    urls: queue.Queue[str] = queue.Queue()

    def drain() -> None:  # reads to the end, so that the server never blocks on the pipe
        assert proc.stdout is not None
        for line in proc.stdout:
            if m := re.search(r"http://\S+/\?token=\S+", line):
                urls.put(m.group(0))

    threading.Thread(target=drain, daemon=True).start()
    try:
        try:
            url = urls.get(timeout=30)
        except queue.Empty:
            pytest.fail("hurikaeri serve printed no URL with a token within 30 s")
        assert url.startswith(f"http://127.0.0.1:{port}/?token=")
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()


def _wait_for_change(page, before: bytes, timeout: float = 20.0) -> bytes:  # type: ignore[no-untyped-def]
    end = time.monotonic() + timeout
    shot = before
    while time.monotonic() < end:
        time.sleep(0.5)
        shot = page.screenshot()
        if shot != before:
            return shot
    return shot


@pytest.mark.slow
@needs_browser
def test_browser_mode(server: str, tmp_path: Path) -> None:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            refused = page.goto(server.split("?", 1)[0], timeout=30000)
            assert refused is not None and refused.status == 403, "served without the token"
            page.goto(server, timeout=30000)
            page.wait_for_selector("canvas.xterm-text-layer", timeout=30000)
            blank = page.screenshot()
            drawn = _wait_for_change(page, blank)
            home = _wait_for_change(page, drawn)  # the workspace loads, then the list fills
            (tmp_path / "home.png").write_bytes(home)
            page.click("canvas.xterm-cursor-layer")
            page.keyboard.press("Shift+S")  # the statistics screen
            stats = _wait_for_change(page, home)
            assert stats != home, "a key press did not change the screen"
            # Japanese glyphs are available to the terminal's font stack: '日' is drawn
            # differently from a private-use character that no font has (tofu).
            distinct = page.evaluate(
                """() => {
                    const el = document.querySelector('.xterm');
                    const font = getComputedStyle(el).fontFamily || 'monospace';
                    const draw = (ch) => {
                        const c = document.createElement('canvas'); c.width = 40; c.height = 40;
                        const x = c.getContext('2d'); x.font = `28px ${font}`; x.fillText(ch, 4, 30);
                        return Array.from(x.getImageData(0, 0, 40, 40).data).join(',');
                    };
                    return [draw('日') !== draw('\\uE000'), draw('한') !== draw('\\uE000')];
                }"""
            )
            assert distinct == [True, True], "Japanese/Korean glyphs render as missing-glyph boxes"
        finally:
            browser.close()


def test_the_skip_names_the_debian_packages(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without Chromium or a CJK font, the reason to skip names what to install."""
    import tests.e2e.test_browser as mod

    monkeypatch.setattr(mod, "CHROMIUM", None)
    monkeypatch.setattr(mod.shutil, "which", lambda _name: None)  # no fc-list: no fonts known
    assert mod.missing_packages() == ["chromium", "fonts-ipafont-gothic", "fonts-nanum"]
