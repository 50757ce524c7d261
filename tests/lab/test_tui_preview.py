"""The decision dialog's preview (issue 31 item 3 in the lab): the dialog opens at once
saying it is replaying the window, fills in the engine's fixed and broken episodes when the
worker is done, and Enter on one opens it in the inspector.

The worker is held on an event the test sets, so "at once" and "when done" are conditions,
not timings.
"""

from __future__ import annotations

import json
import threading

from textual.widgets import OptionList, Static

import ael_tui.lab.lab_decisions as lab_decisions
from ael_tui.decisions.approval import ApprovalScreen
from ael_tui.decisions.preview_panel import PreviewPanel
from ael_tui.widgets.opening import NewSession, build_session
from ael_tui.lab.lab_screen import LabScreen
from ael_tui.lab.records import EpisodeScreen
from tests.tui_helpers import frozen_lab, make_app, settle  # noqa: F401


def at_the_arm():
    """Support seed 42 paused at route_aware (proposal #2), its insight (#1) approved."""
    s = build_session(NewSession("support", 42, "ts+reflection", "manual"))
    s.run()
    s.decide(1, "approve")
    assert [p.kind for p in s.queue.pending] == ["arm"]
    return s


class Held(threading.Event):
    """Set by the test to let the lab's preview replay; `stopped` says, for each replay, whether
    it was already told to stop when it was let go."""

    stopped: list[bool]
    sessions: list  # the session each replay was given


def held(monkeypatch) -> Held:
    go = Held()
    go.stopped, go.sessions = [], []
    real = lab_decisions.preview

    def waiting(session, pid, should_stop):
        assert go.wait(30), "the test never let the preview run"
        go.stopped.append(should_stop())
        go.sessions.append(session)
        return real(session, pid, should_stop)

    monkeypatch.setattr(lab_decisions, "preview", waiting)
    return go


def summary(app) -> str:
    return str(app.screen.query_one("#preview-summary", Static).render())


def headline(app) -> Static:
    return app.screen.query_one("#approval-headline", Static)


async def test_the_dialog_opens_at_once_then_lists_the_fixed_and_broken_tickets_and_opens_one(monkeypatch):
    go = held(monkeypatch)
    app = make_app(at_the_arm())
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("d")
        await pilot.pause()
        assert isinstance(app.screen, ApprovalScreen)
        assert summary(app).startswith("Replaying the window… (episodes 880–919")
        assert str(headline(app).render()).startswith("Replaying the window with and without it")
        listing = app.screen.query_one("#preview-list", OptionList)
        assert listing.option_count == 0 and not listing.display
        go.set()
        await settle(pilot)
        assert go.stopped == [False]
        live = app.lab.host.session  # the replay ran on a copy: the live session never moved
        assert go.sessions[0] is not live and live.t == 920 and len(live.history) == 920
        ids = [listing.get_option_at_index(i).id for i in range(listing.option_count)]
        assert ids == ["904", "905", "908", "910", "914", "915", "918", "919", "888", "899"]
        text = summary(app)
        assert "fixed 8: #904 #905 #908 #910 #914 #915 #918 #919" in text and "broken 2: #888 #899" in text
        assert listing.display and listing.region.width <= 80
        # the finding in one line at the top, in view at 80x24 before any scrolling (the arm's JSON is long)
        line = headline(app)
        assert " ".join(str(line.render()).split()) == \
            "Replayed: route_aware fixes 8 of the window's 22 failures and breaks 2 · the episodes below"
        body = app.screen.query_one("#approval-body")
        assert body.scroll_y == 0 and line.region.y < body.region.bottom and line.region.height >= 1
        room = listing.scrollable_content_region.width
        assert all(listing.get_option_at_index(i).prompt.cell_len <= room for i in range(listing.option_count))
        listing.focus()
        await pilot.press("down", "down", "enter")  # the third: #908
        await pilot.pause()
        assert isinstance(app.screen, EpisodeScreen) and app.screen.record["episode"] == 908
        why = str(app.screen.query_one("#episode-why", Static).render())
        assert why.startswith("Why\nEpisode 908 ·") and "Input, as the agent saw it" in why
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, ApprovalScreen)  # back to the decision, still pending
        await pilot.press("y")
        await settle(pilot)
        assert isinstance(app.screen, LabScreen) and app.lab.host.session.queue.get(2).status == "approved"


async def test_closing_the_dialog_during_the_replay_stops_it_and_the_session_is_as_it_was(monkeypatch):
    go = held(monkeypatch)
    s = at_the_arm()
    before = json.dumps(s.to_dict(), sort_keys=True, default=str)
    app = make_app(s)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("d")
        await pilot.pause()
        assert isinstance(app.screen, ApprovalScreen)
        await pilot.press("escape")  # later: the dialog closes, its worker is cancelled
        await pilot.pause()
        go.set()
        await settle(pilot)
        assert isinstance(app.screen, LabScreen) and not app.screen.query(PreviewPanel)
        # it replayed nothing (stopped before it began, or told to stop when let go): the lab has its lock at once
        assert go.stopped in ([], [True])
        assert json.dumps(s.to_dict(), sort_keys=True, default=str) == before
        assert s.queue.get(2).status == "pending"


async def test_a_code_proposal_says_why_it_is_not_replayed(monkeypatch):
    s = at_the_arm()
    s.queue.get(2).code = True  # as a model-written policy would be
    app = make_app(s)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("d")
        await settle(pilot)
        assert isinstance(app.screen, ApprovalScreen)
        assert summary(app).startswith("No preview: proposal #2 is Python code")
        assert str(headline(app).render()).startswith("No replay: proposal #2 is Python code")
