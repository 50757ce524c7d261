"""The offline reflector of the portfolio: one reflection per trading day, diagnose first.

Every `cadence` episodes (default 4 = one trading day, as the reference's
evening reflection) it reads the day's side information, which the agent
never saw at decision time (the universe's realised next-bar returns, each
tool's calls against the realised directions):

1. diagnose: which tools misled (accuracy < 0.4 over at least 10 decided
   calls) and which held (> 0.6); a regime label from the day's universe
   return u, sector spread and volatility: bullish if u > +0.4 %, bearish if
   u < -0.4 %, else sector_rotation if the sector returns spread (std) more
   than 0.8 %, else range_bound if |u| < 0.15 % and the bar-to-bar volatility
   is under 0.3 %, else mixed. Confidence: as the reference, once three
   bullish/bearish labels have been checked against the next day's universe
   direction, the rolling accuracy of the last 10 checks; before that (and for
   the other labels) the strength of the evidence (|u| / 1 %, spread / 1.6 %,
   0.5 for range_bound, 0.3 for mixed).
2. prescribe an insight only when the day went badly (mean outcome score < 0)
   and the label's confidence exceeds 0.4 (below it the agent would ignore it):
   the label, which tools to trust and which to shrink ("Trust: momentum.
   Shrink: technicals."), and the exposure it implies.
3. propose the candidate policy (regime_filtered: all tiers, top 8 by
   relevance among entries with the query's regime label) at most once:
   - trigger "paper" (facts §4): checked when the day count d (1 on the first
     post-warm-up day) satisfies d >= 10 and d % 5 == 0; fires if the mean
     posterior mean alpha / (alpha + beta) over the arms is below `threshold`
     (0.4): the engine's `ReflectionGate` with its check-day rule. Under the
     paper's reward (s + 1) / 2 the posteriors stay near 0.5, so, as in the
     reference, it essentially never fires.
   - trigger "diagnose" (default): the scenario records, at decision time, what
     the candidate would have allocated on every bar (a counterfactual with the
     memory as it was, so no look-ahead). Over the last `window` post-warm-up
     episodes, if the played mean reward is below `threshold` (0.5: outcome
     scores below the agent's own average) and the candidate's mean outcome
     score beats the played one by at least `margin` (0.10) over at least
     window / 2 recorded bars, it proposes the candidate, citing the numbers.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from engine.policies import PolicySpec
from engine.reflection import Reflection, ReflectionContext
from engine.reflection_gate import CheckDays, DeclaredReflector, MeanPosterior, ReflectionGate, Verdict

from .agent import EXPOSURE_CUT
from .memory_records import short
from .spec import SPEC

CANDIDATE: dict[str, Any] = {
    "name": "regime_filtered", "tiers": ["episodic", "semantic", "procedural"], "k": 8, "order": "relevance",
    "filters": [{"key": "regime"}], "format": "full",
    "description": "All tiers, the top 8 by relevance among entries written under the query's regime label.",
}
DIRECTIONAL = ("bullish", "bearish")
TREND = 0.004           # |universe day return| for bullish / bearish
ROTATION = 0.008        # std of the sector day returns for sector_rotation
QUIET_RETURN, QUIET_VOL = 0.0015, 0.003
MIN_TOOL_CALLS = 10
MISLED, HELD = 0.4, 0.6
CHECKS_KEPT = 10
MIN_CHECKS = 3
DEFAULT_THRESHOLD = {"paper": 0.4, "diagnose": 0.5}
MIN_CONFIDENCE = 0.4    # the reference shows an insight only above this confidence
PAPER_CHECK_DAYS = CheckDays(first=10, every=5)


def regime_label(side: dict[str, Any]) -> tuple[str, float]:
    """(label, strength in [0, 1]) of a day from its side information."""
    u, spread, vol = side["universe_return"], side["sector_spread"], side["volatility"]
    if u > TREND:
        return "bullish", min(1.0, abs(u) / 0.01)
    if u < -TREND:
        return "bearish", min(1.0, abs(u) / 0.01)
    if spread > ROTATION:
        return "sector_rotation", min(1.0, spread / (2 * ROTATION))
    if abs(u) < QUIET_RETURN and vol < QUIET_VOL:
        return "range_bound", 0.5
    return "mixed", 0.3


@dataclass
class PortfolioReflector(DeclaredReflector):
    """Daily diagnose-before-prescribe reflection with the paper or the diagnose trigger
    (threshold None: DEFAULT_THRESHOLD of the trigger)."""

    SPEC = SPEC
    SAVED = ("margin", "candidate", "last_label", "checks", "cooldown")
    margin: float = 0.10
    candidate: dict[str, Any] = field(default_factory=lambda: dict(CANDIDATE))
    last_label: str = ""
    checks: list[int] = field(default_factory=list)
    cooldown: int = 20                  # bars (5 days) without proposals after a rejection
    name: str = "portfolio-offline"

    def __post_init__(self) -> None:
        if self.threshold is None and self.trigger in DEFAULT_THRESHOLD:
            self.threshold = DEFAULT_THRESHOLD[self.trigger]
        super().__post_init__()
        if self.threshold is None:
            self.threshold = DEFAULT_THRESHOLD[self.trigger]

    def make_gate(self) -> ReflectionGate:
        # the gate holds back proposals only: the day's diagnosis runs at every cadence
        paper = self.trigger == "paper"
        return ReflectionGate(cadence=self.cadence, cooldown=self.cooldown,
                              metric=MeanPosterior() if paper else None, window=self.window,
                              threshold=self.threshold, check_days=PAPER_CHECK_DAYS if paper else None)

    def rejected(self, kind: str, episode: int) -> None:
        """A rejected insight or policy: no proposal for `cooldown` bars (the diagnosis goes on),
        then the candidate may be proposed again on bars after the rejection."""
        self.gate.rejected(episode, withdrawn=kind == "arm")

    def outlook(self, episode: int) -> str:
        if self.gate.cooling(episode):
            return (f"A proposal was rejected: no proposal before bar {self.cooldown_until} "
                    f"(the diagnosis goes on every {self.cadence} bars).")
        return ""

    def holds_candidate(self, pool: list[PolicySpec]) -> bool:
        return any(p.name == self.candidate["name"] for p in pool)

    # ------------------------------------------------------------------ gate
    def should_reflect(self, ctx: ReflectionContext) -> bool:
        return self.gate.due(ctx.episode)  # a diagnosis every day; the rest of the gate is for proposals

    # -------------------------------------------------------------- reflect
    def reflect(self, ctx: ReflectionContext) -> Reflection | None:
        if not self.should_reflect(ctx):
            return None
        t = ctx.episode
        start = max(0, t + 1 - self.cadence)
        day = [r for r in ctx.history if start <= r["episode"] <= t]
        side = ctx.scenario.side_info(start, t + 1)
        if not day or not side:
            return None
        mean_score = float(np.mean([r["score"] for r in day]))
        label, strength = regime_label(side)
        confidence = self._confidence(label, strength, side["universe_return"])
        misled, held = _tool_verdicts(side["tool_accuracy"])
        evidence: dict[str, Any] = {
            "bars": [start, t], "mean_score": round(mean_score, 4),
            "universe_return": round(side["universe_return"], 6), "sector_spread": round(side["sector_spread"], 6),
            "volatility": round(side["volatility"], 6), "regime_label": label, "confidence": round(confidence, 4),
            "checks": list(self.checks[-CHECKS_KEPT:]), "misled": misled, "held": held,
        }
        diagnosis = (f"Bars {start}–{t}: mean outcome score {mean_score:+.2f} "
                     f"({'went badly' if mean_score < 0 else 'fine'}); the universe moved "
                     f"{side['universe_return']:+.2%} (sector spread {side['sector_spread']:.2%}, "
                     f"volatility {side['volatility']:.2%}): {label}, confidence {confidence:.2f}."
                     + _tools_text(misled, held))
        # prescribe only after a bad day, and only what the agent would act on (its prompt gate)
        bad_day = mean_score < 0 and confidence > MIN_CONFIDENCE
        insight = _insight(label, confidence, misled, held) if bad_day and not self.gate.cooling(t) else ""
        refl = Reflection(episode=t, trigger=self.trigger, diagnosis=diagnosis, insight=insight,
                          regime_label=label, confidence=round(confidence, 4), evidence=evidence)
        if self.gate.cooling(t):
            refl.diagnosis += f" No proposal before bar {self.cooldown_until}: one was rejected."
        else:
            self._prescribe(ctx, refl)
        return refl

    def _confidence(self, label: str, strength: float, universe_return: float) -> float:
        """Check yesterday's directional label against today's direction, then the
        empirical accuracy (once there are enough checks) or the evidence strength."""
        if self.last_label in DIRECTIONAL and universe_return != 0:
            self.checks.append(int((universe_return > 0) == (self.last_label == "bullish")))
            del self.checks[:-CHECKS_KEPT]
        self.last_label = label
        if label in DIRECTIONAL and len(self.checks) >= MIN_CHECKS:
            return float(np.mean(self.checks))
        return float(strength)

    # ------------------------------------------------------------ prescribe
    def _prescribe(self, ctx: ReflectionContext, refl: Reflection) -> None:
        verdict = self.gate.check(ctx, self.holds_candidate)  # the cool-down was read before
        if verdict.rule in ("pending", "candidate"):
            return
        if self.trigger == "paper":
            fired, why = self._paper_gate(verdict, refl.evidence)
        else:
            fired, why = self._replay(ctx, refl.evidence)
        refl.diagnosis += " " + why
        if fired:
            self.gate.proposed(ctx.episode)
            refl.policy = dict(self.candidate)
            refl.rationale = why

    def _paper_gate(self, verdict: Verdict, evidence: dict[str, Any]) -> tuple[bool, str]:
        """The gate's check day and mean posterior, in the words of the paper's rule."""
        evidence.update(day=verdict.day, mean_posterior=None if verdict.value is None else round(verdict.value, 4))
        if verdict.rule == "check day":
            return False, f"Paper gate: {verdict.why}."
        return verdict.open, (f"Paper gate on day {verdict.day}: {verdict.why}"
                              + (f", so {self.candidate['name']} is proposed." if verdict.open else "; no proposal."))

    def _replay(self, ctx: ReflectionContext, evidence: dict[str, Any]) -> tuple[bool, str]:
        recent = [r for r in ctx.history if r["phase"] != "warmup"][-self.window:]
        cf = ctx.scenario.counterfactual([r["episode"] for r in recent])
        pairs = [(r, cf[r["episode"]]) for r in recent if r["episode"] in cf]
        name = self.candidate["name"]
        if len(pairs) < max(1, self.window // 2):
            return False, f"Replay: only {len(pairs)} bars recorded for {name} so far."
        played_reward = float(np.mean([r["reward"] for r, _ in pairs]))
        played = float(np.mean([r["score"] for r, _ in pairs]))
        cand = float(np.mean([c["score"] for _, c in pairs]))
        wins = sum(c["score"] > r["score"] for r, c in pairs)
        first, last = pairs[0][0]["episode"], pairs[-1][0]["episode"]
        evidence.update(replay_bars=[first, last], replay_n=len(pairs), played_mean_score=round(played, 4),
                        played_mean_reward=round(played_reward, 4), candidate_mean_score=round(cand, 4),
                        candidate_wins=wins, candidate=name)
        numbers = (f"over bars {first}–{last} the policies played scored {played:+.3f} on average "
                   f"(mean reward {played_reward:.3f}) and {name}'s counterfactual allocation {cand:+.3f}, "
                   f"better on {wins} of {len(pairs)} bars")
        if played_reward >= self.threshold:
            return False, f"Replay: {numbers}; the played reward is not below {self.threshold:.2f}, no proposal."
        if cand - played < self.margin:
            return False, f"Replay: {numbers}; the gain {cand - played:+.3f} is under {self.margin:.2f}, no proposal."
        return True, (f"Replay: {numbers}: a gain of {cand - played:+.3f} ≥ {self.margin:.2f} with the played "
                      f"reward {played_reward:.3f} < {self.threshold:.2f}, so {name} is proposed.")


def _tool_verdicts(accuracy: dict[str, dict[str, int]]) -> tuple[dict[str, str], dict[str, str]]:
    misled, held = {}, {}
    for tool, c in accuracy.items():
        if c["calls"] < MIN_TOOL_CALLS:
            continue
        acc = c["right"] / c["calls"]
        if acc < MISLED:
            misled[tool] = f"{c['right']}/{c['calls']}"
        elif acc > HELD:
            held[tool] = f"{c['right']}/{c['calls']}"
    return misled, held


def _tools_text(misled: dict[str, str], held: dict[str, str]) -> str:
    parts = []
    if misled:
        parts.append("Misled: " + ", ".join(f"{short(t)} ({v} right)" for t, v in misled.items()) + ".")
    if held:
        parts.append("Held: " + ", ".join(f"{short(t)} ({v} right)" for t, v in held.items()) + ".")
    return (" " + " ".join(parts)) if parts else " No tool stood out."


def _insight(label: str, confidence: float, misled: dict[str, str], held: dict[str, str]) -> str:
    parts = [f"Yesterday looked {label.replace('_', ' ')} (confidence {confidence:.2f})."]
    if held:
        parts.append("Trust: " + ", ".join(short(t) for t in held) + ".")
    if misled:
        parts.append("Shrink: " + ", ".join(short(t) for t in misled) + ".")
    cut = EXPOSURE_CUT.get(label, 0.0) * confidence
    parts.append(f"Hold about {cut:.0%} in cash." if cut >= 0.05 else "Stay fully invested.")
    return " ".join(parts)
