"""The cap on notifications (MAX_NOTIFICATIONS) expires the oldest through the public
`Notification.timeout` (ael_tui/compat.py): one capped while a dialog held it must stay
gone when the dialog closes, and the toasts on screen are the ones kept."""

from __future__ import annotations

from ael_tui.app import MAX_NOTIFICATIONS
from ael_tui.compat import Toast
from ael_tui.widgets.dialogs import ConfirmScreen
from tests.tui_helpers import make_app, notifications, settle, synthetic

SIZE = (160, 48)


async def test_notices_capped_under_a_dialog_do_not_come_back_when_it_closes():
    app = make_app(synthetic())
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await pilot.pause()
        app.clear_notifications()
        app.push_screen(ConfirmScreen("Stay?"))
        await pilot.pause()
        for i in range(MAX_NOTIFICATIONS + 2):
            app.notify(f"held {i}")
        await pilot.pause()
        kept = [f"held {i}" for i in range(2, MAX_NOTIFICATIONS + 2)]
        assert [n.message for n in app.waiting_notifications()] == kept
        app.pop_screen()
        await pilot.pause()
        await pilot.pause()
        assert notifications(app) == kept and app.waiting_notifications() == []
        toasts = list(app.screen.query(Toast))
        assert len(toasts) == MAX_NOTIFICATIONS


async def test_a_notification_held_by_a_dialog_waits_for_the_run_after_it_to_end():
    """Issue 41 item 5: the toasts a decision dialog held all came down over the panels the
    moment it closed, while the run it let go on was drawing them."""
    app = make_app(synthetic("auto"), delay=10.0)  # one episode, then a wait: the window runs until paused
    async with app.run_test(size=(160, 48)) as pilot:
        host = app.lab.host
        app.push_screen(ConfirmScreen("A dialog over the lab?"))
        await pilot.pause()
        app.notify("said while the dialog was open")
        await pilot.pause()
        app.lab.runs.start("window")
        await pilot.pause()
        app.pop_screen()
        await pilot.pause()
        assert host.running == "window"
        assert [n.message for n in app.waiting_notifications()] == ["said while the dialog was open"]
        host.pause()
        await settle(pilot)
        assert not app.waiting_notifications()  # the run's end: a quiet moment, and it shows
        assert "said while the dialog was open" in [n.message for n in app.notifications]
