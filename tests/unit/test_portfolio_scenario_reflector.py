"""The portfolio's memory learning (distillation, rules) and its daily reflector."""

import numpy as np
import pytest

from engine.memory import MemoryStore
from engine.policies import PAPER_POLICIES
from engine.reflection import ReflectionContext
from scenarios.portfolio.memory_records import (BarRecord, applicable_rules, distill, episodic_quality,
                                                rule_verdict)
from scenarios.portfolio.reflector import CANDIDATE, PortfolioReflector, regime_label
from tests.conftest import new_session

BONUSES = {"ticker": 2.0, "sector": 0.8, "regime": 1.0, "task_type": 0.5}


def store_with_bars(n_bars=20, momentum_right=True):
    """JPM and GS (Financial Services) in bearish bars: momentum always right (or always wrong)."""
    mem = MemoryStore(BONUSES)
    for t in range(n_bars):
        mem.episode = t
        for ticker in ("JPM", "GS"):
            realised = 1 if t % 2 else -1
            call = realised if momentum_right else -realised
            rec = BarRecord(t, "2025-01-06 09:30", ticker, "Financial Services", "bearish",
                            {"compute_momentum": call, "compute_technicals": 0}, 0.004 * realised, 0.1)
            mem.write("episodic", *rec.entry(), 0.5)
    return mem


# ----------------------------------------------------------------------------- memory records
def test_an_episodic_entry_reads_as_calls_against_what_happened():
    rec = BarRecord(5, "2025-01-06 11:30", "JPM", "Financial Services", "mixed",
                    {"compute_momentum": 1, "compute_technicals": -1}, 0.0042, 0.12)
    content, meta = rec.entry()
    assert content == ("JPM 2025-01-06 11:30 [mixed]: momentum up ✓, technicals down ✗; "
                       "next bar +0.42% (up); held 12.0%")
    assert meta["realised"] == 1 and meta["task_type"] == "portfolio_allocation"


def test_quality_is_the_clipped_normalised_outcome():
    assert [episodic_quality(s) for s in (-1.0, 0.0, 1.0)] == [0.3, 0.5, 1.0]


def test_distillation_finds_tool_reliability_per_sector_and_regime_with_stable_keys():
    patterns = {p.key: p for p in distill(store_with_bars(), episode=19)}
    p = patterns["tool=compute_momentum|sector=Financial Services|regime=bearish"]
    assert p.direction == "reliable" and p.support == 40
    assert p.content == "momentum right in 40 of 40 calls on Financial Services in bearish bars (1.00)"
    assert p.rule == "RULE: trust momentum on Financial Services when bearish"
    assert patterns["tool=compute_momentum|sector=all sectors|regime=bearish"].metadata["sector"] is None
    assert not any("technicals" in k for k in patterns)   # it never made a call


def test_a_tool_that_is_always_wrong_is_distilled_as_unreliable():
    [sector, pooled] = distill(store_with_bars(momentum_right=False), episode=19)
    assert {sector.direction, pooled.direction} == {"unreliable"}
    assert sector.rule.startswith("RULE: shrink momentum")


def test_a_promoted_rule_applies_to_bars_of_its_regime_and_is_judged_on_its_sector():
    mem = store_with_bars()
    patterns = distill(mem, episode=19)
    for window in range(3):
        mem.corroborate(patterns, window)
    rules = applicable_rules(mem, "bearish")
    assert len(rules) == 2 and applicable_rules(mem, "bullish") == []
    rule = next(r for r in rules if r.metadata["sector"] == "Financial Services")
    sectors = ["Technology", "Financial Services", "Financial Services"]
    tools = ["compute_momentum", "compute_technicals"]
    realised = np.array([1, 1, -1])
    right = np.array([[-1, 0], [1, 0], [-1, 0]])   # right on both Financials, wrong on the other
    wrong = -right
    assert rule_verdict(rule, right, realised, sectors, tools) is True
    assert rule_verdict(rule, wrong, realised, sectors, tools) is False
    assert rule_verdict(rule, np.zeros((3, 2), int), realised, sectors, tools) is None


# ----------------------------------------------------------------------------- reflector
class StubScenario:
    def __init__(self, side, cf=None):
        self.side, self.cf = side, cf or {}

    def side_info(self, start, end):
        return self.side

    def counterfactual(self, episodes):
        return {t: self.cf[t] for t in episodes if t in self.cf}


def side(u=-0.008, spread=0.002, vol=0.002, accuracy=None):
    return {"universe_return": u, "sector_spread": spread, "volatility": vol,
            "tool_accuracy": accuracy or {"compute_momentum": {"right": 3, "calls": 12},
                                          "compute_correlations": {"right": 9, "calls": 12}}}


