"""Pictures of the lab at each size it is designed for (issue 29): 80×24, 100×30,
120×40, 160×48 and a 1400×900 browser (157×36), compared with the accepted ones in
__snapshots__/. The region checks that say what must hold at each size (footer keys,
dialog buttons, status line) are in test_tui_sizes.py; these catch everything else.
Update with `pytest tests/lab/test_tui_snapshot_sizes.py --snapshot-update` after checking
the diff."""

from __future__ import annotations

import pytest

from ael_tui.widgets.opening import NewSession, build_session
from tests.lab.test_tui_snapshots import settled
from tests.tui_helpers import frozen_lab, make_app  # noqa: F401

SIZES = [(80, 24), (100, 30), (120, 40), (160, 48), (157, 36)]
IDS = [f"{w}x{h}" for w, h in SIZES]


def _support_at_the_first_proposal():
    s = build_session(NewSession("support", 42, "ts+reflection", "manual"))
    s.run()  # stops at 920: an insight and a new arm pending
    return s


@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_lab_with_a_decision_pending(snap_compare, size):
    """The lab as the decision waits: status line (wrapped where narrow), panels, footer."""
    assert snap_compare(make_app(_support_at_the_first_proposal()), terminal_size=size, run_before=settled)


@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_decision_dialog(snap_compare, size):
    """The decision dialog over the lab: every button whole (in rows where narrow)."""
    async def open_dialog(pilot):
        await settled(pilot)
        await pilot.press("d")
        await pilot.app.workers.wait_for_complete()  # the preview's replay, filled in
        await pilot.pause()
        await pilot.pause()

    assert snap_compare(make_app(_support_at_the_first_proposal()), terminal_size=size, run_before=open_dialog)


@pytest.mark.parametrize("size", [(80, 24), (157, 36)], ids=["80x24", "157x36"])
def test_start_screen(snap_compare, monkeypatch, size):
    monkeypatch.setattr("ael_tui.files.start_screen.scenario_availability",
                        lambda: {"synthetic": "", "support": "", "portfolio": ""})
    assert snap_compare(make_app(), terminal_size=size, run_before=settled)
