"""The offline allocator: the prior, reading evidence from memory entries, insights, weights."""

import numpy as np
import pytest

from engine.memory import MemoryEntry
from scenarios.portfolio.agent import Advice, AllocatorConfig, _cap, allocate, read_advice, tool_evidence

TOOLS = ("compute_momentum", "compute_technicals")
CFG = AllocatorConfig()
SECTORS = ("Technology", "Energy", "Energy")


def bar_entry(i, ticker="AAPL", sector="Technology", calls=None, realised=1, tier="episodic"):
    calls = {"compute_momentum": 1, "compute_technicals": -1} if calls is None else calls
    meta = {"kind": "bar", "ticker": ticker, "sector": sector, "regime": "mixed", "calls": calls,
            "realised": realised}
    return MemoryEntry(f"e{i}", tier, "", meta, 0.5, i)


def pattern_entry(i, tool, right, calls, sector=None, tier="semantic", direction="reliable"):
    meta = {"kind": "tool_reliability", "tool": tool, "sector": sector, "regime": "mixed", "right": right,
            "calls": calls, "direction": direction}
    return MemoryEntry(f"{tier[0]}{i}", tier, "", meta, 0.7, i)


def held_equal(k=3):
    return np.full(k, 1.0 / k)


# ----------------------------------------------------------------------------- the prior
def test_without_evidence_every_tool_counts_the_same_and_the_signal_is_the_mean_sub_score():
    scores = np.array([[0.6, 0.2], [-0.4, 0.0], [0.1, np.nan]])
    a = allocate(scores, SECTORS, TOOLS, [[], [], []], [], Advice(), held_equal(), CFG)
    assert a.signal == pytest.approx([0.4, -0.2, 0.1])
    assert np.allclose(a.reliability, CFG.prior_accuracy)
    assert a.weights.sum() == pytest.approx(1.0) and a.exposure == 1.0


def test_a_higher_signal_gets_a_higher_target_weight_and_no_weight_goes_negative():
    scores = np.array([[0.3, 0.3], [-0.9, -0.9], [0.0, 0.0]])
    wide = AllocatorConfig(max_weight=0.6)  # three tickers cannot all stay under 0.3
    a = allocate(scores, SECTORS, TOOLS, [[], [], []], [], Advice(), held_equal(), wide)
    assert a.target[0] > a.target[2] > a.target[1] >= 0.0


def test_inertia_keeps_part_of_the_held_weights():
    scores = np.array([[0.9, 0.9], [-0.9, -0.9], [0.0, 0.0]])
    held = np.array([0.1, 0.8, 0.1])
    a = allocate(scores, SECTORS, TOOLS, [[], [], []], [], Advice(), held, CFG)
    assert a.weights == pytest.approx((1 - CFG.inertia) * a.target + CFG.inertia * held)


# ----------------------------------------------------------------------------- evidence
def test_an_episodic_entry_counts_each_tools_decided_call_once():
    right, calls, factor = tool_evidence([bar_entry(1)], TOOLS, "Technology", CFG)
    assert right.tolist() == [1.0, 0.0] and calls.tolist() == [1.0, 1.0] and factor.tolist() == [1.0, 1.0]


def test_flat_bars_and_zero_calls_are_not_evidence():
    entries = [bar_entry(1, realised=0), bar_entry(2, calls={"compute_momentum": 0, "compute_technicals": 1})]
    right, calls, _ = tool_evidence(entries, TOOLS, "Technology", CFG)
    assert calls.tolist() == [0.0, 1.0] and right.tolist() == [0.0, 1.0]


def test_a_pattern_counts_for_its_own_sector_or_when_pooled_and_is_capped():
    own = pattern_entry(1, "compute_momentum", 45, 60, sector="Technology")
    other = pattern_entry(2, "compute_momentum", 5, 60, sector="Energy")
    pooled = pattern_entry(3, "compute_technicals", 8, 10)
    right, calls, _ = tool_evidence([own, other, pooled], TOOLS, "Technology", CFG)
    assert calls.tolist() == [CFG.pattern_cap, 10.0]
    assert right.tolist() == pytest.approx([45 * CFG.pattern_cap / 60, 8.0])


def test_a_rule_multiplies_or_divides_its_tools_weight():
    trust = pattern_entry(1, "compute_momentum", 0, 0, tier="procedural")
    shrink = pattern_entry(2, "compute_technicals", 0, 0, tier="procedural", direction="unreliable")
    _, _, factor = tool_evidence([trust, shrink], TOOLS, "Technology", CFG)
    assert factor.tolist() == pytest.approx([CFG.rule_factor, 1 / CFG.rule_factor])


def test_evidence_that_a_tool_misleads_turns_its_vote_around():
    scores = np.array([[0.5, 0.0], [0.0, 0.0], [0.0, 0.0]])
    wrong = [bar_entry(i, calls={"compute_momentum": 1}, realised=-1) for i in range(30)]
    a = allocate(scores, SECTORS, TOOLS, [wrong, [], []], [], Advice(), held_equal(), CFG)
    assert a.reliability[0, 0] < 0.5 and a.signal[0] < 0


def test_a_rule_that_is_also_a_retrieved_hit_counts_once():
    scores = np.array([[0.5, 0.5], [0.0, 0.0], [0.0, 0.0]])
    rule = pattern_entry(1, "compute_momentum", 0, 0, tier="procedural")
    once = allocate(scores, SECTORS, TOOLS, [[rule], [], []], [], Advice(), held_equal(), CFG)
    twice = allocate(scores, SECTORS, TOOLS, [[rule], [], []], [rule], Advice(), held_equal(), CFG)
    assert once.signal[0] == twice.signal[0]


# ----------------------------------------------------------------------------- insights
INSIGHT = {"insight": "Yesterday looked bearish. Trust: momentum. Shrink: technicals. Hold about 36% in cash.",
           "regime_label": "bearish", "confidence": 0.6, "episode": 100}


def test_a_fresh_confident_bearish_insight_cuts_exposure_and_names_tools():
    adv = read_advice(INSIGHT, 101, TOOLS, CFG)
    assert adv.exposure == pytest.approx(1 - 0.6 * 0.6)
    assert adv.trust == ("compute_momentum",) and adv.shrink == ("compute_technicals",)


def test_an_insight_is_ignored_once_stale_or_below_the_confidence_gate():
    assert read_advice(INSIGHT, 100 + CFG.insight_ttl, TOOLS, CFG) == Advice()
    assert read_advice({**INSIGHT, "confidence": 0.4}, 101, TOOLS, CFG) == Advice()
    assert read_advice(None, 101, TOOLS, CFG) == Advice()


def test_exposure_scales_the_weights_and_leaves_the_rest_in_cash():
    scores = np.zeros((3, 2))
    a = allocate(scores, SECTORS, TOOLS, [[], [], []], [], Advice(exposure=0.7), held_equal(), CFG)
    assert a.weights.sum() == pytest.approx(0.7)


# ----------------------------------------------------------------------------- cap
def test_the_cap_moves_the_excess_to_the_other_tickers():
    w = _cap(np.array([0.7, 0.2, 0.1, 0.0]), 0.3)
    assert w.max() <= 0.3 + 1e-12 and w.sum() == pytest.approx(1.0)
