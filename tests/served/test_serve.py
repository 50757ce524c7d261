"""`ael-lab serve` as a teacher runs it: a real server process on 127.0.0.1, driven
over HTTP and the websocket protocol of textual-serve's page (JSON frames in:
["resize", {...}], ["stdin", text]; the terminal's bytes out as binary frames).

Every server is started in its own process group and the whole group is killed
when the test ends, pass or fail, so no server or visitor's app outlives a test.
"""

from __future__ import annotations

import asyncio
import os
import re
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import aiohttp
import pytest

from tests.served.page import Visitor

STARTUP = 30.0


class Served:
    def __init__(self, process: subprocess.Popen, first_line: str) -> None:
        self.process, self.first_line = process, first_line
        self.url = re.search(r"http://127\.0\.0\.1:\d+/", first_line)[0]
        self.ws_url = self.url.replace("http://", "ws://") + "ws?width=160&height=48"

    def group_alive(self) -> bool:
        return bool(living_members(self.process.pid))


def living_members(pgid: int) -> list[int]:
    """The processes of group `pgid` that still run. A member that has ended but not yet been
    reaped (a zombie: an orphan waits for init, which reaps on its own schedule, seconds
    under load) counts as gone; `killpg(pgid, 0)` would still find it."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = open(f"/proc/{entry}/stat").read()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()  # after "pid (comm) ": state, ppid, pgrp, ...
        if int(fields[2]) == pgid and fields[0] not in ("Z", "X"):
            found.append(int(entry))
    return found


def stop_group(process: subprocess.Popen) -> None:
    """SIGTERM to the server's group (the server and every app it started), SIGKILL if slow."""
    for sig, wait in ((signal.SIGTERM, 10.0), (signal.SIGKILL, 5.0)):
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            break
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            process.poll()  # reap the server (its other members are reaped by their parents or init)
            if not living_members(process.pid):
                break
            time.sleep(0.1)
        else:
            continue
        break
    try:
        process.wait(timeout=5)
    except subprocess.TimeoutExpired:
        pass
    if process.stdout:
        process.stdout.close()


@pytest.fixture
def serve(tmp_path, request):
    """serve(*flags) -> Served: `ael-lab serve --port 0 …` started and announced."""
    started: list[subprocess.Popen] = []

    def start(*flags: str, env: dict[str, str] | None = None) -> Served:
        cmd = [sys.executable, "-m", "ael_cli.main", "serve", "--port", "0", "--sessions",
               str(tmp_path / "class"), "--warm-labs", "0", *flags]  # each visitor's lab forked when asked:
        # no test here needs a lab waiting (test_serve_supervise and test_serve_class check the warm pool),
        # and each warm lab is a lab start of CPU
        process = subprocess.Popen(cmd, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                   env={**os.environ, **(env or {})}, start_new_session=True, text=True)
        started.append(process)
        ready, _, _ = select.select([process.stdout], [], [], STARTUP)
        line = process.stdout.readline() if ready else ""
        assert line.startswith("AEL Lab: serving"), f"no announcement: {line!r}"
        return Served(process, line)

    yield start
    for process in started:
        stop_group(process)


def test_the_session_beyond_the_cap_gets_the_full_page_and_no_visitors_app_gets_an_api_key(serve):
    """Two servers' worth of checks on one server (each server start prepares a fork server): the
    cap of --max-sessions, and the teacher's credentials kept out of every app's environment."""
    secret = "sk-ant-test-" + "x" * 30
    served = serve("--max-sessions", "2", env={"ANTHROPIC_API_KEY": secret, "MY_TOKEN": secret})

    async def visit() -> list[bytes]:
        async with aiohttp.ClientSession() as http:
            first = await http.ws_connect(served.ws_url)
            second = await http.ws_connect(served.ws_url)
            pages = [Visitor(ws) for ws in (first, second)]  # each read all along, answering pings
            texts = await asyncio.gather(*(page.until(r"New session") for page in pages))  # each its own lab
            for text in texts:
                assert "Anthropic" not in text  # the start screen offers the offline backends only
            environs = [environ for p in Path("/proc").iterdir()  # read while they run
                        if p.name.isdigit() and _in_group(p, served.process.pid) and p.name != str(served.process.pid)
                        and (environ := _environ(p)) is not None]
            async with http.get(served.url) as page:
                assert page.status == 503
                assert "AEL Lab is full" in await page.text()
            third = await http.ws_connect(served.ws_url)
            message = await third.receive(timeout=10)
            assert b"AEL Lab is full" in message.data
            await third.receive(timeout=10)
            assert third.closed and third.close_code == 1013
            await first.close()
            for _ in range(100):  # the place frees up once the first visitor's app has stopped
                async with http.get(served.url) as page:
                    if page.status == 200:
                        break
                await asyncio.sleep(0.2)
            assert page.status == 200
            await second.close()
            return environs

    environs = asyncio.run(visit())
    assert len(environs) >= 3, "the fork server and both visitors' labs are in the server's group"
    for environ in environs:
        assert secret.encode() not in environ and b"AEL_LAB_SERVED" in environ


