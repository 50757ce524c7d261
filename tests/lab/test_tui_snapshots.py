"""Pictures of the lab at 160×48, compared with the accepted ones in __snapshots__/.

Deterministic by construction: time is frozen (tests.tui_helpers), the cursor
does not blink, every session is built and advanced before the app starts,
and workers are waited for before the picture. Update with
`pytest tests/lab/test_tui_snapshots.py --snapshot-update` after checking the diff.
"""

from __future__ import annotations

from ael_tui.widgets.opening import NewSession, build_session
from engine.store.persistence import save_session
from tests.tui_helpers import frozen_lab, make_app, synthetic  # noqa: F401

SIZE = (160, 48)


async def settled(pilot) -> None:
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()
    if pilot.app.lab is not None:
        pilot.app.lab.redraw(force=True)
    await pilot.pause()
    pilot.app.clear_notifications()
    await pilot.pause()


def test_start_screen(snap_compare, monkeypatch):
    # the list of scenarios follows the build; pin it so the picture does not
    monkeypatch.setattr("ael_tui.files.start_screen.scenario_availability",
                        lambda: {"synthetic": "", "support": "", "portfolio": ""})
    saved = synthetic(approval="auto")
    saved.run(until=40)
    save_session(saved, "saves/synthetic-s42-e40.json")
    assert snap_compare(make_app(), terminal_size=SIZE, run_before=settled)


def test_lab_synthetic_mid_run(snap_compare):
    s = synthetic()
    s.run()  # stops at the first proposal (episode 13)
    s.decide(s.queue.pending[0].id, "approve", reason="snapshot")
    s.run(until=90)
    assert snap_compare(make_app(s), terminal_size=SIZE, run_before=settled)


def test_approval_dialog(snap_compare):
    s = synthetic()
    s.run()

    async def open_dialog(pilot):
        await settled(pilot)
        await pilot.press("d")
        await pilot.app.workers.wait_for_complete()  # the preview's replay, filled in
        await pilot.pause()

    assert snap_compare(make_app(s), terminal_size=SIZE, run_before=open_dialog)


def test_lab_support_mid_run(snap_compare):
    s = build_session(NewSession("support", 42, "ts+reflection", "auto"))
    s.run(until=160)
    assert snap_compare(make_app(s), terminal_size=SIZE, run_before=settled)


def test_lab_portfolio_mid_run(snap_compare):
    s = build_session(NewSession("portfolio", 42, "ts+reflection", "auto", options={"data": "synthetic"}))
    s.run(until=min(60, s.n_episodes))
    assert snap_compare(make_app(s), terminal_size=SIZE, run_before=settled)


def test_compare_view_mid_run(snap_compare):
    """ts, ts+reflection and oracle in lockstep on the synthetic stream: reflection's new arm at 13."""
    from ael_tui.compare.lockstep import CompareHost, build_compare
    from ael_tui.config import LabSettings
    from ael_tui.compare.compare_screen import CompareScreen

    lab = synthetic(approval="auto")
    host = CompareHost(build_compare(lab.config, ["ts", "ts+reflection", "oracle"]), LabSettings(delay=0))
    while host.t < 120:
        host.step_all()

    async def open_compare(pilot):
        pilot.app.push_screen(CompareScreen(host))
        await settled(pilot)
        pilot.app.screen.redraw(force=True)
        await pilot.pause()

    assert snap_compare(make_app(lab), terminal_size=SIZE, run_before=open_compare)


def _support_after_the_new_arm():
    """Support past the injection at 920, so the table has a `+` arm, pulls and `added`."""
    s = build_session(NewSession("support", 42, "ts+reflection", "auto"))
    s.run(until=960)
    return s


def test_lab_support_at_100x30(snap_compare):
    """Issue 13 item 6: every posterior column visible at 100×30, the status line whole."""
    assert snap_compare(make_app(_support_after_the_new_arm()), terminal_size=(100, 30), run_before=settled)


def test_lab_support_at_80x24(snap_compare):
    assert snap_compare(make_app(_support_after_the_new_arm()), terminal_size=(80, 24), run_before=settled)
