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
    works from other machines, and the page loads nothing from the internet;
  - the fork server is watched: one that dies is started again (at most
    RestartBudget's times, then labs start as new processes, and the teacher is
    told), and the pool of warm labs is filled again as visitors leave;
  - SIGHUP (the teacher's terminal closing) ends the server as SIGTERM does: every
    lab autosaves and ends (labs whose server died without a word hear it from
    their control socket's close: ClassLink);
  - the teacher's page and its key: teacher.py.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import logging
import re
import shlex
import signal
import socket
import sys
import time
from pathlib import Path
from typing import Any, Callable

import aiohttp_jinja2
from aiohttp import WSMsgType, web

from ael_lab import AELError

from ..compat import server_base, service_base

from .classroom import LabLink, LabProcess, Zygote
from .mode import ENV, ServedMode
from .supervise import RestartBudget, how_it_ended, process_ended
from .teacher import KeyGuard, QuietAccessLog, TeacherPage, new_key, write_key_file

log = logging.getLogger("ael-lab.serve")

TEMPLATES = Path(__file__).parent / "templates"
# What an app process inherits when LLMs are not allowed: enough to run Python and
# draw the terminal, nothing that could hold a credential.
SAFE_ENV = ("PATH", "HOME", "LANG", "LANGUAGE", "TZ", "TMPDIR", "PYTHONPATH", "VIRTUAL_ENV", "SYSTEMROOT",
            "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "AEL_LAB_KEYS", "AEL_LAB_CACHE_DIR",  # the support table's cache
            "COLUMNS", "ROWS", "TERM", "TERM_PROGRAM", "TERM_PROGRAM_VERSION")
SAFE_PREFIXES = ("LC_", "TEXTUAL")
# `ael-lab --no-plugins serve` reaches the visitors' labs too (engine/plugins.py); none holds a secret
SAFE_ENV += ("AEL_NO_PLUGINS", "AEL_PLUGIN_TIMEOUT")
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


def counted(n: int, noun: str) -> str:
    """'1 visitor', '40 visitors', '1 lab'."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def address(request: web.Request) -> str:
    """The visitor's address, for the per-address limit (behind a proxy: the proxy's)."""
    return request.remote or "?"


def clamp(value: Any, bounds: tuple[int, int], default: int) -> int:
    try:
        n = int(value)
    except (TypeError, ValueError, OverflowError):
        n = default
    return min(max(n, bounds[0]), bounds[1])


SERVED_FPS = 20        # a served lab's screen updates at most this often (Textual's default 60 is a local
                       # terminal's): a person reads no faster, and forty labs share the network and the cores
QUIET = 3.0            # seconds without a visitor arriving before the pool starts new warm labs
WARM_SIZE = (160, 48)  # the terminal size warm labs start at (a visitor's other size is one resize)
ONE_THREAD = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
              "MALLOC_ARENA_MAX": "2"}  # forty labs, two cores: one BLAS thread, few malloc arenas


def lab_environment(mode: ServedMode, width: int = 80, height: int = 24) -> dict[str, str]:
    """What textual-serve gives an app process, made a visitor's (app_environment): the
    fork server starts with it, since Textual reads its driver variables on import."""
    from importlib.metadata import version

    env = {**os.environ, "TEXTUAL_DRIVER": "textual.drivers.web_driver:WebDriver", "TEXTUAL_FPS": str(SERVED_FPS),
           "TEXTUAL_COLOR_SYSTEM": "truecolor", "TERM_PROGRAM": "textual",
           "TERM_PROGRAM_VERSION": version("textual-serve"), "COLUMNS": str(width), "ROWS": str(height)}
    return {**app_environment(env, mode), **ONE_THREAD}


class LabAppService(service_base()):
    def __init__(self, command: str, mode: ServedMode, server: "LabServer | None" = None, **kwargs: Any) -> None:
        super().__init__(command, **kwargs)
        self.mode, self.server = mode, server
        self.link: LabLink | None = None

    async def open_app_process(self, width: int = 80, height: int = 24):
        """A warm lab from the pool, else one forked now by the fork server (no new
        interpreter), else (--no-fork) textual-serve's subprocess."""
        server = self.server
        if server is None or server.zygote is None:
            return await super().open_app_process(width, height)
        process = server.take_warm()
        if process is None:
            link = LabLink(server.new_visitor())
            env = {**self.build_environment(width, height), **ONE_THREAD}
            process = await server.spawn_lab(env, link)
            if process is None:  # the fork server is given up: a new process, as --no-fork
                return await super().open_app_process(width, height)
            link.size = (width, height)
        self.link = process.link
        self.adopt_process(process)
        if process.link.size != (width, height):
            await self.set_terminal_size(width, height)
        return process

    def build_environment(self, width: int = 80, height: int = 24) -> dict[str, str]:
        return {**app_environment(super().build_environment(width, height), self.mode),
                "TEXTUAL_FPS": str(SERVED_FPS)}  # (textual-serve's is 60; a forked lab has the fork server's)

    async def stop_within(self, seconds: float) -> None:
        """textual-serve's stop (asks the app to quit), then a kill if it has not."""
        try:
            await asyncio.wait_for(asyncio.shield(self.stop()), seconds)
        except (asyncio.TimeoutError, Exception):  # a dead pipe must not keep the process alive
            pass
        process = self.app_process
        if process is None:
            return
        try:
            await asyncio.wait_for(process.wait(), 2.0)
        except asyncio.TimeoutError:
            process.kill()
            await process.wait()


class LabServer(TeacherPage, server_base()):
    def __init__(self, mode: ServedMode, *, host: str, port: int, what: str, max_sessions: int = 40,
                 idle_seconds: float = 1800.0, out: Callable[[str], None] | None = None,
                 max_per_address: int | None = None, teacher_key: str | None = None,
                 fork: bool = True, warm: int | None = None, font_size: int = 16) -> None:
        # exec: the shell textual-serve starts becomes the app, so stopping it stops the app
        command = "exec " + shlex.join([sys.executable, "-m", "ael_tui.serve.lab"])
        super().__init__(command, host=host, port=port, title=f"AEL Lab · {what}", templates_path=TEMPLATES)
        self.mode, self.what = mode, what
        self.cap = SessionCap(max_sessions, max_per_address)
        self.idle_seconds = idle_seconds
        self.services: set[LabAppService] = set()
        self.out = out or (lambda line: print(line, flush=True))
        self.guard = KeyGuard(teacher_key or new_key())
        self.key_file = None if teacher_key else mode.private / "teacher-key"  # a key we made, for the teacher
        self.notice = ""  # one line for the teacher's page when the class is not as it should be
        self.fork = fork
        self.font_size = font_size  # the page's default; a visitor's ?fontsize= overrides it
        self.zygote: Zygote | None = None
        self.links: dict[str, LabLink] = {}
        self._visitors = itertools.count(1)
        self.warm_target = max_sessions if warm is None else warm  # labs started before anyone asks
        self.warm: list = []
        self._taken = asyncio.Event()  # the pool changed: a warm lab taken, a visitor gone, a fork server back
        self.stopping = False
        self.own_signals = False  # serve() takes SIGHUP; an app under test leaves the test's signals alone
        self.restarts = RestartBudget()
        self._zygote_ready = asyncio.Event()

    def new_visitor(self) -> str:
        return f"v{next(self._visitors)}"

    def take_warm(self):
        """A warm lab still alive, or None."""
        while self.warm:
            process = self.warm.pop(0)
            self._taken.set()
            if not process.link.closed.is_set():
                return process
        return None

    async def spawn_lab(self, env: dict[str, str], link: LabLink) -> LabProcess | None:
        """A lab from the fork server (waiting in its queue while it starts); after a fork
        server that has just died, from the one started in its place; None once the fork
        server is given up."""
        for _ in range(2):
            zygote = self.zygote
            if zygote is None:
                return None
            try:
                return await zygote.spawn(env, link)
            except OSError:  # it died before the supervisor noticed: wait for the next one
                await self._replaced(zygote)
        return None

    async def _replaced(self, zygote: Zygote, within: float = 30.0) -> None:
        deadline = time.monotonic() + within
        while self.zygote is zygote and not self.stopping and time.monotonic() < deadline:
            self._taken.clear()
            try:
                await asyncio.wait_for(self._taken.wait(), deadline - time.monotonic())
            except asyncio.TimeoutError:
                break

    def _new_zygote(self) -> Zygote:
        """A new fork server, importing; visitors' requests queue in its socket meanwhile.
        Started from the event loop's thread: its parent-death signal follows that thread."""
        self._zygote_ready.clear()
        zygote = self.zygote = Zygote(lab_environment(self.mode))
        self._taken.set()
        return zygote

    async def _ready(self, zygote: Zygote) -> bool:
        """Wait until `zygote` has imported everything (True), or failed (False: ended, so the
        supervisor's watch on it returns)."""
        try:
            ready = await asyncio.get_running_loop().run_in_executor(None, zygote.wait_ready)
        except OSError:  # its socket closed under it: the server is stopping
            ready = False
        if not ready:
            zygote.process.kill()
        elif self.zygote is zygote:
            self._zygote_ready.set()
        return ready

    async def _supervise(self, started: float) -> None:
        """Start the fork server, and again whenever it dies (kill -9, the OOM killer); past
        RestartBudget, or when a new one fails, labs start as new processes (--no-fork's
        way) and the teacher is told in one line."""
        if self.zygote is not None and await self._ready(self.zygote):
            self.out(f"AEL Lab: labs ready ({time.monotonic() - started:.1f} s to prepare the fork server)")
        elif not self.stopping:
            self.out("AEL Lab: the fork server failed to start; see the lines above")
        why = ""
        while not self.stopping and self.zygote is not None:
            zygote = self.zygote
            code = await process_ended(zygote.process)
            if self.stopping or self.zygote is not zygote:
                return
            zygote.close()
            why = how_it_ended(code)
            if not self.restarts.take():
                break
            self.out(f"AEL Lab: the fork server stopped ({why}); starting a new one for the next visitors")
            if await self._ready(self._new_zygote()):
                self.out("AEL Lab: the new fork server is ready; labs start as before")
        if self.stopping:
            return
        self.zygote = None
        self._taken.set()
        self._zygote_ready.set()  # the pool's loop sees no fork server and ends
        self.notice = (f"The fork server stopped ({why}) and was not started again: each new lab now starts as a "
                       "new process (slower; the teacher's commands do not reach those labs).")
        self.out(f"AEL Lab: {self.notice}")

    async def _keep_warm(self) -> None:
        """Start labs one after another (each mounted before the next: the machine stays
        usable) until `warm_target` wait unclaimed; again whenever one is taken, a visitor
        leaves or a new fork server is ready."""
        await self._zygote_ready.wait()
        if self.warm_target <= 0:
            return
        env = lab_environment(self.mode, *WARM_SIZE)
        announced = False
        while not self.stopping and self.zygote is not None:
            self.warm = [p for p in self.warm if not p.link.closed.is_set()]
            if len(self.warm) >= self.warm_target or len(self.warm) + self.cap.active >= self.cap.limit:
                if not announced and self.warm:  # once full, and again once filled after visitors took labs
                    self.out(f"AEL Lab: {counted(len(self.warm), 'lab')} warm and waiting for visitors "
                             f"({time.monotonic() - self.started:.1f} s after start)")
                    announced = True
                self._taken.clear()
                await self._taken.wait()
                while True:  # new labs wait for a quiet moment: the visitors' labs are drawing now
                    self._taken.clear()
                    try:
                        await asyncio.wait_for(self._taken.wait(), QUIET)
                    except asyncio.TimeoutError:
                        break
                continue
            await self._zygote_ready.wait()  # a fork server being replaced: wait for the new one
            zygote = self.zygote
            if zygote is None or self.stopping:
                return
            announced = False
            link = LabLink(self.new_visitor())
            link.size = WARM_SIZE
            try:
                process = await zygote.spawn(env, link)
            except OSError as err:  # it died: the supervisor starts the next one
                log.info("the fork server cannot start a lab now: %s", err)
                await self._replaced(zygote)
                continue
            self.warm.append(process)
            waits = [asyncio.ensure_future(link.reported.wait()), asyncio.ensure_future(link.closed.wait())]
            await asyncio.wait(waits, timeout=120.0, return_when=asyncio.FIRST_COMPLETED)  # closed: never forked
            for waiting in waits:
                waiting.cancel()

    def initialize_logging(self) -> None:
        # plain lines: textual-serve's handler prints tracebacks with local variables
        logging.basicConfig(level="INFO", format="ael-lab serve: %(message)s")

    async def make_app(self) -> web.Application:
        app = await super().make_app()
        app.add_routes(self.teacher_routes())
        return app

    async def on_startup(self, app: web.Application) -> None:
        """The fork server starts importing now; visitors who come before it is ready wait in its
        queue. SIGHUP (the terminal closed) stops the server as SIGTERM and Ctrl+C do."""
        if self.own_signals:
            try:
                asyncio.get_running_loop().add_signal_handler(signal.SIGHUP, self._hang_up)
            except (NotImplementedError, RuntimeError, ValueError):  # not the main thread, or no SIGHUP here
                pass
        self.started = time.monotonic()
        if self.fork and self.zygote is None:
            self._new_zygote()
            self._supervisor = asyncio.create_task(self._supervise(self.started))
            self._warming = asyncio.create_task(self._keep_warm())

    def _hang_up(self) -> None:
        self.stopping = True  # before anything else runs: no fork server is started again now
        self.request_exit()

    async def on_shutdown(self, app: web.Application) -> None:
        """Stopping the server stops every visitor's app: none outlives it."""
        self.stopping = True
        self._zygote_ready.set()
        await asyncio.gather(*(s.stop_within(2.0) for s in list(self.services)), return_exceptions=True)
        for process in self.warm:
            process.kill()
        if self.zygote is not None:
            zygote, self.zygote = self.zygote, None
            self._taken.set()
            await asyncio.get_running_loop().run_in_executor(None, zygote.stop)

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
        self.own_signals = True
        self.initialize_logging()
        self.out(self.announcement())
        self.out(self.teacher_line())
        self.out("Ctrl+C stops the server and every visitor's lab.")
        web.run_app(self.make_app(), sock=sock, print=None, handle_signals=True, access_log_class=QuietAccessLog)

    def announcement(self) -> str:
        """The server's first line: what is served, where, and under which limits."""
        mode = self.mode
        return (f"AEL Lab: serving {self.what} at http://{self.host}:{self.port}/ "
                f"(sessions folder {mode.folder}; up to {counted(self.cap.limit, 'visitor')}, "
                f"{self.cap.per_address} per address; {mode.quota_mib:g} MiB of files each; idle sessions end "
                f"after {self.idle_seconds / 60:g} min; {'LLM backends allowed' if mode.allow_llm else 'offline only'})")

    def teacher_line(self) -> str:
        """Where the teacher's page is, without its key: a terminal is often on the projector,
        and its scrollback is kept. A key we made goes to a file only this user can read."""
        url = f"http://{self.host}:{self.port}/teacher?key=KEY"
        if self.key_file is None:
            return f"The teacher's page: {url} (KEY: the --teacher-key you gave)"
        try:
            write_key_file(self.key_file, self.guard.key)
        except OSError as err:
            raise AELError(f"cannot write the teacher's key to {self.key_file}: {err.strerror or err}; "
                           "give one with --teacher-key") from None
        return (f"The teacher's page: {url}, KEY in {self.key_file} (kept off this screen, which a class may "
                "see; or give one with --teacher-key)")

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
            "font_size": clamp(request.query.get("fontsize"), (6, 48), self.font_size),
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
        link: LabLink | None = None
        try:
            service = LabAppService(self.command, self.mode, self, write_bytes=websocket.send_bytes,
                                    write_str=websocket.send_str, close=websocket.close,
                                    download_manager=self.download_manager)
            self.services.add(service)
            await service.start(clamp(request.query.get("width"), WIDTH, 80),
                                clamp(request.query.get("height"), HEIGHT, 24))
            link = service.link or LabLink(self.new_visitor())  # --no-fork: no link, nothing to steer
            link.attach_visitor(where)
            link.service = service
            self.links[link.visitor] = link
            last_input = link.input_times
            idle = asyncio.create_task(self._end_when_idle(websocket, last_input, service))
            await self._relay(websocket, service, last_input)
        except asyncio.CancelledError:
            pass
        except Exception as err:  # one visitor's broken session must not stop the others
            log.error("a session ended on an error: %s", type(err).__name__)
        finally:
            if link is not None:
                self.links.pop(link.visitor, None)
            if idle is not None:
                idle.cancel()
            if service is not None:
                await service.stop_within(STOP_GRACE)
                self.services.discard(service)
            self.cap.release(where)
            self._taken.set()  # a place is free: the pool may start a warm lab in it
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
            task = service.app_task
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

    # -------------------------------------------------------------- teacher
    def warm_count(self) -> int:
        return sum(1 for p in self.warm if not p.link.closed.is_set())

    async def teacher_command(self, cmd: Any, n: Any, visitor: Any) -> str:
        """What the teacher's page sent: end one lab, pause or resume every lab, or send the class
        on; the answer is what happened, once the labs have said (a move: once they are there)."""
        if cmd == "end":
            link = self.links.get(visitor) if isinstance(visitor, str) else None
            if link is None or link.service is None:
                return f"No lab {str(visitor)[:40]} is connected now (it has left)."
            asyncio.create_task(link.service.stop_within(STOP_GRACE))
            return f"{link.visitor}'s lab is ending (its progress is autosaved)."
        if cmd not in ("pause", "resume", "card", "episode"):
            raise web.HTTPBadRequest(text="AEL Lab: unknown command")
        links = list(self.links.values())
        if not links:
            return "No lab is connected: there is no one to send."
        if cmd in ("pause", "resume"):
            answers = await asyncio.gather(*(link.ask({"cmd": cmd}, ANSWER_WAIT) for link in links))
            return class_answer(cmd, 0, answers)
        number = clamp(n, (1, 100_000), 1)
        answers = await asyncio.gather(*(link.ask({"cmd": cmd, "n": number}, MOVE_WAIT) for link in links))
        return class_answer(cmd, number, answers)


ANSWER_WAIT = 10.0  # seconds the teacher's page waits for every lab to say it paused or resumed
MOVE_WAIT = 60.0    # and to say it reached the card or episode (the page shows the labs moving meanwhile)


def class_answer(cmd: str, number: int, answers: list[dict[str, Any] | None]) -> str:
    """The teacher's page's one line for a command sent to every lab, from the labs' answers
    (None: a lab that did not answer in time, or cannot be steered)."""
    silent = sum(a is None for a in answers)
    said = [a for a in answers if a is not None]
    late = "still on the way (the table shows where)" if cmd in ("card", "episode") else "did not answer in time"
    tail = f"; {counted(silent, 'lab')} {late}" if silent else ""
    if cmd == "pause":
        paused = sum(a.get("was_running") is True for a in said)
        rest = len(said) - paused
        return (f"{paused} paused ({rest} {'was' if rest == 1 else 'were'} not running); every lab's run keys "
                f"wait until you resume{tail}.")
    if cmd == "resume":
        again = sum(a.get("restarted") is True for a in said)
        return f"{counted(len(said), 'lab')} resumed, {again} of them running again where the pause stopped{tail}."
    word = "tour card" if cmd == "card" else "episode"
    moved = sum(a.get("done") is True for a in said)
    if moved == len(answers):
        return f"{counted(moved, 'lab')} moved to {word} {number}."
    why: dict[str, int] = {}
    for a in said:
        if a.get("done") is not True:
            reason = str(a.get("why") or "stopped")[:40]
            why[reason] = why.get(reason, 0) + 1
    others = "".join(f"; {k}: {v}" for k, v in sorted(why.items()))
    return f"{moved} of {len(answers)} labs moved to {word} {number}{others}{tail}."
