"""Time travel in the lab (issue 31 item 4), driven by keys as a person would: go back to
an episode and step on to the same run, undo the last decision, decide otherwise and
compare the branch with the run it came from; saved and resumed exactly.

One support run (seed 42, manual approvals) is made once per module: run to its first
proposals at episode 920 (#1 an insight, #2 the arm route_aware), both approved by a
person, then on to 1000. Each test opens a copy of it, as a save is loaded.
"""

from __future__ import annotations

import json
import pickle

import pytest

import scenarios
from ael_tui.decisions.approval import ApprovalScreen
from ael_tui.widgets.dialogs import PromptScreen
from ael_tui.widgets.opening import NewSession, build_session
from ael_tui.lab.branch_compare import BranchCompareScreen
from ael_tui.lab.episode_log import EpisodeLog
from ael_tui.lab.lab_screen import LabScreen
from ael_tui.lab.progress_chart import ProgressChart
from ael_tui.lab.time_travel import divergence
from ael_tui.lab.travel_chart import episode_at
from ael_tui.widgets.readouts import posterior_rows, progress_data
from engine.store.persistence import load_session, save_session
from engine.session import Session
from tests.tui_helpers import frozen_lab, make_app, notifications, settle  # noqa: F401

SIZE = (160, 48)


def comparable(d: dict) -> dict:
    """A save's document without wall-clock times and the LLM ledger."""
    d = json.loads(json.dumps(d))
    for a in d["queue"]["audit"]:
        a.pop("at")
    for r in d["queue"]["rules"]:
        r.pop("at"), r.pop("revoked_at")
    d.pop("usage", None)
    return d


@pytest.fixture(scope="module")
def support_run() -> dict:
    s = build_session(NewSession("support", 42, "ts+reflection", "manual"))
    s.run()
    assert s.t == 920 and [(p.id, p.kind) for p in s.queue.pending] == [(1, "insight"), (2, "arm")]
    for p in s.queue.pending:
        s.decide(p.id, "approve", who="human")
    s.run(until=1000)
    assert s.t == 1000
    return pickle.loads(pickle.dumps(s.to_dict()))


def opened(doc: dict) -> Session:
    return Session.from_dict(pickle.loads(pickle.dumps(doc)), scenarios.make_scenario)


async def until(pilot, ready, what: str, tries: int = 200) -> None:
    """Let the app work until `ready()` (workers finished, messages handled each round)."""
    for _ in range(tries):
        if ready():
            return
        await settle(pilot, 1)
    raise AssertionError(f"never: {what}")


async def go_back(pilot, episode: int) -> None:
    await pilot.press("b")
    await until(pilot, lambda: isinstance(pilot.app.screen, PromptScreen), "the episode prompt")
    await pilot.press("ctrl+a", "ctrl+k", *str(episode), "enter")
    await until(pilot, lambda: isinstance(pilot.app.screen, LabScreen), "back in the lab")


async def decide(pilot, *keys: str) -> None:
    """The approval dialog open: y approves, n rejects (no reason)."""
    for key in keys:
        await until(pilot, lambda: isinstance(pilot.app.screen, ApprovalScreen), "the approval dialog")
        await pilot.press(key)
        if key == "n":
            await until(pilot, lambda: isinstance(pilot.app.screen, PromptScreen), "the reason prompt")
            await pilot.press("enter")
        await settle(pilot)


# ------------------------------------------------------------------ rewind
async def test_go_back_to_300_shows_it_and_stepping_on_gives_the_same_run(support_run):
    app = make_app(opened(support_run))
    async with app.run_test(size=SIZE) as pilot:
        lab = app.lab
        s = lab.host.session
        await go_back(pilot, 300)
        assert s.t == 300 and s.history == support_run["history"][:300]
        view = lab.view
        assert view.status.t == 300 and view.status.pending == 0
        fresh = build_session(NewSession("support", 42, "ts+reflection", "manual"))
        fresh.run(until=300)  # every panel shows the run as it was at 300
        assert view.arms == posterior_rows(fresh) and view.memory_counts == fresh.memory.counts()
        assert view.progress.y.tolist() == progress_data(fresh).y.tolist()
        assert view.history == support_run["history"][:300]
        assert lab.query_one(EpisodeLog).row_count == 300
        assert (view.travel.t, view.travel.reach) == (300, 1000)
        assert view.travel.ghost_x is not None and len(view.travel.ghost_x) == 1000  # the run ahead, gray
        chart = lab.query_one(ProgressChart).chart
        assert ("now 300 of 1000", "yellow") in chart.legend and ("run ahead", "grey42") in chart.legend
        assert (919, 0.875, "✓", "grey42") in chart.marks  # the decisions ahead, as they were made
        # r runs to the next decision: the same proposals at 920, waiting for a person again
        await pilot.press("r")
        await until(pilot, lambda: isinstance(app.screen, ApprovalScreen), "the proposals at 920")
        assert s.t == 920 and [p.id for p in s.queue.pending] == [1, 2]
        note = str(app.screen.query_one("#approval-note").render())  # how the run ahead decided it (issue 41)
        assert "On the run ahead this proposal was approved by human after episode 919" in note
        await decide(pilot, "y", "y")  # as the person did: the run that was
        assert not s.queue.pending
        await go_back(pilot, 1000)  # forward, along the run ahead
        assert comparable(s.to_dict()) == comparable(support_run)
        assert lab.view.travel.reach == 1000 and lab.query_one(EpisodeLog).row_count == 1000


