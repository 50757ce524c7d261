"""The lab at every size it is designed for (80×24, 100×30, 120×40, 160×48 and a
1400×900 browser, about 157×36): what is drawn over what, dialogs' buttons, the
footer's keys, the status line and the tables' widths (issue 29)."""

from __future__ import annotations

from textual.geometry import Region
from textual.widgets import Button
from textual.widgets._toast import Toast

from ael_tui.decisions.approval import ApprovalScreen
from ael_tui.files.opening import NewSession, build_session
from ael_tui.lab.lab_screen import LabScreen
from tests.tui_helpers import frozen_lab, make_app, settle  # noqa: F401

SIZES = [(80, 24), (100, 30), (120, 40), (160, 48), (157, 36)]


def toast_regions(app) -> list[Region]:
    """Where the top screen draws a notification."""
    return [t.region for t in app.screen.query(Toast) if t.display and t.region.area]


def support(approval: str = "manual"):
    return build_session(NewSession("support", 42, "ts+reflection", approval))


def buttons_whole(screen, ids: list[str]) -> None:
    """Each button on screen, its whole label inside the dialog and the screen."""
    whole = Region(0, 0, *screen.app.size)
    box = screen.query_one(".dialog").region
    for bid in ids:
        button = screen.query_one(f"#{bid}", Button)
        region = button.region
        assert button.display and region.area, bid
        assert whole.contains_region(region) and box.contains_region(region), (bid, region, box)
        assert region.width >= len(str(button.label)), (bid, region, str(button.label))


async def test_at_80x24_the_second_decision_shows_five_buttons_and_no_notification_over_it():
    """Issue 29 item 1 and 2: `+ + +`, `r`, `y`: "Proposal #1 approved." sat on the next
    dialog's buttons, and `Later (esc)` was cut off the row."""
    app = make_app(support())
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await pilot.press("plus", "plus", "plus", "r")
        await settle(pilot, 3)
        assert isinstance(app.screen, ApprovalScreen) and app.screen.proposal.id == 1
        await pilot.press("y")
        await settle(pilot)
        await pilot.pause()
        assert isinstance(app.screen, ApprovalScreen) and app.screen.proposal.id == 2
        buttons_whole(app.screen, ["approve", "edit", "reject", "always", "later"])
        assert toast_regions(app) == []
        waiting = [n.message for n in app.waiting_notifications()]
        assert "Proposal #1 approved." in waiting
        await pilot.press("escape")  # later: back in the lab, what waited is shown
        await settle(pilot)
        await pilot.pause()
        assert isinstance(app.screen, LabScreen)
        await pilot.pause()
        shown = [t._notification.message for t in app.screen.query(Toast)]
        assert "Proposal #1 approved." in shown and app.waiting_notifications() == []
        footer = app.screen.query_one("Footer").region
        assert all(not r.overlaps(footer) for r in toast_regions(app))
