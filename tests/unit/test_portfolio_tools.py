"""The 12 tools: as-of-the-bar (no leak), values against direct computations, static snapshots,
the composite signal, the directional calls, speed."""

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from engine.errors import AELError
from scenarios.portfolio.data import load_folder
from scenarios.portfolio.sources import load_market
from scenarios.portfolio.tools import COMPOSITE_WEIGHTS, TOOL_NAMES, ToolBox, call_of

DFULL = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "dfull"
needs_dfull = pytest.mark.skipif(not (DFULL / "prices_1h").is_dir(), reason="../shared/data/dfull is absent")
PRICE_ONLY = {"get_price_history", "compute_technicals", "compute_quant_risk", "compute_momentum",
              "compute_correlations", "score_composite_signal"}


@pytest.fixture(scope="module")
def synth():
    return load_market("synthetic")


@pytest.fixture(scope="module")
def box(synth):
    return ToolBox(synth)


def as_of(market, bar, **kw):
    """Everything the toolbox says at `bar`."""
    tb = ToolBox(market, **kw)
    return tb.signals(bar), tb.calls(bar), tb.scores(bar)


def assert_no_leak(market, **kw):
    full = ToolBox(market, **kw)
    for i in range(market.n_bars):
        seen = as_of(market.truncated(i), i, **kw)
        assert seen == (full.signals(i), full.calls(i), full.scores(i)), f"bar {i} depends on later rows"


# ----------------------------------------------------------------------------- no look-ahead
@pytest.mark.heavy
def test_every_tool_at_every_bar_ignores_the_rows_after_it(synth):
    assert_no_leak(synth)


@pytest.mark.heavy
@needs_dfull
def test_no_leak_on_the_real_data_with_static_tools_switched_on():
    assert_no_leak(load_market(str(DFULL)), allow_lookahead=True)


@pytest.mark.heavy
def test_changing_the_next_row_changes_nothing_at_the_bar(synth, box):
    rng = np.random.default_rng(0)
    for i in range(synth.n_bars - 1):
        m = synth.truncated(synth.n_bars - 1)           # a copy we may perturb
        for arr in ("open", "high", "low", "close", "volume"):
            a = getattr(m, arr).copy()
            a[i + 1] *= rng.uniform(0.5, 1.5, size=a.shape[1])
            setattr(m, arr, a)
        assert as_of(m, i) == (box.signals(i), box.calls(i), box.scores(i)), f"bar {i} saw row {i + 1}"


# ----------------------------------------------------------------------------- values
def test_technicals_match_direct_computations(synth, box):
    i, j = 120, 3
    c = synth.close[: i + 1, j]
    out = box.output("compute_technicals", synth.tickers[j], i)
    d = np.diff(c)[-14:]
    rsi = 100 - 100 / (1 + np.maximum(d, 0).mean() / np.maximum(-d, 0).mean())
    assert out["rsi_14"]["value"] == pytest.approx(rsi)
    assert out["moving_averages"]["sma_50"] == pytest.approx(c[-50:].mean())
    assert out["moving_averages"]["sma_200"] == pytest.approx(c.mean())          # fewer than 200 rows
    assert out["bollinger"]["upper"] == pytest.approx(c[-20:].mean() + 2 * c[-20:].std(ddof=1))
    assert out["support_resistance"]["52w_high"] == synth.high[: i + 1, j].max()
    ema = lambda x, span: pd.Series(x).ewm(span=span, adjust=False).mean().to_numpy()  # noqa: E731
    macd = ema(c, 12) - ema(c, 26)
    assert out["macd"]["macd"] == pytest.approx(macd[-1]) and out["macd"]["signal"] == pytest.approx(ema(macd, 9)[-1])
    expected = sum([rsi < 70, macd[-1] > ema(macd, 9)[-1], c[-1] > c[-50:].mean(), c[-1] > c.mean(),
                    c[-1] > c[-20:].mean() - 2 * c[-20:].std(ddof=1)])
    assert out["technical_score"] == expected


