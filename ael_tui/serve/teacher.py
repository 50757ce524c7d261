"""The teacher's page of `ael-lab serve`, and its key kept out of sight.

The key opens the page once: `/teacher?key=KEY` (or `/teacher/labs?key=KEY`) sets
an HttpOnly, SameSite=Strict cookie holding a random token of this server's (not
the key) and redirects to the same page without the key, so the table's refresh
every 3 s, the browser's history and any Referer carry no key.

The page works while the teacher types (templates/teacher.html): it is never
reloaded; its table refreshes itself from `/teacher/labs?page=1`, and an action is
POSTed in the background and answered in one line ("40 labs moved to tour card 3",
"12 paused"), once the labs have said so. Its script is inline, allowed by a nonce
(Content-Security-Policy): the page loads nothing, from the internet or elsewhere. Scripts may send
the key in an `Authorization: Bearer KEY` header instead. The access log prints no
query value but a terminal's size (`QuietAccessLog`), and the server never prints
the key: one it made is written to a file only its user can read.

A wrong key is counted, and slows its address (`KeyGuard`): after its n-th wrong
key an address's next keys are not even compared for min(0.5 s * 2**(n-1), 60 s),
so a thousand guesses take hours, not a third of a second. The teacher's page says
how many wrong keys came, never what they were.
"""

from __future__ import annotations

import hmac
import html
import logging
import math
import os
import re
import secrets
import string
import tempfile
import time
from pathlib import Path
from typing import Any, Callable
from urllib.parse import parse_qsl

from aiohttp import web
from aiohttp.abc import AbstractAccessLogger

from ael_cli.serve_flags import MIN_KEY  # characters: a key shorter than this can be guessed

COOKIE = "ael_teacher"
COOKIE_PATH = "/teacher"
FIRST_DELAY, MAX_DELAY = 0.5, 60.0  # seconds an address waits after its first wrong key, and at most
FORGET_AFTER = 3600.0     # an address quiet this long starts again from no wrong keys
MAX_ADDRESSES = 4096      # addresses remembered at once (a flood of addresses cannot fill memory)
SHOWN_QUERY = ("width", "height", "fontsize", "page")  # query values the access log may print
REFRESH_MS = 3000         # the teacher's table refreshes itself this often
PAGE = string.Template((Path(__file__).parent / "templates" / "teacher.html").read_text(encoding="utf-8"))
# the page's own script (by its nonce) and its own server, nothing else: no internet, no framing
POLICY = ("default-src 'none'; script-src 'nonce-{nonce}'; style-src 'unsafe-inline'; connect-src 'self'; "
          "form-action 'self'; base-uri 'none'; frame-ancestors 'none'")
_UNPRINTABLE = re.compile(r"[\x00-\x1f\x7f-\x9f]")

log = logging.getLogger("ael-lab.serve")


def new_key() -> str:
    """A key for the teacher's page when none was given: 32 URL-safe characters."""
    return secrets.token_urlsafe(24)


def write_key_file(path: Path, key: str) -> None:
    """The key in a file only this user can read (0600), written whole or not at all."""
    fd, tmp = tempfile.mkstemp(prefix=".teacher-key.", dir=path.parent)  # mkstemp: 0600
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(key + "\n")
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def quiet_target(request: web.BaseRequest) -> str:
    """The request's path and query for the log: every query value elided but a
    terminal's size (a key, or a guess at one, never reaches the log), nothing the
    visitor typed shown as a control character."""
    raw = request.raw_path
    path, _, query = raw.partition("?")
    if query:
        pairs = parse_qsl(query, keep_blank_values=True)
        path += "?" + "&".join(f"{name}={value if name in SHOWN_QUERY else '…'}" for name, value in pairs)
    return _UNPRINTABLE.sub(lambda m: f"\\x{ord(m[0]):02x}", path[:300])


class QuietAccessLog(AbstractAccessLogger):
    """aiohttp's access log without query values, Referer or User-Agent (each could hold the key)."""

    def log(self, request: web.BaseRequest, response: web.StreamResponse, time: float) -> None:
        self.logger.info('%s "%s %s" %s %s %.3fs', request.remote, request.method, quiet_target(request),
                         response.status, response.body_length, time)


