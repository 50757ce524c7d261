"""A scenario registered with one line reaches the lab: the start screen offers it with
its options, and the compare view offers its selectors (tests/tiny_scenario)."""

from __future__ import annotations

import pytest
from textual.widgets import Input, Select, SelectionList

import scenarios
from ael_tui.compare.compare_screen import CompareScreen
from ael_tui.widgets.dialogs import CompareSetupScreen
from ael_tui.lab.lab_screen import LabScreen
from ael_tui.files.start_screen import StartScreen
from tests.tui_helpers import frozen_lab, make_app, settle  # noqa: F401

SIZE = (160, 48)


@pytest.fixture
def tiny():
    scenarios.register("tiny", "tests.tiny_scenario.spec")
    yield
    scenarios.unregister("tiny")


async def test_the_start_screen_offers_it_and_its_option(tiny):
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, StartScreen)
        choice = app.screen.query_one("#scenario", Select)
        assert ("tiny", "tiny") in [(str(p), v) for p, v in choice._options]
        choice.value = "tiny"
        await pilot.pause()
        length = app.screen.query_one("#opt-tiny-length", Input)
        assert length.display and not app.screen.query_one("#opt-portfolio-data", Select).display
        length.value = "20"
        app.screen.query_one("#approval", Select).value = "auto"
        await pilot.press("ctrl+n")
        await settle(pilot)
        assert isinstance(app.screen, LabScreen)
        s = app.screen.host.session
        assert (s.config.scenario, s.config.scenario_options, s.n_episodes) == ("tiny", {"length": 20}, 20)


async def test_the_compare_view_offers_its_selectors_and_runs_them(tiny):
    from ael_tui.widgets.opening import NewSession, build_session

    app = make_app(build_session(NewSession("tiny", 3, "ts", "auto")))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("c")
        await pilot.pause()
        assert isinstance(app.screen, CompareSetupScreen)
        offered = app.screen.query_one(SelectionList)
        assert [offered.get_option_at_index(i).value for i in range(offered.option_count)] == \
            ["ts", "rr", "fixed:heads", "oracle"]
        await pilot.press("c")  # the key that opened it starts it
        await settle(pilot)
        assert isinstance(app.screen, CompareScreen)
        await pilot.press("g")
        await settle(pilot)
        assert {s.t for s in app.screen.host.sessions.values()} == {40}
