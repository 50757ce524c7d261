"""The LLM allocator's prompt (facts §5 step 4) and its robust weight parser (step 6).

The prompt has the reference's sections in its order: header; current
portfolio (weights, value, drawdown, last 4 returns); market regime with a
one-line hint; selected strategy; yesterday's analysis (only if the insight
is non-empty and its confidence > 0.4); market signals, one line per ticker
built from the compute_*, score_* and run_dcf_* tools (the raw get_* tools are
not shown, as in the reference); learned rules (procedural memory); recent
allocation lessons (episodic/semantic memory); the last 3 allocations; the
task. Unlike the reference, whose JSON template printed every ticker as one
key, the template has one key per ticker plus "cash", and signal lines show
readable numbers rather than the first four raw key=value items.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

import numpy as np

SHOWN_PREFIXES = ("compute_", "score_", "run_dcf")
INSIGHT_MIN_CONFIDENCE = 0.4
REGIME_HINTS = {
    "bullish": "Recent portfolio returns are positive on average; trends may persist.",
    "bearish": "Recent portfolio returns are negative on average; consider defensive names or cash.",
    "mixed": "No clear direction in recent returns; diversify.",
    "unknown": "Not enough history yet to judge the regime.",
}


@dataclass
class PromptContext:
    """Everything the prompt shows. `recent_allocations` is a list of (weights, return)."""

    tickers: Sequence[str]
    sectors: Mapping[str, str]
    bar_time: str
    bar: int
    n_bars: int
    weights: Mapping[str, float]
    cash: float
    value: float = 1.0
    drawdown: float = 0.0
    recent_returns: Sequence[float] = ()
    regime: str = "unknown"
    signals: Mapping[str, Mapping[str, Mapping[str, Any]]] = field(default_factory=dict)
    strategy: str | None = None
    strategy_guidance: str | None = None
    insight: Mapping[str, Any] | None = None     # key_insight, market_regime, confidence
    rules: Sequence[str] = ()
    lessons: Sequence[str] = ()
    recent_allocations: Sequence[tuple[Mapping[str, float], float]] = ()
    max_sector_weight: float = 0.30


def _pct(x: Any, digits: int = 2, sign: bool = True) -> str:
    if x is None:
        return "n/a"
    return f"{x:+.{digits}%}" if sign else f"{x:.{digits}%}"


def _num(x: Any, fmt: str = ".2f") -> str:
    return "n/a" if x is None else format(x, fmt)


def summarise(tool: str, out: Mapping[str, Any]) -> str | None:
    """A short readable summary of one tool output for the signal line (None: not shown)."""
    if tool == "compute_technicals":
        return (f"technicals(score={out['technical_score']}/5 {out['technical_outlook']}, "
                f"rsi={_num(out['rsi_14']['value'], '.0f')}, macd={out['macd']['trend'].lower()})")
    if tool == "compute_quant_risk":
        rr = out["risk_return"]
        return (f"quant_risk(vol30={_pct(out['volatility']['realized_30bar_annualized'], 0, False)}, "
                f"sharpe={_num(rr['sharpe_ratio'])}, var95={_pct(out['var']['var_95'])})")
    if tool == "compute_momentum":
        tr = out["trend"]
        return (f"momentum(r4={_pct(out['return_4bar'])}, r8={_pct(out['return_8bar'])}, "
                f"r20={_pct(out['return_20bar'])}, trend={tr['direction'] or 'n/a'}/{tr['strength'] or 'n/a'})")
    if tool == "compute_correlations":
        most = out.get("most_correlated")
        c = out["full_period_correlation"].get(most) if most else None
        return f"correlations(most={most or 'n/a'} {_num(c)}, peer_mom={_pct(out.get('peer_momentum'))})"
    if tool == "run_dcf_model":
        return f"dcf(upside={_pct(out['implied_upside'], 0)}, {out['signal']}, data of {out.get('snapshot_date')})"
    if tool == "score_risk":
        return f"risk(overall={_num(out['overall'], '.1f')}/10 {out['rating']})"
    if tool == "score_composite_signal":
        return f"composite({out['composite_score']:+.0f} {out['signal']}, {out['n_signals']} signals)"
    if tool.startswith(SHOWN_PREFIXES):
        return f"{tool}(...)"
    return None


def signal_line(ticker: str, sector: str, tools: Mapping[str, Mapping[str, Any]]) -> str:
    parts = [s for s in (summarise(t, o) for t, o in tools.items()) if s]
    return f"- {ticker} [{sector}]: " + ("; ".join(parts) if parts else "no signals")


def json_template(tickers: Sequence[str]) -> str:
    """The answer format: one key per ticker and "cash" (the reference printed all tickers as one key)."""
    keys = [f'"{t}": <weight>' for t in tickers] + ['"cash": <weight>']
    return "{" + ", ".join(keys) + "}"


def build_prompt(ctx: PromptContext) -> str:
    L: list[str] = [
        f"You are a portfolio manager allocating capital across {len(ctx.tickers)} US stocks, "
        f"rebalanced every 2 trading hours. Bar {ctx.bar + 1} of {ctx.n_bars}: {ctx.bar_time}.",
        "", "## Current Portfolio",
    ]
    held = [f"{t} {w:.1%}" for t, w in sorted(ctx.weights.items(), key=lambda kv: -kv[1]) if w > 0]
    L.append("Weights: " + (", ".join(held) if held else "none") + f"; cash {ctx.cash:.1%}")
    L.append(f"Total value: {ctx.value:.4f} (start 1.0); drawdown {ctx.drawdown:.2%}")
    last = list(ctx.recent_returns)[-4:]
    L.append("Last returns: " + (", ".join(_pct(r) for r in last) if last else "none yet"))
    L += ["", "## Market Regime", f"{ctx.regime}: {REGIME_HINTS.get(ctx.regime, '')}".rstrip()]
    if ctx.strategy:
        L += ["", f"## Selected Strategy: {ctx.strategy}"]
        if ctx.strategy_guidance:
            L.append(ctx.strategy_guidance)
    ins = ctx.insight or {}
    if ins.get("key_insight") and float(ins.get("confidence", 0.0)) > INSIGHT_MIN_CONFIDENCE:
        L += ["", "## Yesterday's Market Analysis (one of several inputs)",
              f"Regime: {ins.get('market_regime', 'unknown')} (confidence {float(ins['confidence']):.2f})",
              str(ins["key_insight"])]
    if ctx.signals:  # none at all: the agent sees no tools (the no-tools variant), not "no signals"
        L += ["", "## Market Signals"]
        for t in ctx.tickers:
            L.append(signal_line(t, ctx.sectors.get(t, "Unknown"), ctx.signals.get(t, {})))
    if ctx.rules:
        L += ["", "## Learned Rules"] + [f"- {r}" for r in ctx.rules]
    if ctx.lessons:
        L += ["", "## Recent Allocation Lessons"] + [f"- {x}" for x in ctx.lessons]
    if ctx.recent_allocations:
        L += ["", "## Recent Allocations"]
        for weights, ret in list(ctx.recent_allocations)[-3:]:
            top = sorted(weights.items(), key=lambda kv: -kv[1])[:3]
            L.append("- " + ", ".join(f"{t} {w:.0%}" for t, w in top) + f" -> return {_pct(ret)}")
    L += ["", "## Task",
          "Choose the weights to hold over the next bar. Weights are long-only fractions in [0, 1]; "
          "the ticker weights plus cash must sum to 1. Diversify, and keep at most "
          f"{ctx.max_sector_weight:.0%} of the capital in any one sector.",
          "Answer with one JSON object and nothing else:", json_template(ctx.tickers)]
    return "\n".join(L)


# ----------------------------------------------------------------------------- parsing
@dataclass
class ParsedWeights:
    """`weights` has every ticker; cash = 1 - sum(weights). `fallback` is None when
    the answer was used, else why equal weight was used instead; `notes` lists repairs."""

    weights: dict[str, float]
    cash: float
    fallback: str | None = None
    notes: list[str] = field(default_factory=list)


_FENCE = re.compile(r"```(?:json|JSON)?\s*(\{.*?\})\s*```", re.DOTALL)
_TRAILING_COMMA = re.compile(r",\s*([}\]])")


def _loads(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return json.loads(_TRAILING_COMMA.sub(r"\1", text))   # a common LLM slip


def _balanced_objects(text: str):
    """Every balanced {...} substring, in order of its opening brace (strings respected)."""
    for start in (i for i, ch in enumerate(text) if ch == "{"):
        depth, in_str, esc = 0, False, False
        for j in range(start, len(text)):
            ch = text[j]
            if in_str:
                if esc:
                    esc = False
                elif ch == "\\":
                    esc = True
                elif ch == '"':
                    in_str = False
                continue
            if ch == '"':
                in_str = True
            elif ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
                if depth == 0:
                    yield text[start : j + 1]
                    break


def extract_json(text: str) -> dict[str, Any] | None:
    """The JSON object of an answer: inside a ```json fence, else the first
    balanced {...} that parses. A {"weights": {...}} wrapper is unwrapped."""
    candidates = [m.group(1) for m in _FENCE.finditer(text)] + list(_balanced_objects(text))
    for c in candidates:
        try:
            obj = _loads(c)
        except ValueError:
            continue
        if isinstance(obj, dict):
            for key in ("weights", "allocation", "portfolio"):
                inner = obj.get(key)
                if isinstance(inner, dict):
                    return {**inner, **({"cash": obj["cash"]} if "cash" in obj and "cash" not in inner else {})}
            return obj
    return None


def _number(v: Any) -> float | None:
    if isinstance(v, bool):
        return None
    if isinstance(v, (int, float)):
        return float(v) if np.isfinite(v) else None
    if isinstance(v, str):
        s = v.strip().rstrip("%")
        try:
            x = float(s)   # "30%" reads as 30: the percent test below scales the whole answer
        except ValueError:
            return None
        return x if np.isfinite(x) else None
    return None


def equal_weight_answer(tickers: Sequence[str], reason: str) -> ParsedWeights:
    n = len(tickers)
    return ParsedWeights({t: 1.0 / n for t in tickers}, 0.0, reason)


def parse_weights(text: str, tickers: Sequence[str]) -> ParsedWeights:
    """Weights from an LLM answer, never raising (the reference's rules, step 6):

    - the JSON object is found as `extract_json` says; none -> equal weight;
    - keys match tickers case-insensitively; a missing ticker gets 0;
    - a ticker value that is not a number in [0, 1] becomes 1/N (as the
      reference), except that an answer in percent (every value in [0, 100],
      some value above 1 or written "30%", the total in [50, 150]) is read
      as percent first;
    - total = sum(weights) + cash; outside [0.5, 1.5] -> equal weight;
      above 1 the ticker weights are scaled by 1/total;
    - cash is then 1 - sum(weights).
    """
    try:
        obj = extract_json(text or "")
        if obj is None:
            return equal_weight_answer(tickers, "no JSON object in the answer")
        by_key = {str(k).strip().upper(): v for k, v in obj.items()}
        n = len(tickers)
        raw = {t: _number(by_key.get(t.upper(), 0.0)) for t in tickers}
        cash = _number(by_key.get("CASH", 0.0))
        notes: list[str] = []
        values = [v for v in [*raw.values(), cash] if v is not None]
        marked = any(isinstance(v, str) and v.strip().endswith("%") for v in by_key.values())
        if values and all(0 <= v <= 100 for v in values) and (marked or any(v > 1 for v in values)) \
                and 50 <= sum(values) <= 150:
            raw = {t: None if v is None else v / 100.0 for t, v in raw.items()}
            cash = None if cash is None else cash / 100.0
            notes.append("read as percent")
        weights = {}
        for t, v in raw.items():
            if v is None or not 0.0 <= v <= 1.0:
                notes.append(f"{t}: invalid value {by_key.get(t.upper())!r} -> 1/N")
                v = 1.0 / n
            weights[t] = v
        if cash is None or not 0.0 <= cash <= 1.0:
            if "CASH" in by_key:
                notes.append(f"cash: invalid value {by_key['CASH']!r} -> 0")
            cash = 0.0
        total = sum(weights.values()) + cash
        if not 0.5 <= total <= 1.5:
            return equal_weight_answer(tickers, f"weights sum to {total:.3f}, outside [0.5, 1.5]")
        if total > 1.0:
            weights = {t: w / total for t, w in weights.items()}
        return ParsedWeights(weights, max(0.0, 1.0 - sum(weights.values())), None, notes)
    except Exception as exc:  # the parser must never stop a run: any surprise means equal weight
        return equal_weight_answer(tickers, f"unparseable answer ({type(exc).__name__})")