def test_quant_risk_matches_direct_computations(synth, box):
    i, j = 90, 1
    r = synth.close[1 : i + 1, j] / synth.close[:i, j] - 1
    out = box.output("compute_quant_risk", synth.tickers[j], i)
    root = np.sqrt(1008)
    assert out["volatility"]["realized_30bar_annualized"] == pytest.approx(r[-30:].std(ddof=1) * root)
    assert out["var"]["var_95"] == pytest.approx(np.percentile(r, 5))
    assert out["var"]["cvar_95"] == pytest.approx(r[r <= np.percentile(r, 5)].mean())
    assert out["risk_return"]["sharpe_ratio"] == pytest.approx(r.mean() / r.std(ddof=1) * root)
    assert out["risk_return"]["sortino_ratio"] == pytest.approx(r.mean() * 1008 / (r[r < 0].std(ddof=1) * root))
    c = synth.close[: i + 1, j]
    assert out["risk_return"]["max_drawdown"] == pytest.approx(np.max(1 - c / np.maximum.accumulate(c)))


def test_momentum_matches_direct_computations(synth, box):
    i, j = 75, 6
    c = synth.close[: i + 1, j]
    out = box.output("compute_momentum", synth.tickers[j], i)
    assert out["return_4bar"] == pytest.approx(c[-1] / c[-5] - 1)
    assert out["return_60bar"] == pytest.approx(c[-1] / c[-61] - 1)
    slope, _ = np.polyfit(np.arange(20), c[-20:], 1)
    assert out["trend"]["slope_per_bar"] == pytest.approx(slope)
    assert out["trend"]["r_squared"] == pytest.approx(np.corrcoef(np.arange(20), c[-20:])[0, 1] ** 2)
    v = synth.volume[: i + 1, j]
    assert out["volume_trend"]["ratio"] == pytest.approx(v[-5:].mean() / v[-20:].mean())


def test_correlations_match_numpy(synth, box):
    i = 60
    r = synth.close[1 : i + 1] / synth.close[:i] - 1
    out = box.output("compute_correlations", "AAPL", i)
    full, last20 = np.corrcoef(r.T), np.corrcoef(r[-20:].T)
    assert out["full_period_correlation"]["NVDA"] == pytest.approx(full[0, 1], abs=1e-9)
    assert out["rolling_correlation_vs_target"]["GS"] == pytest.approx(last20[0, 5], abs=1e-9)
    peers = {t: v for t, v in out["full_period_correlation"].items()}
    assert out["most_correlated"] == max(peers, key=peers.get) and "AAPL" not in peers


def test_history_is_short_at_the_start_as_in_the_reference(box):
    at0 = box.signals(0)["AAPL"]
    assert "compute_quant_risk" not in at0 and "compute_correlations" not in at0
    assert at0["compute_technicals"]["rsi_14"]["value"] is None
    assert box.output("compute_technicals", "AAPL", 48)["moving_averages"]["sma_50"] is None
    assert box.output("compute_technicals", "AAPL", 49)["moving_averages"]["sma_50"] is not None
    assert box.output("compute_momentum", "AAPL", 59)["return_60bar"] is None
    assert box.output("compute_momentum", "AAPL", 60)["return_60bar"] is not None
    assert box.output("get_price_history", "AAPL", 100)["rows"] == 101
    assert len(box.output("get_price_history", "AAPL", 100)["prices"]) == 50


def test_outputs_are_plain_json_without_nan(box):
    for i in (0, 3, 100, 207):
        json.dumps(box.signals(i), allow_nan=False)


# ----------------------------------------------------------------------------- static tools
@needs_dfull
def test_dfull_static_tools_are_left_out_because_their_snapshots_postdate_the_bars():
    m = load_market(str(DFULL))
    tb = ToolBox(m)
    assert all(set(tb.available_tools(i)) == PRICE_ONLY for i in range(5, m.n_bars))


@needs_dfull
def test_dfull_static_tools_with_lookahead_are_stamped_with_their_snapshot():
    m = load_market(str(DFULL))
    aapl = ToolBox(m, allow_lookahead=True).signals(100)["AAPL"]
    assert set(aapl) == set(TOOL_NAMES)
    for tool in ("get_fundamentals", "get_analyst_data", "get_options_data", "get_earnings_data",
                 "run_dcf_model", "score_risk"):
        assert aapl[tool]["snapshot_date"] >= "2026-01-01", tool
    dcf = aapl["run_dcf_model"]          # the reference's Gordon fallback: g = min(15.7 %, 8 %)
    assert dcf["growth_rate"] == 0.08
    assert dcf["implied_upside"] == pytest.approx(dcf["fcf"] / dcf["market_cap"] * 1.08 / 0.02 - 1)
    assert set(aapl["score_composite_signal"]["components"]) == set(COMPOSITE_WEIGHTS)


