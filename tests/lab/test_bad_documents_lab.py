"""The bad-documents corpus through the lab itself: each bad save is a notification
naming the file and the field, and the session on screen is left as it was."""

from __future__ import annotations

from ael_tui.widgets.dialogs import ConfirmScreen
from ael_tui.lab.lab_screen import LabScreen
from tests.unit.test_bad_documents import CORPUS, EXPECTED, cases
from tests.tui_helpers import frozen_lab, make_app, notifications, settle, synthetic  # noqa: F401

SIZE = (160, 48)


async def test_every_bad_save_in_the_corpus_is_a_notification_and_the_session_stays():
    app = make_app(synthetic(approval="auto"))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("w")
        await settle(pilot)
        lab, session = app.screen, app.screen.host.session
        state = session.to_dict()
        for case in cases("sessions"):
            app.clear_notifications()  # at most three stay on screen: start each case from none
            await settle(pilot)
            app.open_saved_session(CORPUS / case)
            await settle(pilot)
            if isinstance(app.screen, ConfirmScreen):  # the open session has unsaved episodes: asked first
                await pilot.press("y")
                await settle(pilot)
            new = notifications(app)
            assert any(EXPECTED[case] in m and "\n" not in m for m in new), (case, new)
            assert isinstance(app.screen, LabScreen) and app.screen is lab and lab.host.session is session
        assert session.to_dict() == state
