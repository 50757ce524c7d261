"""The offline allocator: tool signals weighted by the reliability memory shows it.

For each ticker the allocator combines the tools' sub-scores (in [-1, 1],
bullish > 0) into one signal, weighting each tool by how reliable the
retrieved memories say it is:

- reliability rho = (a + right) / (a + b + calls), a Beta posterior mean whose
  prior (a, b) = prior_strength x (0.55, 0.45) is "equal reliability": with
  no evidence every tool counts the same;
- evidence comes from whatever the chosen policy retrieved: an episodic entry
  adds its bar's decided calls (right or wrong) for every tool, a semantic
  pattern adds its counts (at most `pattern_cap` calls) when it is about the
  ticker's sector or pooled, a procedural rule (only for a policy that sees
  the procedural tier) multiplies the tool's weight by `rule_factor` (trust)
  or divides it (shrink);
- a tool's weight is (2 rho - 1) x factors, so an unreliable tool (rho < 0.5)
  votes against its own call; the signal is the weighted sum of sub-scores
  over the prior's total weight, clipped to [-1, 1]: the prior gives the plain
  mean sub-score, stronger evidence amplifies, weaker dampens.

Weights: w_j ∝ max(0, 1 + tilt x signal_j), capped at `max_weight` per ticker,
then blended with the weights held (`inertia`, to keep turnover sane), then
scaled by the exposure. Exposure is 1 unless a fresh injected insight (applied
within `insight_ttl` episodes, confidence > 0.4 as the reference's prompt gate)
labels the regime: bearish cuts it by 0.6 x confidence, range_bound by 0.2 x,
mixed by 0.1 x; the rest is cash. The insight's "Trust: …" and "Shrink: …"
tool lists multiply or divide those tools' weights by `insight_factor`.

Everything here is a pure function of its inputs: no memory access, no
randomness.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping, Sequence

import numpy as np

from engine.memory import MemoryEntry

from .memory_records import ALL_SECTORS, short

EXPOSURE_CUT = {"bearish": 0.6, "range_bound": 0.2, "mixed": 0.1, "sector_rotation": 0.0, "bullish": 0.0}
_LIST = {"trust": re.compile(r"Trust:\s*([^.;]*)"), "shrink": re.compile(r"Shrink:\s*([^.;]*)")}


@dataclass(frozen=True)
class AllocatorConfig:
    prior_accuracy: float = 0.55
    prior_strength: float = 10.0
    pattern_cap: int = 30
    rule_factor: float = 1.5
    insight_factor: float = 1.5
    insight_ttl: int = 4            # the reference shows yesterday's insight to the next day's 4 bars
    min_confidence: float = 0.4
    tilt: float = 2.0
    max_weight: float = 0.30
    inertia: float = 0.5            # share of the held weights kept at each rebalance


@dataclass
class Advice:
    """What a fresh insight asks for: an exposure and per-tool factors."""

    exposure: float = 1.0
    trust: tuple[str, ...] = ()
    shrink: tuple[str, ...] = ()
    # a prior method's channel (prior.py): per-tool multipliers and per-sector signal tilts
    tool_factor: np.ndarray | None = None
    sector_tilt: Mapping[str, float] = field(default_factory=dict)


@dataclass
class Allocation:
    weights: np.ndarray          # (n_tickers,) ticker weights; cash = 1 - sum
    target: np.ndarray           # before inertia and exposure (sums to 1)
    signal: np.ndarray           # (n_tickers,) in [-1, 1]
    reliability: np.ndarray      # (n_tickers, n_tools)
    exposure: float
    evidence_calls: np.ndarray   # (n_tickers,) decided calls read from memory per ticker
    advice: Advice = field(default_factory=Advice)
    pulls: np.ndarray | None = None  # (n_tickers, n_tools) each tool's weighted sub-score (0 unread)


def insight_seen(insight: Mapping[str, Any] | None, t: int, cfg: AllocatorConfig) -> bool:
    """Whether the agent at bar t reads the injected insight: it was applied fewer than
    `insight_ttl` episodes ago (the reference shows yesterday's insight to the next
    day's bars) and its confidence is above `min_confidence`. The offline allocator
    and the LLM allocator's prompt follow this one rule."""
    return (bool(insight) and t - int(insight.get("episode", t)) < cfg.insight_ttl
            and float(insight.get("confidence", 0.0)) > cfg.min_confidence)


def read_advice(insight: Mapping[str, Any] | None, t: int, tools: Sequence[str],
                cfg: AllocatorConfig) -> Advice:
    """The advice of an injected insight the agent sees (`insight_seen`); otherwise none."""
    if not insight_seen(insight, t, cfg):
        return Advice()
    conf = float(insight.get("confidence", 0.0))
    exposure = 1.0 - EXPOSURE_CUT.get(str(insight.get("regime_label", "")), 0.0) * conf
    text = str(insight.get("insight", ""))
    by_name = {short(tl): tl for tl in tools} | {tl: tl for tl in tools}
    lists = {}
    for key, rx in _LIST.items():
        m = rx.search(text)
        names = [n.strip() for n in m.group(1).split(",")] if m else []
        lists[key] = tuple(by_name[n] for n in names if n in by_name)
    return Advice(exposure=max(0.0, min(1.0, exposure)), trust=lists["trust"], shrink=lists["shrink"])


def tool_evidence(entries: Iterable[MemoryEntry], tools: Sequence[str], sector: str,
                  cfg: AllocatorConfig) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(right, calls, factor) per tool from memory entries, for a ticker of `sector`."""
    index = {t: i for i, t in enumerate(tools)}
    right, calls, factor = np.zeros(len(tools)), np.zeros(len(tools)), np.ones(len(tools))
    for e in entries:
        m = e.metadata
        kind = m.get("kind")
        if kind == "bar":
            realised = m["realised"]
            if realised == 0:
                continue
            for tool, c in m["calls"].items():
                i = index.get(tool)
                if i is not None and c != 0:
                    calls[i] += 1
                    right[i] += c == realised
        elif kind == "tool_reliability":
            i = index.get(m["tool"])
            if i is None or m.get("sector") not in (None, sector, ALL_SECTORS):
                continue
            if e.tier == "procedural":
                factor[i] *= cfg.rule_factor if m.get("direction") == "reliable" else 1.0 / cfg.rule_factor
            else:
                n = float(m["calls"])
                scale = min(1.0, cfg.pattern_cap / n) if n else 0.0
                calls[i] += n * scale
                right[i] += m["right"] * scale
    return right, calls, factor


def clip1(x: float) -> float:
    """float(np.clip(x, -1, 1)) for one float (NaN stays NaN) at a fiftieth of its cost: allocate
    calls it three times per ticker and bar, and np.clip on a scalar was a tenth of a portfolio run."""
    return min(max(x, -1.0), 1.0)


def _cap(w: np.ndarray, cap: float) -> np.ndarray:
    """Water-filling: no weight above `cap`, the excess spread over the others in proportion."""
    w = w.copy()
    if cap * len(w) < 1.0:
        return np.full(len(w), 1.0 / len(w))
    for _ in range(len(w)):
        over = w > cap + 1e-12
        if not over.any():
            break
        excess = float((w[over] - cap).sum())
        w[over] = cap
        free = ~over & (w < cap)
        if not free.any():
            break
        w[free] += excess * w[free] / w[free].sum() if w[free].sum() > 0 else excess / free.sum()
    return w


def allocate(scores: np.ndarray, sectors: Sequence[str], tools: Sequence[str],
             evidence: Sequence[Sequence[MemoryEntry]], rules: Sequence[MemoryEntry],
             advice: Advice, held: np.ndarray, cfg: AllocatorConfig, shown: np.ndarray | None = None,
             prior: np.ndarray | None = None, planner: Callable | None = None) -> Allocation:
    """Weights for one bar.

    The session's variants may narrow what the agent reads (engine/variants/__init__.py):
    `shown` (n_tools,) bool, the tools whose signals it sees (the others count as
    unavailable; none shown: no tilt, equal weights); `prior` (n_tools, 2) extra
    (right, wrong) pseudo-counts of each tool's reliability prior (cold start);
    `planner` the rule turning weighted sub-scores into a view (planners.py;
    default: the weighted consensus of every tool, `sequential`).

    `scores`: (n_tickers, n_tools) sub-scores / 100, NaN where a tool is unavailable;
    `evidence[j]`: the memory entries read for ticker j (episodic/semantic/procedural);
    `rules`: procedural rules that apply to this bar (already filtered by policy);
    `held`: the ticker weights held before the bar.
    """
    k, m = scores.shape
    a0 = cfg.prior_strength * cfg.prior_accuracy
    b0 = cfg.prior_strength * (1.0 - cfg.prior_accuracy)
    w0 = 2.0 * cfg.prior_accuracy - 1.0
    insight_factor = np.ones(m)
    for tool in advice.trust:
        insight_factor[list(tools).index(tool)] *= cfg.insight_factor
    for tool in advice.shrink:
        insight_factor[list(tools).index(tool)] /= cfg.insight_factor
    if advice.tool_factor is not None:
        insight_factor = insight_factor * advice.tool_factor
    rel = np.empty((k, m))
    pulls = np.zeros((k, m))
    signal = np.zeros(k)
    seen = np.zeros(k)
    for j in range(k):
        entries = list({e.id: e for e in (*evidence[j], *rules)}.values())  # a rule may also be a hit
        right, calls, factor = tool_evidence(entries, tools, sectors[j], cfg)
        if prior is not None:
            right, calls = right + prior[:, 0], calls + prior.sum(axis=1)
        rho = (a0 + right) / (a0 + b0 + calls)
        rel[j] = rho
        seen[j] = calls.sum()
        omega = (2.0 * rho - 1.0) * factor * insight_factor
        row = scores[j] if shown is None else np.where(shown, scores[j], np.nan)
        row = np.where(insight_factor != 0, row, np.nan)   # a factor of 0 hides a tool: it is not read
        pulls[j] = omega * row
        pulls[j][np.isnan(pulls[j])] = 0.0     # np.nan_to_num's 0, without its cost per bar and ticker
        if planner is not None:
            signal[j] = clip1(float(planner(row, omega, tools, w0)))
        elif (avail := ~np.isnan(row)).any():
            signal[j] = clip1(float((omega[avail] * row[avail]).sum() / (w0 * avail.sum())))
        signal[j] = clip1(float(signal[j] + advice.sector_tilt.get(sectors[j], 0.0)))
    raw = np.maximum(0.0, 1.0 + cfg.tilt * signal)
    target = raw / raw.sum() if raw.sum() > 0 else np.full(k, 1.0 / k)
    target = _cap(target, cfg.max_weight)
    invested = held.sum()
    held_shape = held / invested if invested > 0 else target
    blended = (1.0 - cfg.inertia) * target + cfg.inertia * held_shape
    weights = advice.exposure * blended
    return Allocation(weights, target, signal, rel, advice.exposure, seen, advice, pulls)
