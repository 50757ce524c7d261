"""The paper's 12 finance tools, computed once per dataset and read per bar.

Every price-based quantity is a causal array of shape (n_bars, n_tickers)
whose row i uses rows <= i only (rolling/expanding windows, recursive EWMs,
cumulative sums), so reading row i IS computing the tool "as of bar i" (the
bar's own close included, as the reference), and a run never recomputes
history. `tests/unit/test_portfolio_tools.py` pins this: truncating the data after
row i, or perturbing row i+1, leaves every output at bar i unchanged.

Static tools (fundamentals, analyst, options, earnings, and the DCF and risk
scores built on fundamentals) exist only where the data folder has the file,
and only on bars whose day is after the record's snapshot date unless
`allow_lookahead=True` (the reference used March-2026 snapshots for 2025
bars; see data.py). Their outputs carry "snapshot_date".

Besides its output dict, every tool gives each ticker a signed sub-score in
[-100, 100] (bullish > 0) and a directional call: +1 if the sub-score >= 15,
-1 if <= -15, else 0 (also 0 when unavailable), so memory can record which
tool was right. Sub-scores:
- get_price_history: 100 clip(last 1-bar return / 0.5 %)   (persistence)
- get_fundamentals: 50 clip(revenueGrowth / 15 %) + 50 clip(profitMargins / 20 %)
- get_analyst_data: 50 clip((3 - recommendation_mean) / 2) + 50 clip(target upside / 30 %)
- get_options_data: 100 clip((0.85 - nearest put/call ratio) / 0.5)
- get_earnings_data: 100 clip(net income growth vs 4 quarters earlier / 20 %)
- compute_technicals: outlook STRONG_BUY 100, BUY 50, NEUTRAL 0, SELL -50, STRONG_SELL -100
- compute_quant_risk: 100 clip(annualised Sharpe / 3)
- compute_momentum: 100 clip(8-bar return / 2 %)  (4-bar return before bar 8)
- compute_correlations: 100 clip(peer momentum / 1 %), peer momentum = the
  4-bar returns of the other tickers weighted by their positive 20-bar
  correlation with this one
- run_dcf_model: 100 clip(implied_upside / 50 %)
- score_risk: 100 clip((5 - overall risk) / 4)
- score_composite_signal: the weighted mean of the available sub-scores of
  technicals .20, momentum .15, dcf .20, risk .10, analyst .15, options .10,
  quant .10, weights renormalised over the tools available for the ticker at
  the bar; signal STRONG_BUY >= 40, BUY >= 15, SELL <= -15, STRONG_SELL <= -40,
  else HOLD; confidence = |score| / 100 x the share of the full weight available.
(clip(x) is clip(x, -1, 1).)

Outputs hold Python floats and None (never NaN), so they compare with == and
serialise as JSON. Static outputs are shared objects: do not mutate them.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from typing import Any, Callable, Sequence

import numpy as np
import pandas as pd

from engine.errors import AELError

from .data import Market, StaticRecord

TOOL_NAMES = (
    "get_price_history", "get_fundamentals", "get_analyst_data", "get_options_data", "get_earnings_data",
    "compute_technicals", "compute_quant_risk", "compute_momentum", "compute_correlations",
    "run_dcf_model", "score_risk", "score_composite_signal",
)
PRICE_TOOLS = ("get_price_history", "compute_technicals", "compute_quant_risk", "compute_momentum",
               "compute_correlations", "score_composite_signal")
STATIC_TOOLS = tuple(t for t in TOOL_NAMES if t not in PRICE_TOOLS)
STATIC_KIND = {"get_fundamentals": "fundamentals", "get_analyst_data": "analyst",
               "get_options_data": "options", "get_earnings_data": "earnings",
               "run_dcf_model": "fundamentals", "score_risk": "fundamentals"}
COMPOSITE_WEIGHTS = {
    "compute_technicals": 0.20, "compute_momentum": 0.15, "run_dcf_model": 0.20, "score_risk": 0.10,
    "get_analyst_data": 0.15, "get_options_data": 0.10, "compute_quant_risk": 0.10,
}
CALL_THRESHOLD = 15.0
STRONG_THRESHOLD = 40.0
ANN = 1008              # 252 days x 4 bars
HISTORY_ROWS = 50       # rows returned by get_price_history
MIN_CORR_RETURNS = 5    # fewer returns give no correlation output
OUTLOOK_SCORE = {"STRONG_BUY": 100.0, "BUY": 50.0, "NEUTRAL": 0.0, "SELL": -50.0, "STRONG_SELL": -100.0}


def _f(x: Any) -> float | None:
    """A JSON-safe float: None for NaN/inf/None."""
    if x is None:
        return None
    x = float(x)
    return x if np.isfinite(x) else None


def _clip(x: float | np.ndarray) -> Any:
    return np.clip(x, -1.0, 1.0)


def call_of(score: float | None) -> int:
    """The directional call of a sub-score (0 when unavailable)."""
    if score is None or not np.isfinite(score):
        return 0
    return 1 if score >= CALL_THRESHOLD else -1 if score <= -CALL_THRESHOLD else 0


def composite_label(score: float) -> str:
    if score >= STRONG_THRESHOLD:
        return "STRONG_BUY"
    if score >= CALL_THRESHOLD:
        return "BUY"
    if score <= -STRONG_THRESHOLD:
        return "STRONG_SELL"
    if score <= -CALL_THRESHOLD:
        return "SELL"
    return "HOLD"


# ----------------------------------------------------------------------------- price arrays
_ARRAYS: "OrderedDict[bytes, PriceArrays]" = OrderedDict()
_ARRAYS_KEPT = 8


def price_arrays(market: Market) -> "PriceArrays":
    """The market's price arrays, computed once per process for the same prices.

    They are a pure function of the four price arrays, and a tenth of a second to build: a branch,
    a rewind's replay, a sweep's seeds on one data folder and every test build the same market again.
    Keyed by a hash of the prices themselves (never by object identity, which a changed copy would
    share); the arrays are read-only, so one holder cannot change what another reads."""
    h = hashlib.blake2b(digest_size=20)
    for a in (market.close, market.high, market.low, market.volume):
        h.update(repr((a.shape, a.dtype.str)).encode())
        h.update(np.ascontiguousarray(a).tobytes())
    key = h.digest()
    found = _ARRAYS.get(key)
    if found is None:
        found = _ARRAYS[key] = PriceArrays(market)
        if len(_ARRAYS) > _ARRAYS_KEPT:
            _ARRAYS.popitem(last=False)
    else:
        _ARRAYS.move_to_end(key)
    return found


class PriceArrays:
    """All causal price-derived arrays of a market, shape (n_bars, n_tickers)."""

    def __init__(self, market: Market):
        self.n, self.k = market.close.shape
        C = pd.DataFrame(market.close)
        H, L, V = pd.DataFrame(market.high), pd.DataFrame(market.low), pd.DataFrame(market.volume)
        self.close = market.close.copy()   # its own: the arrays are shared and read-only
        ret = C.pct_change()
        self.ret1 = ret.to_numpy()
        self._technicals(C, H, L)
        self._quant(C, ret)
        self._momentum(C, V)
        self._correlations()
        for value in vars(self).values():   # shared between holders (price_arrays): nobody writes
            for a in (value.values() if isinstance(value, dict) else (value,)):
                if isinstance(a, np.ndarray):
                    a.flags.writeable = False

    def _technicals(self, C: pd.DataFrame, H: pd.DataFrame, L: pd.DataFrame) -> None:
        delta = C.diff()
        avg_gain = delta.clip(lower=0).rolling(14, min_periods=14).mean()
        avg_loss = (-delta).clip(lower=0).rolling(14, min_periods=14).mean()
        with np.errstate(divide="ignore", invalid="ignore"):
            self.rsi = (100.0 - 100.0 / (1.0 + avg_gain / avg_loss)).to_numpy()
        ema12 = C.ewm(span=12, adjust=False).mean()
        ema26 = C.ewm(span=26, adjust=False).mean()
        macd = ema12 - ema26
        sig = macd.ewm(span=9, adjust=False).mean()
        self.macd, self.macd_signal = macd.to_numpy(), sig.to_numpy()
        mid = C.rolling(20, min_periods=20).mean()
        sd = C.rolling(20, min_periods=20).std()          # ddof 1, as pandas and the reference
        self.bb_mid, self.bb_up, self.bb_low = mid.to_numpy(), (mid + 2 * sd).to_numpy(), (mid - 2 * sd).to_numpy()
        self.sma50 = C.rolling(50, min_periods=50).mean().to_numpy()
        # SMA200, or the mean of all rows so far while there are fewer than 200 (the reference).
        self.sma200 = C.rolling(200, min_periods=1).mean().to_numpy()
        self.hi, self.lo = H.cummax().to_numpy(), L.cummin().to_numpy()
        c = self.close
        with np.errstate(invalid="ignore"):
            # NaN comparisons are False: a missing indicator does not count for the score.
            self.tech_score = ((self.rsi < 70).astype(int) + (self.macd > self.macd_signal)
                               + (c > self.sma50) + (c > self.sma200) + (c > self.bb_low))

    def _quant(self, C: pd.DataFrame, ret: pd.DataFrame) -> None:
        root = np.sqrt(ANN)
        self.vol30 = (ret.rolling(30, min_periods=2).std() * root).to_numpy()
        self.vol_full = (ret.expanding(min_periods=2).std() * root).to_numpy()
        self.ann_return = (ret.expanding(min_periods=2).mean() * ANN).to_numpy()
        self.var95 = ret.expanding(min_periods=2).quantile(0.05).to_numpy()   # linear, as numpy
        neg = ret.where(ret < 0)
        self.neg_vol = (neg.expanding(min_periods=2).std() * root).to_numpy()  # NaNs skipped
        self.max_dd = (1.0 - C / C.cummax()).cummax().to_numpy()
        r = np.nan_to_num(self.ret1)
        self.cvar95 = np.full((self.n, self.k), np.nan)
        for i in range(2, self.n):
            window = r[1 : i + 1]
            tail = window <= self.var95[i]
            with np.errstate(invalid="ignore", divide="ignore"):
                self.cvar95[i] = (window * tail).sum(axis=0) / tail.sum(axis=0)
        with np.errstate(divide="ignore", invalid="ignore"):
            self.sharpe = np.where(self.vol_full > 0, self.ann_return / self.vol_full, np.nan)
            self.sortino = np.where(self.neg_vol > 0, self.ann_return / self.neg_vol, np.nan)
            self.calmar = np.where(self.max_dd >= 1e-3, self.ann_return / self.max_dd, np.nan)

    def _momentum(self, C: pd.DataFrame, V: pd.DataFrame) -> None:
        self.mom = {h: (C / C.shift(h) - 1.0).to_numpy() for h in (4, 8, 20, 60)}
        self.slope = np.full((self.n, self.k), np.nan)
        self.r2 = np.full((self.n, self.k), np.nan)
        c = self.close
        for i in range(2, self.n):                  # linear fit over the last <= 20 closes
            y = c[max(0, i - 19) : i + 1]
            x = np.arange(len(y), dtype=float)
            x -= x.mean()
            yc = y - y.mean(axis=0)
            # Plain sums, not `@`: BLAS kernels may round differently with memory alignment,
            # and a bar's value must not depend on anything but its rows.
            sxx, sxy, syy = (x * x).sum(), (x[:, None] * yc).sum(axis=0), (yc * yc).sum(axis=0)
            self.slope[i] = sxy / sxx
            with np.errstate(divide="ignore", invalid="ignore"):
                self.r2[i] = np.where(syy > 0, sxy * sxy / (sxx * syy), 0.0)
        self.vol5 = V.rolling(5, min_periods=1).mean().to_numpy()
        self.vol20 = V.rolling(20, min_periods=1).mean().to_numpy()

    def _correlations(self) -> None:
        """Pairwise return correlations from cumulative co-moments (population moments)."""
        r = np.nan_to_num(self.ret1)                # row 0 has no return: it adds nothing
        s1 = np.cumsum(r, axis=0)
        s2 = np.cumsum(r[:, :, None] * r[:, None, :], axis=0)
        count = np.arange(self.n, dtype=float)      # returns seen by bar i
        self.corr_full = _corr(s1, s2, count)
        w = np.minimum(count, 20.0).astype(int)
        lag = np.arange(self.n) - w               # >= 0; s1[0] = s2[0] = 0 (bar 0 has no return)
        self.corr_20 = _corr(s1 - s1[lag], s2 - s2[lag], w.astype(float))
        enough = count >= MIN_CORR_RETURNS
        self.corr_full[~enough] = np.nan
        self.corr_20[~enough] = np.nan
        ret4 = self.mom[4]
        pos = np.clip(np.nan_to_num(self.corr_20), 0.0, None)
        idx = np.arange(self.k)
        pos[:, idx, idx] = 0.0                       # a ticker is not its own peer
        peer_ret = np.where(np.isnan(ret4), 0.0, ret4)
        weight = pos * (~np.isnan(ret4))[:, None, :]
        with np.errstate(divide="ignore", invalid="ignore"):
            self.peer_momentum = (weight * peer_ret[:, None, :]).sum(axis=2) / weight.sum(axis=2)
        self.peer_momentum[~enough] = np.nan


def _corr(s1: np.ndarray, s2: np.ndarray, count: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        c = np.maximum(count, 1.0)[:, None]
        mean = s1 / c
        cov = s2 / c[:, :, None] - mean[:, :, None] * mean[:, None, :]
        var = np.clip(np.diagonal(cov, axis1=1, axis2=2), 0.0, None)
        sd = np.sqrt(var)
        out = cov / (sd[:, :, None] * sd[:, None, :])
    out[~np.isfinite(out)] = np.nan
    return np.clip(out, -1.0, 1.0)


# ----------------------------------------------------------------------------- static helpers
def _num(info: dict[str, Any], key: str) -> float | None:
    v = info.get(key)
    return _f(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def dcf_output(ticker: str, info: dict[str, Any]) -> dict[str, Any] | None:
    """The reference's fallback Gordon model: r = 10 %, g = min(revenueGrowth, 8 %) (5 % if missing),
    implied_upside = FCF / market cap x (1 + g) / (r - g) - 1. None without FCF or market cap."""
    fcf, mcap = _num(info, "freeCashflow"), _num(info, "marketCap")
    if fcf is None or not mcap:
        return None
    growth = _num(info, "revenueGrowth")
    g = min(growth, 0.08) if growth is not None else 0.05
    upside = fcf / mcap * (1 + g) / (0.10 - g) - 1.0
    signal = "UNDERVALUED" if upside > 0.15 else "OVERVALUED" if upside < -0.15 else "FAIR"
    return {"ticker": ticker, "fcf": fcf, "market_cap": mcap, "growth_rate": g,
            "pe_ratio": _num(info, "trailingPE"), "implied_upside": upside, "signal": signal}


def risk_output(ticker: str, info: dict[str, Any]) -> dict[str, Any]:
    """The reference's 1-10 risk sub-scores; a missing input gives the neutral 5."""
    def clamp(x: float | None) -> float:
        return 5.0 if x is None or not np.isfinite(x) else float(min(10.0, max(1.0, x)))

    pe, cr, de = _num(info, "trailingPE"), _num(info, "currentRatio"), _num(info, "debtToEquity")
    growth, beta = _num(info, "revenueGrowth"), _num(info, "beta")
    avg50, hi, lo = _num(info, "fiftyDayAverage"), _num(info, "fiftyTwoWeekHigh"), _num(info, "fiftyTwoWeekLow")
    fin = None if cr is None and de is None else 5 - 2 * ((cr if cr is not None else 1.0) - 1) + (de or 0.0) / 50
    tech = 10 * (avg50 - lo) / (hi - lo) if None not in (avg50, hi, lo) and hi != lo else None
    scores = {"valuation": clamp(pe / 5 if pe is not None else None), "financial": clamp(fin),
              "growth": clamp(5 - 20 * growth if growth is not None else None),
              "macro": clamp(5 * beta if beta is not None else None), "technical": clamp(tech)}
    overall = (0.25 * scores["valuation"] + 0.25 * scores["financial"] + 0.25 * scores["growth"]
               + 0.15 * scores["macro"] + 0.10 * scores["technical"])
    rating = "LOW" if overall <= 3 else "MODERATE" if overall <= 5 else "HIGH" if overall <= 7 else "VERY HIGH"
    return {"ticker": ticker, "scores": scores, "overall": overall, "rating": rating}