def test_a_snapshot_becomes_usable_the_day_after_it_was_taken(tmp_path):
    days = pd.bdate_range("2024-04-01", periods=6)
    stamps = [f"{d.date()} {h}:30:00-04:00" for d in days for h in ("09", "11", "13", "15")]
    (tmp_path / "prices_1h").mkdir()
    close = 100 + np.arange(len(stamps), dtype=float)
    pd.DataFrame({"Datetime": stamps, "Close": close, "High": close, "Low": close, "Open": close,
                  "Volume": 1.0}).to_csv(tmp_path / "prices_1h" / "AAA.csv", index=False)
    (tmp_path / "fundamentals").mkdir()
    (tmp_path / "fundamentals" / "AAA.json").write_text(json.dumps({"snapshot_date": "2024-04-03", "info": {
        "freeCashflow": 5e9, "marketCap": 1e11, "revenueGrowth": 0.1, "trailingPE": 20, "beta": 1.0}}))
    tb = ToolBox(load_folder(tmp_path))
    first = min(i for i in range(24) if "run_dcf_model" in tb.available_tools(i))
    assert str(tb.market.dates[first]) == "2024-04-04" and first == 12
    assert tb.output("score_risk", "AAA", first)["snapshot_date"] == "2024-04-03"
    assert ToolBox(load_folder(tmp_path), allow_lookahead=True).output("run_dcf_model", "AAA", 0) is not None


# ----------------------------------------------------------------------------- composite and calls
def test_composite_is_the_renormalised_weighted_mean_of_the_available_tools(box):
    for i in (10, 100, 200):
        for ticker, sc in box.scores(i).items():
            parts = {t: s for t, s in sc.items() if t in COMPOSITE_WEIGHTS}
            expect = sum(COMPOSITE_WEIGHTS[t] * s for t, s in parts.items()) / sum(COMPOSITE_WEIGHTS[t] for t in parts)
            comp = box.output("score_composite_signal", ticker, i)
            assert comp["composite_score"] == pytest.approx(expect)
            assert comp["components"] == parts and comp["n_signals"] == len(parts)


def test_composite_thresholds_and_that_it_is_not_always_hold(box, synth):
    labels = {box.output("score_composite_signal", t, i)["signal"] for t in synth.tickers for i in range(synth.n_bars)}
    assert labels == {"STRONG_BUY", "BUY", "HOLD", "SELL", "STRONG_SELL"}
    for i in (20, 150):
        for t in synth.tickers:
            c = box.output("score_composite_signal", t, i)
            s = c["composite_score"]
            want = "STRONG_BUY" if s >= 40 else "BUY" if s >= 15 else "STRONG_SELL" if s <= -40 \
                else "SELL" if s <= -15 else "HOLD"
            assert c["signal"] == want


def test_every_available_tool_gives_a_call_from_its_sub_score(box):
    for i in (0, 50, 207):
        calls, scores, signals = box.calls(i), box.scores(i), box.signals(i)
        for t in calls:
            assert set(calls[t]) == set(signals[t])
            for tool, c in calls[t].items():
                assert c == call_of(scores[t].get(tool))
    assert (call_of(15.0), call_of(14.9), call_of(-15.0), call_of(None), call_of(float("nan"))) == (1, 0, -1, 0, 0)


def test_a_tool_subset_limits_the_composite_to_that_subset(synth):
    tb = ToolBox(synth, tools=["compute_momentum", "score_composite_signal"])
    assert tb.available_tools(100) == ["compute_momentum", "score_composite_signal"]
    comp = tb.output("score_composite_signal", "PG", 100)
    assert comp["composite_score"] == pytest.approx(tb.scores(100)["PG"]["compute_momentum"])
    with pytest.raises(AELError, match="compute_magic"):
        ToolBox(synth, tools=["compute_magic"])
