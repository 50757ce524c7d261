"""Issue: trust, round four, finding 5, in the lab: a stream's text, labels, regimes and
column names (and the policies and reflections built from them) reached the terminal with
their escape sequences whole: the episode log, the memory table and entry, the status
line, the charts, the results, the inspector, the approval dialog. Every panel and dialog
shows them through engine/shown_text.py; what the screen holds is checked, not the code."""

from __future__ import annotations

import html
import re
from pathlib import Path

from ael_tui.widgets.opening import NewSession, build_session
from ael_tui.lab.episode_log import EpisodeLog
from ael_tui.lab.lab_screen import LabScreen
from scenarios.stream.demo import write_demo
from tests.unit.test_shown_text import CLEAR, OSC52, TITLE, obeyed
from tests.tui_helpers import frozen_lab, make_app, settle  # noqa: F401

SIZE = (160, 50)
META = "source" + TITLE  # the column that tells the label in the last regime: the reflector proposes on it
REGIME = "ph\u202ease"   # a bidi override in a column name (the lab never shows it: no harm in trying)


def hostile_demo(folder: Path) -> dict:
    """The demo stream (its reflector proposes a policy on `source`) with an escape in a
    label, a column name, a meta value, a regime and the regime column's name."""
    path = write_demo(folder / "hostile.csv", 1)
    head, *rows = path.read_text(encoding="utf-8").splitlines()
    head = head.replace("source", META).replace("phase", REGIME)
    rows = [r.replace("billing", "bill" + OSC52).replace("src01", "src\x9b01") + (CLEAR if r.endswith("R3") else "")
            for r in rows]  # the last regime's name clears the screen
    path.write_text("\n".join([head, *rows]) + "\n", encoding="utf-8")
    return {"data": str(path), "text": "text", "label": "label", "meta": [META, "region"], "regime": REGIME}


def on_screen(app) -> str:
    """Every text the terminal is sent for the current screen (its screenshot's text runs)."""
    return "\n".join(html.unescape(t) for t in re.findall(r">([^<]*)</text>", app.export_screenshot()))


async def test_every_panel_and_dialog_shows_a_hostile_streams_escapes(tmp_path):
    session = build_session(NewSession("stream", 1, "ts+reflection", "manual", options=hostile_demo(tmp_path)))
    app = make_app(session)
    seen: dict[str, list[str]] = {}
    shown = []
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("r")  # to the first reflection that proposes: the approval dialog
        await settle(pilot, 4)
        seen["approval"] = obeyed(text := on_screen(app))
        shown.append(text)
        assert type(app.screen).__name__ == "ApprovalScreen"
        await pilot.press("y")
        await settle(pilot, 4)
        while not isinstance(app.screen, LabScreen):  # a second proposal of the same reflection
            await pilot.press("y")
            await settle(pilot, 4)
        for page in range(4):
            seen[f"page {page}"] = obeyed(text := on_screen(app))
            shown.append(text)
            await pilot.press("v")
            await settle(pilot)
        for key in ("f", "R", "a"):
            await pilot.press(key)
            await settle(pilot)
            seen[key] = obeyed(on_screen(app))
            await pilot.press("escape")
            await settle(pilot)
        app.screen.query_one(EpisodeLog).focus()
        await pilot.press("enter")  # the inspector, with the explanation
        await settle(pilot, 4)
        seen["inspector"] = obeyed(text := on_screen(app))
        shown.append(text)
    assert {where: bad for where, bad in seen.items() if bad} == {}
    everything = "\n".join(shown)
    assert "bill␛]52;" in everything and "source␛]0;PWNED␇" in everything  # shown, where it was


async def test_the_start_screens_preview_shows_a_files_escapes(tmp_path):
    from textual.widgets import Static

    from tests.lab.test_stream_lab import choose_stream

    options = hostile_demo(tmp_path)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await choose_stream(app, pilot, options["data"], text="text", label="label")
        preview = str(app.screen.query_one("#data-preview", Static).render())
        assert "700 rows" in preview and "source␛]0;PWNED␇" in preview
        assert obeyed(preview) == [] and obeyed(on_screen(app)) == []


async def test_the_compare_view_shows_them_too(tmp_path):
    from ael_tui.compare.compare_screen import CompareScreen
    from ael_tui.compare.lockstep import CompareHost, build_compare
    from ael_tui.config import LabSettings

    config = build_session(NewSession("stream", 1, "ts+reflection", "manual", options=hostile_demo(tmp_path))).config
    host = CompareHost(build_compare(config, ["ts", "ts+reflection"]), LabSettings(delay=0))
    assert host.begin("phase") is None
    host.run("phase")  # to the end: the proposal on the escaped column approved, the last regime begun
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        app.push_screen(CompareScreen(host))
        await settle(pilot)
        text = on_screen(app)
    assert "source␛]0;PWNED␇" in text and obeyed(text) == []
