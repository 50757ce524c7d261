"""The reflection gate (engine/reflection_gate.py): each rule closes it on its own, says
why in one sentence, and the marks it keeps survive a reflector's reconfiguration."""

from __future__ import annotations

from typing import Any

import pytest

from engine.memory import MemoryStore
from engine.policies import PAPER_POLICIES
from engine.reflection import ReflectionContext
from engine.reflection_gate import (CheckDays, MeanPosterior, ReflectionGate, TrailingAccuracy, TrailingReward,
                                    is_correct)
from scenarios.news.reflector import NewsReflector
from scenarios.portfolio.reflector import PortfolioReflector
from scenarios.support.reflector import SupportReflector


def records(correct: list[bool], warmup: int = 0) -> list[dict[str, Any]]:
    return [{"episode": e, "correct": c, "reward": float(c), "phase": "warmup" if e < warmup else "train"}
            for e, c in enumerate(correct)]


def context(t: int, history: list[dict[str, Any]], pool=(), posteriors=()) -> ReflectionContext:
    return ReflectionContext(episode=t, window=history[-10:], trailing=history, history=history, pool=list(pool),
                             posteriors=list(posteriors), memory=MemoryStore(), side_info={}, previous=[],
                             scenario=None)


def accuracy_gate(**kw) -> ReflectionGate:
    settings = {"cadence": 10, "cooldown": 30, "metric": TrailingAccuracy(), "window": 20, "threshold": 0.58, **kw}
    return ReflectionGate(**settings)


BAD = records([False, True] * 50)  # accuracy 0.5 everywhere


def test_the_gate_opens_with_the_sentence_a_diagnosis_quotes():
    verdict = accuracy_gate().check(context(39, BAD[:40]))
    assert verdict and verdict.rule == "" and verdict.value == 0.5
    assert verdict.why == "accuracy 0.500 over episodes 20–39 is below 0.58"


def test_the_cadence_rule_looks_only_at_the_end_of_a_window():
    gate = accuracy_gate()
    closed = gate.check(context(38, BAD[:39]))
    assert not closed and closed.rule == "cadence" and "episode 38 does not end a 10-episode window" in closed.why
    assert gate.check(context(39, BAD[:40]))
    assert [gate.next_due(e) for e in (30, 39, 40)] == [39, 39, 49]


def test_a_pending_proposal_holds_the_gate_until_it_is_decided():
    gate = accuracy_gate()
    gate.proposed(39)
    closed = gate.check(context(49, BAD[:50]))
    assert closed.rule == "pending" and "after episode 39 still waits" in closed.why
    gate.rejected(49)
    assert gate.proposed_at is None


def test_a_rejection_starts_a_cool_down_after_which_the_gate_looks_again():
    gate = accuracy_gate()
    gate.rejected(39)  # cool-down of 30: no look before episode 70
    assert gate.cooldown_until == 70
    for t in (49, 59, 69):
        closed = gate.check(context(t, BAD[:t + 1]))
        assert closed.rule == "cool-down" and "until episode 70" in closed.why
    assert gate.check(context(79, BAD[:80]))


def test_a_rejection_that_withdraws_nothing_keeps_the_pending_proposal():
    gate = accuracy_gate()
    gate.proposed(39)
    gate.rejected(39, withdrawn=False)
    assert gate.proposed_at == 40 and gate.cooldown_until == 70


def test_the_gate_stays_closed_once_the_candidate_is_in_the_pool():
    gate = accuracy_gate()
    seen = []

    def holds(pool):
        seen.append([p.name for p in pool])
        return any(p.name == PAPER_POLICIES[0].name for p in pool)

    closed = gate.check(context(39, BAD[:40], pool=PAPER_POLICIES[:1]), holds)
    assert closed.rule == "candidate" and "already in the pool" in closed.why
    assert seen == [[PAPER_POLICIES[0].name]]
    assert gate.check(context(39, BAD[:40], pool=PAPER_POLICIES[1:2]), holds)


