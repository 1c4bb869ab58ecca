"""``hurikaeri serve``: the app in a browser, behind a secret token and an Origin check.

textual-serve runs ``hurikaeri --root ROOT`` once per browser session and has no
authentication of its own: anyone who can open a connection to the port could drive the app
and write to the owner's workspace (another user on the same machine included). This module
wraps its aiohttp application with one middleware:

* every request must carry the server's token — in the query (``?token=…``, the URL printed
  at start) or in the cookie the page sets when it is opened with the token (HttpOnly,
  SameSite=Strict, named after the port), which the page's own assets and websocket use;
  tokens are compared with :func:`hmac.compare_digest`; anything else gets 403;
* a request with an ``Origin`` header (browsers send one on every websocket) must come from
  the server's own origin — its bound host and port, or a loopback alias of it when bound to
  loopback — else 403; a client without ``Origin`` (not a browser) still needs the token.

The token is random (:func:`secrets.token_urlsafe`) unless ``HURIKAERI_SERVE_TOKEN`` sets it
(for scripts; the environment, unlike argv, is not visible to other users in ``ps``). It is
removed from the environment before the app's sessions start, and redacted from access logs.
"""

from __future__ import annotations

import argparse
import asyncio
import hmac
import logging
import os
import re
import secrets
import shlex
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, urlsplit

import assets
from store.workspace import Workspace

if TYPE_CHECKING:
    from aiohttp import web

PROG = "hurikaeri"
TOKEN_ENV = "HURIKAERI_SERVE_TOKEN"
MIN_TOKEN_LENGTH = 16
LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1"})
WILDCARD = frozenset({"0.0.0.0", "::", ""})
_TOKEN_IN_TEXT = re.compile(r"(token=)[^&\s\"']+")
#: the page template (assets/serve/app_index.html): textual-serve's own asks Google for a
#: web font, which an offline machine cannot reach
SERVE_TEMPLATES = Path(assets.__file__).resolve().parent / "serve"

Handler = Callable[["web.Request"], Awaitable["web.StreamResponse"]]


def server_token(environ: dict[str, str] | os._Environ[str] = os.environ) -> str:
    """The token from ``HURIKAERI_SERVE_TOKEN`` (taken out of the environment), else a new one."""
    from tui.cli import UsageError

    given = environ.pop(TOKEN_ENV, "")
    if not given:
        return secrets.token_urlsafe(32)
    if len(given) < MIN_TOKEN_LENGTH:
        raise UsageError(f"{TOKEN_ENV} must be at least {MIN_TOKEN_LENGTH} characters")
    return given


def url_host(host: str) -> str:
    """A host as it appears in a URL (IPv6 addresses in brackets)."""
    return f"[{host}]" if ":" in host and not host.startswith("[") else host


def origin_allowed(origin: str, *, bound_host: str, port: int, request_host: str) -> bool:
    """Whether a browser page at ``origin`` may talk to a server bound to ``bound_host:port``.

    Loopback binds accept any loopback alias on the same port; wildcard binds (``0.0.0.0``)
    accept only an origin equal to the request's own ``Host``; other binds their own host.
    """
    try:
        parts = urlsplit(origin)
        origin_port = parts.port
    except ValueError:
        return False
    if parts.scheme != "http" or not parts.hostname or parts.path not in ("", "/"):
        return False
    if (origin_port or 80) != port:
        return False
    hostname = parts.hostname.lower()
    bound = bound_host.strip("[]").lower()
    if bound in WILDCARD:
        return parts.netloc.lower() == request_host.lower()
    if bound in LOOPBACK:
        return hostname in LOOPBACK
    return hostname == bound


