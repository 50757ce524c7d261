"""The web server of `ael-lab serve`: textual-serve, made fit for a classroom.

textual-serve starts one app process per websocket. On top of it:
  - at most `max_sessions` at once: the page says the lab is full, a websocket
    beyond the cap is closed before any process starts; and at most
    `max_per_address` from one address (one student cannot take the class's places);
  - a session with no key or mouse input for `idle_seconds` is ended;
  - each app gets an environment without the teacher's credentials unless
    `--allow-llm` (a whitelist, so a key under a name we never heard of stays out),
    whose home, temporary files and caches are in the sessions folder and which
    may not download (ServedMode.private_env);
  - frames from the browser are checked (JSON shape, terminal sizes clamped),
    since a visitor can send anything;
  - the page's URLs follow the address the visitor used, so `--host 0.0.0.0`
    works from other machines, and the page loads nothing from the internet.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import shlex
import socket
import sys
import time
from pathlib import Path
from typing import Any, Callable

import aiohttp_jinja2
from aiohttp import WSMsgType, web
from textual_serve.app_service import AppService
from textual_serve.server import Server

from .mode import ENV, ServedMode

log = logging.getLogger("ael-lab.serve")

TEMPLATES = Path(__file__).parent / "templates"
# What an app process inherits when LLMs are not allowed: enough to run Python and
# draw the terminal, nothing that could hold a credential.
SAFE_ENV = ("PATH", "HOME", "LANG", "LANGUAGE", "TZ", "TMPDIR", "PYTHONPATH", "VIRTUAL_ENV", "SYSTEMROOT",
            "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "AEL_LAB_KEYS", "AEL_LAB_CACHE_DIR",  # the support table's cache
            "COLUMNS", "ROWS", "TERM", "TERM_PROGRAM", "TERM_PROGRAM_VERSION")
SAFE_PREFIXES = ("LC_", "TEXTUAL")
MAX_FRAME = 64 * 1024            # bytes of one browser frame: keys, pastes, mouse reports
WIDTH, HEIGHT = (10, 400), (5, 200)  # terminal sizes a browser may ask for
STOP_GRACE = 10.0                # seconds an app has to quit before it is killed
_HOST = re.compile(r"^[A-Za-z0-9.\-]{1,253}(:\d{1,5})?$|^\[[0-9A-Fa-f:.]{2,45}\](:\d{1,5})?$")


class SessionCap:
    """How many sessions run, in all and per address; the event loop is single-threaded, so no lock."""

    def __init__(self, limit: int, per_address: int | None = None) -> None:
        self.limit, self.active = limit, 0
        self.per_address = per_address or limit
        self.by_address: dict[str, int] = {}

    @property
    def full(self) -> bool:
        return self.active >= self.limit

    def full_for(self, address: str) -> bool:
        return self.by_address.get(address, 0) >= self.per_address

    def acquire(self, address: str = "") -> bool:
        if self.full or self.full_for(address):
            return False
        self.active += 1
        self.by_address[address] = self.by_address.get(address, 0) + 1
        return True

    def release(self, address: str = "") -> None:
        self.active = max(0, self.active - 1)
        left = self.by_address.get(address, 0) - 1
        if left > 0:
            self.by_address[address] = left
        else:
            self.by_address.pop(address, None)


def app_environment(env: dict[str, str], mode: ServedMode) -> dict[str, str]:
    """The environment of one visitor's app process, built from textual-serve's: no
    credential unless `--allow-llm`, and a home, temporary folder and caches inside the
    sessions folder, with downloads off (ServedMode.private_env)."""
    from ..config import KEYS_ENV, keys_path

    keys_file = env.get(KEYS_ENV) or str(keys_path())  # found before HOME moves
    if not mode.allow_llm:
        env = {k: v for k, v in env.items() if k in SAFE_ENV or k.startswith(SAFE_PREFIXES)}
    return {**env, **mode.private_env(keys_file), ENV: mode.to_env()}


def address(request: web.Request) -> str:
    """The visitor's address, for the per-address limit (behind a proxy: the proxy's)."""
    return request.remote or "?"


def clamp(value: Any, bounds: tuple[int, int], default: int) -> int:
    try:
        n = int(value)
    except (TypeError, ValueError, OverflowError):
        n = default
    return min(max(n, bounds[0]), bounds[1])


class LabAppService(AppService):
    def __init__(self, command: str, mode: ServedMode, **kwargs: Any) -> None:
        super().__init__(command, **kwargs)
        self.mode = mode

    def _build_environment(self, width: int = 80, height: int = 24) -> dict[str, str]:
        return app_environment(super()._build_environment(width, height), self.mode)

    async def stop_within(self, seconds: float) -> None:
        """textual-serve's stop (asks the app to quit), then a kill if it has not."""
        try:
            await asyncio.wait_for(asyncio.shield(self.stop()), seconds)
        except (asyncio.TimeoutError, Exception):  # a dead pipe must not keep the process alive
            pass
        process = self._process
        if process is None:
            return
        try:
            await asyncio.wait_for(process.wait(), 2.0)
        except asyncio.TimeoutError:
            process.kill()
            await process.wait()


