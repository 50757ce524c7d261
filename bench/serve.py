"""`ael-lab serve` as a class meets it: how long a visitor waits for the lab, and what
each visitor costs the teacher's machine.

A real server (`--scenario support --seed 42`) on 127.0.0.1; visitors are websocket
clients speaking the page's protocol; "the lab is there" is the status line's
`episode 0/1200` in the terminal's bytes. Memory is the VmRSS of each visitor's app
process, read from /proc (Linux) while the visitors are connected.
"""

from __future__ import annotations

import asyncio
import os
import re
import select
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import aiohttp

ANSI = re.compile(r"\x1b(\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[@-Z\\-_])")
STATUS = re.compile(r"episode 0/1200")
CROWD = 10


async def visit(ws_url: str, http: aiohttp.ClientSession, hold: asyncio.Event | None = None,
                drawn: list[float] | None = None) -> float:
    """Seconds from opening the websocket to the status line on screen."""
    started = time.perf_counter()
    async with http.ws_connect(ws_url) as ws:
        await ws.send_json(["resize", {"width": 160, "height": 48}])
        raw = ""
        while not STATUS.search(ANSI.sub("", raw)):
            message = await ws.receive(timeout=120)
            if message.type != aiohttp.WSMsgType.BINARY:
                raise RuntimeError("the session closed before the lab was drawn")
            raw += message.data.decode("utf-8", "replace")
        took = time.perf_counter() - started
        if drawn is not None:
            drawn.append(took)
        if hold is not None:
            await hold.wait()
        return took


def app_rss_mib(server_pid: int) -> list[float]:
    out = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit() or proc.name == str(server_pid):
            continue
        try:
            if int((proc / "stat").read_text().rsplit(")", 1)[1].split()[2]) != server_pid:
                continue
            rss = next(line for line in (proc / "status").read_text().splitlines() if line.startswith("VmRSS"))
            out.append(int(rss.split()[1]) / 1024)
        except (OSError, ValueError, IndexError, StopIteration):
            continue
    return out


async def measure(url: str, server_pid: int) -> tuple[list[float], list[float], list[float]]:
    ws_url = url.replace("http://", "ws://") + "ws?width=160&height=48"
    async with aiohttp.ClientSession() as http:
        alone = [await visit(ws_url, http) for _ in range(3)]
        hold, drawn = asyncio.Event(), []
        tasks = [asyncio.create_task(visit(ws_url, http, hold, drawn)) for _ in range(CROWD)]
        while len(drawn) < CROWD:
            failed = [t for t in tasks if t.done() and t.exception()]
            if failed:
                raise failed[0].exception()
            await asyncio.sleep(0.2)
        await asyncio.sleep(0.5)  # every visitor's lab drawn; they are all still connected
        rss = app_rss_mib(server_pid)
        hold.set()
        crowd = await asyncio.gather(*tasks)
    return alone, crowd, rss


def run() -> list[dict]:
    with tempfile.TemporaryDirectory() as tmp:
        server = subprocess.Popen([sys.executable, "-m", "ael_tui.cli", "serve", "--port", "0", "--sessions",
                                   str(Path(tmp) / "class"), "--scenario", "support", "--seed", "42",
                                   "--max-per-address", "40"],  # every visitor here is 127.0.0.1
                                  cwd=tmp, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                  start_new_session=True)
        try:
            ready, _, _ = select.select([server.stdout], [], [], 60)
            line = server.stdout.readline() if ready else ""
            url = re.search(r"http://127\.0\.0\.1:\d+/", line)[0]
            alone, crowd, rss = asyncio.run(measure(url, server.pid))
        finally:
            os.killpg(server.pid, signal.SIGTERM)
            try:
                server.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(server.pid, signal.SIGKILL)
                server.wait()
    return [
        {"name": "serve: one visitor, websocket to the status line (median of 3)",
         "value": statistics.median(alone), "unit": "s", "target": 3.0},
        {"name": f"serve: {CROWD} visitors at once, the last one's wait", "value": max(crowd), "unit": "s",
         "target": None},
        {"name": f"serve: memory of one visitor's lab (median VmRSS of {len(rss)})",
         "value": statistics.median(rss) if rss else float("nan"), "unit": "MiB", "target": None},
    ]
