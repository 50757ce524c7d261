"""The LLM allocator's prompt and the weight parser's fallbacks."""

import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scenarios.portfolio.sources import load_market
from scenarios.portfolio.prompt import PromptContext, build_prompt, json_template, parse_weights
from scenarios.portfolio.tools import ToolBox

T = ["AAPL", "NVDA", "JNJ", "PG"]


@pytest.fixture(scope="module")
def market():
    return load_market("synthetic")


def context(market, **kw):
    tb = ToolBox(market)
    base = dict(tickers=market.tickers, sectors=market.sectors, bar_time=market.bar_time(100), bar=100,
                n_bars=market.n_bars, weights={t: 0.1 for t in market.tickers}, cash=0.0,
                recent_returns=[0.001, -0.002, 0.003, 0.0, 0.004], regime="mixed", signals=tb.signals(100))
    base.update(kw)
    return PromptContext(**base)


# ----------------------------------------------------------------------------- prompt
def test_sections_come_in_the_reference_order(market):
    text = build_prompt(context(market, strategy="momentum", strategy_guidance="Ride trends.",
                                insight={"key_insight": "Energy led.", "market_regime": "bullish", "confidence": 0.7},
                                rules=["Prioritize compute_momentum"], lessons=["Bar 99: tech fell"],
                                recent_allocations=[({"AAPL": 0.5, "PG": 0.2, "JNJ": 0.1, "NVDA": 0.05}, 0.002)]))
    heads = ["## Current Portfolio", "## Market Regime", "## Selected Strategy: momentum",
             "## Yesterday's Market Analysis", "## Market Signals", "## Learned Rules",
             "## Recent Allocation Lessons", "## Recent Allocations", "## Task"]
    positions = [text.index(h) for h in heads]
    assert positions == sorted(positions)
    assert "AAPL 50%, PG 20%, JNJ 10% -> return +0.20%" in text              # top 3 only


def test_the_answer_template_has_one_key_per_ticker_and_cash(market):
    text = build_prompt(context(market))
    template = json_template(market.tickers)
    assert template in text
    filled = json.loads(template.replace("<weight>", "0.05"))
    assert list(filled) == market.tickers + ["cash"]


def test_only_the_last_four_returns_are_shown(market):
    assert "Last returns: -0.20%, +0.30%, +0.00%, +0.40%" in build_prompt(context(market))


def test_a_low_confidence_or_empty_insight_is_left_out(market):
    low = {"key_insight": "Energy led.", "market_regime": "bullish", "confidence": 0.4}
    empty = {"key_insight": "", "market_regime": "bullish", "confidence": 0.9}
    for insight in (low, empty, None):
        assert "Yesterday's Market Analysis" not in build_prompt(context(market, insight=insight))


def test_signal_lines_show_derived_tools_and_hide_raw_data(market):
    text = build_prompt(context(market))
    line = next(x for x in text.splitlines() if x.startswith("- AAPL [Technology]:"))
    for shown in ("technicals(", "quant_risk(", "momentum(", "correlations(", "composite("):
        assert shown in line
    assert "price_history" not in line and "get_" not in line
    assert not re.search(r"\bnan\b", text, re.IGNORECASE)


def test_empty_memory_sections_are_not_printed(market):
    text = build_prompt(context(market))
    assert "## Learned Rules" not in text and "## Recent Allocation Lessons" not in text
    assert "## Selected Strategy" not in text


# ----------------------------------------------------------------------------- parser
def test_a_fenced_json_answer_is_used_and_the_remainder_is_cash():
    p = parse_weights('Plan:\n```json\n{"AAPL": 0.4, "NVDA": 0.3, "cash": 0.3}\n```\nDone.', T)
    assert p.fallback is None
    assert p.weights == {"AAPL": 0.4, "NVDA": 0.3, "JNJ": 0.0, "PG": 0.0}
    assert p.cash == pytest.approx(0.3)


def test_bare_json_inside_prose_is_found_even_after_other_braces():
    p = parse_weights('I weigh {risk} first. {"aapl": 0.25, "nvda": 0.25, "jnj": 0.25, "pg": 0.25} ok', T)
    assert p.fallback is None and p.weights == dict.fromkeys(T, 0.25) and p.cash == 0.0


def test_a_weights_wrapper_and_trailing_commas_are_accepted():
    p = parse_weights('{"reasoning": "x {y}", "weights": {"AAPL": 0.5, "PG": 0.3,}, "cash": 0.2}', T)
    assert p.fallback is None and p.weights["AAPL"] == 0.5 and p.cash == pytest.approx(0.2)


@pytest.mark.parametrize("answer", ["", "I cannot decide.", "{not json at all}", '{"AAPL": 0.5', None])
def test_garbage_gives_equal_weight_with_a_reason(answer):
    p = parse_weights(answer, T)
    assert p.weights == dict.fromkeys(T, 0.25) and p.cash == 0.0
    assert p.fallback


@pytest.mark.parametrize("bad", [1.5, -0.2, '"lots"', "null", "true"])
def test_an_out_of_range_or_non_numeric_value_becomes_one_over_n(bad):
    p = parse_weights(f'{{"AAPL": {bad}, "NVDA": 0.3, "JNJ": 0.2, "PG": 0.1}}', T)
    assert p.fallback is None
    assert p.weights["AAPL"] == 0.25 and any("AAPL" in n for n in p.notes)


@pytest.mark.parametrize("answer,total", [('{"AAPL": 0.1, "NVDA": 0.1, "cash": 0.2}', 0.4),
                                          ('{"AAPL": 0.9, "NVDA": 0.9, "cash": 0.0}', 1.8)])
def test_totals_outside_half_to_one_and_a_half_fall_back_to_equal_weight(answer, total):
    p = parse_weights(answer, T)
    assert p.weights == dict.fromkeys(T, 0.25)
    assert f"{total:.3f}" in p.fallback


def test_a_total_above_one_is_scaled_down_and_cash_is_what_remains():
    p = parse_weights('{"AAPL": 0.6, "NVDA": 0.4, "cash": 0.2}', T)        # total 1.2
    assert p.fallback is None
    assert p.weights["AAPL"] == pytest.approx(0.5) and p.weights["NVDA"] == pytest.approx(1 / 3)
    assert p.cash == pytest.approx(1 - 0.5 - 1 / 3)


def test_an_answer_in_percent_is_read_as_percent():
    p = parse_weights('{"AAPL": 40, "NVDA": "30%", "JNJ": 10, "PG": 0, "cash": 20}', T)
    assert p.fallback is None and p.weights["AAPL"] == pytest.approx(0.4) and p.cash == pytest.approx(0.2)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300))
def test_the_parser_never_raises_and_always_returns_a_valid_allocation(text):
    p = parse_weights(text, T)
    assert set(p.weights) == set(T)
    assert all(0.0 <= w <= 1.0 for w in p.weights.values())
    assert sum(p.weights.values()) + p.cash == pytest.approx(1.0)
