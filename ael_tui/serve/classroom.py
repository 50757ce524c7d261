"""The classroom: the fork server's client (server side), each lab's link to the
server, and what the teacher's page reads and sends.

Server side, `Zygote` starts the fork server (zygote.py) and asks it for one lab
per visitor; `LabProcess` stands for that lab where textual-serve expects an
asyncio subprocess (its stdin, stdout, stderr, wait, kill). Each lab gets its own
control socket, one end of a socketpair: the lab reports its status on it once a
second and the teacher's commands come back on it. A lab holds nothing else of
the server's (the zygote's socket is closed in the child), so a visitor can reach
neither another lab nor the teacher's page through it.

Lab side, `ClassLink` (in the lab process) sends the status and carries out the
teacher's commands: to a tour card, to an episode, pause; each move is
announced to the student by a notification.
"""

from __future__ import annotations

import array
import asyncio
import fcntl
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from typing import Any

MAX_LINE = 64 * 1024
PIPE_BYTES = 1 << 20  # Linux's default pipe-max-size


# ------------------------------------------------------------------ server side
class LabProcess:
    """A forked lab, as textual-serve's AppService uses a subprocess."""

    def __init__(self, stdin: asyncio.StreamWriter, stdout: asyncio.StreamReader, stderr: asyncio.StreamReader,
                 link: "LabLink") -> None:
        self.stdin, self.stdout, self.stderr, self.link = stdin, stdout, stderr, link
        self.returncode: int | None = None

    @property
    def pid(self) -> int | None:
        return self.link.pid

    async def wait(self) -> int:
        await self.link.closed.wait()  # the lab's end of its control socket closes when it exits
        self.returncode = 0 if self.returncode is None else self.returncode
        return self.returncode

    def kill(self) -> None:
        if self.link.pid:
            try:
                os.kill(self.link.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        self.returncode = -9


class LabLink:
    """The server's end of one lab's control socket: the last status it reported, and commands to it."""

    def __init__(self, visitor: str, address: str = "") -> None:
        self.visitor, self.address = visitor, address
        self.size: tuple[int, int] | None = None  # the terminal size it was started at
        self.pid: int | None = None
        self.status: dict[str, Any] = {}
        self.started = time.monotonic()
        self.input_times = [self.started]  # the server's relay updates it on each key or click
        self.reported = asyncio.Event()     # its first status: the lab is mounted
        self.closed = asyncio.Event()
        self.writer: asyncio.StreamWriter | None = None
        self.service: Any = None

    async def attach(self, sock: socket.socket) -> None:
        reader, self.writer = await asyncio.open_unix_connection(sock=sock, limit=MAX_LINE)
        asyncio.create_task(self._read(reader))

    async def _read(self, reader: asyncio.StreamReader) -> None:
        try:
            while line := await reader.readline():
                try:
                    data = json.loads(line)
                except ValueError:
                    continue
                if not isinstance(data, dict):
                    continue
                if self.pid is None and isinstance(data.get("pid"), int):
                    self.pid = data["pid"]
                    continue
                self.status = {k: data.get(k) for k in ("scenario", "episode", "episodes", "card", "running")}
                self.reported.set()
        except (OSError, asyncio.LimitOverrunError, ValueError):
            pass
        finally:
            self.closed.set()
            if self.writer is not None:
                self.writer.close()

    async def send(self, command: dict[str, Any]) -> bool:
        if self.writer is None or self.closed.is_set():
            return False
        try:
            self.writer.write(json.dumps(command).encode() + b"\n")
            await self.writer.drain()
        except (OSError, RuntimeError):
            return False
        return True

    def attach_visitor(self, address: str) -> None:
        """A warm lab given to a visitor: its clocks start now."""
        self.address = address
        self.started = time.monotonic()
        self.input_times[0] = self.started

    def row(self) -> dict[str, Any]:
        now = time.monotonic()
        return {"visitor": self.visitor, **self.status, "idle": round(now - self.input_times[0], 1),
                "connected": round(now - self.started, 1)}


class Zygote:
    """The fork server: started once, asked for one lab per visitor."""

    def __init__(self, env: dict[str, str]) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.sock = ours
        with theirs:
            self.process = subprocess.Popen([sys.executable, "-m", "ael_tui.serve.zygote", str(theirs.fileno()),
                                             str(os.getpid())],
                                            pass_fds=(theirs.fileno(),), env=env, stdin=subprocess.DEVNULL)
        self.ready = False

    def wait_ready(self, timeout: float = 300.0) -> bool:
        """Block until the zygote has imported everything (True), or failed (False)."""
        if self.ready:
            return True
        self.sock.settimeout(timeout)
        try:
            self.ready = self.sock.recv(16) == b"ready"
        except OSError:
            self.ready = False
        finally:
            self.sock.settimeout(None)
        return self.ready

    async def spawn(self, env: dict[str, str], link: LabLink) -> LabProcess:
        loop = asyncio.get_running_loop()
        in_r, in_w = os.pipe()
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        ours, theirs = socket.socketpair()
        try:
            request = json.dumps({"env": env, "visitor": link.visitor}).encode()
            fds = array.array("i", [in_r, out_w, err_w, theirs.fileno()])
            self.sock.sendmsg([request], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, fds)])
        finally:
            for fd in (in_r, out_w, err_w):
                os.close(fd)
            theirs.close()
        try:  # a warm lab draws its first frames before anyone reads them: room for them in the pipe
            fcntl.fcntl(out_r, getattr(fcntl, "F_SETPIPE_SZ", 1031), PIPE_BYTES)
        except OSError:
            pass
        stdout = asyncio.StreamReader(limit=2 ** 22)
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(stdout), os.fdopen(out_r, "rb", 0))
        stderr = asyncio.StreamReader()
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(stderr), os.fdopen(err_r, "rb", 0))
        transport, protocol = await loop.connect_write_pipe(asyncio.streams.FlowControlMixin,
                                                            os.fdopen(in_w, "wb", 0))
        stdin = asyncio.StreamWriter(transport, protocol, None, loop)
        await link.attach(ours)
        return LabProcess(stdin, stdout, stderr, link)

    def close(self) -> None:
        """Our end of its socket, once it has died."""
        self.sock.close()

    def stop(self) -> None:
        self.sock.close()  # the zygote reads the end of its socket and exits
        try:
            self.process.wait(5.0)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