def _nearest_chain(options: dict[str, Any]) -> dict[str, Any] | None:
    chains = options.get("chains") or {}
    return chains[sorted(chains)[0]] if chains else None


def _earnings_growth(earnings: dict[str, Any]) -> float | None:
    """Net income of the latest quarter vs 4 quarters earlier (or the earliest one given)."""
    q = earnings.get("quarterly_income") or {}
    dates = sorted(q, reverse=True)
    values = [_num(q[d], "Net Income") for d in dates]
    values = [v for v in values if v is not None]
    if len(values) < 2:
        return None
    base = values[min(4, len(values) - 1)]
    return (values[0] - base) / abs(base) if base else None


# ----------------------------------------------------------------------------- the toolbox
class ToolBox:
    """The 12 tools over one market, precomputed; read with `signals`, `calls`, `scores`.

    `tools` restricts the set (a tool preset); the composite combines the
    enabled tools only. `allow_lookahead=True` uses static snapshots on bars
    before their snapshot date (the reference's leak, for reproduction only).
    """

    def __init__(self, market: Market, tools: Sequence[str] | None = None, *, allow_lookahead: bool = False):
        unknown = [t for t in (tools or ()) if t not in TOOL_NAMES]
        if unknown:
            raise AELError(f"unknown tool(s) {', '.join(unknown)}; the tools are {', '.join(TOOL_NAMES)}")
        self.market = market
        self.tools = tuple(t for t in TOOL_NAMES if tools is None or t in tools)
        self.allow_lookahead = allow_lookahead
        self.p = price_arrays(market)
        self._stamps = [t.isoformat() for t in market.timestamps]   # formatting is the slow part of a read
        n, k = market.close.shape
        days = market.dates
        self._static: dict[str, list[StaticRecord | None]] = {}
        self._static_ok: dict[str, np.ndarray] = {}
        for kind in ("fundamentals", "analyst", "options", "earnings"):
            recs = [market.static.get(t, {}).get(kind) for t in market.tickers]
            self._static[kind] = recs
            self._static_ok[kind] = np.column_stack(
                [self._allowed(rec, days) for rec in recs]) if k else np.zeros((n, 0), bool)
        self._build_static_outputs()
        self.avail: dict[str, np.ndarray] = {}
        self.score: dict[str, np.ndarray] = {}
        self._build_scores()

    # -- availability ------------------------------------------------------------------
    def _allowed(self, rec: StaticRecord | None, days: np.ndarray) -> np.ndarray:
        if rec is None:
            return np.zeros(len(days), bool)
        if self.allow_lookahead:
            return np.ones(len(days), bool)
        if rec.snapshot is None:                       # cannot prove it is not from the future
            return np.zeros(len(days), bool)
        return np.array([d > rec.snapshot for d in days], bool)   # taken before the bar's day

    def _build_static_outputs(self) -> None:
        """Per-ticker static outputs, built once (they do not change from bar to bar)."""
        self._fund_out, self._dcf_out, self._risk_out = [], [], []
        self._opt_out, self._earn_out, self._analyst_base = [], [], []
        for j, t in enumerate(self.market.tickers):
            stamp = lambda rec: {"snapshot_date": rec.snapshot.isoformat() if rec.snapshot else None}  # noqa: E731
            fund = self._static["fundamentals"][j]
            info = (fund.data.get("info") or {}) if fund else {}
            self._fund_out.append({"ticker": t, **fund.data, **stamp(fund)} if fund else None)
            dcf = dcf_output(t, info) if fund else None
            self._dcf_out.append({**dcf, **stamp(fund)} if dcf else None)
            self._risk_out.append({**risk_output(t, info), **stamp(fund)} if fund else None)
            opt = self._static["options"][j]
            if opt:
                chain = _nearest_chain(opt.data) or {}
                sides = (chain.get("calls_summary") or {}, chain.get("puts_summary") or {})
                ivs = [side.get("avg_iv") for side in sides]
                ivs = [v for v in ivs if isinstance(v, (int, float))]
                self._opt_out.append({"ticker": t, **opt.data,
                                      "nearest_put_call_ratio": _f(chain.get("put_call_ratio")),
                                      "nearest_avg_iv": _f(np.mean(ivs)) if ivs else None, **stamp(opt)})
            else:
                self._opt_out.append(None)
            earn = self._static["earnings"][j]
            self._earn_out.append({"ticker": t, **earn.data, "net_income_growth": _earnings_growth(earn.data),
                                   **stamp(earn)} if earn else None)
            an = self._static["analyst"][j]
            self._analyst_base.append({"ticker": t, **an.data, **stamp(an)} if an else None)

    # -- sub-scores --------------------------------------------------------------------
    def _const(self, values: list[float | None]) -> np.ndarray:
        row = np.array([np.nan if v is None else v for v in values], float)
        return np.broadcast_to(row, (self.market.n_bars, len(values))).copy()

    def _build_scores(self) -> None:
        p, n, k = self.p, self.market.n_bars, self.market.n_tickers
        ones = np.ones((n, k), bool)
        ok = self._static_ok
        sc: dict[str, np.ndarray] = {}
        av: dict[str, np.ndarray] = {}
        with np.errstate(invalid="ignore", divide="ignore"):
            av["get_price_history"] = ones
            sc["get_price_history"] = 100 * _clip(p.ret1 / 0.005)
            av["compute_technicals"] = ones
            sc["compute_technicals"] = np.select(
                [p.tech_score >= 5, p.tech_score == 4, p.tech_score == 3, p.tech_score == 2], [100.0, 50.0, 0.0, -50.0],
                -100.0)
            av["compute_quant_risk"] = np.broadcast_to((np.arange(n) >= 2)[:, None], (n, k)).copy()
            sc["compute_quant_risk"] = 100 * _clip(p.sharpe / 3)
            av["compute_momentum"] = ones
            primary = np.where(np.isnan(p.mom[8]), p.mom[4], p.mom[8])
            sc["compute_momentum"] = 100 * _clip(primary / 0.02)
            enough = (np.arange(n) >= MIN_CORR_RETURNS)[:, None] & (k > 1)
            av["compute_correlations"] = np.broadcast_to(enough, (n, k)).copy()
            sc["compute_correlations"] = 100 * _clip(p.peer_momentum / 0.01)

            fund_info = [(r.data.get("info") or {}) if r else {} for r in self._static["fundamentals"]]
            growth = self._const([_num(i, "revenueGrowth") for i in fund_info])
            margin = self._const([_num(i, "profitMargins") for i in fund_info])
            av["get_fundamentals"] = ok["fundamentals"]
            sc["get_fundamentals"] = _mean_parts([50 * _clip(growth / 0.15), 50 * _clip(margin / 0.20)])
            has_dcf = np.array([d is not None for d in self._dcf_out], bool)
            av["run_dcf_model"] = ok["fundamentals"] & has_dcf[None, :]
            sc["run_dcf_model"] = 100 * _clip(self._const([d and d["implied_upside"] for d in self._dcf_out]) / 0.5)
            av["score_risk"] = ok["fundamentals"]
            sc["score_risk"] = 100 * _clip((5 - self._const([r and r["overall"] for r in self._risk_out])) / 4)
            av["get_options_data"] = ok["options"]
            sc["get_options_data"] = 100 * _clip(
                (0.85 - self._const([o and o["nearest_put_call_ratio"] for o in self._opt_out])) / 0.5)
            av["get_earnings_data"] = ok["earnings"]
            growth_q = self._const([e and e["net_income_growth"] for e in self._earn_out])
            sc["get_earnings_data"] = 100 * _clip(growth_q / 0.2)
            rec_mean = self._const([a and _num(a, "recommendation_mean") for a in self._analyst_base])
            target = self._const([a and _num(a, "target_mean_price") for a in self._analyst_base])
            self.analyst_upside = target / self.market.close - 1.0       # bar price: changes by bar
            av["get_analyst_data"] = ok["analyst"]
            sc["get_analyst_data"] = _mean_parts([50 * _clip((3 - rec_mean) / 2),
                                                  50 * _clip(self.analyst_upside / 0.3)])

        for name in TOOL_NAMES[:-1]:
            enabled = name in self.tools
            self.avail[name] = av[name] & enabled
            self.score[name] = np.where(self.avail[name], sc[name], np.nan)
        # The composite: weighted mean over the components available at (bar, ticker).
        parts = [t for t in COMPOSITE_WEIGHTS if t in self.tools]
        stack = np.stack([self.score[t] for t in parts], axis=-1) if parts else np.full((n, k, 0), np.nan)
        w = np.array([COMPOSITE_WEIGHTS[t] for t in parts])
        have = ~np.isnan(stack)
        wsum = (have * w).sum(axis=-1)
        with np.errstate(invalid="ignore", divide="ignore"):
            comp = np.where(wsum > 0, (np.nan_to_num(stack) * w).sum(axis=-1) / wsum, 0.0)
        self._composite_parts, self._composite_have, self._composite_wsum = parts, have, wsum
        self.avail["score_composite_signal"] = np.full((n, k), "score_composite_signal" in self.tools)
        self.score["score_composite_signal"] = np.where(self.avail["score_composite_signal"], comp, np.nan)

    # -- reading -----------------------------------------------------------------------
    def available_tools(self, bar: int) -> list[str]:
        """The tools available for at least one ticker at `bar`."""
        return [t for t in self.tools if self.avail[t][bar].any()]

    def scores(self, bar: int) -> dict[str, dict[str, float]]:
        """{ticker: {tool: sub-score in [-100, 100]}} for the available tools."""
        self._check(bar)
        return {tk: {t: float(self.score[t][bar, j]) for t in self.tools
                     if self.avail[t][bar, j] and np.isfinite(self.score[t][bar, j])}
                for j, tk in enumerate(self.market.tickers)}

    def calls(self, bar: int) -> dict[str, dict[str, int]]:
        """{ticker: {tool: +1/0/-1}} for the tools available at `bar` (see the module docstring)."""
        self._check(bar)
        return {tk: {t: call_of(self.score[t][bar, j]) for t in self.tools if self.avail[t][bar, j]}
                for j, tk in enumerate(self.market.tickers)}

    def signals(self, bar: int) -> dict[str, dict[str, dict[str, Any]]]:
        """{ticker: {tool: output}} for the tools available at `bar`, as of that bar."""
        self._check(bar)
        out: dict[str, dict[str, dict[str, Any]]] = {}
        for j, tk in enumerate(self.market.tickers):
            out[tk] = {t: self._output(t, j, bar) for t in self.tools if self.avail[t][bar, j]}
        return out

    def output(self, tool: str, ticker: str, bar: int) -> dict[str, Any] | None:
        """One tool's output for one ticker at `bar`, or None if unavailable."""
        self._check(bar)
        j = self.market.index(ticker)
        return self._output(tool, j, bar) if tool in self.tools and self.avail[tool][bar, j] else None

    def _check(self, bar: int) -> None:
        if not 0 <= bar < self.market.n_bars:
            raise IndexError(f"bar {bar} outside 0..{self.market.n_bars - 1}")

    def _output(self, tool: str, j: int, i: int) -> dict[str, Any]:
        return _BUILDERS[tool](self, j, i)

    # -- output builders (one per tool) --------------------------------------------------
    def _price_history(self, j: int, i: int) -> dict[str, Any]:
        m, s = self.market, slice(max(0, i - HISTORY_ROWS + 1), i + 1)
        return {"ticker": m.tickers[j], "rows": i + 1, "start": self._stamps[0], "end": self._stamps[i],
                "latest_close": float(m.close[i, j]), "prices": m.close[s, j].tolist(),
                "volumes": m.volume[s, j].tolist(), "high": m.high[s, j].tolist(), "low": m.low[s, j].tolist(),
                "open": m.open[s, j].tolist(), "dates": self._stamps[s]}

    def _technicals(self, j: int, i: int) -> dict[str, Any]:
        p, c = self.p, float(self.p.close[i, j])
        rsi = _f(p.rsi[i, j])
        up, low, mid = _f(p.bb_up[i, j]), _f(p.bb_low[i, j]), _f(p.bb_mid[i, j])
        band = (c - low) / (up - low) if up is not None and low is not None and up > low else None
        macd, sig = float(p.macd[i, j]), float(p.macd_signal[i, j])
        sma50, sma200 = _f(p.sma50[i, j]), _f(p.sma200[i, j])
        hi, lo = float(p.hi[i, j]), float(p.lo[i, j])
        score = int(p.tech_score[i, j])
        outlook = ("STRONG_BUY" if score >= 5 else "BUY" if score == 4 else "NEUTRAL" if score == 3
                   else "SELL" if score == 2 else "STRONG_SELL")
        return {
            "ticker": self.market.tickers[j],
            "rsi_14": {"value": rsi, "signal": "NEUTRAL" if rsi is None else
                       "OVERBOUGHT" if rsi > 70 else "OVERSOLD" if rsi < 30 else "NEUTRAL"},
            "macd": {"macd": macd, "signal": sig, "histogram": macd - sig,
                     "trend": "BULLISH" if macd > sig else "BEARISH"},
            "bollinger": {"upper": up, "middle": mid, "lower": low,
                          "position": band},
            "moving_averages": {"sma_50": sma50, "sma_200": sma200, "above_50": sma50 is not None and c > sma50,
                                "above_200": sma200 is not None and c > sma200},
            "support_resistance": {"52w_high": hi, "52w_low": lo,
                                   "pct_from_high": c / hi - 1, "pct_from_low": c / lo - 1},
            "technical_score": score, "technical_outlook": outlook,
        }

    def _quant_risk(self, j: int, i: int) -> dict[str, Any]:
        p = self.p
        v30, vf = _f(p.vol30[i, j]), _f(p.vol_full[i, j])
        trend = None if v30 is None or vf is None else \
            "INCREASING" if v30 > 1.1 * vf else "DECREASING" if v30 < 0.9 * vf else "STABLE"
        return {
            "ticker": self.market.tickers[j],
            "volatility": {"realized_30bar_annualized": v30, "realized_full_annualized": vf, "trend": trend},
            "var": {"var_95": _f(p.var95[i, j]), "cvar_95": _f(p.cvar95[i, j])},
            "risk_return": {"annual_return": _f(p.ann_return[i, j]), "annual_volatility": vf,
                            "sharpe_ratio": _f(p.sharpe[i, j]), "sortino_ratio": _f(p.sortino[i, j]),
                            "max_drawdown": float(p.max_dd[i, j]), "calmar_ratio": _f(p.calmar[i, j])},
        }

    def _momentum(self, j: int, i: int) -> dict[str, Any]:
        p = self.p
        slope, r2 = _f(p.slope[i, j]), _f(p.r2[i, j])
        ratio = float(p.vol5[i, j] / p.vol20[i, j]) if p.vol20[i, j] > 0 else None
        return {
            "ticker": self.market.tickers[j], "latest_price": float(p.close[i, j]),
            **{f"return_{h}bar": _f(p.mom[h][i, j]) for h in (4, 8, 20, 60)},
            "trend": {"slope_per_bar": slope, "r_squared": r2,
                      "direction": None if slope is None else "UP" if slope > 0 else "DOWN" if slope < 0 else "FLAT",
                      "strength": None if r2 is None else "STRONG" if r2 > 0.7 else "MODERATE" if r2 > 0.4 else "WEAK"},
            "volume_trend": {"avg_20bar": float(p.vol20[i, j]), "avg_5bar": float(p.vol5[i, j]), "ratio": ratio,
                             "signal": None if ratio is None else
                             "INCREASING" if ratio > 1.2 else "DECREASING" if ratio < 0.8 else "STABLE"},
        }

    def _correlations(self, j: int, i: int) -> dict[str, Any]:
        tk = self.market.tickers
        full = {tk[q]: _f(self.p.corr_full[i, j, q]) for q in range(len(tk)) if q != j}
        roll = {tk[q]: _f(self.p.corr_20[i, j, q]) for q in range(len(tk)) if q != j}
        ranked = sorted(((v, t) for t, v in full.items() if v is not None), reverse=True)
        return {"ticker": tk[j], "full_period_correlation": full, "rolling_correlation_vs_target": roll,
                "most_correlated": ranked[0][1] if ranked else None,
                "least_correlated": ranked[-1][1] if ranked else None,
                "peer_momentum": _f(self.p.peer_momentum[i, j])}

    def _analyst(self, j: int, i: int) -> dict[str, Any]:
        return {**self._analyst_base[j], "price": float(self.market.close[i, j]),
                "implied_upside": _f(self.analyst_upside[i, j])}

    def _composite(self, j: int, i: int) -> dict[str, Any]:
        have = self._composite_have[i, j]
        comps = {t: float(self.score[t][i, j]) for t, h in zip(self._composite_parts, have) if h}
        score = float(self.score["score_composite_signal"][i, j])
        return {"ticker": self.market.tickers[j], "composite_score": score, "signal": composite_label(score),
                "confidence": min(1.0, abs(score) / 100.0) * float(self._composite_wsum[i, j]),
                "n_signals": len(comps), "components": comps}


def _mean_parts(parts: list[np.ndarray]) -> np.ndarray:
    """Sum of equally weighted parts, renormalised over the parts that are present."""
    stack = np.stack(parts)
    have = ~np.isnan(stack)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(have.any(0), np.nansum(stack, 0) * len(parts) / np.maximum(have.sum(0), 1), np.nan)


_BUILDERS: dict[str, Callable[[ToolBox, int, int], dict[str, Any]]] = {
    "get_price_history": ToolBox._price_history,
    "get_fundamentals": lambda tb, j, i: tb._fund_out[j],
    "get_analyst_data": ToolBox._analyst,
    "get_options_data": lambda tb, j, i: tb._opt_out[j],
    "get_earnings_data": lambda tb, j, i: tb._earn_out[j],
    "compute_technicals": ToolBox._technicals,
    "compute_quant_risk": ToolBox._quant_risk,
    "compute_momentum": ToolBox._momentum,
    "compute_correlations": ToolBox._correlations,
    "run_dcf_model": lambda tb, j, i: tb._dcf_out[j],
    "score_risk": lambda tb, j, i: tb._risk_out[j],
    "score_composite_signal": ToolBox._composite,
}