def test_the_metric_rule_closes_the_gate_at_or_above_the_threshold():
    good = records([True] * 40)
    closed = accuracy_gate().check(context(39, good))
    assert not closed and closed.rule == "metric" and closed.value == 1.0
    assert closed.why == "accuracy 1.000 over episodes 20–39 is not below 0.58"
    assert not accuracy_gate(threshold=0.5).check(context(39, BAD[:40]))  # below, not at


def test_the_trailing_window_counts_episodes_not_positions():
    history = records([False] * 20 + [True] * 20)
    assert accuracy_gate(window=20).check(context(39, history)).value == 1.0
    assert accuracy_gate(window=40).check(context(39, history)).value == 0.5
    assert accuracy_gate(window=20).check(context(19, history)).value == 0.0  # later records are not read


def test_with_no_episode_to_measure_the_gate_stays_closed():
    closed = accuracy_gate(cadence=1).check(context(0, []))
    assert not closed and closed.rule == "metric" and closed.value is None


def test_correct_falls_back_to_the_reward():
    assert is_correct({"correct": True, "reward": 0.0}) and not is_correct({"correct": None, "reward": 0.4})
    assert is_correct({"reward": 0.5})


def test_the_reward_metric_says_its_numbers_as_the_synthetic_world_always_did():
    history = [{"episode": e, "reward": 0.25} for e in range(30)]
    verdict = ReflectionGate(metric=TrailingReward(), window=25, threshold=0.42).check(context(29, history))
    assert verdict and verdict.why == "trailing-25 mean reward 0.250 < 0.42"


def test_the_check_day_rule_looks_only_on_the_papers_days():
    arms = [{"arm": "a", "mean": 0.3}, {"arm": "b", "mean": 0.4}]
    gate = ReflectionGate(cadence=4, metric=MeanPosterior(), threshold=0.4, check_days=CheckDays(first=10, every=5))

    def at_day(d: int):
        t = 15 + 4 * (d - 1)  # 15 warm-up episodes: day d is the window that ends at t (as the reference counts)
        return gate.check(context(t, records([True] * (t + 1), warmup=15), posteriors=arms))

    for d in (5, 9, 11, 12):
        closed = at_day(d)
        assert closed.rule == "check day" and closed.day == d
        assert closed.why == f"day {d} is not a check day (d >= 10 and d % 5 == 0)"
    for d in (10, 15):
        verdict = at_day(d)
        assert verdict and verdict.day == d and verdict.why == "the mean posterior over 2 arms is 0.350 < 0.40"


def test_a_gate_without_a_metric_opens_on_its_cadence():
    verdict = ReflectionGate(cadence=4).check(context(7, records([True] * 8)))
    assert verdict and "episode 7 ends a 4-episode window" in verdict.why


def test_a_reflector_keeps_its_marks_when_its_settings_change_on_load():
    r = SupportReflector()
    r.gate.proposed(919)
    r.gate.rejected(919, withdrawn=False)
    state = r.state_dict()
    assert (state["proposed_at"], state["cooldown_until"]) == (920, 1040)
    back = SupportReflector()
    back.load_state_dict({**state, "cadence": 20})
    assert (back.gate.cadence, back.proposed_at, back.cooldown_until) == (20, 920, 1040)
    assert back.gate.cooldown == 120  # the saved cool-down, not three of the new cadences


@pytest.mark.parametrize("make, cooldown", [(SupportReflector, 120), (lambda: NewsReflector(cadence=25), 75),
                                            (PortfolioReflector, 20)])
def test_each_reflector_configures_its_cool_down(make, cooldown):
    r = make()
    r.rejected("arm", 100)
    assert r.cooldown_until == 101 + cooldown and r.outlook(100).startswith("A proposal was rejected")
    assert r.outlook(101 + cooldown) == ""