def test_an_idle_session_is_ended_and_typing_keeps_one_open(serve):
    # 3 s: the typing visitor's keys (one each half second at most) must reach the server before it
    # judges the session idle, and at 1.8 s a loaded machine (forty labs starting beside this test)
    # stalled them that long: the typing session was ended (seen at a load of 20 on 2 cores)
    served = serve("--idle-minutes", "0.05")

    async def visit(typing: bool) -> float:
        async with aiohttp.ClientSession() as http:
            async with http.ws_connect(served.ws_url) as ws:
                started = time.monotonic()
                await ws.send_json(["resize", {"width": 120, "height": 40}])
                while not ws.closed and time.monotonic() - started < (8 if typing else 20):
                    if typing:
                        await ws.send_json(["stdin", "\x1b[B"])  # a key: the visitor is there
                    try:
                        await ws.receive(timeout=0.5)
                    except asyncio.TimeoutError:
                        pass
                return time.monotonic() - started if ws.closed else float("inf")

    assert 3.0 <= asyncio.run(visit(typing=False)) < 20
    assert asyncio.run(visit(typing=True)) == float("inf")


def _environ(proc: Path) -> bytes | None:
    try:
        return (proc / "environ").read_bytes()
    except OSError:  # ended meanwhile
        return None


def _in_group(proc: Path, pgid: int) -> bool:
    try:
        fields = (proc / "stat").read_text().rsplit(")", 1)[1].split()
        return int(fields[2]) == pgid
    except (OSError, IndexError, ValueError):
        return False


def test_a_visitors_lab_shows_its_status_writes_only_in_the_sessions_folder_and_one_address_has_a_limit(
        serve, tmp_path):
    """The page and a visitor's lab (its status line, a key typed in the browser, junk frames
    dropped), and none of it outlives the server. Issue 27: the teacher's home, temporary folder
    and caches stay as they were while a visitor runs, saves and computes the support table; a
    second lab from the same address beyond --max-per-address gets a page saying so. (One server
    for both: each server start prepares a fork server.)"""
    teacher = tmp_path / "teacher"
    (teacher / "tmp").mkdir(parents=True)
    env = {"HOME": str(teacher), "TMPDIR": str(teacher / "tmp"), "XDG_CACHE_HOME": str(teacher / ".cache"),
           "XDG_CONFIG_HOME": str(teacher / ".config"), "AEL_LAB_CACHE_DIR": str(teacher / "cache"),
           "SCIKIT_LEARN_DATA": str(teacher / "sk"),
           "AEL_LAB_CACHE_KEY": ""}  # as a teacher has it: the cache's key would go under their home
    served = serve("--scenario", "support", "--seed", "42", "--max-per-address", "1", env=env)
    assert "support, seed 42" in served.first_line and "offline only" in served.first_line
    folder = tmp_path / "class"

    async def visit() -> None:
        async with aiohttp.ClientSession() as http:
            async with http.get(served.url) as page:
                assert page.status == 200
                html = await page.text()
            assert "<title>AEL Lab · support, seed 42</title>" in html
            assert "googleapis" not in html  # a classroom page loads nothing from the internet
            async with http.ws_connect(served.ws_url) as ws:
                lab = Visitor(ws)  # read all along: the wait for the save below is long under load
                for junk in ("not json", "{}", "[]", "[5]", '["stdin", 5]', '["resize", {"width": 1e12}]',
                             '["resize", {"width": "x", "height": -3}]', '["ping", "' + "p" * 100 + '"]'):
                    await ws.send_str(junk)  # a visitor can send anything: dropped or clamped
                await ws.send_json(["resize", {"width": 160, "height": 48}])  # (the junk left it at 80x5)
                text = await lab.until(r"support · seed 42 +│ +episode 0/1200")
                assert "0 pending" in text
                await ws.send_json(["stdin", " "])  # space: one episode, typed in the browser
                await lab.until(r"episode 1/1200")
                async with http.get(served.url) as page:
                    assert page.status == 429 and "Too many labs from this address" in await page.text()
                second = await http.ws_connect(served.ws_url)
                message = await second.receive(timeout=10)
                assert b"already open from this address" in message.data
                await second.close()
                await ws.send_json(["stdin", "\x13"])  # ctrl+s: the save prompt, its default name
                await lab.until(r"Save the session as")
                await ws.send_json(["stdin", "\r"])
                for _ in range(600):  # the save, and the support table the lab builds in the background
                    if list(folder.glob("support-s42-e1*.json")) and (list(folder.rglob("*.npy"))
                                                                      or list(teacher.rglob("*.npy"))):
                        break
                    await lab.next_frame(0.2)  # a frame, or a fifth of a second

    asyncio.run(visit())
    assert list(folder.glob("support-s42-e1*.json"))
    assert served.process.poll() is None
    stop_group(served.process)
    assert not served.group_alive()  # the server, its fork server and the visitor's lab are gone
    assert list((folder / ".ael-lab" / "cache" / "support").glob("*.npy"))  # the table, computed in the folder
    assert (folder / ".ael-lab" / "home" / ".local" / "state" / "ael-lab" / "cache.key").is_file()  # and its key
    assert [p for p in teacher.rglob("*") if p.is_file()] == [] and list((teacher / "tmp").iterdir()) == []


@pytest.mark.parametrize("value", ["99", "5", "big"])
def test_a_bad_font_size_is_one_line_and_exit_2(value, tmp_path):
    done = subprocess.run([sys.executable, "-m", "ael_cli.main", "serve", "--font-size", value, "--sessions",
                           str(tmp_path / "class")], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr.strip().startswith("ael-lab: --font-size:") and len(done.stderr.strip().splitlines()) == 1
    assert "Traceback" not in done.stderr

