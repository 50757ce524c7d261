"""A proposal previewed before it is decided (engine/preview.py; issue 31 item 3).

Every world runs to a proposal in manual mode; its window is previewed. The preview must
agree with a direct replay (a fresh session of the same seed stepped to the episode, the
proposal put in by hand, the episode stepped once: no rewind, no checkpoint), with the
world's own counterfactual table where it has one, and with the reflection's "would have
fixed" figure; and it leaves the session exactly as it was.
"""

from __future__ import annotations

import json
from typing import Callable

import pytest

import scenarios
from engine.approvals import Proposal
from engine.errors import AELError
from engine.policies import PolicySpec
from engine.preview import preview
from engine.session import Session, SessionConfig
from scenarios.stream.demo import write_demo
from tests.news_corpus import write_corpus

WORLDS = ("support", "synthetic", "portfolio", "news", "stream")


@pytest.fixture(scope="module")
def builders(tmp_path_factory) -> dict[str, Callable[[], Session]]:
    """How to build each world's session afresh (the direct replay needs a second one)."""
    folder = tmp_path_factory.mktemp("preview")
    stream = {"data": str(write_demo(folder / "demo.csv", 1)), "text": "text", "label": "label",
              "meta": ["source", "region", "channel"], "regime": "phase"}
    settings = {
        "support": (42, {}, {}),
        "synthetic": (42, {}, {}),
        "portfolio": (42, {"data": "synthetic"}, {}),
        "news": (42, {"data": str(write_corpus(folder / "news"))}, {"threshold": 0.95}),  # the gate proposes at 24
        "stream": (1, stream, {}),
    }

    def builder(name: str) -> Callable[[], Session]:
        seed, options, reflector = settings[name]
        return lambda: Session(SessionConfig(name, seed, "ts+reflection", approval="manual",
                                             scenario_options=dict(options), reflector_options=dict(reflector)),
                               scenarios.make_scenario(name, seed, dict(options)))

    return {name: builder(name) for name in WORLDS}


def at_proposal(build: Callable[[], Session]) -> Session:
    s = build()
    s.run()
    assert s.queue.pending, f"{s.config.scenario}: no proposal in a manual run"
    return s


def saved(s: Session) -> str:
    return json.dumps(s.to_dict(), sort_keys=True, default=str)


def stepped_with(build: Callable[[], Session], p: Proposal, episodes: set[int]) -> dict[int, dict]:
    """Episodes of a fresh run, each stepped once with proposal p put in by hand just before
    it (an arm played in place of the one the bandit draws over its own arms; an insight
    injected), then undone by the step's own rollback and stepped as it went."""
    fresh = build()
    fresh.run(until=min(episodes))
    out = {}
    for e in range(min(episodes), max(episodes) + 1):
        assert fresh.t == e
        if e in episodes:
            undo = fresh._checkpoint()
            _put_in(fresh, p)
            fresh.step()
            out[e] = fresh.history[-1]
            fresh._rollback(undo)
        fresh.step()
    return out


def _put_in(fresh: Session, p: Proposal) -> None:
    if p.kind != "arm":
        fresh.insight = {**p.payload, "episode": fresh.t}
        return
    spec = PolicySpec.from_dict(p.payload)
    fresh.pool[spec.name] = spec
    fresh.selector.add_arm(spec.name, fresh.config.prior, episode=fresh.t)
    selector, index = fresh.selector, len(fresh.selector.arms) - 1
    real = selector.choose

    def choose(rng, oracle):
        arm = selector.arms.pop(index)
        try:
            real(rng, oracle)
        finally:
            selector.arms.insert(index, arm)
        return index

    selector.choose = choose


@pytest.mark.parametrize("world", WORLDS)
@pytest.mark.heavy
def test_the_preview_agrees_with_a_direct_replay_and_leaves_the_session_as_it_was(builders, world):
    s = at_proposal(builders[world])
    for p in list(s.queue.pending):
        before, checkpoints, t = saved(s), sorted(s.timeline.checkpoints), s.t
        pv = preview(s, p.id)
        assert saved(s) == before and sorted(s.timeline.checkpoints) == checkpoints and s.t == t
        assert s.queue.get(p.id).status == "pending"
        start, end = pv.window
        assert [r.episode for r in pv.episodes] == list(range(start, end + 1)) and end <= p.episode
        for r in pv.episodes:  # the side without the proposal is the run
            h = s.history[r.episode]
            assert (r.action, r.result, r.reward, r.policy) == (str(h["action"]), str(h["result"]), h["reward"],
                                                                  h["policy"])
        if p.kind == "arm":
            assert {r.played_with for r in pv.episodes} == {p.payload["name"]}
        # the side with it, against a fresh run: every fixed, broken and changed episode, and the first
        shown = {r.episode for r in pv.fixed + pv.broken + pv.changed} | {start}
        direct = stepped_with(builders[world], p, shown)
        for r in pv.episodes:
            if r.episode in shown:
                h = direct[r.episode]
                assert (r.action_with, r.result_with, r.reward_with) == (str(h["action"]), str(h["result"]),
                                                                         h["reward"]), (world, r.episode)


