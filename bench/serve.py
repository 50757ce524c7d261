"""`ael-lab serve` as a class meets it: forty students opening the page together.

A real server (`--scenario support --seed 42`, the fork server on) on 127.0.0.1;
visitors are websocket clients speaking the page's protocol (aiohttp). Measured:
the fork server's preparation (server start to "labs ready"), then forty
visitors connecting at once: each one's first frame (first terminal bytes) and its
lab drawn (the status line's `episode 0/1200`), and the memory each visitor adds,
as proportional set size (/proc/PID/smaps_rollup: a page shared by n processes
counts 1/n in each), so pages the labs share with the fork server count once.

    python -m bench serve          # or: python -m bench.serve [VISITORS]
"""

from __future__ import annotations

import asyncio
import os
import platform
import re
import select
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import aiohttp

from engine.processes import end_group

ANSI = re.compile(r"\x1b(\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[@-Z\\-_])")
STATUS = re.compile(r"episode 0/1200")
EPISODE = re.compile(r"episode (\d+)/1200")
RUNNING, PAUSED = "▶ running", "‖ paused"
VISITORS = 40
TIMEOUT = 120.0
WINDOW_TIMEOUT = 900.0  # forty windows at once on a loaded machine: a bound, not a target


class Page:
    """One visitor's page: reads its socket all the time (as a browser does, answering
    pings), counting the bytes the server sends. The text is kept without its escapes as
    it arrives and searched from where the last search stopped: forty pages re-reading
    hundreds of kilobytes at every frame would starve this loop, and a page that answers
    no ping is ended by the server."""

    def __init__(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        self.ws, self.text, self.bytes, self.closed = ws, "", 0, False
        self.arrived = asyncio.Event()
        self.reader = asyncio.ensure_future(self._read())

    async def _read(self) -> None:
        async for message in self.ws:
            if message.type == aiohttp.WSMsgType.BINARY:
                self.bytes += len(message.data)
                self.text += ANSI.sub("", message.data.decode("utf-8", "replace"))
                self.arrived.set()
        self.closed = True
        self.arrived.set()

    async def until(self, *words: str, timeout: float = TIMEOUT) -> str:
        """The text since the last match once every word is in it, in that order."""
        deadline = time.monotonic() + timeout
        found, at = 0, 0  # words found so far; where to look for the next one
        while True:
            while found < len(words):
                hit = self.text.find(words[found], at)
                if hit < 0:
                    at = max(at, len(self.text) - len(words[found]))
                    break
                at, found = hit + len(words[found]), found + 1
            if found == len(words):
                text, self.text = self.text, ""
                return text
            if self.closed or time.monotonic() > deadline:
                raise RuntimeError(f"never on the page: {words}" + (" (the session closed)" if self.closed else ""))
            self.arrived.clear()
            try:
                await asyncio.wait_for(self.arrived.wait(), max(0.0, deadline - time.monotonic()))
            except asyncio.TimeoutError:
                pass

    async def window(self) -> tuple[float, int, int]:
        """`w`: (seconds to the window's end, bytes sent meanwhile, episodes it played)."""
        before = self.bytes
        start_episode = self.episode
        started = time.perf_counter()
        await self.ws.send_json(["stdin", "w"])
        text = await self.until(RUNNING, PAUSED, timeout=WINDOW_TIMEOUT)
        took = time.perf_counter() - started
        shown = [int(n) for n in EPISODE.findall(text)]
        self.episode = max(shown, default=start_episode)
        return took, self.bytes - before, self.episode - start_episode

    episode = 0


async def visit(ws_url: str, http: aiohttp.ClientSession, hold: asyncio.Event,
                drawn: list[float], pages: list[Page]) -> tuple[float, float]:
    """(first frame, lab drawn) in seconds from opening the websocket; held open until `hold`."""
    started = time.perf_counter()
    async with http.ws_connect(ws_url) as ws:
        await ws.send_json(["resize", {"width": 160, "height": 48}])
        page = Page(ws)
        page.arrived.clear()
        await page.arrived.wait()
        first = time.perf_counter() - started
        await page.until("episode 0/1200")
        took = time.perf_counter() - started
        drawn.append(took)
        pages.append(page)
        await hold.wait()
        return first, took


async def step_together(pages: list["Page"]) -> dict:
    """One visitor's window alone, then every visitor's at once."""
    alone = await pages[0].window()
    together = await asyncio.gather(*(p.window() for p in pages))
    return {"alone": alone, "together": together}


def children(pid: int) -> list[int]:
    try:
        return [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def pss_mib(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                return int(line.split()[1]) / 1024
    except (OSError, ValueError, IndexError):
        pass
    return 0.0


def zygote_of(server_pid: int) -> int | None:
    for pid in children(server_pid):
        try:
            if b"ael_tui.serve.zygote" in Path(f"/proc/{pid}/cmdline").read_bytes():
                return pid
        except OSError:
            continue
    return None


async def measure(url: str, server_pid: int, visitors: int) -> dict:
    ws_url = url.replace("http://", "ws://") + "ws?width=160&height=48"
    zygote = zygote_of(server_pid)
    before = pss_mib(zygote) if zygote else 0.0
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as http:
        hold, drawn, pages = asyncio.Event(), [], []
        started = time.perf_counter()
        tasks = [asyncio.create_task(visit(ws_url, http, hold, drawn, pages)) for _ in range(visitors)]
        while len(drawn) < visitors:
            failed = [t for t in tasks if t.done() and t.exception()]
            if failed:
                raise failed[0].exception()
            await asyncio.sleep(0.05)
        joined = time.perf_counter() - started
        labs = children(zygote) if zygote else []
        lab_pss = [pss_mib(p) for p in labs]
        total = (pss_mib(zygote) if zygote else 0.0) + sum(lab_pss)
        stepped = await step_together(pages)
        hold.set()
        times = await asyncio.gather(*tasks)
    return {"first": [t[0] for t in times], "drawn": [t[1] for t in times], "joined": joined,
            "lab_pss": lab_pss, "zygote_pss": before, "total_pss": total, "labs": len(labs), **stepped}


def run(visitors: int = VISITORS) -> list[dict]:
    load = os.getloadavg()
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        server = subprocess.Popen([sys.executable, "-m", "ael_cli.main", "serve", "--port", "0", "--sessions",
                                   str(Path(tmp) / "class"), "--scenario", "support", "--seed", "42",
                                   "--max-sessions", str(visitors), "--max-per-address", str(visitors)],
                                  cwd=tmp, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                  start_new_session=True)
        try:
            url, ready_at, prepared_at = None, None, float("nan")
            deadline = time.monotonic() + 10 * TIMEOUT  # forty labs warmed one after another
            while ready_at is None and time.monotonic() < deadline:
                ready, _, _ = select.select([server.stdout], [], [], max(0.0, deadline - time.monotonic()))
                line = server.stdout.readline() if ready else ""
                if not line:
                    break
                if url is None and (m := re.search(r"http://127\.0\.0\.1:\d+/", line)):
                    url = m[0]
                if "labs ready" in line:
                    prepared_at = time.perf_counter() - t0
                if "warm and waiting" in line:
                    ready_at = time.perf_counter() - t0
            if url is None or ready_at is None:
                raise RuntimeError("the server did not announce itself and its labs")
            m = asyncio.run(measure(url, server.pid, visitors))
        finally:
            end_group(server, grace=15)
    per_visitor = (m["total_pss"] - m["zygote_pss"]) / max(1, m["labs"])
    alone_s, alone_bytes, alone_episodes = m["alone"]
    together = m["together"]
    per_episode = [b / max(1, e) for _, b, e in together]
    print(f"bench serve: {platform.machine()}, {os.cpu_count()} cores, {platform.python_version()}, "
          f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} before the run; {visitors} visitors, "
          f"{m['labs']} labs forked", flush=True)
    return [
        {"name": "serve: server start to the fork server prepared", "value": prepared_at, "unit": "s",
         "target": None},
        {"name": f"serve: server start to {visitors} labs warm (before the class)", "value": ready_at,
         "unit": "s", "target": None},
        {"name": f"serve: {visitors} at once, slowest first frame", "value": max(m["first"]), "unit": "s",
         "target": 5.0},
        {"name": f"serve: {visitors} at once, median lab drawn", "value": statistics.median(m["drawn"]),
         "unit": "s", "target": None},
        {"name": f"serve: {visitors} at once, all labs drawn (join time)", "value": m["joined"], "unit": "s",
         "target": 5.0},
        {"name": f"serve: memory added per visitor (PSS, {m['labs']} labs)", "value": per_visitor, "unit": "MiB",
         "target": 50.0},
        {"name": "serve: memory of the fork server before visitors (PSS)", "value": m["zygote_pss"],
         "unit": "MiB", "target": None},
        {"name": f"serve: one visitor alone, `w` to the window's end ({alone_episodes} episodes)",
         "value": alone_s, "unit": "s", "target": None},
        {"name": "serve: one visitor alone, bytes sent per episode of the window", "value":
         alone_bytes / max(1, alone_episodes) / 1024, "unit": "KiB", "target": None},
        {"name": f"serve: {visitors} pressing `w` together, median window", "value":
         statistics.median(t for t, _, _ in together), "unit": "s", "target": None},
        {"name": f"serve: {visitors} pressing `w` together, slowest window", "value": max(t for t, _, _ in together),
         "unit": "s", "target": None},
        {"name": f"serve: {visitors} pressing `w` together, bytes per visitor for the window", "value":
         statistics.median(b for _, b, _ in together) / 1024, "unit": "KiB", "target": None},
        {"name": f"serve: {visitors} pressing `w` together, bytes per visitor per episode", "value":
         statistics.median(per_episode) / 1024, "unit": "KiB", "target": None},
    ]


if __name__ == "__main__":
    for row in run(int(sys.argv[1]) if len(sys.argv) > 1 else VISITORS):
        target = row["target"]
        ok = "   " if target is None else ("ok " if row["value"] <= target else "MISS")
        print(f"{ok} {row['name']:<62} {row['value']:>10.3f} {row['unit']}"
              + ("" if target is None else f" (target < {target} {row['unit']})"), flush=True)
