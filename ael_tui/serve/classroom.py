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
teacher's commands: to a tour card, to an episode, pause, resume; each move is
announced to the student by a notification. A command carries an id, and the lab
answers it (`{"ack": id, ...}`) once it is carried out (a move: once the lab is
there), so the teacher's page can say what happened ("40 labs moved to card 3",
"12 paused"). What a lab sends is read as untrusted: a line at most MAX_LINE bytes,
known keys only.
"""

from __future__ import annotations

import array
import asyncio
import concurrent.futures
import fcntl
import itertools
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
STATUS_KEYS = ("scenario", "episode", "episodes", "card", "card_open", "running", "held")
HOLD = "Your teacher paused the class: the run keys wait until they resume it."
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
        self._asked: dict[int, asyncio.Future] = {}  # command id -> the lab's answer, awaited
        self._ids = itertools.count(1)

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
                if "ack" in data:
                    waiting = self._asked.get(data["ack"]) if isinstance(data["ack"], int) else None
                    if waiting is not None and not waiting.done():
                        waiting.set_result(data)
                    continue
                self.status = {k: data.get(k) for k in STATUS_KEYS}
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

    async def ask(self, command: dict[str, Any], within: float) -> dict[str, Any] | None:
        """Send `command` and wait (at most `within` seconds) for the lab's answer: None if it
        never came (the lab ended, or was still on its way)."""
        n = next(self._ids)
        answer = self._asked[n] = asyncio.get_running_loop().create_future()
        try:
            if not await self.send({**command, "id": n}):
                return None
            return await asyncio.wait_for(answer, within)
        except asyncio.TimeoutError:
            return None
        finally:
            self._asked.pop(n, None)

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
        self.goal_id: int | None = None  # the command that set the goal, answered once it is reached
        self.stopped: str | None = None   # the run the teacher's pause stopped, started again on resume
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
        from ..tour.tour_card import TourCardScreen

        host = lab.host
        s = host.session  # plain attribute reads: no lock, a long episode must not hold the report
        tour = host.tour
        return {"scenario": getattr(getattr(s.scenario, "spec", None), "name", None) or self.app.served.scenario,
                "episode": s.t, "episodes": s.n_episodes, "card": tour.shown if tour is not None else 0,
                "card_open": isinstance(self.app.screen, TourCardScreen),  # a card closed is not a card seen now
                "running": host.running, "held": host.held is not None}

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
                        except (RuntimeError, concurrent.futures.CancelledError):  # the app has ended, or is ending
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
        except (RuntimeError, concurrent.futures.CancelledError):  # the app has ended already, or is ending
            pass

    # ------------------------------------------------------------ commands
    def command(self, command: dict[str, Any]) -> None:
        kind, n, cid = command.get("cmd"), command.get("n"), command.get("id")
        cid = cid if isinstance(cid, int) else None
        lab = self.app.lab
        if kind == "pause":
            self._answer_goal(False, "paused")
            was = lab.host.running if lab is not None else None
            if lab is not None:
                self.stopped = was or self.stopped
                lab.host.held = HOLD
                lab.host.pause()
            self._tell("Your teacher paused the class.")
            self._ack(cid, was_running=was is not None, lab=lab is not None)
        elif kind == "resume":
            again = self.stopped if lab is not None and lab.host.held is not None else None
            self.stopped = None
            if lab is not None:
                lab.host.held = None
            if again is not None and self.app.screen is lab and lab.host.running is None:
                lab.runs.start(again)  # the run the pause stopped, where it stopped
            self._tell("Your teacher resumed the class." + (" Your run goes on." if again else ""))
            self._ack(cid, restarted=again is not None, lab=lab is not None)
        elif kind in ("card", "episode") and isinstance(n, int) and 0 < n <= 100_000:
            self._answer_goal(False, "another move came")
            if lab is None:
                self._ack(cid, done=False, why="start screen")
                return
            lab.host.held, self.stopped = None, None  # a move of the teacher's lifts their pause
            self.goal, self.goal_id = (kind, n), cid
            word = "tour card" if kind == "card" else "episode"
            self._tell(f"Your teacher is taking the class to {word} {n}…")
            self.advance()

    def _ack(self, cid: int | None, **answer: Any) -> None:
        if cid is not None:
            self._send({"ack": cid, **answer})

    def _answer_goal(self, done: bool, why: str = "", at: int | None = None) -> None:
        """The teacher's move answered (reached, or given up) and forgotten."""
        if self.goal is not None:
            self._ack(self.goal_id, done=done, why=why, at=at)
        self.goal, self.goal_id = None, None

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
                self._answer_goal(s.t >= n, "" if s.t >= n else "the run ended", at=s.t)
                self._tell(f"Your teacher moved the class to episode {s.t}.")
            elif self.app.screen is lab:
                lab.runs.start("step")
            return
        shown = host.tour.shown if host.tour is not None else 0
        card_open = isinstance(self.app.screen, TourCardScreen)
        if shown >= n and (card_open or shown > n):
            self._answer_goal(True, at=shown)
            self._tell(f"Your teacher moved the class to tour card {shown}.")
            return
        if host.tour is not None and host.tour.finished and not card_open:
            self._answer_goal(False, "the tour ended", at=shown)
            return
        if card_open:
            self.app.screen.dismiss(None)
            return
        if self.app.screen is lab:  # a decision or a dialog the student has open waits for them
            lab.action_tour()