@pytest.mark.parametrize("world", ("support", "stream"))
@pytest.mark.heavy
def test_an_arms_fixed_and_broken_episodes_are_the_worlds_counterfactual_and_hold_the_reflections_count(
        builders, world):
    s = at_proposal(builders[world])
    p = next(p for p in s.queue.pending if p.kind == "arm")
    pv = preview(s, p.id)
    start, end = pv.window
    assert [start, end] == p.evidence["slow_window"]
    episodes = list(range(start, end + 1))
    right = s.scenario.counterfactual(PolicySpec.from_dict(p.payload), episodes)
    was = {r.episode: r.correct for r in pv.episodes}
    assert [r.episode for r in pv.fixed] == [e for e, ok in zip(episodes, right) if ok and not was[e]]
    assert [r.episode for r in pv.broken] == [e for e, ok in zip(episodes, right) if not ok and was[e]]
    # the reflection counted the failures no current policy fixes: a part of the replay's fixed
    assert pv.reflector_fixed == p.evidence["fixed_episodes"] and len(pv.reflector_fixed) == p.evidence[
        "candidate_fixes"]
    assert set(pv.reflector_fixed) <= {r.episode for r in pv.fixed}
    assert pv.failures == p.evidence["failures"]


@pytest.mark.heavy
def test_support_seed_42_names_the_tickets_route_aware_fixes_and_breaks(builders):
    s = at_proposal(builders["support"])
    p = next(p for p in s.queue.pending if p.kind == "arm")
    pv = preview(s, p.id)
    assert pv.window == (880, 919) and pv.failures == 22
    assert [r.episode for r in pv.fixed] == [904, 905, 908, 910, 914, 915, 918, 919]
    assert [r.episode for r in pv.broken] == [888, 899]
    r = next(r for r in pv.fixed if r.episode == 918)
    assert not r.correct and r.correct_with and r.action != r.action_with and r.played_with == "route_aware"


def test_the_preview_is_the_same_twice(builders):
    s = at_proposal(builders["synthetic"])
    p = s.queue.pending[0]
    assert preview(s, p.id).to_dict() == preview(s, p.id).to_dict()


@pytest.mark.heavy
def test_an_insight_the_offline_agent_does_not_read_changes_no_decision(builders):
    s = at_proposal(builders["support"])
    p = next(p for p in s.queue.pending if p.kind == "insight")
    pv = preview(s, p.id)
    assert len(pv.episodes) == 40 and pv.changed == [] and pv.fixed == [] and pv.broken == []


def test_the_portfolios_insight_changes_the_allocations_of_the_bars_it_reaches(builders):
    s = at_proposal(builders["portfolio"])
    p = next(p for p in s.queue.pending if p.kind == "insight")
    pv = preview(s, p.id)
    assert pv.changed and all(r.action != r.action_with for r in pv.changed)


def test_a_decided_proposal_and_a_stop_are_one_line_and_change_nothing(builders):
    s = at_proposal(builders["synthetic"])
    p = s.queue.pending[0]
    before = saved(s)
    with pytest.raises(AELError, match="preview stopped"):
        preview(s, p.id, should_stop=lambda: True)
    assert saved(s) == before
    s.decide(p.id, "reject")
    with pytest.raises(AELError, match="already decided"):
        preview(s, p.id)
    with pytest.raises(AELError, match="no proposal #99"):
        preview(s, 99)


def test_a_preview_keeps_its_lists_in_a_plain_document(builders):
    s = at_proposal(builders["synthetic"])
    d = preview(s, s.queue.pending[0].id).to_dict()
    assert json.loads(json.dumps(d)) == d and set(d) >= {"fixed", "broken", "changed", "window", "episodes"}


@pytest.mark.heavy
def test_stepping_along_a_rewound_run_makes_the_decisions_a_person_made_between_its_episodes(builders):
    """The window's episodes are stepped as they went, with what a person did between them
    (here a standing rule set after episode 49 of the portfolio) made again in its place."""
    s = builders["portfolio"]()
    s.run(until=50)
    s.queue.set_standing("insight", "approve", who="human", episode=s.t - 1)
    s.run()
    assert s.t > 50 and len(s.queue.rules) == 1
    with s.timeline.preserved(s):
        s.rewind_to(48)
        assert s.queue.rules == []
        s.timeline.step_along(s)  # episode 48
        assert s.queue.rules == []
        s.timeline.step_along(s)  # episode 49, then the rule set after it
        assert [r.rule for r in s.queue.rules] == ["approve"] and s.t == 50
    assert len(s.queue.rules) == 1 and s.timeline.tape is None


@pytest.mark.heavy
def test_a_loaded_save_previews_the_same_from_its_only_checkpoint_and_hears_a_stop_on_the_way(builders):
    s = at_proposal(builders["support"])
    loaded = Session.from_dict(json.loads(json.dumps(s.to_dict())), scenarios.make_scenario)
    assert sorted(loaded.timeline.checkpoints) == [0]
    p = next(p for p in s.queue.pending if p.kind == "arm")
    assert preview(loaded, p.id).to_dict() == preview(s, p.id).to_dict()
    asked = []

    def stop_at_the_tenth_question() -> bool:
        asked.append(loaded.t)
        return len(asked) == 10

    with pytest.raises(AELError, match="preview stopped"):
        preview(loaded, p.id, should_stop=stop_at_the_tenth_question)
    assert asked[-1] == 9 and loaded.t == s.t  # stopped on the way to episode 880, put back