class LabServer(Server):
    def __init__(self, mode: ServedMode, *, host: str, port: int, what: str, max_sessions: int = 40,
                 idle_seconds: float = 1800.0, out: Callable[[str], None] | None = None,
                 max_per_address: int | None = None) -> None:
        # exec: the shell textual-serve starts becomes the app, so stopping it stops the app
        command = "exec " + shlex.join([sys.executable, "-m", "ael_tui.serve.lab"])
        super().__init__(command, host=host, port=port, title=f"AEL Lab · {what}", templates_path=TEMPLATES)
        self.mode, self.what = mode, what
        self.cap = SessionCap(max_sessions, max_per_address)
        self.idle_seconds = idle_seconds
        self.services: set[LabAppService] = set()
        self.out = out or (lambda line: print(line, flush=True))

    def initialize_logging(self) -> None:
        # plain lines: textual-serve's handler prints tracebacks with local variables
        logging.basicConfig(level="INFO", format="ael-lab serve: %(message)s")

    async def on_startup(self, app: web.Application) -> None:
        pass  # the announcement is made once the port is bound (serve)

    async def on_shutdown(self, app: web.Application) -> None:
        """Stopping the server stops every visitor's app: none outlives it."""
        await asyncio.gather(*(s.stop_within(2.0) for s in list(self.services)), return_exceptions=True)

    def bind(self) -> socket.socket:
        """The listening socket, bound now so a busy port is reported before anything starts."""
        family = socket.AF_INET6 if ":" in self.host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((self.host, self.port))
            sock.listen(128)  # listening before the announcement: a visitor who reads it can connect
        except OSError:
            sock.close()
            raise
        self.port = sock.getsockname()[1]
        return sock

    def serve(self, debug: bool = False, sock: socket.socket | None = None) -> None:
        sock = sock or self.bind()
        self.initialize_logging()
        mode = self.mode
        self.out(f"AEL Lab: serving {self.what} at http://{self.host}:{self.port}/ "
                 f"(sessions folder {mode.folder}; up to {self.cap.limit} visitors, {self.cap.per_address} per "
                 f"address; {mode.quota_mib:g} MiB of files each; idle sessions end after "
                 f"{self.idle_seconds / 60:g} min; {'LLM backends allowed' if mode.allow_llm else 'offline only'})")
        self.out("Ctrl+C stops the server and every visitor's lab.")
        web.run_app(self._make_app(), sock=sock, print=None, handle_signals=True)

    # ------------------------------------------------------------------ page
    def _base(self, request: web.Request) -> tuple[str, str]:
        """(http base, ws base) as the visitor addressed us; the bound address if the
        Host header is not a plain host[:port] (it is echoed into the page)."""
        host = request.host if _HOST.match(request.host or "") else f"{self.host}:{self.port}"
        secure = request.secure
        return f"{'https' if secure else 'http'}://{host}", f"{'wss' if secure else 'ws'}://{host}"

    async def handle_index(self, request: web.Request) -> web.Response:
        if self.cap.full:
            return aiohttp_jinja2.render_template("full.html", request, {"limit": self.cap.limit}, status=503)
        if self.cap.full_for(address(request)):
            return aiohttp_jinja2.render_template("too-many.html", request, {"limit": self.cap.per_address},
                                                  status=429)
        http, ws = self._base(request)
        context = {
            "title": self.title,
            "font_size": clamp(request.query.get("fontsize"), (6, 48), 16),
            "static_url": f"{http}/static/",
            "app_websocket_url": f"{ws}/ws",
        }
        return aiohttp_jinja2.render_template("page.html", request, context)

    # ------------------------------------------------------------- sessions
    async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
        websocket = web.WebSocketResponse(heartbeat=15, max_msg_size=MAX_FRAME)
        await websocket.prepare(request)
        where = address(request)
        if not self.cap.acquire(where):
            if self.cap.full:
                await websocket.send_bytes(b"\r\n  AEL Lab is full: every session is in use. "
                                           b"Try again in a few minutes.\r\n")
            else:
                await websocket.send_bytes(f"\r\n  AEL Lab: {self.cap.per_address} labs are already open from "
                                           f"this address, the most one address may have. Close one, then "
                                           f"reload.\r\n".encode())
            await websocket.close(code=1013, message=b"full")  # 1013: try again later
            return websocket
        service: LabAppService | None = None
        idle: asyncio.Task | None = None
        try:
            service = LabAppService(self.command, self.mode, write_bytes=websocket.send_bytes,
                                    write_str=websocket.send_str, close=websocket.close,
                                    download_manager=self.download_manager)
            self.services.add(service)
            await service.start(clamp(request.query.get("width"), WIDTH, 80),
                                clamp(request.query.get("height"), HEIGHT, 24))
            last_input = [time.monotonic()]
            idle = asyncio.create_task(self._end_when_idle(websocket, last_input, service))
            await self._relay(websocket, service, last_input)
        except asyncio.CancelledError:
            pass
        except Exception as err:  # one visitor's broken session must not stop the others
            log.error("a session ended on an error: %s", type(err).__name__)
        finally:
            if idle is not None:
                idle.cancel()
            if service is not None:
                await service.stop_within(STOP_GRACE)
                self.services.discard(service)
            self.cap.release(where)
            if not websocket.closed:
                await websocket.close()
        return websocket

    async def _end_when_idle(self, websocket: web.WebSocketResponse, last_input: list[float],
                             service: LabAppService) -> None:
        """Close the page's connection when the lab has had no input for idle_seconds,
        or when the app process has ended (quit, or failed to start)."""
        while True:
            left = last_input[0] + self.idle_seconds - time.monotonic()
            if left <= 0:
                break
            task = service._task
            if task is None or task.done():
                await websocket.close()
                return
            await asyncio.wait([task], timeout=min(left, 5.0))
        minutes = f"{self.idle_seconds / 60:g}"
        log.info("a session ended after %s min without input", minutes)
        await websocket.close(code=1000, message=f"idle for {minutes} min".encode())

    async def _relay(self, websocket: web.WebSocketResponse, service: LabAppService,
                     last_input: list[float]) -> None:
        """Browser frames to the app; anything malformed is dropped, not trusted."""
        async for message in websocket:
            if message.type != WSMsgType.TEXT:
                continue
            try:
                envelope = json.loads(message.data)
            except ValueError:
                continue
            if not isinstance(envelope, list) or not envelope or not isinstance(envelope[0], str):
                continue
            kind, data = envelope[0], (envelope[1] if len(envelope) > 1 else None)
            if kind == "stdin" and isinstance(data, str):
                last_input[0] = time.monotonic()
                await service.send_bytes(data.encode("utf-8", "replace"))
            elif kind == "resize" and isinstance(data, dict):
                await service.set_terminal_size(clamp(data.get("width"), WIDTH, 80),
                                                clamp(data.get("height"), HEIGHT, 24))
            elif kind == "ping" and isinstance(data, str) and len(data) <= 32:
                await websocket.send_json(["pong", data])
            elif kind == "blur":
                await service.blur()
            elif kind == "focus":
                await service.focus()