class KeyGuard:
    """The teacher's key, the cookie it is traded for, and the wrong keys per address."""

    def __init__(self, key: str, clock: Callable[[], float] = time.monotonic) -> None:
        self.key, self.clock = key, clock
        self.token = secrets.token_urlsafe(32)  # what the teacher's browser holds instead of the key
        self.wrong = 0                           # wrong keys in all
        self.unchecked = 0                       # keys refused uncompared while their address waited
        self.by_address: dict[str, tuple[int, float, float]] = {}  # wrong keys, barred until, last one

    def right_key(self, given: str) -> bool:
        return hmac.compare_digest(given.encode("utf-8", "replace"), self.key.encode())

    def right_cookie(self, given: str | None) -> bool:
        return given is not None and hmac.compare_digest(given.encode("utf-8", "replace"), self.token.encode())

    def barred_for(self, address: str) -> float:
        """Seconds before a key from `address` is compared again (0: now)."""
        entry = self.by_address.get(address)
        return max(0.0, entry[1] - self.clock()) if entry else 0.0

    def check(self, address: str, given: str) -> bool:
        """Whether `given` is the key; a wrong one is counted and bars its address for a while.
        The caller asks `barred_for` first: a barred address's keys are not compared."""
        now = self.clock()
        if self.right_key(given):
            self.by_address.pop(address, None)
            return True
        self.wrong += 1
        count, _, last = self.by_address.get(address, (0, 0.0, now))
        if now - last > FORGET_AFTER:
            count = 0
        count += 1
        self.by_address[address] = (count, now + min(FIRST_DELAY * 2 ** min(count - 1, 30), MAX_DELAY), now)
        self._forget_old(now)
        return False

    def count_from(self, address: str) -> int:
        entry = self.by_address.get(address)
        return entry[0] if entry else 0

    def _forget_old(self, now: float) -> None:
        if len(self.by_address) <= MAX_ADDRESSES:
            return
        for address, (_, barred, last) in sorted(self.by_address.items(), key=lambda kv: kv[1][2]):
            if len(self.by_address) <= MAX_ADDRESSES // 2:
                break
            if barred <= now:
                del self.by_address[address]

    def refuse_unchecked(self) -> None:
        """A key from a barred address, refused without being compared: counted apart (it may
        even be the right one), so the teacher sees how hard the page was tried."""
        self.unchecked += 1

    def summary(self) -> str:
        if not self.wrong:
            return "No wrong keys tried."
        more = f", and {self.unchecked} more refused unchecked while their address waited" if self.unchecked else ""
        return f"Wrong keys tried: {self.wrong} (from {len(self.by_address)} address(es)){more}; never shown."


def given_key(request: web.Request) -> str | None:
    """The key a request carries: `?key=`, else an `Authorization: Bearer` header."""
    key = request.query.get("key")
    if key is None:
        auth = request.headers.get("Authorization", "")
        if auth.startswith("Bearer "):
            key = auth[len("Bearer "):]
    return key


def without_key(request: web.Request) -> str:
    """The request's path and query with the key taken out (where the browser goes next)."""
    query = [(k, v) for k, v in request.query.items() if k != "key"]
    return str(request.rel_url.with_query(query)) if query else request.path


