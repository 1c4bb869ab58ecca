"""`hurikaeri serve` refuses whoever lacks the printed token or comes from another origin.

A real server runs as a subprocess (``python -m tui serve``); a real websocket client
(aiohttp's) knocks on it. Everything talks to loopback only.
"""

from __future__ import annotations

import asyncio
import os
import queue
import re
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from tests.conftest import DEMO, REPO

aiohttp = pytest.importorskip("aiohttp")
pytest.importorskip("textual_serve")
pytestmark = pytest.mark.slow  # a real server in a subprocess

URL_LINE = re.compile(r"(http://\S+/\?token=(\S+))")
STARTUP_TIMEOUT = 30.0


@dataclass
class Served:
    url: str  # as printed, with the token
    token: str
    port: int
    proc: subprocess.Popen[str]
    output: list[str]
    lines: queue.Queue[str]  # each line once it is in ``output``

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def origin(self) -> str:
        return self.base


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_serve(root: Path, port: int, env: dict[str, str]) -> Served:
    """Start ``hurikaeri serve`` and wait (bounded) for the URL it prints."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "tui", "serve", "--root", str(root), "--port", str(port)],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    lines: queue.Queue[str] = queue.Queue()
    output: list[str] = []

    def drain() -> None:  # keeps reading so that the server never blocks on a full pipe
        assert proc.stdout is not None
        for line in proc.stdout:
            output.append(line)
            lines.put(line)

    threading.Thread(target=drain, daemon=True).start()
    deadline = time.monotonic() + STARTUP_TIMEOUT
    for _ in range(1000):
        remaining = deadline - time.monotonic()
        if remaining <= 0 or proc.poll() is not None:
            break
        try:
            line = lines.get(timeout=min(remaining, 1.0))
        except queue.Empty:
            continue
        if m := URL_LINE.search(line):
            return Served(m.group(1), m.group(2), port, proc, output, lines)
    stop(proc)
    raise AssertionError(f"no URL with a token printed; output: {''.join(output)!r}")


def stop(proc: subprocess.Popen[str]) -> None:
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(10)


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    tmp = tmp_path_factory.mktemp("serve")
    root = tmp / "demo"
    shutil.copytree(
        DEMO, root, ignore=shutil.ignore_patterns("index-cache-*", "search-cache-*", "search-v*")
    )
    env = dict(os.environ)
    env.pop("HURIKAERI_CONFIG", None)
    env.pop("HURIKAERI_SERVE_TOKEN", None)
    env["XDG_CONFIG_HOME"] = str(tmp / "xdg")  # never the developer's config
    s = start_serve(root, _free_port(), env)
    try:
        yield s
    finally:
        stop(s.proc)


def run(coro: Any) -> Any:
    return asyncio.run(asyncio.wait_for(coro, 60))


def _session() -> Any:
    return aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=20))


async def _get(url: str, **kw: Any) -> tuple[int, Any]:
    async with (
        _session() as session,
        session.get(url, allow_redirects=False, **kw) as resp,
    ):
        await resp.read()
        return resp.status, resp


async def _read(url: str) -> str:
    async with _session() as session, session.get(url, allow_redirects=False) as resp:
        return await resp.text()


async def _ws_status(url: str, headers: dict[str, str] | None = None) -> int:
    """101 when the websocket is accepted (then closed at once), else the refusal's status."""
    async with _session() as session:
        try:
            ws = await session.ws_connect(url, headers=headers or {})
        except aiohttp.WSServerHandshakeError as exc:
            return exc.status
        await ws.close()
        return 101


def test_prints_url_with_token_on_loopback(served: Served) -> None:
    assert served.url.startswith(f"http://127.0.0.1:{served.port}/?token=")
    assert len(served.token) >= 32
    log = "".join(served.output)
    run(_get(served.url))
    # its access-log line comes once it is answered: the line the token would be in
    while '"GET /?token=' not in "".join(served.output)[len(log) :]:
        served.lines.get(timeout=STARTUP_TIMEOUT)
    assert served.token not in "".join(served.output)[len(log) :], "token leaked to the log"


def test_no_token_refused(served: Served) -> None:
    assert run(_get(f"{served.base}/"))[0] == 403
    assert run(_ws_status(f"{served.base}/ws")) == 403
    assert run(_ws_status(f"{served.base}/ws", {"Origin": served.origin})) == 403
    assert run(_ws_status(f"{served.base}/ws/made-up-ticket", {"Origin": served.origin})) == 403
    # textual-serve's own script needs none (nothing of the workspace is in it)
    assert run(_get(f"{served.base}/static/js/textual.js"))[0] == 200


def test_wrong_token_refused(served: Served) -> None:
    wrong = served.token[:-1] + ("A" if served.token[-1] != "A" else "B")
    for token in (wrong, "", served.token[:8]):
        assert run(_get(f"{served.base}/?token={token}"))[0] == 403
        assert run(_ws_status(f"{served.base}/ws?token={token}")) == 403
    cookie = {"Cookie": f"hurikaeri-token-{served.port}={wrong}"}
    assert run(_get(f"{served.base}/", headers=cookie))[0] == 403
    assert run(_ws_status(f"{served.base}/ws", cookie)) == 403


