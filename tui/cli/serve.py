"""``hurikaeri serve``: the app in a browser, behind a secret token and an Origin check (one
middleware on every route: docs/command-line.md, "serve"). No cookie is set: a browser sends
a host's cookie to all its ports, so another local user's server could replay it."""

from __future__ import annotations

import argparse
import hmac
import logging
import os
import re
import secrets
import shlex
import sys
from collections.abc import Awaitable, Callable, MutableMapping
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, urlsplit

import assets
from store.workspace import Workspace
from tui.cli.errors import PROG, UsageError

if TYPE_CHECKING:
    from aiohttp import web

TOKEN_ENV = "HURIKAERI_SERVE_TOKEN"
MIN_TOKEN_LENGTH = 16
LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1"})
WILDCARD = frozenset({"0.0.0.0", "::", ""})
_TOKEN_IN_TEXT = re.compile(r"(token=)[^&\s\"']+")
#: the page template (assets/serve/app_index.html): textual-serve's own asks Google for a
#: web font, which an offline machine cannot reach
SERVE_TEMPLATES = Path(assets.__file__).resolve().parent / "serve"

Handler = Callable[["web.Request"], Awaitable["web.StreamResponse"]]


def server_token(environ: MutableMapping[str, str] = os.environ) -> str:
    """The token from ``HURIKAERI_SERVE_TOKEN`` (taken out of the environment), else a new one."""
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


class Tickets:
    """The websocket tickets of pages served and not yet connected: each one random, good
    once; only the newest ``keep`` are kept (a page left unconnected holds none for long)."""

    def __init__(self, keep: int = 32) -> None:
        self.keep = keep
        self._open: dict[str, None] = {}

    def issue(self) -> str:
        ticket = secrets.token_urlsafe(32)
        self._open[ticket] = None
        while len(self._open) > self.keep:
            del self._open[next(iter(self._open))]
        return ticket

    def use(self, ticket: str) -> bool:
        """Whether ``ticket`` is open (it is closed from now on)."""
        for known in self._open:
            if hmac.compare_digest(known.encode("utf-8"), ticket.encode("utf-8")):
                del self._open[known]
                return True
        return False


def make_server(command: str, *, host: str, port: int, title: str, token: str) -> Any:
    """A textual-serve ``Server`` that requires ``token`` and a same-origin ``Origin``."""
    import asyncio  # only for a server: every other command starts without it

    import aiohttp_jinja2
    import jinja2
    from aiohttp import web
    from textual_serve.server import Server

    public_url = f"http://{url_host(host)}:{port}"
    canonical_netloc = urlsplit(public_url).netloc.lower()
    wildcard = host.strip("[]").lower() in WILDCARD
    expected = token.encode("utf-8")
    tickets = Tickets()

    def token_ok(supplied: str | None) -> bool:
        return supplied is not None and hmac.compare_digest(supplied.encode("utf-8"), expected)

    def forbidden(reason: str) -> web.HTTPForbidden:
        return web.HTTPForbidden(text=f"{PROG} serve: {reason}\n")

    def allowed(request: web.Request) -> bool:
        """Whether the request carries what its path needs (see the module's docstring)."""
        path = request.path
        if path.startswith(("/static/", "/download/")):
            return True
        if path.startswith("/ws/"):
            return tickets.use(path[len("/ws/") :])
        return token_ok(request.query.get("token"))

    @web.middleware
    async def guard(request: web.Request, handler: Handler) -> web.StreamResponse:
        origin = request.headers.get("Origin")
        if origin is not None and not origin_allowed(
            origin, bound_host=host, port=port, request_host=request.host
        ):
            raise forbidden(f"origin {origin!r} is not this server's")
        if not allowed(request):
            raise forbidden("missing or wrong token: open the URL printed when the server started")
        is_page = request.path == "/"
        if is_page and not wildcard and request.host.lower() != canonical_netloc:
            # the page's assets and websocket live at the printed URL's host: go there
            raise web.HTTPTemporaryRedirect(f"{public_url}{request.path_qs}")
        response = await handler(request)
        if is_page and isinstance(response, web.Response) and not response.prepared:
            response.headers["Referrer-Policy"] = "no-referrer"
            response.headers["Cache-Control"] = "no-store"
        return response

    class GuardedServer(Server):
        """textual-serve's server with :func:`guard` in front of every route, and a page
        whose websocket carries a ticket of its own (``/ws/<ticket>``)."""

        async def make_app(self) -> web.Application:
            """textual-serve's routes, built here from its public handlers (its own builder
            is private), with the ticketed websocket and :func:`guard` in front."""
            app = web.Application(middlewares=[guard])
            aiohttp_jinja2.setup(app, loader=jinja2.FileSystemLoader(self.templates_path))
            app.add_routes(
                [
                    web.get("/", self.handle_index, name="index"),
                    web.get("/ws", self.handle_websocket, name="websocket"),
                    web.get("/ws/{ticket}", self.handle_websocket),
                    web.get("/download/{key}", self.handle_download, name="download"),
                    web.static("/static", self.statics_path, name="static"),
                ]
            )
            app.on_startup.append(self.on_startup)
            app.on_shutdown.append(self.on_shutdown)
            return app

        async def handle_index(self, request: web.Request) -> web.StreamResponse:
            """The page, its websocket at a ticket made for it (the token stays out of it)."""
            base = f"http://{request.host}" if wildcard else public_url
            try:
                font_size = int(request.query.get("fontsize", "16"))
            except ValueError:
                font_size = 16
            context = {
                "font_size": font_size,
                "app_websocket_url": f"ws:{base.split(':', 1)[1]}/ws/{tickets.issue()}",
                "config": {"static": {"url": f"{base}/static/"}},
                "application": {"name": self.title},
            }
            return aiohttp_jinja2.render_template("app_index.html", request, context)

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
                self.make_app(),
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


def add_serve_parser(sub: Any, common: argparse.ArgumentParser) -> None:
    serve = sub.add_parser(
        "serve", parents=[common], help="serve the app to a web browser (textual-serve)"
    )
    serve.set_defaults(run=cmd_serve)
    serve.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to bind (default: 127.0.0.1, this machine only)",
    )
    serve.add_argument("--port", type=int, default=8000, help="port (default: 8000)")


def app_command(ws: Workspace, config: Path | None) -> list[str]:
    """What textual-serve runs per session; ``-P``: never a ``tui`` from the directory serve
    runs in (an agent's workspace) before ours."""
    command = [sys.executable, "-P", "-m", "tui", "--root", str(ws.root)]
    return [*command, "--config", str(config)] if config else command


def cmd_serve(args: argparse.Namespace, ws: Workspace) -> int:
    """The same app in a browser: textual-serve runs ``hurikaeri --root ROOT`` per session."""
    try:
        import textual_serve.server  # noqa: F401
    except ImportError:
        raise UsageError(
            "browser mode needs the optional 'serve' extra: uv sync --extra serve "
            "(or pip install 'hurikaeri[serve]')"
        ) from None

    token = server_token()
    command = app_command(ws, args.config)
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
