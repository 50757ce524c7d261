"""In the lab: HyperAgent's model-written allocation code is decided in the approval dialog
(its source and SHA-256 shown), and a loaded session's approved code in the code review."""

from __future__ import annotations

from textual.widgets import Static

from ael_tui.decisions.approval import ApprovalScreen
from ael_tui.decisions.code_review import CodeReviewScreen
from ael_tui.widgets.dialogs import PromptScreen
from ael_tui.widgets.opening import open_session
from engine.sandbox.codepolicy import source_hash
from engine.store.persistence import save_session
from tests.fake_llm_server import ok
from tests.unit.test_hyperagent_code import GOOD, answer, server, session  # noqa: F401 - the fixture
from tests.tui_helpers import frozen_lab, make_app, settle  # noqa: F401 - the autouse fixture

SIZE = (160, 48)


async def run_to_code(pilot) -> ApprovalScreen:
    await pilot.press("r")
    await settle(pilot, rounds=4)
    screen = pilot.app.screen
    assert isinstance(screen, ApprovalScreen)
    text = str(screen.query_one("#approval-payload", Static).content.renderables[0])
    assert source_hash(GOOD) in text and "allocation code" in text
    assert screen.query_one("#approval-payload", Static).content.renderables[1].code == GOOD
    return screen


async def test_approving_the_models_allocation_code_in_the_lab_scores_it(server):  # noqa: F811
    server.script(answer(GOOD))
    app = make_app(session())
    async with app.run_test(size=SIZE) as pilot:
        await run_to_code(pilot)
        await pilot.press("y")
        await settle(pilot)
        s = app.lab.host.session
        gen = s.method.search.generations[0]
        assert gen.valid and gen.code == GOOD and s.method.search.best_code == GOOD
        assert s.queue.audit[-1].code_sha256 == source_hash(GOOD)


async def test_rejecting_the_models_allocation_code_in_the_lab_fails_its_generation(server):  # noqa: F811
    server.script(answer(GOOD))
    app = make_app(session())
    async with app.run_test(size=SIZE) as pilot:
        await run_to_code(pilot)
        await pilot.press("n")
        await pilot.pause()
        assert isinstance(app.screen, PromptScreen)
        await pilot.press(*"no")
        await pilot.press("enter")
        await settle(pilot)
        gen = app.lab.host.session.method.search.generations[0]
        assert not gen.valid and "rejected by human: no" in gen.failure
        assert app.lab.host.session.code_arms.worker is None   # rejected code never ran


async def test_a_loaded_sessions_allocation_code_is_reviewed_before_it_runs(server, tmp_path):  # noqa: F811
    server.script(answer(GOOD))
    s = session()
    s.run()
    s.decide(1, "approve")
    save_session(s, tmp_path / "s.json")
    app = make_app(open_session(tmp_path / "s.json"))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        review = app.screen
        assert isinstance(review, CodeReviewScreen)
        assert source_hash(GOOD) in str(review.query_one("#code-review-why", Static).content)
        assert review.query_one("#code-review-source", Static).content.code == GOOD
        await pilot.press("y")
        await settle(pilot)
        await pilot.press("n")   # the incumbent, same code: rejected, the parametric allocator plays it
        await settle(pilot)
        loaded = app.lab.host.session
        assert not loaded.code_arms.quarantined
        assert loaded.method.search.best_code == GOOD and loaded.method.search.incumbent_code == ""


# ------------------------------------------------------------------ planners
async def run_to_planner(pilot) -> ApprovalScreen:
    from tests.unit.test_planner_proposals import fail_three_times

    fail_three_times(pilot.app.lab.host.session)
    pilot.app.lab.redraw()  # changed outside a step, which would have posted Stepped
    await pilot.press("d")
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, ApprovalScreen) and screen.proposal.kind == "planner"
    assert "reversal" in str(screen.query_one("#approval-payload", Static).content)
    return screen


async def test_approving_a_new_planner_in_the_lab_adds_it():
    from tests.unit.test_planner_proposals import planners_session

    app = make_app(planners_session())
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await run_to_planner(pilot)
        await pilot.press("y")
        await settle(pilot)
        s = app.lab.host.session
        assert "reversal" in s.variants.get("planners").arms and s.queue.audit[-1].who == "human"


async def test_rejecting_a_new_planner_in_the_lab_leaves_the_planners_as_they_were():
    from tests.unit.test_planner_proposals import planners_session

    app = make_app(planners_session())
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await run_to_planner(pilot)
        await pilot.press("n")
        await pilot.pause()
        await pilot.press("enter")
        await settle(pilot)
        s = app.lab.host.session
        assert "reversal" not in s.variants.get("planners").arms and s.queue.audit[-1].decision == "reject"


async def test_a_model_written_planner_shows_its_source_and_hash_and_is_approved_in_the_lab(gemini):
    from tests.unit.test_planner_proposals import PLAN, fail_three_times, planners_session

    app = make_app(planners_session(llm={"reflector": "gemini"}))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        gemini.script(ok({"code": PLAN, "rationale": "fade the consensus"}))
        fail_three_times(app.lab.host.session)
        app.lab.redraw()  # changed outside a step, which would have posted Stepped
        await pilot.press("d")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ApprovalScreen) and screen.proposal.kind == "planner"
        payload = screen.query_one("#approval-payload", Static).content
        assert source_hash(PLAN) in str(payload.renderables[0]) and payload.renderables[1].code == PLAN
        await pilot.press("y")
        await settle(pilot)
        arms = app.lab.host.session.variants.get("planners").arms
        assert any(arm.code == PLAN for arm in arms.values())
