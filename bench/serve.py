"""`ael-lab serve` as a class meets it: how long a visitor waits for the lab, and what
each visitor costs the teacher's machine.

A real server (`--scenario support --seed 42`) on 127.0.0.1; visitors are websocket
clients speaking the page's protocol; "the lab is there" is the status line's
`episode 0/1200` in the terminal's bytes. Memory is the VmRSS of each visitor's app
process, read from /proc (Linux) while the visitors are connected: once every lab is
drawn, and again once each is in use (`g` runs the phase; read when every lab has
passed episode RUNNING, its support table built), with the peak (VmHWM) each
process reached by then.
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
EPISODE = re.compile(r"episode (\d+)/1200")
RUNNING = 900  # where `g` has taken the class-mode lab (support seed 42 stops for a decision at 920)
CROWD = 10


async def until(ws, pattern: re.Pattern, raw: str = "") -> str:
    while not pattern.search(ANSI.sub("", raw)):
        message = await ws.receive(timeout=120)
        if message.type != aiohttp.WSMsgType.BINARY:
            raise RuntimeError("the session closed before the lab was drawn")
        raw += message.data.decode("utf-8", "replace")
    return raw


async def visit(ws_url: str, http: aiohttp.ClientSession, hold: asyncio.Event | None = None,
                drawn: list[float] | None = None, step: asyncio.Event | None = None,
                stepped: list[bool] | None = None) -> float:
    """Seconds from opening the websocket to the status line on screen (then, in the
    crowd, the phase run past episode RUNNING once `step` is set)."""
    started = time.perf_counter()
    async with http.ws_connect(ws_url) as ws:
        await ws.send_json(["resize", {"width": 160, "height": 48}])
        await until(ws, STATUS)
        took = time.perf_counter() - started
        if drawn is not None:
            drawn.append(took)
        if step is not None and stepped is not None:
            await step.wait()
            await ws.send_json(["stdin", "g"])  # run the phase: the lab in use
            while int(EPISODE.findall(ANSI.sub("", await until(ws, EPISODE)))[-1]) < RUNNING:
                pass
            stepped.append(True)
        if hold is not None:
            await hold.wait()
        return took


def app_rss_mib(server_pid: int, field: str = "VmRSS") -> list[float]:
    out = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit() or proc.name == str(server_pid):
            continue
        try:
            if int((proc / "stat").read_text().rsplit(")", 1)[1].split()[2]) != server_pid:
                continue
            rss = next(line for line in (proc / "status").read_text().splitlines() if line.startswith(field))
            out.append(int(rss.split()[1]) / 1024)
        except (OSError, ValueError, IndexError, StopIteration):
            continue
    return out


async def measure(url: str, server_pid: int) -> tuple[list[float], list[float], dict[str, list[float]]]:
    ws_url = url.replace("http://", "ws://") + "ws?width=160&height=48"
    async with aiohttp.ClientSession() as http:
        alone = [await visit(ws_url, http) for _ in range(3)]
        await asyncio.sleep(12)  # the three are gone (a closed lab has up to 10 s to stop): only the crowd is read
        hold, step, drawn, stepped = asyncio.Event(), asyncio.Event(), [], []
        tasks = [asyncio.create_task(visit(ws_url, http, hold, drawn, step, stepped)) for _ in range(CROWD)]

        async def wait_for(done: list) -> None:
            while len(done) < CROWD:
                failed = [t for t in tasks if t.done() and t.exception()]
                if failed:
                    raise failed[0].exception()
                await asyncio.sleep(0.2)

        await wait_for(drawn)
        await asyncio.sleep(0.5)  # every visitor's lab drawn; they are all still connected
        memory = {"drawn": app_rss_mib(server_pid)}
        step.set()
        await wait_for(stepped)
        memory["stepped"] = app_rss_mib(server_pid)
        memory["peak"] = app_rss_mib(server_pid, "VmHWM")
        hold.set()
        crowd = await asyncio.gather(*tasks)
    return alone, crowd, memory


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
            alone, crowd, memory = asyncio.run(measure(url, server.pid))
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
        *({"name": f"serve: memory of one visitor's lab, {when} (median {field} of {len(values)})",
           "value": statistics.median(values) if values else float("nan"), "unit": "MiB", "target": None}
          for when, field, values in (("drawn", "VmRSS", memory["drawn"]),
                                      (f"run to episode {RUNNING}", "VmRSS", memory["stepped"]),
                                      ("peak by then", "VmHWM", memory["peak"]))),
        {"name": f"serve: memory of one visitor's lab, the highest peak (max VmHWM of {len(memory['peak'])})",
         "value": max(memory["peak"], default=float("nan")), "unit": "MiB", "target": None},
    ]
