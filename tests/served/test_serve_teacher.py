"""The teacher's page and its key (issue: trust, round four, finding 7): the key is traded
for an HttpOnly, SameSite=Strict cookie and a URL without it, the access log and the
server's lines never print it, wrong keys are counted and slow their address (on an
injected clock, no waiting), and a short key is refused. In-process: aiohttp's test
server on the real routes, no lab started (--no-fork, no visitor)."""

from __future__ import annotations

import logging
import stat

import pytest
from aiohttp import CookieJar
from aiohttp.test_utils import TestClient, TestServer

from ael_cli.main import main
from ael_tui.serve import teacher
from ael_tui.serve.mode import ServedMode
from ael_tui.serve.server import LabServer
from ael_tui.serve.teacher import COOKIE, KeyGuard, QuietAccessLog

KEY = "sesame-open-up-0123456789"


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def lab_server(tmp_path, key: str | None = KEY, **kwargs) -> LabServer:
    mode = ServedMode(root=str(tmp_path))
    mode.prepare()
    return LabServer(mode, host="127.0.0.1", port=0, what="the start screen", teacher_key=key, fork=False,
                     out=lambda line: None, **kwargs)


async def teacher_client(server: LabServer) -> TestClient:
    test_server = TestServer(await server.make_app())
    await test_server.start_server(access_log_class=QuietAccessLog)  # as serve() runs the app
    client = TestClient(test_server, cookie_jar=CookieJar(unsafe=True))  # unsafe: keep cookies from 127.0.0.1
    await client.start_server()
    return client


async def test_the_key_in_the_url_is_traded_for_a_cookie_and_a_url_without_it(tmp_path, caplog):
    server = lab_server(tmp_path)
    client = await teacher_client(server)
    try:
        with caplog.at_level(logging.INFO):
            first = await client.get(f"/teacher?key={KEY}", allow_redirects=False)
            assert first.status == 303 and first.headers["Location"] == "/teacher"
            cookie = first.headers["Set-Cookie"]
            assert "HttpOnly" in cookie and "SameSite=Strict" in cookie and "Path=/teacher" in cookie
            assert KEY not in cookie  # the cookie holds the server's token, not the key
            page = await client.get("/teacher")  # the refresh's URL: no key, the cookie only
            text = await page.text()
            assert page.status == 200 and "the class" in text and KEY not in text
            assert 'name=key' not in text  # the forms carry no key either
            assert page.headers["Referrer-Policy"] == "no-referrer"
            sent = await client.post("/teacher", data={"cmd": "pause"}, allow_redirects=False)
            assert sent.status == 303 and sent.headers["Location"] == "/teacher"
            labs = await client.get("/teacher/labs")
            assert labs.status == 200 and await labs.json() == []
            jar_less = await client.session.get(client.make_url("/teacher/labs"),
                                                 headers={"Authorization": f"Bearer {KEY}"})
            assert jar_less.status == 200  # a script may send the key in a header
        logged = "\n".join(r.getMessage() for r in caplog.records)
        assert '"GET /teacher?key=…" 303' in logged and KEY not in logged
    finally:
        await client.close()


async def test_without_the_cookie_or_the_key_the_page_is_refused(tmp_path):
    server = lab_server(tmp_path)
    client = await teacher_client(server)
    try:
        for path in ("/teacher", "/teacher/labs"):
            assert (await client.get(path)).status == 403
        client.session.cookie_jar.update_cookies({COOKIE: "forged"})
        assert (await client.get("/teacher")).status == 403
        assert (await client.post("/teacher", data={"cmd": "pause"})).status == 403
    finally:
        await client.close()


async def test_wrong_keys_are_counted_and_slow_their_address_more_each_time(tmp_path, caplog):
    server = lab_server(tmp_path)
    clock = server.guard.clock = FakeClock()
    client = await teacher_client(server)
    try:
        with caplog.at_level(logging.INFO):
            waits = []
            for guess in range(5):
                wrong = await client.get(f"/teacher?key=guess-number-{guess:02d}-xxxxxxxx")
                assert wrong.status == 403
                barred = await client.get(f"/teacher?key={KEY}")  # even the right key waits its turn
                assert barred.status == 429
                waits.append(int(barred.headers["Retry-After"]))
                clock.now += waits[-1]
            assert waits == [1, 1, 2, 4, 8]  # 0.5 s doubling, rounded up; at most a minute
            assert server.guard.wrong == 5  # the barred tries were not compared, nor counted
            clock.now += 60
            assert (await client.get(f"/teacher?key={KEY}")).status == 200
            page = await (await client.get("/teacher")).text()
            assert "Wrong keys tried: 5" in page and "guess-number" not in page
        logged = "\n".join(r.getMessage() for r in caplog.records)
        assert "guess-number" not in logged and KEY not in logged
        assert "wrong keys for the teacher's page: 4 from 127.0.0.1, 4 in all" in logged
        assert "3 from" not in logged  # a count now and then (1, 2, 4, 8…), not a line per guess
    finally:
        await client.close()