def test_foreign_origin_refused(served: Served) -> None:
    ws = f"{served.base}/ws?token={served.token}"
    for origin in (
        "http://evil.example",
        f"http://evil.example:{served.port}",
        f"http://127.0.0.1:{served.port + 1 if served.port < 65535 else 1}",
        f"https://127.0.0.1:{served.port}",
        "null",
    ):
        assert run(_ws_status(ws, {"Origin": origin})) == 403, origin
    assert run(_get(served.url, headers={"Origin": "http://evil.example"}))[0] == 403


def test_token_and_own_origin_accepted_and_app_talks(served: Served) -> None:
    async def session_data() -> bytes:
        headers = {"Origin": served.origin}
        async with (
            _session() as session,
            session.ws_connect(
                f"{served.base}/ws?token={served.token}&width=100&height=30", headers=headers
            ) as ws,
        ):
            received = b""
            deadline = time.monotonic() + 40
            for _ in range(500):  # the app starts in a subprocess, then draws
                remaining = deadline - time.monotonic()
                if remaining <= 0 or len(received) > 200:
                    break
                try:
                    msg = await ws.receive(timeout=remaining)
                except TimeoutError:
                    break
                if msg.type == aiohttp.WSMsgType.BINARY:
                    received += msg.data
                elif msg.type == aiohttp.WSMsgType.TEXT:
                    received += msg.data.encode()
                else:
                    break
            return received

    data = run(session_data())
    assert len(data) > 200, f"no output from the app over the websocket: {data[:200]!r}"


def page_websocket(served: Served) -> str:
    """The websocket URL a page served with the token opens."""
    page = run(_read(served.url))
    m = re.search(r'data-session-websocket-url="([^"]+)"', page)
    assert m is not None, page[:500]
    return m.group(1)


def test_no_cookie_is_set_and_a_cookie_is_no_authority(served: Served) -> None:
    """A cookie of 127.0.0.1 goes to every port of it (issue 40, point 6): another local
    user's server would receive it and could replay it. None is set, none is honoured."""
    status, resp = run(_get(served.url))
    assert status == 200
    assert "Set-Cookie" not in resp.headers
    assert resp.headers["Referrer-Policy"] == "no-referrer"
    # what a browser holding an earlier server's cookie would send, replayed elsewhere
    for name in (f"hurikaeri-token-{served.port}", "token"):
        cookie = {"Cookie": f"{name}={served.token}"}
        assert run(_get(f"{served.base}/", headers=cookie))[0] == 403
        assert run(_ws_status(f"{served.base}/ws", {**cookie, "Origin": served.origin})) == 403


def test_the_page_websocket_carries_a_ticket_good_once(served: Served) -> None:
    url = page_websocket(served)
    assert served.token not in url
    assert urlsplit(url).netloc == urlsplit(served.base).netloc
    assert urlsplit(url).path.startswith("/ws/")
    ws = served.base + urlsplit(url).path
    assert run(_ws_status(ws, {"Origin": "http://evil.example"})) == 403
    assert run(_ws_status(ws + "?width=80&height=24", {"Origin": served.origin})) == 101
    assert run(_ws_status(ws, {"Origin": served.origin})) == 403  # used: not again
    # a loopback alias is sent to the printed host, where the page's websocket lives
    status, resp = run(_get(served.url.replace("127.0.0.1", "localhost")))
    assert status == 307
    assert resp.headers["Location"] == served.url


def test_the_page_loads_nothing_from_the_internet(served: Served) -> None:
    page = run(_read(served.url))
    assert 'class="textual-terminal"' in page and "/static/js/textual.js" in page
    urls = re.findall(r"(?:https?|wss?)://[^\s\"'<>]+", page)
    assert urls and all(urlsplit(u).netloc == urlsplit(served.base).netloc for u in urls), urls


def _listeners(port: int) -> list[str]:
    """Local addresses (hex, as in /proc/net/tcp*) listening on ``port``."""
    found = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            rows = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            fields = row.split()
            address, hex_port = fields[1].rsplit(":", 1)
            if fields[3] == "0A" and int(hex_port, 16) == port:
                found.append(address)
    return found


@pytest.mark.skipif(not Path("/proc/net/tcp").exists(), reason="needs Linux's /proc/net/tcp")
def test_binds_loopback_only_by_default(served: Served) -> None:
    assert served.url.startswith("http://127.0.0.1:")
    assert _listeners(served.port) == ["0100007F"]  # 127.0.0.1, and nothing else
    # another loopback address reaches a wildcard bind, but not this one
    with pytest.raises(OSError), socket.create_connection(("127.0.0.2", served.port), timeout=2):
        pass
