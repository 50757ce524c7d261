"""The prior methods on the portfolio: the deterministic critic (digest §10) and its channel.

The critic. After bar t it reads the same side information AEL's offline
reflector reads (the bar's realised next-bar returns and each tool's calls
against them), which the agent never saw when it allocated:
- r_p (the portfolio's return), r_EW (equal weight's) and alpha = r_p − r_EW;
- per tool k a hit rate h_k = (1 + Σ_i |w_i − 1/N| d_ik s_i / Σ_i |w_i − 1/N| |d_ik|) / 2
  over the tickers i (d: the tool's call, s: the realised direction; the
  unweighted rate when the allocation was equal weight), so a tool counts most
  where the allocation leaned on a ticker; the best and worst tool among those
  that called;
- the top and bottom sector by the bar's mean return;
- the regime label (the R1 rule): bull if the mean sector return is > 0 and the
  cross-sectional volatility is under its 90th percentile so far, bear if it is
  < 0 and the portfolio's drawdown exceeds 1.5 %, flat otherwise.
Its advice: trust the best tool (if h > .5), distrust the worst (if h < .5),
overweight the top sector, underweight the bottom one.

The channel (AEL's offline insight channel): what a method shows, records and
rules alike, becomes per-tool trust multipliers m_k = clip(1 + 0.1 (#trust −
#distrust), .5, 1.5) and a sector tilt of ±0.1 per mention added to the
signal of that sector's tickers (`prior_advice`, read by agent.allocate).
A method may add its own per-tool factors (`Shown.extra["tool_factor"]`,
{tool: factor}, e.g. 0 for a tool its policy does not read), multiplied in
after the clip, or give the weights outright (`Shown.extra["weights"]`,
{ticker: weight}, the rest cash: a method that allocates by itself).
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from engine.prior.llm_critic import critic_messages

from .memory_records import short
from .prior_evolution import PortfolioEvolution

TILT = 0.1
TRUST_STEP = 0.1
FACTOR_RANGE = (0.5, 1.5)
MAX_TILT = 0.5
BEAR_DRAWDOWN = 0.015
VOL_QUANTILE = 90
KINDS = ("trust", "distrust", "over", "under")
VERB = {"trust": "trust", "distrust": "distrust", "over": "overweight", "under": "underweight"}

CRITIC_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["critique", "trust", "distrust", "overweight", "underweight"],
    "properties": {
        "critique": {"type": "string", "maxLength": 300},
        **{k: {"type": "array", "items": {"type": "string", "maxLength": 40}, "maxItems": 3}
           for k in ("trust", "distrust", "overweight", "underweight")},
    },
}
ASK = {
    "reflexion": "In one sentence, say what allocation pattern the agent should adjust after this bar.",
    "expel": "Write one reusable lesson (1-2 sentences, starting 'RULE:') on which sectors to over- or "
             "underweight and which signals to trust.",
    "meta-reflexion": "In one sentence, write the observation this bar supports.",
}


class PortfolioPriorWorld(PortfolioEvolution):
    """One session's adapter: reads the scenario's world and portfolio, keeps no learning state."""

    name = "portfolio"
    critic_schema = CRITIC_SCHEMA

    def __init__(self, scenario):
        self.scenario = scenario
        w = scenario.world
        self.tools, self.sectors = list(w.tools), list(w.sectors)
        self._short = {short(k): k for k in self.tools} | {k: k for k in self.tools}
        bar_vol = w.next_returns.std(axis=1)
        # the 90th percentile of the cross-sectional volatility over bars 0..t (known after bar t)
        self._vol = bar_vol
        self._vol_q = np.array([np.percentile(bar_vol[:t + 1], VOL_QUANTILE) for t in range(len(bar_vol))])

    # ------------------------------------------------------------ the critic
    def _label(self, t: int, drawdown: float) -> str:
        r = self.scenario.world.next_returns[t]
        sector_mean = float(np.mean([r[[j for j, x in enumerate(self.sectors) if x == s]].mean()
                                     for s in sorted(set(self.sectors))]))
        if sector_mean > 0 and self._vol[t] < self._vol_q[t]:
            return "bull"
        if sector_mean < 0 and drawdown > BEAR_DRAWDOWN:
            return "bear"
        return "flat"

    def hit_rates(self, t: int, weights: np.ndarray) -> dict[str, float]:
        w = self.scenario.world
        d, s = w.calls[t].astype(float), w.realised[t].astype(float)
        dev = np.abs(weights - 1.0 / len(weights))
        if dev.sum() < 1e-9:
            dev = np.ones_like(dev)
        num = (dev[:, None] * d * s[:, None]).sum(axis=0)
        den = (dev[:, None] * np.abs(d)).sum(axis=0)
        return {k: round(float((1 + num[i] / den[i]) / 2), 4) for i, k in enumerate(self.tools) if den[i] > 1e-12}

    def record(self, t: int, query, outcome, label: str) -> dict[str, Any]:
        w = self.scenario.world
        info = outcome.info
        weights = np.array([info["weights"][tk] for tk in w.tickers])
        r = w.next_returns[t]
        r_p, r_ew = float(info["port_return"]), float(r.mean())
        alpha = r_p - r_ew
        hits = self.hit_rates(t, weights)
        by_sector = {sec: float(r[[j for j, x in enumerate(self.sectors) if x == sec]].mean())
                     for sec in sorted(set(self.sectors))}
        top, bottom = max(by_sector, key=by_sector.get), min(by_sector, key=by_sector.get)
        regime = self._label(t, float(info["drawdown"]))
        advice = {"trust": [], "distrust": [], "over": [top], "under": [bottom] if bottom != top else []}
        if hits:
            best, worst = max(hits, key=hits.get), min(hits, key=hits.get)
            advice["trust"] = [best] if hits[best] > 0.5 else []
            advice["distrust"] = [worst] if hits[worst] < 0.5 and worst != best else []
        success = {"alpha": alpha > 0, "return": r_p > 0, "always": True}[label]
        tools = "; ".join([f"trust {short(k)} (hit {hits[k]:.2f})" for k in advice["trust"]]
                          + [f"distrust {short(k)} (hit {hits[k]:.2f})" for k in advice["distrust"]])
        text = (f"bar {t}: return {r_p:+.3%} vs equal weight {r_ew:+.3%} (alpha {alpha:+.3%}), {regime}"
                f"{'; ' + tools if tools else ''}; {top} led, {bottom} lagged")
        return {"episode": t, "text": text, "success": bool(success), "label": regime,
                "keys": {"primary": top, "label": regime},
                "facts": {"return": round(r_p, 6), "ew_return": round(r_ew, 6), "alpha": round(alpha, 6),
                          "hit_rates": hits, "sector_returns": {k: round(v, 6) for k, v in by_sector.items()}},
                "advice": advice}

    # ------------------------------------------------------------ directives
    def directives(self, record: dict[str, Any]) -> list[tuple]:
        return _directives(record)

    @staticmethod
    def condition(directive: tuple) -> tuple:
        return ("tool" if directive[0] in ("trust", "distrust") else "sector", directive[1])

    def directive_text(self, directive: tuple) -> str:
        kind, what = directive
        return f"RULE: {VERB[kind]} {short(what) if kind in ('trust', 'distrust') else what}"

    def fires(self, directive: tuple, query) -> bool:
        return True  # a shown rule bears on every bar (the digest: applications = bars it was shown on)

    def query_keys(self, query) -> dict[str, Any]:
        """The sector held most now and the label of the last bar (known once it closed)."""
        t, state = query.episode, self.scenario.state
        held = state.weights
        primary = self.sectors[int(np.argmax(held))] if held.sum() > 0 else None
        return {"primary": primary, "label": self._label(t - 1, state.drawdown) if t > 0 else None}

    def similarity(self, keys: dict[str, Any], record: dict[str, Any]) -> float:
        return 0.0  # a bar has no text to overlap

    def record_line(self, record: dict[str, Any]) -> str:
        return record["text"]

    # ------------------------------------------------------------ the LLM critic
    def critic_messages(self, record: dict[str, Any], method: str) -> list[dict[str, str]]:
        facts = {"bar": record["episode"], "regime": record["label"], **record["facts"],
                 "tools": [short(k) for k in self.tools], "sectors": sorted(set(self.sectors))}
        return critic_messages(method, "an hourly portfolio agent that allocates over ten stocks and cash from "
                               "tool signals", "Name tools and sectors only from the lists given.",
                               ASK.get(method, ASK["reflexion"]), "the bar just closed", facts)

    def critic_answer(self, record: dict[str, Any]) -> dict[str, Any]:
        adv = record["advice"]
        return {"critique": record["text"][:300], "trust": [short(k) for k in adv["trust"]],
                "distrust": [short(k) for k in adv["distrust"]], "overweight": list(adv["over"]),
                "underweight": list(adv["under"])}

    def from_answer(self, record: dict[str, Any], answer: dict[str, Any]) -> dict[str, Any]:
        sectors = set(self.sectors)
        tool = lambda names: list(dict.fromkeys(self._short[n.strip()] for n in names if n.strip() in self._short))
        sector = lambda names: list(dict.fromkeys(n.strip() for n in names if n.strip() in sectors))
        advice = {"trust": tool(answer["trust"]), "distrust": tool(answer["distrust"]),
                  "over": sector(answer["overweight"]), "under": sector(answer["underweight"])}
        return {**record, "text": f"bar {record['episode']}: {answer['critique'].strip()}", "advice": advice}


def prior_advice(shown, tools: Sequence[str], sectors: Sequence[str]) -> tuple[np.ndarray, dict[str, float]]:
    """(per-tool multipliers, per-sector tilts) of what a method shows, records and rules alike."""
    counts = {k: {} for k in KINDS}
    weights = shown.weights or [1.0] * len(shown.records)
    items = [(d, wt) for rec, wt in zip(shown.records, weights) for d in _directives(rec)]
    items += [(tuple(d), 1.0) for d in shown.rules]
    for (kind, what), wt in items:
        counts[kind][what] = counts[kind].get(what, 0.0) + wt
    factor = np.array([np.clip(1 + TRUST_STEP * (counts["trust"].get(k, 0) - counts["distrust"].get(k, 0)),
                               *FACTOR_RANGE) for k in tools])
    # a method's own per-tool factors (e.g. a tool policy's mask: 0 for a tool it does not read)
    own = shown.extra.get("tool_factor", {})
    factor = factor * np.array([float(own.get(k, 1.0)) for k in tools])
    tilt = {s: float(np.clip(TILT * (counts["over"].get(s, 0) - counts["under"].get(s, 0)), -MAX_TILT, MAX_TILT))
            for s in sorted(set(sectors))}
    return factor, {s: v for s, v in tilt.items() if v}


def _directives(record: dict[str, Any]) -> list[tuple]:
    adv = record.get("advice", {})
    return [(k, x) for k in KINDS if not (record.get("blind") and k in ("trust", "distrust"))
            for x in adv.get(k, [])]


def own_weights(weights: dict[str, float], tickers: Sequence[str]) -> np.ndarray:
    """A method's own allocation as ticker weights: negatives clipped to 0, scaled down to sum
    at most 1 (the rest is cash)."""
    w = np.array([max(0.0, float(weights.get(tk, 0.0))) for tk in tickers])
    w = np.where(np.isfinite(w), w, 0.0)
    return w / w.sum() if w.sum() > 1.0 else w