class TeacherPage:
    """The teacher's routes, mixed into the server (LabServer): it reads `guard`, `links`,
    `title` and `notice` there, and sends the labs their commands (`teacher_command`,
    which answers in one line)."""

    guard: KeyGuard
    links: dict[str, Any]
    title: str
    notice: str
    answer: str = ""  # the last action's answer, for the page drawn after a plain form's POST

    def teacher_routes(self) -> list[web.RouteDef]:
        return [web.get("/teacher", self.handle_teacher), web.post("/teacher", self.handle_teacher_command),
                web.get("/teacher/labs", self.handle_teacher_labs)]

    def _admit(self, request: web.Request, key: str | None) -> web.Response | None:
        """None when the request is the teacher's (its cookie, or the key in a header or a
        form); a redirect that trades a key in the URL for the cookie; else an HTTP error."""
        guard = self.guard
        if guard.right_cookie(request.cookies.get(COOKIE)):
            return None
        if key is None:
            raise web.HTTPForbidden(text="AEL Lab: the teacher's page needs the key: open /teacher?key=KEY once "
                                         "(the key you gave with --teacher-key, or the one in the file the server "
                                         "named when it started).")
        where = request.remote or "?"
        wait = guard.barred_for(where)
        if wait > 0:
            guard.refuse_unchecked()
            raise web.HTTPTooManyRequests(text=f"AEL Lab: too many wrong keys from this address; try again in "
                                               f"{math.ceil(wait)} s.", headers={"Retry-After": str(math.ceil(wait))})
        if not guard.check(where, key):
            count = guard.count_from(where)
            if count & (count - 1) == 0:  # the 1st, 2nd, 4th, 8th…: a count in the log, never a flood of lines
                log.warning("wrong keys for the teacher's page: %d from %s, %d in all", count, where,
                                 guard.wrong)
            raise web.HTTPForbidden(text="AEL Lab: that is not the teacher's key.")
        if request.method != "GET" or "key" not in request.query:
            return None  # a header or a form: nothing in the URL to take out
        response = web.Response(status=303, headers={"Location": without_key(request), "Cache-Control": "no-store",
                                                     "Referrer-Policy": "no-referrer"})
        response.set_cookie(COOKIE, guard.token, path=COOKIE_PATH, httponly=True, samesite="Strict",
                            secure=request.secure)
        return response

    async def handle_teacher_labs(self, request: web.Request) -> web.StreamResponse:
        """The labs' rows (a list, for scripts); `?page=1`: with the line under the table and the
        notice, as the teacher's page refreshes itself."""
        if (redirect := self._admit(request, given_key(request))) is not None:
            return redirect
        rows = [link.row() for link in self.links.values()]
        body: Any = rows if "page" not in request.query else \
            {"labs": rows, "line": self.class_line(), "notice": self.notice}
        return web.json_response(body, headers={"Cache-Control": "no-store"})

    def class_line(self) -> str:
        return (f"{len(self.links)} connected; {self.warm_count()} labs warm and waiting. "
                f"{self.guard.summary()}")

    async def handle_teacher(self, request: web.Request) -> web.StreamResponse:
        if (redirect := self._admit(request, given_key(request))) is not None:
            return redirect
        nonce = secrets.token_urlsafe(16)
        page = PAGE.substitute(title=html.escape(self.title), notice=html.escape(self.notice),
                               answer=html.escape(self.answer), rows="".join(row_html(link.row())
                                                                             for link in self.links.values()),
                               line=html.escape(self.class_line()), nonce=nonce, every_ms=REFRESH_MS)
        return web.Response(text=page, content_type="text/html",
                            headers={"Cache-Control": "no-store", "Referrer-Policy": "no-referrer",
                                     "Content-Security-Policy": POLICY.format(nonce=nonce),
                                     "X-Content-Type-Options": "nosniff"})

    async def handle_teacher_command(self, request: web.Request) -> web.StreamResponse:
        """An action: answered in JSON to the page's script (`Accept: application/json`), else
        (a plain form, no script) the page again, the answer on it."""
        form = await request.post()
        key = form.get("key")
        self._admit(request, key if isinstance(key, str) else None)
        answer = await self.teacher_command(form.get("cmd"), form.get("n"), form.get("visitor"))
        if "application/json" in request.headers.get("Accept", ""):
            return web.json_response({"answer": answer}, headers={"Cache-Control": "no-store"})
        self.answer = answer
        raise web.HTTPSeeOther("/teacher")

    def warm_count(self) -> int:
        raise NotImplementedError

    async def teacher_command(self, cmd: Any, n: Any, visitor: Any) -> str:
        raise NotImplementedError


def card_cell(row: dict[str, Any]) -> str:
    """The tour card column: the card a student saw last, and whether it is open now (a student
    who closed card 3 and stepped on is not at card 3)."""
    card = row.get("card")
    if not card:
        return "-"
    return f"{card} (open)" if row.get("card_open") else f"{card} (closed)"


def row_html(r: dict[str, Any]) -> str:
    """One lab's row, drawn by the server for the page's first view (the script draws the rest)."""
    episode = "-" if r.get("episode") is None else f"{r['episode']}{' (paused)' if r.get('held') else ''}"
    visitor = html.escape(str(r["visitor"]))
    return (f"<tr><td>{visitor}</td><td>{html.escape(str(r.get('scenario') or '-'))}</td>"
            f"<td>{html.escape(episode)}</td><td>{html.escape(card_cell(r))}</td><td>{r['idle']:.0f} s</td>"
            f"<td><form method=post><input type=hidden name=visitor value='{visitor}'>"
            f"<button name=cmd value=end>End</button></form></td></tr>")