# --------------------------------------------------------------------- lab side
class ClassLink:
    """In the lab: its status to the server each second, the teacher's commands from it."""

    def __init__(self, app: Any, sock: socket.socket, visitor: str) -> None:
        self.app, self.sock, self.visitor = app, sock, visitor
        self.goal: tuple[str, int] | None = None
        self._lock = threading.Lock()

    def start(self) -> None:
        self._send({"pid": os.getpid()})
        self.app.call_after_refresh(self.report)  # the first status once the lab has drawn
        threading.Thread(target=self._read, name="class-link", daemon=True).start()
        self.app.set_interval(1.0, self.report)
        self.app.set_interval(0.2, self.advance)

    def status(self) -> dict[str, Any]:
        lab = self.app.lab
        if lab is None:
            return {"scenario": None, "episode": None, "card": None, "running": None}
        host = lab.host
        s = host.session  # plain attribute reads: no lock, a long episode must not hold the report
        tour = host.tour
        return {"scenario": getattr(getattr(s.scenario, "spec", None), "name", None) or self.app.served.scenario,
                "episode": s.t, "episodes": s.n_episodes, "card": tour.shown if tour is not None else 0,
                "running": host.running}

    def report(self) -> None:
        self._send(self.status())

    def _send(self, data: dict[str, Any]) -> None:
        try:
            with self._lock:
                self.sock.sendall(json.dumps(data, default=str).encode() + b"\n")
        except OSError:
            pass

    def _read(self) -> None:
        try:
            with self.sock.makefile("rb") as lines:
                for line in lines:
                    try:
                        command = json.loads(line)
                    except ValueError:
                        continue
                    if isinstance(command, dict):
                        try:
                            self.app.call_from_thread(self.command, command)
                        except RuntimeError:  # the app has ended
                            return
        except (OSError, ValueError):  # the socket closed under us: the lab is ending anyway
            return
        self.server_gone()

    def server_gone(self) -> None:
        """The server's end of the socket closed, which only its death does (kill -9, the OOM
        killer; it ends labs otherwise by asking them to quit): no one will ever see this
        lab again, so it ends now, autosaving as when its tab closes (ServedLab)."""
        try:
            self.app.call_from_thread(self.app.exit)
        except RuntimeError:  # the app has ended already
            pass

    # ------------------------------------------------------------ commands
    def command(self, command: dict[str, Any]) -> None:
        kind, n = command.get("cmd"), command.get("n")
        lab = self.app.lab
        if kind == "pause":
            self.goal = None
            if lab is not None:
                lab.host.pause()
            self._tell("Your teacher paused the class.")
        elif kind in ("card", "episode") and isinstance(n, int) and 0 < n <= 100_000:
            if lab is None:
                return
            self.goal = (kind, n)
            word = "tour card" if kind == "card" else "episode"
            self._tell(f"Your teacher is taking the class to {word} {n}…")
            self.advance()

    def _tell(self, text: str) -> None:
        """A notification, or on the tour card when one is open: a notification raised over a
        card waits until it closes (AelLab), and the teacher's word must be seen now."""
        from ..tour.tour_card import TourCardScreen

        if isinstance(self.app.screen, TourCardScreen):
            self.app.screen.note(f"Teacher: {text}")
        else:
            self.app.notify(text, title="Teacher")

    def advance(self) -> None:
        """One move toward the teacher's goal; called often, does nothing while a run goes."""
        from ..tour.tour_card import TourCardScreen

        goal, lab = self.goal, self.app.lab
        if goal is None or lab is None:
            return
        host = lab.host
        if host.running:
            return
        kind, n = goal
        if kind == "episode":
            s = host.session
            if s.t >= n or s.done:
                self.goal = None
                self._tell(f"Your teacher moved the class to episode {s.t}.")
            elif self.app.screen is lab:
                lab.runs.start("step")
            return
        shown = host.tour.shown if host.tour is not None else 0
        card_open = isinstance(self.app.screen, TourCardScreen)
        if shown >= n and (card_open or shown > n):
            self.goal = None
            self._tell(f"Your teacher moved the class to tour card {shown}.")
            return
        if host.tour is not None and host.tour.finished and not card_open:
            self.goal = None
            return
        if card_open:
            self.app.screen.dismiss(None)
            return
        if self.app.screen is lab:  # a decision or a dialog the student has open waits for them
            lab.action_tour()
