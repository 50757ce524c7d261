"""The episode inspector in the lab (ael_tui/lab/records.py EpisodeScreen): the explanation
made in a worker, the other policies' retrievals side by side at every size, and the log's
filter searching the episodes' input."""

from __future__ import annotations

import threading

import pytest
from textual.widgets import Input

from ael_tui.lab.records import EpisodeScreen
from tests.lab.test_tui_lab import support, window_with_the_log_focused
from tests.tui_helpers import make_app, settle


def why_lines(app) -> list[str]:
    return str(app.screen.query_one("#episode-why").render()).splitlines()


@pytest.mark.parametrize("size", [(160, 48), (100, 30), (80, 24)])
async def test_enter_shows_each_policys_retrievals_side_by_side_within_the_dialog(size):
    app = make_app(support(approval="auto"))
    async with app.run_test(size=size) as pilot:
        await window_with_the_log_focused(app, pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, EpisodeScreen) and app.screen.report is not None
        report = app.screen.report
        lines = why_lines(app)
        text = "\n".join(lines)
        first = report["retrievals"][0]
        assert "Input, as the agent saw it" in text and "What each policy would have retrieved" in text
        heads = [line for line in lines if line.strip().startswith(f"{first['policy']} (played)")]
        assert heads, "no column headed by the played policy"
        others = first["other_policies"]
        for name in others:  # every other policy has its column, in some band
            assert any(name in line for line in lines if "│" in line), name
        width = app.screen.query_one("#episode-body").scrollable_content_region.width
        assert all(len(line) <= width for line in lines if "│" in line)  # a band is never cut by the dialog
        if size[0] == 80:
            assert len(heads) > 1  # narrow: the columns stacked in bands, the played one heading each


async def test_the_inspector_says_explaining_until_the_explanation_is_ready():
    app = make_app(support(approval="auto"))
    release = threading.Event()
    report = {}

    def slow_explain():
        release.wait(timeout=30)  # the test lets it finish: no sleep, no race
        return report

    async with app.run_test(size=(160, 48)) as pilot:
        await window_with_the_log_focused(app, pilot)
        s = app.lab.host.session
        from engine.explain import explain
        report.update(explain(s, 12))
        app.push_screen(EpisodeScreen(s.history[12], explain=slow_explain))
        await pilot.pause()
        assert EpisodeScreen.WAITING in "\n".join(why_lines(app))
        release.set()
        await settle(pilot)
        assert "Episode 12" in "\n".join(why_lines(app)) and EpisodeScreen.WAITING not in "\n".join(why_lines(app))


async def test_a_session_that_cannot_be_explained_says_why_in_one_line():
    app = make_app(support(approval="auto"))
    async with app.run_test(size=(160, 48)) as pilot:
        await window_with_the_log_focused(app, pilot)
        from engine.errors import AELError

        def refused():
            raise AELError("this session is played by a model")

        app.push_screen(EpisodeScreen(app.lab.host.session.history[3], explain=refused))
        await settle(pilot)
        assert "No explanation: this session is played by a model" in "\n".join(why_lines(app))


async def test_the_log_filter_finds_words_of_the_input():
    import scenarios

    tickets = scenarios.scenario_class("support").export_stream(42)
    app = make_app(support(approval="auto"))
    async with app.run_test(size=(160, 48)) as pilot:
        log = await window_with_the_log_focused(app, pilot)
        endpoint = tickets[5]["endpoint"]
        want = [t for t in range(40) if tickets[t]["endpoint"] == endpoint]
        await pilot.press("slash")
        await pilot.pause()
        app.screen.query_one(Input).value = f"text:{endpoint}"
        await pilot.press("enter")
        await settle(pilot)
        assert [r["episode"] for r in log.rows] == want and len(want) < 40
