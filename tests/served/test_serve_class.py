"""The served classroom: forty visitors at once, and the teacher's page.

Real servers on 127.0.0.1 (`ael-lab serve --port 0`), visitors as websocket clients
speaking the page's protocol. No sleeps: frames and statuses are awaited with a
bounded timeout.
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

from tests.served.page import BOUND, Visitor


class Server:
    def __init__(self, tmp: Path, *flags: str) -> None:
        cmd = [sys.executable, "-m", "ael_cli.main", "serve", "--port", "0", "--sessions", str(tmp / "class"), *flags]
        self.process = subprocess.Popen(cmd, cwd=tmp, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                        start_new_session=True)
        self.lines: list[str] = []

    def wait_for(self, words: str) -> str:
        deadline = time.monotonic() + BOUND
        while time.monotonic() < deadline:
            ready, _, _ = select.select([self.process.stdout], [], [], deadline - time.monotonic())
            line = self.process.stdout.readline() if ready else ""
            if not line:
                break
            self.lines.append(line)
            if words in line:
                return line
        raise AssertionError(f"the server never said {words!r}: {''.join(self.lines)[-2000:]}")

    @property
    def url(self) -> str:
        return re.search(r"http://127\.0\.0\.1:\d+/", "".join(self.lines))[0]

    def stop(self) -> None:
        if self.process.stdout.closed:
            return
        for sig in (signal.SIGTERM, signal.SIGKILL):
            try:
                os.killpg(self.process.pid, sig)
            except ProcessLookupError:
                break
            try:
                self.process.wait(timeout=15)
                break
            except subprocess.TimeoutExpired:
                continue
        self.lines.append(self.process.stdout.read())  # the rest of what it said, to its end
        self.process.stdout.close()


@pytest.fixture
def server(tmp_path):
    started: list[Server] = []

    def start(*flags: str) -> Server:
        s = Server(tmp_path, *flags)
        started.append(s)
        s.wait_for("AEL Lab: serving")
        return s

    yield start
    for s in started:
        s.stop()


def test_forty_visitors_at_once_each_get_a_lab_drawn(server):
    s = server("--scenario", "support", "--seed", "42", "--max-per-address", "40", "--warm-labs", "0")
    s.wait_for("labs ready")
    url = s.url.replace("http://", "ws://") + "ws?width=80&height=24"

    async def visit(http: aiohttp.ClientSession, opened: asyncio.Event, drawn: list[int]) -> None:
        async with http.ws_connect(url) as ws:
            await Visitor(ws, (80, 24)).until(r"seed 42")
            drawn.append(1)
            if len(drawn) == 40:
                opened.set()
            await asyncio.wait_for(opened.wait(), BOUND)  # every lab open at once, then all close

    async def main() -> int:
        async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as http:
            opened, drawn = asyncio.Event(), []
            await asyncio.gather(*(visit(http, opened, drawn) for _ in range(40)))
            return len(drawn)

    assert asyncio.run(main()) == 40


KEY = "sesame-open-up-0123456789"


def test_the_teacher_sends_the_class_to_card_3(server):
    # two places for the two visitors: once they have taken the two warm labs the class is full and the
    # pool starts no more (each warm lab is a lab start of CPU; test_serve_supervise checks the refill)
    s = server("--scenario", "support", "--seed", "42", "--tour", "--max-sessions", "2", "--max-per-address", "4",
               "--warm-labs", "2", "--teacher-key", KEY)
    s.wait_for("warm and waiting")
    ws_url = s.url.replace("http://", "ws://") + "ws?width=160&height=48"

    async def main() -> None:
        async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as http:  # 127.0.0.1's cookies
            async with http.get(s.url) as page:  # while a lab starts, the page says so and moves
                assert "Starting your lab" in await page.text()
            async with http.get(s.url + "teacher?key=wrong-wrong-wrong-wrong") as page:
                assert page.status == 403
            async with http.get(s.url + "teacher/labs") as page:
                assert page.status == 403
            async with http.ws_connect(ws_url) as one, http.ws_connect(ws_url) as two:
                a, b = Visitor(one), Visitor(two)
                await a.until(r"Tour 1/")
                await b.until(r"Tour 1/")
                await two.send_json(["stdin", "t"])  # the second student goes on to card 2
                await b.until(r"Tour 2/")
                while True:  # the wrong key slowed this address for half a second: the page says how long
                    async with http.get(s.url + f"teacher?key={KEY}") as page:
                        html = await page.text()
                        if page.status != 429:
                            break
                        await a.next_frame(float(page.headers["Retry-After"]))  # not a fixed sleep: frames or then
                assert page.status == 200 and str(page.url).endswith("/teacher")  # the key left the URL
                assert html.count("<td>v") == 2 and "support" in html and "Wrong keys tried: 1" in html
                assert "http-equiv=refresh" not in html  # issue 41: the page never reloads under the teacher
                async with http.post(s.url + "teacher", data={"cmd": "card", "n": "3"},  # the cookie, no key
                                     headers={"Accept": "application/json"}) as sent:
                    answer = (await sent.json())["answer"]  # the page's script reads this, once the labs are there
                assert answer == "2 labs moved to tour card 3.", answer
                moved = (r"Tour 3/", r"moved the class to tour card 3")  # in whichever order drawn
                await a.until(*moved)
                await b.until(*moved)
                deadline = time.monotonic() + BOUND
                while time.monotonic() < deadline:  # the status reports catch up within a second or two
                    async with http.get(s.url + "teacher/labs") as page:
                        rows = await page.json()
                    if [r["card"] for r in rows] == [3, 3]:
                        break
                    await a.next_frame(1.5)  # a frame, or the time of the next report; not a fixed sleep
                assert [r["card"] for r in rows] == [3, 3]
                await one.send_json(["stdin", "\x1b"])  # the first student closes card 3: no longer at it
                while time.monotonic() < deadline:
                    async with http.get(s.url + "teacher/labs?page=1") as page:
                        shown = await page.json()
                    if [r["card_open"] for r in shown["labs"]] == [False, True]:
                        break
                    await a.next_frame(1.5)
                assert [(r["card"], r["card_open"]) for r in shown["labs"]] == [(3, False), (3, True)]
                assert "2 connected" in shown["line"]
                async with http.post(s.url + "teacher", data={"cmd": "pause"}, allow_redirects=False) as sent:
                    assert sent.status == 303  # a plain form (no script): the page again, the answer on it
                async with http.get(s.url + "teacher") as page:
                    assert "0 paused (2 were not running)" in await page.text()
                async with http.post(s.url + "teacher", data={"cmd": "resume"},
                                     headers={"Accept": "application/json"}) as sent:
                    assert (await sent.json())["answer"].startswith("2 labs resumed")

    asyncio.run(main())
    s.stop()
    said = "".join(s.lines)
    assert "teacher" in said and KEY not in said  # the server's lines and its access log: no key