def context(t, scores, scenario, posteriors=None, pool=PAPER_POLICIES, warmup=15):
    history = [{"episode": e, "phase": "warmup" if e < warmup else "train", "score": s,
                "reward": (s + 1) / 2} for e, s in enumerate(scores)]
    posteriors = posteriors or [{"arm": p.name, "alpha": 1, "beta": 1, "mean": 0.5, "pulls": 0} for p in pool]
    return ReflectionContext(episode=t, window=history[-4:], trailing=history, history=history, pool=list(pool),
                             posteriors=posteriors, memory=MemoryStore(), side_info={}, previous=[],
                             scenario=scenario)


@pytest.mark.parametrize("u,spread,vol,label", [
    (0.006, 0, 0, "bullish"), (-0.006, 0, 0, "bearish"), (0.001, 0.01, 0, "sector_rotation"),
    (0.001, 0.001, 0.001, "range_bound"), (0.003, 0.001, 0.005, "mixed")])
def test_the_regime_label_reads_the_days_side_information(u, spread, vol, label):
    assert regime_label(side(u, spread, vol))[0] == label


def test_a_bad_day_gets_a_diagnosis_then_an_insight_naming_the_tools():
    r = PortfolioReflector().reflect(context(39, [-0.3] * 40, StubScenario(side())))
    assert r.regime_label == "bearish" and r.confidence == pytest.approx(0.8)
    assert "Misled: momentum (3/12 right)" in r.diagnosis and "Held: correlations (9/12 right)" in r.diagnosis
    assert r.insight == ("Yesterday looked bearish (confidence 0.80). Trust: correlations. Shrink: momentum. "
                         "Hold about 48% in cash.")


def test_a_good_day_is_diagnosed_but_prescribes_nothing():
    r = PortfolioReflector().reflect(context(39, [0.3] * 40, StubScenario(side())))
    assert r.diagnosis and r.insight == "" and r.policy is None


def test_confidence_becomes_the_checked_accuracy_of_directional_labels():
    refl = PortfolioReflector()
    for day, u in enumerate([-0.006, -0.006, 0.006, -0.006]):   # checks: right, wrong, wrong
        r = refl.reflect(context(19 + 4 * day, [0.0] * (20 + 4 * day), StubScenario(side(u))))
    assert refl.checks == [1, 0, 0] and r.confidence == pytest.approx(1 / 3, abs=1e-4)


def test_the_diagnose_trigger_proposes_the_candidate_when_its_replay_beats_the_played_policies():
    scores = [-0.2] * 40
    cf = {t: {"return": 0.001, "score": 0.1} for t in range(40)}
    r = PortfolioReflector().reflect(context(39, scores, StubScenario(side(), cf)))
    assert r.policy == CANDIDATE
    assert "+0.300" in r.rationale and "better on 20 of 20 bars" in r.rationale


def test_the_diagnose_trigger_holds_back_when_the_gain_is_small_or_already_proposed():
    cf = {t: {"return": 0.0, "score": -0.15} for t in range(40)}
    refl = PortfolioReflector()
    assert refl.reflect(context(39, [-0.2] * 40, StubScenario(side(), cf))).policy is None
    refl.proposed_at = 30
    cf_good = {t: {"return": 0.0, "score": 0.5} for t in range(40)}
    assert refl.reflect(context(43, [-0.2] * 44, StubScenario(side(), cf_good))).policy is None


def test_the_paper_trigger_fires_only_on_check_days_with_a_low_mean_posterior():
    low = [{"arm": p.name, "alpha": 1, "beta": 2, "mean": 1 / 3, "pulls": 3} for p in PAPER_POLICIES]
    refl = PortfolioReflector(trigger="paper")

    def day(d, posteriors=low):  # with 15 warm-up episodes, day d's evening is episode 15 + 4 (d - 1)
        t = 15 + 4 * (d - 1)
        return refl.reflect(context(t, [0.0] * (t + 1), StubScenario(side()), posteriors))

    assert day(11).policy is None and day(10, posteriors=None).policy is None
    fired = day(10)
    assert fired.policy == CANDIDATE and "0.333 < 0.40" in fired.rationale and refl.proposed_at == 52


def test_the_reflector_state_round_trips():
    refl = PortfolioReflector(trigger="paper", window=12)
    refl.reflect(context(39, [0.0] * 40, StubScenario(side())))
    back = PortfolioReflector()
    back.load_state_dict(refl.state_dict())
    assert back.state_dict() == refl.state_dict()


def test_a_session_with_reflection_injects_insights_the_agent_acts_on():
    s = new_session("portfolio", seed=42, selector="ts+reflection")
    s.run(until=120)
    assert s.reflections and any(r.insight for r in s.reflections)
    cut = [h for h in s.history if h["info"]["exposure"] < 1.0]
    assert cut and all(h["insight"] for h in cut)
