"""Headless Chromium over its DevTools protocol (aiohttp, no driver): the README's
picture of the lab in a browser, and the browser test's session.

    python -m ael_tui.serve.browser_screenshot http://127.0.0.1:8000/ docs/serve-browser.png

`chromium --screenshot` takes its picture on virtual time, before a visitor's app
process has started; this waits in real time
(xterm.js draws on a canvas, so there is no text to read: it waits for the page's first
bytes from the app, then `--settle` seconds for the lab to draw), then captures the page.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import shutil
import subprocess
import tempfile
import time
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, AsyncIterator, Awaitable, Callable

import aiohttp

from ael_lab.host import end_group

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--remote-debugging-port=0"]
FIRST_BYTES = "document.body.classList.contains('-first-byte')"

Call = Callable[..., Awaitable[dict[str, Any]]]


def find_browser() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


@asynccontextmanager
async def devtools(width: int, height: int, timeout: float = 60.0) -> AsyncIterator[Call]:
    """A headless Chromium of one page at width x height, as `call(method, **params)`
    that returns the DevTools reply's result. The browser and its helpers end with it."""
    browser = find_browser()
    if browser is None:
        raise RuntimeError("no chromium on PATH (apt-get install chromium)")
    with tempfile.TemporaryDirectory() as profile:
        process = subprocess.Popen([browser, *FLAGS, f"--user-data-dir={profile}", f"--window-size={width},{height}",
                                    "about:blank"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                   start_new_session=True)  # its own group: its helpers go with it
        try:
            port_file = Path(profile) / "DevToolsActivePort"
            deadline = time.monotonic() + timeout
            while not port_file.exists():  # chromium writes it once it listens
                if time.monotonic() > deadline:
                    raise RuntimeError("chromium never opened its DevTools port")
                await asyncio.sleep(0.1)
            port = port_file.read_text().split()[0]
            async with aiohttp.ClientSession() as http:
                async with http.get(f"http://127.0.0.1:{port}/json/list") as response:
                    page = next(t for t in await response.json() if t["type"] == "page")
                async with http.ws_connect(page["webSocketDebuggerUrl"], max_msg_size=0) as cdp:
                    ids = iter(range(1, 1_000_000))

                    async def call(method: str, **params: Any) -> dict[str, Any]:
                        n = next(ids)
                        await cdp.send_json({"id": n, "method": method, "params": params})
                        while True:  # events arrive between replies: skip to ours
                            reply = json.loads((await cdp.receive(timeout=timeout)).data)
                            if reply.get("id") == n:
                                return reply.get("result", {})

                    await call("Emulation.setDeviceMetricsOverride", width=width, height=height,
                               deviceScaleFactor=1, mobile=False)
                    yield call
        finally:
            end_group(process)


async def capture(url: str, out: Path, width: int, height: int, settle: float, timeout: float) -> None:
    async with devtools(width, height, timeout) as call:
        await call("Page.navigate", url=url)
        deadline = time.monotonic() + timeout
        while not (await call("Runtime.evaluate", expression=FIRST_BYTES))["result"].get("value"):
            if time.monotonic() > deadline:
                raise SystemExit("the page never received the lab's first bytes")
            await asyncio.sleep(0.5)
        await asyncio.sleep(settle)
        shot = await call("Page.captureScreenshot", format="png")
    out.write_bytes(base64.b64decode(shot["data"]))


def main() -> None:
    p = argparse.ArgumentParser(prog="python -m ael_tui.serve.browser_screenshot")
    p.add_argument("url")
    p.add_argument("out", type=Path)
    p.add_argument("--size", default="1400x900")
    p.add_argument("--settle", type=float, default=8.0, help="seconds between the first bytes and the picture")
    p.add_argument("--timeout", type=float, default=60.0)
    args = p.parse_args()
    width, height = (int(x) for x in args.size.split("x"))
    if find_browser() is None:
        raise SystemExit("no chromium on PATH (apt-get install chromium)")
    asyncio.run(capture(args.url, args.out, width, height, args.settle, args.timeout))
    print(args.out)


if __name__ == "__main__":
    main()