async def test_w_steps_on_along_the_run_ahead_to_the_same_run():
    """Approvals by a rule (inside the steps): w after w from episode 40 gives the run there was."""
    s = build_session(NewSession("synthetic", 42, "ts+reflection", "auto"))
    s.run(until=104)  # eight slow windows of 13
    full = comparable(s.to_dict())
    assert any(a["decision"] == "approve" for a in full["queue"]["audit"])
    app = make_app(s)
    async with app.run_test(size=SIZE) as pilot:
        await go_back(pilot, 40)
        assert s.t == 40 and app.lab.view.travel.reach == 104
        while s.t < 104:
            t = s.t
            await pilot.press("w")
            await until(pilot, lambda: s.t > t and not app.lab.host.running, "a window")
        assert comparable(s.to_dict()) == full


async def test_a_click_on_the_progress_chart_goes_back_there(support_run):
    app = make_app(opened(support_run))
    async with app.run_test(size=SIZE) as pilot:
        chart = app.lab.query_one(ProgressChart)
        await until(pilot, lambda: chart.chart is not None and chart.chart.series, "the progress chart")
        column = chart.content_size.width // 3
        episode = episode_at(chart.chart, column, chart.content_size.width)
        assert episode is not None and 0 < episode < 1000
        left, top = chart.content_region.x - chart.region.x, chart.content_region.y - chart.region.y
        await pilot.click(ProgressChart, offset=(left + column, top + chart.content_size.height // 2))
        await until(pilot, lambda: app.lab.host.session.t == episode, f"back at {episode}")
        assert app.lab.host.session.history == support_run["history"][:episode]


async def test_going_back_says_why_not_for_a_bad_episode_and_loses_nothing(support_run):
    app = make_app(opened(support_run))
    async with app.run_test(size=SIZE) as pilot:
        await go_back(pilot, 1500)
        assert app.lab.host.session.t == 1000
        assert any("beyond this run" in m for m in notifications(app))


# -------------------------------------------------------------- branch
async def test_rewind_to_300_step_to_920_reject_the_arm_and_compare_both_branches(support_run, tmp_path):
    """The issue's done-when, in the lab: back to 300, r to 920, the arm rejected there."""
    app = make_app(opened(support_run))
    async with app.run_test(size=SIZE) as pilot:
        s = app.lab.host.session
        await go_back(pilot, 300)
        await pilot.press("r")
        await until(pilot, lambda: isinstance(app.screen, ApprovalScreen), "the proposals at 920")
        assert s.t == 920
        await decide(pilot, "y", "n")  # the insight as before, the arm route_aware rejected
        assert [(a.proposal_id, a.decision) for a in s.queue.audit] == [(1, "approve"), (2, "reject")]
        await pilot.press("w")
        await until(pilot, lambda: s.t > 920 and not app.lab.host.running, "a window of the branch")
        assert "route_aware" not in s.pool and s.history[:920] == support_run["history"][:920]
        assert app.lab.view.travel.ghost_label == "original"
        assert sorted(app.lab.view.travel.decisions) == [(919, "approve", False), (919, "approve", True),
                                                         (919, "reject", False)]  # the original's approval of #2
        await pilot.press("B")
        await until(pilot, lambda: isinstance(app.screen, BranchCompareScreen), "the compare view")
        screen = app.screen
        assert screen.host.names == ["original", "branch"]
        original, branch = screen.host.sessions["original"], screen.host.sessions["branch"]
        assert original.t == 1000 and "route_aware" in original.pool and "route_aware" not in branch.pool
        assert screen.parted.decision == "#2 rejected (the original approved it)" and screen.parted.decided_at == 919
        assert screen.parted.first_episode is None or screen.parted.first_episode >= 920
        assert any("the branch parts: #2 rejected" in e.text for e in screen.host.timeline)
        status = str(screen.query_one("#compare-status").render())
        assert "the branch parts: #2 rejected (the original approved it) after episode 919" in " ".join(status.split())
        assert "approvals automatic" not in status
        await pilot.press("space")  # both are frozen: a run key says so
        await settle(pilot)
        assert original.t == 1000 and any("frozen" in m for m in notifications(app))
        await pilot.press("c")
        await until(pilot, lambda: isinstance(app.screen, LabScreen), "back in the lab")
        app.lab.host.save(tmp_path / "branch.json")
    # the save holds the original too: opened again, B compares the same two runs
    again = make_app(load_session(tmp_path / "branch.json", scenarios.make_scenario))
    async with again.run_test(size=SIZE) as pilot:
        assert again.lab.view.travel.ghost_label == "original"
        await pilot.press("B")
        await until(pilot, lambda: isinstance(again.screen, BranchCompareScreen), "the compare view, reopened")
        assert again.screen.parted.decision == "#2 rejected (the original approved it)"


def test_divergence_finds_the_decision_and_the_first_episode_played_otherwise(support_run):
    b = opened(support_run)
    b.branch(1000, {2: "reject"})
    d = divergence(support_run, b.to_dict())
    assert d.decision == "#2 rejected (the original approved it)" and d.decided_at == 919
    first = next(i for i in range(1000) if b.history[i] != support_run["history"][i])
    assert d.first_episode == first and first >= 920
    assert divergence(support_run, support_run).decision is None


# ---------------------------------------------------------------- undo
async def test_z_undoes_the_last_decision_the_audit_says_it_and_a_save_resumes_exactly(support_run, tmp_path):
    app = make_app(opened(support_run))
    async with app.run_test(size=SIZE) as pilot:
        s = app.lab.host.session
        await pilot.press("z")
        await until(pilot, lambda: isinstance(app.screen, ApprovalScreen), "#2 waiting again")
        assert s.t == 920 and [p.id for p in s.queue.pending] == [2]
        assert [(a.proposal_id, a.decision) for a in s.queue.audit] == [(1, "approve")]
        await decide(pilot, "n")
        last = s.queue.audit[-1]
        assert (last.proposal_id, last.decision) == (2, "reject")
        assert "after an undo of its approved by human after episode 919" in last.reason
        app.lab.host.save(tmp_path / "undone.json")
        loaded = load_session(tmp_path / "undone.json", scenarios.make_scenario)
        assert comparable(loaded.to_dict()) == comparable(s.to_dict())
        s.run(until=1000)
        loaded.run(until=1000)
        assert comparable(loaded.to_dict()) == comparable(s.to_dict())


async def test_an_undone_rule_decision_waits_for_the_person_when_stepped_to_again():
    """Auto mode: z undoes the rule's approval of route_aware, n rejects it; back at 300, r stops
    at 920 with the dialog open (the person decided there, not the rule), and n again is the run."""
    s = build_session(NewSession("support", 42, "ts+reflection", "auto"))
    s.run(until=960)
    app = make_app(s)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("z")
        await decide(pilot, "n")
        assert [(a.proposal_id, a.decision, a.who) for a in s.queue.audit] == [
            (1, "approve", "rule:auto-approve"), (2, "reject", "human")]
        s.run(until=960)
        full = comparable(s.to_dict())
        await go_back(pilot, 300)
        await pilot.press("r")
        await until(pilot, lambda: isinstance(app.screen, ApprovalScreen), "#2 waiting for the person")
        assert s.t == 920 and [p.id for p in s.queue.pending] == [2]
        await decide(pilot, "n")
        await go_back(pilot, 960)  # forward along the run: its decisions as they were made
        assert comparable(s.to_dict()) == full


async def test_undo_with_nothing_decided_says_so():
    app = make_app(build_session(NewSession("synthetic", 42, "ts+reflection", "manual")))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("z")
        await settle(pilot)
        assert app.lab.host.session.t == 0
        assert any("No decision to undo" in m for m in notifications(app))


# ----------------------------------------------------------- save, load
async def test_a_save_after_going_back_resumes_exactly(support_run, tmp_path):
    app = make_app(opened(support_run))
    async with app.run_test(size=SIZE) as pilot:
        s = app.lab.host.session
        await go_back(pilot, 300)
        path = tmp_path / "back.json"
        save_session(s, path)
        loaded = load_session(path, scenarios.make_scenario)
        assert loaded.t == 300 and comparable(loaded.to_dict()) == comparable(s.to_dict())
        assert loaded.timeline.reach(loaded) == 1000 and loaded.timeline.original == s.timeline.original  # kept
        loaded.run()  # to the proposals at 920, as the original
        assert loaded.t == 920 and loaded.history == support_run["history"][:920]
