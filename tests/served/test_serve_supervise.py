"""The class after a crash (issue: trust, round four, finding 4): a fork server killed
with -9 is started again and the next visitor gets a working lab; the warm pool is
filled again once visitors leave; SIGHUP to the class's group (the teacher's terminal
closing) and kill -9 of the server leave no lab running and lose no progress (each
lab autosaves, then ends).

Real servers on 127.0.0.1, as in test_serve_class. No sleeps: the server's lines are
read as they come, and a process's end is awaited on a pidfd, each within a bound.
"""

from __future__ import annotations

import asyncio
import json
import os
import select
import signal
import subprocess
import time
from pathlib import Path

import aiohttp
import pytest

from ael_tui.serve import server as server_module
from ael_tui.serve.mode import ServedMode
from ael_tui.serve.supervise import RestartBudget
from tests.served.page import BOUND, Visitor
from tests.served.test_serve_class import server  # noqa: F401  (server: the fixture)

SUPPORT = ("--scenario", "support", "--seed", "42")


def stat_fields(pid: int) -> list[str] | None:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None


def group(pgid: int) -> list[int]:
    """The live (not zombie) processes of a process group."""
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and (fields := stat_fields(int(entry.name))) and fields[0] != "Z" \
                and int(fields[2]) == pgid:
            pids.append(int(entry.name))
    return pids


def fork_server(s) -> int:
    for pid in group(s.process.pid):
        fields = stat_fields(pid)
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        if fields and int(fields[1]) == s.process.pid and b"ael_tui.serve.zygote" in cmdline:
            return pid
    raise AssertionError("no fork server in the server's group")


def all_ended(pids: list[int], within: float) -> list[int]:
    """The processes among `pids` still running after `within` seconds (each awaited on a pidfd)."""
    deadline = time.monotonic() + within
    left = []
    for pid in pids:
        try:
            fd = os.pidfd_open(pid)
        except ProcessLookupError:
            continue
        try:
            ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
            if not ready:
                left.append(pid)
        finally:
            os.close(fd)
    return [pid for pid in left if stat_fields(pid) and stat_fields(pid)[0] != "Z"]


def ws_url(s) -> str:
    return s.url.replace("http://", "ws://") + "ws?width=160&height=48"


async def step_once(ws) -> Visitor:
    visitor = Visitor(ws)
    await visitor.until(r"episode 0/1200")
    await ws.send_json(["stdin", " "])  # one episode: progress no file holds yet
    await visitor.until(r"episode 1/1200")
    return visitor


def test_a_fork_server_killed_with_9_is_started_again_and_the_next_visitor_gets_a_lab(server):
    s = server(*SUPPORT, "--warm-labs", "0")  # no warm lab: the next visitor's lab is forked after the kill
    s.wait_for("labs ready")
    os.kill(fork_server(s), signal.SIGKILL)
    s.wait_for("the fork server stopped (killed by SIGKILL); starting a new one")

    async def visit() -> None:
        async with aiohttp.ClientSession() as http:
            async with http.ws_connect(ws_url(s)) as ws:
                await step_once(ws)  # drawn, and it runs: not a blank page

    asyncio.run(visit())
    s.wait_for("the new fork server is ready")


def test_the_warm_pool_is_filled_again_after_visitors_leave(server):
    s = server(*SUPPORT, "--max-sessions", "1", "--warm-labs", "1")
    s.wait_for("1 lab warm and waiting")

    async def visit() -> None:
        async with aiohttp.ClientSession() as http:
            async with http.ws_connect(ws_url(s)) as ws:
                await Visitor(ws).until(r"seed 42")  # the warm lab; the class is full now

    asyncio.run(visit())
    s.wait_for("1 lab warm and waiting")  # the place it left is warm again


@pytest.mark.parametrize("how", ["SIGHUP to the group", "kill -9 of the server", "kill -9 of a --no-fork server"])
def test_when_the_server_goes_every_lab_autosaves_and_ends(server, tmp_path, how):
    forks = "--no-fork" not in how
    # one place: the visitor takes the warm lab and the pool starts no other (a lab start of CPU)
    s = server(*SUPPORT, *(("--warm-labs", "1", "--max-sessions", "1") if forks else ("--no-fork",)))
    if forks:
        s.wait_for("warm and waiting")
    folder = tmp_path / "class"

    async def visit() -> list[int]:
        async with aiohttp.ClientSession() as http:
            async with http.ws_connect(ws_url(s)) as ws:
                await step_once(ws)
                labs = [pid for pid in group(s.process.pid) if pid != s.process.pid]
                if how == "SIGHUP to the group":
                    os.killpg(s.process.pid, signal.SIGHUP)
                else:
                    s.process.kill()
                    s.process.wait()
                return labs

    labs = asyncio.run(visit())
    assert len(labs) >= (2 if forks else 1)  # the fork server and the visitor's lab (the warm one)
    assert all_ended(labs, BOUND) == []  # no orphan lab goes on without its server
    saved = list(folder.glob("autosave-support-s42-*.json"))
    assert len(saved) == 1  # the visitor's (the warm lab had nothing to save)
    assert len(json.loads(saved[0].read_text())["session"]["history"]) == 1


# ------------------------------------------------------- in process, no lab
class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class StandInForkServer:
    """A process that stands for the fork server: it is ready at once and forks nothing."""

    def __init__(self, env: dict[str, str]) -> None:
        self.process = subprocess.Popen(["cat"], stdin=subprocess.PIPE)

    def wait_ready(self, timeout: float = 300.0) -> bool:
        return True

    async def spawn(self, env, link):
        raise BrokenPipeError("the fork server is gone")

    def close(self) -> None:
        pass

    def stop(self) -> None:
        self.process.kill()
        self.process.wait()


def test_restarts_are_counted_within_their_window():
    clock = FakeClock()
    budget = RestartBudget(limit=3, window=600.0, clock=clock)
    assert [budget.take() for _ in range(4)] == [True, True, True, False]
    clock.now += 601
    assert budget.take()


async def test_a_fork_server_that_keeps_dying_is_given_up_and_the_teacher_told(tmp_path, monkeypatch):
    monkeypatch.setattr(server_module, "Zygote", StandInForkServer)
    monkeypatch.setattr(server_module, "lab_environment", lambda mode, *size: {})
    said: list[str] = []
    served = server_module.LabServer(ServedMode(root=str(tmp_path)), host="127.0.0.1", port=0, what="test",
                                     warm=0, out=said.append)
    served.restarts = RestartBudget(limit=2, clock=FakeClock())
    await served.on_startup(None)
    started = []
    try:
        for _ in range(3):
            dying = served.zygote
            started.append(dying)
            dying.process.kill()
            await served._replaced(dying, within=BOUND)
            assert served.zygote is not dying
            if served.zygote is not None:
                started.append(served.zygote)
        assert served.zygote is None  # the third death is past the budget
        assert sum("starting a new one for the next visitors" in line for line in said) == 2
        assert "each new lab now starts as a new process" in said[-1] and said[-1] == f"AEL Lab: {served.notice}"
        assert await served.spawn_lab({}, server_module.LabLink("v1")) is None  # textual-serve's way, then
    finally:
        await served.on_shutdown(None)
        for stand_in in started:
            stand_in.stop()