class _RedactToken(logging.Filter):
    """Keeps the token out of the access log (request lines carry ``?token=…``)."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if "token=" in message:
            record.msg = _TOKEN_IN_TEXT.sub(r"\1<redacted>", message)
            record.args = ()
        return True


def make_server(command: str, *, host: str, port: int, title: str, token: str) -> Any:
    """A textual-serve ``Server`` that requires ``token`` and a same-origin ``Origin``."""
    from aiohttp import web
    from textual_serve.server import Server

    public_url = f"http://{url_host(host)}:{port}"
    canonical_netloc = urlsplit(public_url).netloc.lower()
    cookie_name = f"hurikaeri-token-{port}"
    expected = token.encode("utf-8")

    def token_ok(supplied: str | None) -> bool:
        return supplied is not None and hmac.compare_digest(supplied.encode("utf-8"), expected)

    def forbidden(reason: str) -> web.HTTPForbidden:
        return web.HTTPForbidden(text=f"{PROG} serve: {reason}\n")

    @web.middleware
    async def guard(request: web.Request, handler: Handler) -> web.StreamResponse:
        from_query = "token" in request.query
        supplied = request.query.get("token") if from_query else request.cookies.get(cookie_name)
        if not token_ok(supplied):
            raise forbidden("missing or wrong token: open the URL printed when the server started")
        origin = request.headers.get("Origin")
        if origin is not None and not origin_allowed(
            origin, bound_host=host, port=port, request_host=request.host
        ):
            raise forbidden(f"origin {origin!r} is not this server's")
        is_page = request.path == "/"
        if (
            is_page
            and from_query
            and host.strip("[]").lower() not in WILDCARD
            and request.host.lower() != canonical_netloc
        ):
            # The page's assets and websocket live at the printed URL's host: go there, so
            # that the cookie set below is sent with them.
            raise web.HTTPTemporaryRedirect(f"{public_url}{request.path_qs}")
        response = await handler(request)
        if is_page and isinstance(response, web.Response) and not response.prepared:
            response.headers["Referrer-Policy"] = "no-referrer"
            response.headers["Cache-Control"] = "no-store"
            if from_query:
                response.set_cookie(cookie_name, token, httponly=True, samesite="Strict", path="/")
        return response

    class GuardedServer(Server):
        """textual-serve's server with :func:`guard` in front of every route."""

        async def _make_app(self) -> web.Application:
            app: web.Application = await super()._make_app()
            app.middlewares.append(guard)
            return app

        def initialize_logging(self) -> None:
            super().initialize_logging()
            logging.getLogger("aiohttp.access").addFilter(_RedactToken())

        async def on_startup(self, app: web.Application) -> None:
            """Nothing yet: the URL is printed once the socket listens (:meth:`announce`)."""

        def announce(self, *_running_on: object) -> None:
            print(title, flush=True)
            print("Open this URL in a browser (it carries the access token: keep it private):")
            print(f"    {public_url}/?token={quote(token, safe='')}", flush=True)
            print("Press Ctrl+C to quit", flush=True)

        def serve(self, debug: bool = False) -> None:
            """Run until SIGINT/SIGTERM; the URL is printed only when the server listens."""
            self.debug = debug
            self.initialize_logging()
            web.run_app(
                self._make_app(),
                host=host,
                port=port,
                print=self.announce,
                loop=asyncio.new_event_loop(),
            )

    return GuardedServer(
        command,
        host=host,
        port=port,
        title=title,
        public_url=public_url,
        templates_path=SERVE_TEMPLATES,  # our page: nothing loaded from the internet
    )


def cmd_serve(args: argparse.Namespace, ws: Workspace) -> int:
    """The same app in a browser: textual-serve runs ``hurikaeri --root ROOT`` per session."""
    from tui.cli import UsageError

    try:
        import textual_serve.server  # noqa: F401
    except ImportError:
        raise UsageError(
            "browser mode needs the optional 'serve' extra: uv sync --extra serve "
            "(or pip install 'hurikaeri[serve]')"
        ) from None

    token = server_token()
    command = [sys.executable, "-m", "tui", "--root", str(ws.root)]
    if args.config:
        command += ["--config", str(args.config)]
    if args.host not in LOOPBACK:
        print(
            f"{PROG}: serving on {args.host}: anyone who can reach it and has the URL "
            "can review and write",
            file=sys.stderr,
        )
    server = make_server(
        " ".join(shlex.quote(c) for c in command),
        host=args.host,
        port=args.port,
        title=f"hurikaeri — {ws.root}",
        token=token,
    )
    try:
        server.serve()
    except OSError as exc:  # the port is taken, the address is not this machine's, …
        raise UsageError(f"cannot listen on {url_host(args.host)}:{args.port}: {exc}") from None
    return 0
