"""The compare view: several selectors on one stream, stepped in lockstep, decisions automatic."""

from __future__ import annotations

from ael_tui.compare.lockstep import CompareHost, build_compare, default_selectors
from ael_tui.config import LabSettings
from ael_tui.compare.compare_screen import CompareScreen
from ael_tui.widgets.dialogs import CompareSetupScreen
from ael_tui.lab.lab_screen import LabScreen
from ael_tui.widgets.opening import NewSession, build_session
from ael_tui.compare.arm_bars import ArmBars, interval_bar
from ael_tui.compare.timeline import Timeline
from tests.tui_helpers import FakeClock, count_rebuilds, frozen_lab, make_app, settle, synthetic  # noqa: F401

SMALL = (100, 30)  # the size does not matter to these tests: the smallest supported one


def support_compare(until: int) -> CompareHost:
    config = build_session(NewSession("support", 42, "ts+reflection", "manual")).config
    sessions = build_compare(config, ["ts", "ts+reflection", "oracle"])
    for s in sessions.values():
        s.run(until=until)
    return CompareHost(sessions, LabSettings(delay=0))


async def open_compare(pilot) -> CompareScreen:
    await pilot.press("c")
    await pilot.pause()
    assert isinstance(pilot.app.screen, CompareSetupScreen)
    await pilot.press("c")
    await settle(pilot)
    assert isinstance(pilot.app.screen, CompareScreen)
    return pilot.app.screen


# ---------------------------------------------------------------- parts
def test_the_default_selectors_are_ts_ts_reflection_and_oracle():
    assert default_selectors(["rr", "ucb1", "egreedy", "ts", "ts+reflection", "oracle"]) == \
        ["ts", "ts+reflection", "oracle"]


def test_compare_sessions_share_the_stream_and_approve_automatically():
    config = synthetic().config
    sessions = build_compare(config, ["ts", "ts+reflection"])
    assert [s.config.selector for s in sessions.values()] == ["ts", "ts+reflection"]
    assert {s.config.approval for s in sessions.values()} == {"auto"}
    assert {s.config.seed for s in sessions.values()} == {config.seed}


def test_a_run_to_the_reflection_stops_every_selector_at_the_same_episode():
    host = CompareHost(build_compare(synthetic().config, ["ts", "ts+reflection"]), LabSettings(delay=0))
    assert host.begin("reflection") is None
    outcome = host.run("reflection")
    assert outcome.reason == "reflected"
    assert [s.t for s in host.sessions.values()] == [13, 13]
    assert [e.kind for e in host.timeline if e.selector == "ts+reflection"][:2] == ["reflection", "arm"]
    assert not [e for e in host.timeline if e.selector == "ts"]


def test_interval_bar_marks_the_interval_and_the_mean():
    assert interval_bar(0.2, 0.5, 0.8, 10) == "··───●───·"


# ------------------------------------------------------------ the view
async def test_stepping_advances_every_selector_in_lockstep():
    app = make_app(synthetic())
    async with app.run_test(size=SMALL) as pilot:
        screen = await open_compare(pilot)
        sessions = screen.host.sessions
        assert list(sessions) == ["ts", "ts+reflection", "oracle"]
        await pilot.press("space")
        await settle(pilot)
        assert [s.t for s in sessions.values()] == [1, 1, 1]
        await pilot.press("w")
        await settle(pilot)
        assert [s.t for s in sessions.values()] == [13, 13, 13]
        assert app.lab.host.session.t == 0  # the lab's own session did not move
        status = str(screen.query_one("#compare-status").render())
        assert "approvals automatic" in status and "13/208" in status
        assert all(b.border_subtitle for b in screen.query(ArmBars))


