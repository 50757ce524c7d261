"""A visitor's page as the served tests drive it: a websocket client that speaks
textual-serve's protocol and reads its socket all the time, as a browser does.

A socket left unread answers no ping, and the server (heartbeat 15 s, a pong within
7.5 s) rightly ends that visitor's session: a test that waits on one visitor while
another's socket sits unread loses the second under load. Every served test that
keeps a page open while it waits on something else uses `Visitor`.
"""

from __future__ import annotations

import asyncio
import re
import time

import aiohttp

ANSI = re.compile(r"\x1b(\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[@-Z\\-_])")
BOUND = 300.0  # seconds: a bound on a loaded machine, not a timing target (bench/serve.py has those)


class Visitor:
    """A student's browser: it reads its socket all the time, as a page does. A socket
    left unread answers no ping, and the server rightly ends that visitor's session
    after its heartbeat; this is what made the teacher's test lose a lab."""

    REDRAW_AFTER = 10.0  # seconds without a match before it asks for the whole screen again

    def __init__(self, ws: aiohttp.ClientWebSocketResponse, size: tuple[int, int] = (160, 48)) -> None:
        self.ws, self.raw, self.closed, self.size = ws, "", False, size
        self._arrived = asyncio.Event()
        self._reader = asyncio.ensure_future(self._read())

    async def _read(self) -> None:
        async for message in self.ws:  # answers pings as it goes
            if message.type == aiohttp.WSMsgType.BINARY:
                self.raw += message.data.decode("utf-8", "replace")
                self._arrived.set()
        self.closed = True
        self._arrived.set()

    async def next_frame(self, timeout: float) -> None:
        """Wait for the next frame (or `timeout` seconds, or the end of the session)."""
        self._arrived.clear()
        try:
            await asyncio.wait_for(self._arrived.wait(), timeout)
        except asyncio.TimeoutError:
            pass

    async def until(self, pattern: str, *more: str, timeout: float = BOUND) -> str:
        """The screen's text since the last match once `pattern` (and each of `more`, in any
        order) is in it. The stream carries only what changed (a card moving from 2 to 3 may
        redraw one digit), so after a quiet while the visitor resizes its window and back, as
        a browser does, and Textual draws the whole screen again. (Several patterns, not one
        with lookaheads: `(?=.*a)(?=.*b)` over a few hundred kilobytes of frames is quadratic,
        and a test stuck in it answers no ping: the server ends the session.)"""
        deadline = time.monotonic() + timeout
        redraw_at = time.monotonic() + self.REDRAW_AFTER
        while True:
            text = ANSI.sub("", self.raw)
            if all(re.search(p, text) for p in (pattern, *more)):
                self.raw = ""  # the next wait looks at what comes after
                return text
            if self.closed:
                raise AssertionError(f"the session closed before {pattern!r} showed")
            if time.monotonic() >= deadline:
                raise AssertionError(f"not on the visitor's screen: {pattern!r}")
            if time.monotonic() >= redraw_at and not self.closed:
                width, height = self.size
                for rows in (height - 1, height):
                    await self.ws.send_json(["resize", {"width": width, "height": rows}])
                redraw_at = time.monotonic() + self.REDRAW_AFTER
            await self.next_frame(min(deadline, redraw_at) - time.monotonic())


