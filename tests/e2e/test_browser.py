"""Browser mode end to end: `hurikaeri serve` in headless Chromium (Debian's, via Playwright).

Skipped, with the reason, only where no Chromium is installed; nothing downloads a browser.
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
pytestmark = pytest.mark.skipif(
    CHROMIUM is None,
    reason="no Chromium installed (Debian package 'chromium'); .ci/run installs it",
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
            home = _wait_for_change(page, blank)
            time.sleep(3)  # the workspace loads in a worker, then the list fills
            home = page.screenshot()
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
