"""The portfolio scenario (the paper's D-full task) behind the engine's `Scenario` protocol.

An episode is one bar: the offline allocator (`agent.py`) sets weights over
the tickers and cash from the tool signals, weighted by the reliability the
chosen retrieval policy's memories show; the portfolio earns the next-bar
return (`episode.py`); the outcome score is the reference's z-score of that
return against the agent's own history, and the bandit reward (s + 1) / 2
("paper") or 0.5 r + 1/6 ("as_logged").

Data and seeds. `data` is "synthetic" (default), "yahoo" or a folder in the
D-full layout. The synthetic market is drawn from `market_seed` (0 by
default), NOT the session seed: every seed of a run plays the same market,
and the seed changes only the bandit's draws (and so the policies played).

Split: by calendar day on D-full (128/40/40 bars), by trading-day fractions
elsewhere, exposed as `defaults["phases"]` (warm-up bars count in train).

Memory. The session retrieves once per bar with the query metadata
{task_type, regime}; the agent then retrieves once per ticker with
{task_type, regime, ticker, sector} under the same policy and reads both.
After the outcome, `episodic_entry` returns ten episodic entries, one per
ticker; see `memory_records.py`.

Counterfactuals (the diagnose reflector's replay, the oracle) retrieve with
`count=False`, so they leave no retrieval counts behind.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from engine.deferred import Deferred
from engine.errors import AELError
from engine.memory import Hit, MemoryEntry, MemoryStore, Pattern
from engine.metrics import phase_metrics
from engine.options import resolve
from engine.policies import PAPER_POLICIES, PolicySpec
from engine.scenario import AgentContext, Outcome, Query, ScenarioBase
from engine.variants import AgentView

from . import memory_records as records
from .agent import AllocatorConfig, Allocation, allocate, insight_seen, read_advice
from .baselines import baseline_run
from .data import PHASES, is_paper_market
from .decided import allocation_decision
from .llm_allocator import llm_weights
from .episode import PortfolioState, bandit_reward, outcome_score, return_regime, step_portfolio
from .prior import PortfolioPriorWorld, own_weights, prior_advice
from .reflector import PortfolioReflector
from .spec import SPEC
from .world import World, data_key, load_world
from . import planners, variant_view
from .variant_view import view_arguments

class PortfolioScenario(ScenarioBase):
    """Allocate over ten tickers and cash, bar by bar, with a retrieval-policy bandit."""

    spec = SPEC
    name = SPEC.name
    match_bonuses = {"ticker": 2.0, "sector": 0.8, "regime": 1.0, "task_type": 0.5}
    # what a save's memory must carry, checked on load (imported then: it needs pydantic)
    memory_metadata = Deferred("scenarios.portfolio.saved_metadata", "MEMORY_METADATA")
    state_model = Deferred("scenarios.portfolio.saved_metadata", "RunState")

    def __init__(self, seed: int, **options: Any):
        opts = resolve(SPEC.options, options, "portfolio scenario")
        self.seed = int(seed)
        self.cost_bps = opts["cost_bps"]
        self.reward_mode = opts["reward"]
        tickers, tools = opts["tickers"], opts["tools"]
        self.world: World = load_world(
            data_key(opts["data"] or "synthetic"), tuple(tickers) if tickers else None, opts["market_seed"],
            opts["split"], tuple(tools) if tools else None, opts["allow_lookahead"], opts["cache_dir"])
        market = self.world.market
        self.n_episodes = market.n_bars
        self.regime_names = list(market.regime_names)
        self.initial_pool: list[PolicySpec] = list(PAPER_POLICIES)
        counts = {p: int((market.phases == p).sum()) for p in PHASES}
        self.defaults = SPEC.session_defaults(phases=counts)
        self.config = AllocatorConfig()
        self.state = PortfolioState.start(market.tickers)
        self.shadow: dict[int, dict[str, float]] = {}   # episode -> the candidate's counterfactual
        self._candidate: PolicySpec | None = None
        self._reflector: PortfolioReflector | None = None
        self._last: dict[str, Any] | None = None

    # ---------------------------------------------------------------- stream
    def agent_regime(self, t: int) -> str:
        """The regime label the agent sees at bar t: `return_regime` of its returns before t."""
        if t > len(self.state.returns):
            raise AELError(f"bar {t} is ahead of the portfolio (at bar {len(self.state.returns)})")
        return return_regime(self.state.returns[:t])

    def query(self, t: int) -> Query:
        regime = self.agent_regime(t)
        truth = {"regime": self.regime_names[int(self.world.market.regimes[t])]} if self.regime_names else {}
        return Query(t, f"bar {t} ({self.world.when[t]}): allocate over {len(self.world.tickers)} tickers and "
                        f"cash; regime {regime}", {"task_type": records.TASK_TYPE, "regime": regime}, truth)

    def input_seen(self, query: Query) -> dict[str, Any]:
        """The bar as the agent read it: each ticker's prices and each tool's call (+1 buy, -1 sell,
        0 none; unavailable tools left out)."""
        t, w = query.episode, self.world
        m = w.market
        prices = {tk: {"open": float(m.open[t, j]), "high": float(m.high[t, j]), "low": float(m.low[t, j]),
                       "close": float(m.close[t, j])} for j, tk in enumerate(w.tickers)}
        calls = {tk: {tool: int(w.calls[t, j, i]) for i, tool in enumerate(w.tools) if w.available[t, j, i]}
                 for j, tk in enumerate(w.tickers)}
        return {"bar": t, "when": w.when[t], "regime_seen": query.metadata["regime"], "prices": prices,
                "tool_calls": calls}

    def regime(self, t: int) -> int | None:
        regimes = self.world.market.regimes
        return None if regimes is None else int(regimes[t])

    # ------------------------------------------------------------------- act
    def _ticker_query(self, t: int, j: int, regime: str) -> dict[str, Any]:
        return {"task_type": records.TASK_TYPE, "regime": regime, "ticker": self.world.tickers[j],
                "sector": self.world.sectors[j], "_episode": t}

    def allocation(self, spec: PolicySpec, t: int, memory: MemoryStore, insight: dict[str, Any] | None = None,
                   pooled: list[Hit] | None = None, rules: list[MemoryEntry] | None = None,
                   quiet: bool = True, prior=None, view: AgentView | None = None,
                   held: np.ndarray | None = None) -> tuple[Allocation, list[list[Hit]]]:
        """What the agent allocates at bar t under `spec`, and the hits it read per ticker.

        `pooled`: the bar-level hits (the session's retrieval); retrieved here if None.
        `rules`: the applicable rules; looked up here if None. Rules count only for a
        policy that sees the procedural tier. `quiet` reads without counting retrievals.
        `prior`: what a prior method shows (engine.prior.Shown), through its channel (prior.py).
        `view`: what the session's variants let the agent see (tools, priors, planner).
        `held`: the weights held before the bar (default: the portfolio's now; credit
        assignment replays a bar after it was played).
        """
        w = self.world
        regime = self.agent_regime(t)
        count = not quiet
        if pooled is None:
            pooled = memory.retrieve(spec, {"task_type": records.TASK_TYPE, "regime": regime, "_episode": t},
                                     self.similarity, count=count)
        per_ticker = [memory.retrieve(spec, self._ticker_query(t, j, regime), self.similarity, count=count)
                      if not spec.retrieves_nothing else [] for j in range(len(w.tickers))]
        if "procedural" not in spec.tiers:
            rules = []
        elif rules is None:
            rules = records.applicable_rules(memory, regime)
        evidence = [[h.entry for h in (*pooled, *hits)] for hits in per_ticker]
        advice = read_advice(insight, t, w.tools, self.config)
        if prior is not None:
            advice.tool_factor, advice.sector_tilt = prior_advice(prior, w.tools, w.sectors)
        held = self.state.weights if held is None else held
        alloc = allocate(w.scores[t], w.sectors, w.tools, evidence, rules, advice, held, self.config,
                         **view_arguments(view, w.tools))
        return alloc, per_ticker

    def _net_return(self, weights: np.ndarray, t: int, held: np.ndarray | None = None) -> float:
        turnover = float(np.abs(weights - (self.state.weights if held is None else held)).sum())
        return float(weights @ self.world.next_returns[t]) - turnover * self.cost_bps / 1e4

    def act(self, query: Query, ctx: AgentContext) -> Outcome:
        t = query.episode
        if t != len(self.state.returns):
            raise AELError(f"portfolio: episode {t} played out of order (the portfolio is at bar "
                           f"{len(self.state.returns)})")
        alloc, per_ticker = self.allocation(ctx.policy, t, ctx.memory, ctx.insight, ctx.hits, ctx.rules, quiet=False,
                                            prior=ctx.prior, view=ctx.view)
        weights, agent, notes = alloc.weights, "offline", []
        if ctx.prior is not None and ctx.prior.extra.get("weights") is not None:  # a method that allocates itself
            weights, agent = own_weights(ctx.prior.extra["weights"], self.world.tickers), "method"
        if ctx.llm is not None and agent != "method":  # a method that allocates itself needs no agent
            shown = list(ctx.hits) + [hits[0] for hits in per_ticker if hits]
            weights, agent, notes = llm_weights(self, t, ctx, shown, ctx.rules, alloc.weights)
        if self._shadowing(ctx.memory):
            self._record_counterfactual(t, ctx)
        res = step_portfolio(self.state, weights, self.world.next_returns[t], t, self.cost_bps)
        score = outcome_score(res.net_return, self.state.returns[:-1])
        self._mark_ticker_hits(ctx.memory, per_ticker, res.weights, t)
        self._last = {"t": t, "weights": res.weights, "score": score}
        tickers = self.world.tickers
        top = np.argsort(-res.weights, kind="stable")[:3]
        action = ", ".join(f"{tickers[j]} {res.weights[j]:.0%}" for j in top) + f"; cash {res.cash:.0%}"
        decided = allocation_decision(self, t, alloc, res.weights, agent, notes) if ctx.explain else None
        return Outcome(
            score=score, reward=bandit_reward(score, self.reward_mode), action=action, decided=decided,
            result=f"return {res.net_return:+.3%} (score {score:+.2f})",
            info={"port_return": res.net_return, "gross_return": res.gross_return, "cost": res.cost,
                  "turnover": res.turnover, "cash": res.cash, "value": res.value, "drawdown": res.drawdown,
                  "weights": {tk: round(float(x), 6) for tk, x in zip(tickers, res.weights)},
                  "regime": query.metadata["regime"], "exposure": round(alloc.exposure, 4),
                  "evidence_calls": round(float(alloc.evidence_calls.sum()), 2), "agent": agent,
                  "insight_seen": insight_seen(ctx.insight, t, self.config),
                  **({"parser_notes": notes} if notes else {})},
        )

    def _mark_ticker_hits(self, memory: MemoryStore, per_ticker: list[list[Hit]], weights: np.ndarray,
                          t: int) -> None:
        """Usefulness of the per-ticker reads: useful when the ticker's tilt paid, i.e. its
        weight and its next-bar return were on the same side of their cross-sectional means."""
        r = self.world.next_returns[t]
        paid = (weights - weights.mean()) * (r - r.mean()) > 0
        for hits, ok in zip(per_ticker, paid):
            memory.mark_used(hits, bool(ok))

    # ------------------------------------------------------- counterfactuals
    def _shadowing(self, memory: MemoryStore) -> bool:
        return (self._candidate is not None and not memory.frozen and self._reflector is not None
                and self._reflector.proposed_at is None)

    def _record_counterfactual(self, t: int, ctx: AgentContext) -> None:
        alloc, _ = self.allocation(self._candidate, t, ctx.memory, ctx.insight, None, ctx.rules, quiet=True,
                                   view=ctx.view)
        r = self._net_return(alloc.weights, t)
        self.shadow[t] = {"return": r, "score": outcome_score(r, self.state.returns)}

    def counterfactual(self, episodes: list[int]) -> dict[int, dict[str, float]]:
        """The candidate policy's recorded counterfactual {return, score} for those episodes that have one."""
        return {t: self.shadow[t] for t in episodes if t in self.shadow}

    def oracle_arm(self, t: int, pool: list[PolicySpec], memory: MemoryStore) -> PolicySpec:
        """The pool arm whose allocation earns the most at bar t, with hindsight (first among equals)."""
        gains = [self._net_return(self.allocation(spec, t, memory)[0].weights, t) for spec in pool]
        return pool[int(np.argmax(gains))]

    # ------------------------------------------- what the tool variants read (engine.variants.ToolWorld)
    def tool_names(self) -> tuple[str, ...]:
        return tuple(self.world.tools)

    def tool_verdicts(self, t: int) -> tuple[np.ndarray, np.ndarray]:
        return self.world.calls[t], self.world.realised[t]

    def tools_available(self, t: int) -> list[str]:
        return [tool for i, tool in enumerate(self.world.tools) if self.world.available[t, :, i].any()]

    def tool_ratings(self) -> dict[str, int]:
        return {tool: variant_view.tool_rating(tool) for tool in self.world.tools}

    def planner_names(self) -> tuple[str, ...]:
        return tuple(planners.BUILT_IN)

    def planner_ratings(self, tool_ratings: dict[str, int]) -> dict[str, int]:
        return variant_view.planner_ratings(tool_ratings)

    def planner_features(self) -> tuple[tuple[str, str], ...]:
        return tuple(zip(variant_view.CONTEXT_FEATURES, variant_view.CONTEXT_SHORT, strict=True))

    def planner_context(self, t: int) -> list[float]:
        w = self.world
        return variant_view.planner_context(self.state.returns[:t], w.scores[t], w.calls[t], w.tools)

    def counter_planner(self, misled: list[str], have: list[str]) -> str | None:
        return planners.counter_rule(misled, have)

    # ------------------------------------------------- variants: credit assignment
    def holdings(self) -> np.ndarray:
        """The ticker weights held now (before the next bar is played)."""
        return self.state.weights.copy()

    def ticker_sectors(self) -> tuple[str, ...]:
        """The sector of each ticker, in `holdings` order."""
        return tuple(self.world.sectors)

    def credit_inputs(self, t: int, ctx: AgentContext, held: np.ndarray) -> dict[str, Any]:
        """Bar t replayed over the 8 coalitions of planner, tools and memory (credit_replay.py)."""
        from .credit_replay import credit_inputs

        return credit_inputs(self, t, ctx, held)

    # ------------------------------------------------------ memory learning
    def episodic_entry(self, query: Query, outcome: Outcome, policy: str) -> list[tuple[str, dict, float]]:
        """The bar's ten entries, one per ticker, written after the outcome is known."""
        last = self._last
        if last is None or last["t"] != query.episode:
            return []
        w, t = self.world, query.episode
        quality = records.episodic_quality(last["score"])
        out = []
        for j, ticker in enumerate(w.tickers):
            calls = {tool: int(w.calls[t, j, i]) for i, tool in enumerate(w.tools) if w.available[t, j, i]}
            rec = records.BarRecord(t, w.when[t], ticker, w.sectors[j], query.metadata["regime"], calls,
                                    float(w.next_returns[t, j]), float(last["weights"][j]))
            out.append((*rec.entry(), quality))
        return out

    def distill(self, memory: MemoryStore, episode: int) -> list[Pattern]:
        return records.distill(memory, episode)

    def applicable_rules(self, query: Query, memory: MemoryStore) -> list[MemoryEntry]:
        return records.applicable_rules(memory, query.metadata["regime"])

    def rule_held(self, rule: MemoryEntry, query: Query, outcome: Outcome) -> bool | None:
        if not records.is_tool_rule(rule):
            return None
        w, t = self.world, query.episode
        return records.rule_verdict(rule, w.calls[t], w.realised[t], w.sectors, w.tools)

    # ----------------------------------------------------------- reflection
    def make_reflector(self, options: dict[str, Any]) -> PortfolioReflector:
        self._reflector = PortfolioReflector.from_options(options)
        self._candidate = (PolicySpec.from_dict(self._reflector.candidate)
                           if self._reflector.trigger == "diagnose" else None)
        return self._reflector

    def prior_world(self) -> PortfolioPriorWorld:
        return PortfolioPriorWorld(self)

    def side_info(self, start: int, end: int) -> dict[str, Any]:
        """What bars [start, end) turned out to be, which the agent never saw when deciding:
        the universe's realised next-bar returns (compounded day return, sector returns and
        their spread, mean cross-sectional dispersion, bar-to-bar volatility) and each tool's
        decided calls against the realised directions."""
        w = self.world
        bars = np.arange(max(0, start), min(end, self.n_episodes))
        if not len(bars):
            return {}
        r = w.next_returns[bars]
        bar_mean = r.mean(axis=1)
        sectors = sorted(set(w.sectors))
        sector_ret = {s: float(np.prod(1 + r[:, [j for j, x in enumerate(w.sectors) if x == s]].mean(axis=1)) - 1)
                      for s in sectors}
        calls, realised = w.calls[bars], w.realised[bars][:, :, None]
        decided = (calls != 0) & (realised != 0)
        right = decided & (calls == realised)
        accuracy = {tool: {"right": int(right[..., i].sum()), "calls": int(decided[..., i].sum())}
                    for i, tool in enumerate(w.tools) if decided[..., i].any()}
        out = {"bars": [int(bars[0]), int(bars[-1])], "universe_return": float(np.prod(1 + bar_mean) - 1),
               "sector_returns": sector_ret, "sector_spread": float(np.std(list(sector_ret.values()))),
               "dispersion": float(r.std(axis=1).mean()), "volatility": float(bar_mean.std()),
               "tool_accuracy": accuracy}
        if self.regime_names:
            out["true_regimes"] = sorted({self.regime_names[int(g)] for g in w.market.regimes[bars]})
        return out

    # ---------------------------------------------------------- persistence
    def state_dict(self) -> dict[str, Any]:
        return {"data": {"source": self.world.market.source, "tickers": list(self.world.tickers),
                         "n_bars": self.n_episodes},
                "portfolio": self.state.state_dict(),
                "shadow": [[t, v["return"], v["score"]] for t, v in sorted(self.shadow.items())]}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        data = state.get("data", {})
        if data.get("tickers", self.world.tickers) != self.world.tickers or \
                data.get("n_bars", self.n_episodes) != self.n_episodes:
            raise AELError("portfolio: the saved session was run on other data "
                           f"({data.get('source')}: {len(data.get('tickers', []))} tickers, "
                           f"{data.get('n_bars')} bars)")
        self.state = PortfolioState.from_state_dict(state["portfolio"])
        self.shadow = {int(t): {"return": float(r), "score": float(s)} for t, r, s in state.get("shadow", [])}

    # ------------------------------------------------------------- results
    def summary(self, history: list[dict[str, Any]]) -> dict[str, Any]:
        """Per-phase metrics (engine.metrics.phase_metrics) of the bars run, in the LLM
        agents' convention: every bar of a phase counts (warm-up bars in train), the
        last bar's return is 0 (40 test bars on D-full); turnover is the L1 change
        (not halved) for the cost-adjusted Sharpe."""
        by_phase: dict[str, tuple[list[float], list[float]]] = {p: ([], []) for p in PHASES}
        for rec in history:
            info = rec.get("info") or {}
            if "port_return" not in info:
                continue
            phase = "train" if rec["phase"] == "warmup" else rec["phase"]
            by_phase[phase][0].append(info["port_return"])
            by_phase[phase][1].append(info["turnover"])
        phases = {p: phase_metrics(r, tv) for p, (r, tv) in by_phase.items() if r}
        cash = [rec["info"]["cash"] for rec in history if "info" in rec]
        return {"phases": phases, "paper_comparable": is_paper_market(self.world.market),
                "portfolio": {"final_value": history[-1]["info"]["value"] if history else 1.0,
                              "mean_cash": float(np.mean(cash)) if cash else 0.0,
                              "mean_turnover": float(np.mean([rec["info"]["turnover"] for rec in history]))
                              if history else 0.0}}

    def baseline_run(self, name: str) -> dict[str, Any]:
        return baseline_run(self, name, self.seed)