def test_the_bar_grows_to_a_minute_and_a_quiet_hour_forgets_it():
    clock = FakeClock()
    guard = KeyGuard(KEY, clock=clock)
    for _ in range(12):
        clock.now += guard.barred_for("a") + 0.01
        assert not guard.check("a", "wrong")
    assert guard.barred_for("a") == pytest.approx(60.0)
    assert guard.barred_for("b") == 0  # another address is not slowed
    clock.now += 2 * 3600
    assert not guard.check("a", "wrong")
    assert guard.barred_for("a") == pytest.approx(0.5)  # after a quiet hour it starts again
    assert guard.check("a", KEY) and guard.barred_for("a") == 0


def test_the_servers_lines_hold_no_key_and_a_key_it_makes_goes_to_a_private_file(tmp_path):
    given = lab_server(tmp_path)
    assert KEY not in given.teacher_line() and "--teacher-key" in given.teacher_line()
    made = lab_server(tmp_path, key=None)
    line = made.teacher_line()
    key = made.key_file.read_text().strip()
    assert key == made.guard.key and len(key) >= teacher.MIN_KEY and key not in line
    assert str(made.key_file) in line
    assert stat.S_IMODE(made.key_file.stat().st_mode) == 0o600


@pytest.mark.parametrize("key, message", [
    ("sesame", "--teacher-key: 6 characters are too few"),
    ("a", "--teacher-key: 1 character is too few"),
    ("sixteen chars ok", "--teacher-key: give up to 256 printable characters without spaces"),
])
def test_a_short_or_odd_teacher_key_is_one_line_and_exit_2(key, message, capsys, tmp_path):
    assert main(["serve", "--sessions", str(tmp_path / "c"), "--teacher-key", key]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and "Traceback" not in err


async def test_the_page_never_reloads_loads_nothing_from_elsewhere_and_answers_an_action_in_json(tmp_path):
    """Issue 41 item 2: the page reloaded itself every 3 s (losing what the teacher typed) and an
    action answered with nothing but the reloaded page."""
    import re

    server = lab_server(tmp_path)
    client = await teacher_client(server)
    try:
        await client.get(f"/teacher?key={KEY}")
        page = await client.get("/teacher")
        text = await page.text()
        assert "http-equiv=refresh" not in text and "setInterval(refresh" in text
        nonce = re.search(r'<script nonce="([^"]+)">', text)[1]
        policy = page.headers["Content-Security-Policy"]
        assert f"script-src 'nonce-{nonce}'" in policy and "default-src 'none'" in policy and "connect-src 'self'" in policy
        assert not re.search(r"\b(src|href)=", text) and "http://" not in text and "https://" not in text
        assert KEY not in text
        labs = await (await client.get("/teacher/labs?page=1")).json()
        assert labs["labs"] == [] and "0 connected" in labs["line"]
        answered = await client.post("/teacher", data={"cmd": "pause"}, headers={"Accept": "application/json"})
        assert (await answered.json()) == {"answer": "No lab is connected: there is no one to send."}
        bad = await client.post("/teacher", data={"cmd": "explode"}, headers={"Accept": "application/json"})
        assert bad.status == 400
    finally:
        await client.close()


def test_the_answers_say_what_the_labs_did():
    from ael_tui.serve.server import class_answer
    from ael_tui.serve.teacher import card_cell

    moved = [{"done": True, "at": 3}] * 40
    assert class_answer("card", 3, moved) == "40 labs moved to tour card 3."
    assert class_answer("card", 3, [{"done": True}]) == "1 lab moved to tour card 3."
    some = [{"done": True}, {"done": False, "why": "start screen"}, None]
    assert class_answer("episode", 200, some) == \
        "1 of 3 labs moved to episode 200; start screen: 1; 1 lab still on the way (the table shows where)."
    paused = [{"was_running": True}] * 12 + [{"was_running": False}] * 28
    assert class_answer("pause", 0, paused).startswith("12 paused (28 were not running)")
    assert class_answer("resume", 0, [{"restarted": True}, {"restarted": False}]).startswith(
        "2 labs resumed, 1 of them running again")
    assert card_cell({"card": 3, "card_open": False}) == "3 (closed)"
    assert card_cell({"card": 3, "card_open": True}) == "3 (open)" and card_cell({"card": 0}) == "-"