async def test_reflection_injects_under_ts_reflection_and_not_under_ts_on_support():
    app = make_app(synthetic())
    async with app.run_test(size=SMALL) as pilot:
        host = support_compare(until=900)
        app.push_screen(CompareScreen(host))
        await settle(pilot)
        await pilot.press("r")  # the support reflector proposes route_aware at episode 919
        await settle(pilot)
        ts, tsr = host.sessions["ts"], host.sessions["ts+reflection"]
        assert ts.t == tsr.t == host.sessions["oracle"].t == 920
        assert "route_aware" in tsr.selector.names() and [i["arm"] for i in tsr.injections] == ["route_aware"]
        assert "route_aware" not in ts.selector.names() and not ts.injections
        assert tsr.queue.audit[-1].who.startswith("rule:")  # approved automatically, and logged
        shown = " ".join(" ".join(line.text for line in app.screen.query_one(Timeline).lines).split())
        assert "new arm route_aware" in shown


async def test_pause_stops_a_lockstep_run():
    """That it stops, all selectors together; how fast (the 0.1 s target) is bench/tui.py's."""
    clock = FakeClock()
    app = make_app(synthetic(), delay=0.03, clock=clock)  # 208 lockstep rounds: over 6 s unpaused
    async with app.run_test(size=SMALL) as pilot:
        screen = await open_compare(pilot)
        host = screen.host
        await pilot.press("g")
        await clock.until_waiting()  # a round taken, the delay before the next one begun
        assert 0 < host.t < 208
        await pilot.press("p")
        await settle(pilot)
        stopped_at = host.t
        clock.advance(1.0)  # the time of 33 more rounds
        await settle(pilot)
        assert host.t == stopped_at < 208 and host.running is None
        assert {s.t for s in host.sessions.values()} == {stopped_at}


async def test_a_compare_run_gets_its_keys_in_the_footer_only_once_it_has_gone_on_for_a_moment():
    """As in the lab: a run over within RUN_KEYS_AFTER leaves the footer as it was (no
    rebuild, no flicker), a longer one shows pause, and its end puts the run keys back."""
    from ael_tui.widgets.run_loop import RUN_KEYS_AFTER

    def keys(app) -> set[str]:
        return {key.action for key in app.screen.query("FooterKey")}

    clock = FakeClock()
    app = make_app(synthetic(), clock=clock)
    async with app.run_test(size=SMALL) as pilot:
        screen = await open_compare(pilot)
        rebuilt = count_rebuilds(app)[1]
        idle = keys(app)
        assert "pause" not in idle
        await pilot.press("w")  # one slow window of three selectors: over before the clock moves
        await settle(pilot)
        clock.advance(RUN_KEYS_AFTER + 0.1)  # the run keys' timer: the run is over, nothing to show
        await settle(pilot)
        assert screen.host.t > 0 and not rebuilt and keys(app) == idle
        screen.host.settings.delay = 0.03  # the rest of the stream: seconds
        await pilot.press("g")
        await clock.until_waiting()
        clock.advance(RUN_KEYS_AFTER + 0.2)
        await pilot.pause()  # (not settle: the run goes on until paused)
        await pilot.pause()
        assert screen.host.running and "pause" in keys(app)
        await pilot.press("p")
        await settle(pilot)
        assert screen.host.running is None and keys(app) == idle


async def test_c_goes_back_to_the_lab_and_again_to_the_same_comparison():
    app = make_app(synthetic())
    async with app.run_test(size=SMALL) as pilot:
        screen = await open_compare(pilot)
        await pilot.press("space")
        await settle(pilot)
        await pilot.press("c")
        await pilot.pause()
        assert isinstance(app.screen, LabScreen)
        await pilot.press("c")
        await pilot.pause()
        await pilot.press("c")  # the same selectors are ticked
        await settle(pilot)
        assert app.screen is not screen and app.screen.host is screen.host and screen.host.t == 1


async def test_the_setup_refuses_fewer_than_two_selectors():
    app = make_app(synthetic())
    async with app.run_test(size=SMALL) as pilot:
        await pilot.press("c")
        await pilot.pause()
        dialog = app.screen
        dialog.query_one("SelectionList").deselect_all()
        await pilot.press("c")
        await pilot.pause()
        assert app.screen is dialog
        assert "between 2 and" in str(dialog.query_one("#compare-setup-error").render())
