"""The stream world's reflector: it looks for the field that tells the label.

Every `cadence` rows, while nothing it proposed is pending:
1. gate: the accuracy over the trailing `window` rows is below `threshold`;
2. diagnose: F = the failures of the slow window just completed. For each --meta column,
   replay its candidate (retrieve among past rows with the same value of that column,
   `policies.candidate`) on F, and count the failures it gets right while every policy of
   the current pool gets them wrong;
3. prescribe the candidate with the most such fixes (ties: the first column given) only
   if that count is at least 5 and at least a quarter of |F| (the support world's bar)
   and more than luck gives: a column unrelated to the label still fixes some failures,
   as often as a random past row shares the label (Σ share² of the labels in the trailing
   window), so the count must have a binomial tail below 1% shared among the columns
   tried (with six labels and 16 failures no pool policy fixes, 5 or 6 fixes by an
   unrelated column happen by luck in a few percent of windows; the telling column fixes
   twice that).
   The rationale names the column and the numbers; without a prescription the reflection
   still carries the diagnosis (every column's count).

Nothing here, or in the world, knows which column matters: with no --meta column, or
none whose candidate clears the bar, nothing is proposed. Candidates already in the pool
(by behaviour) are not replayed again. One proposal at a time; a rejected one starts a
cool-down of three cadences, after which the reflector looks again on fresh failures.
Its whole state is the settings and the two episode marks (`state_dict`).
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from typing import Any

from engine.reflection import Reflection, ReflectionContext
from engine.reflection_gate import DeclaredReflector

from .spec import SPEC

MIN_FIXED = 5
MIN_FIXED_SHARE = 0.25
ALPHA = 0.01  # the chance control's level, shared among the columns tried (Bonferroni)


@dataclass
class StreamReflector(DeclaredReflector):
    """Its candidates are not fixed (one per --meta column): the pool is checked in the diagnosis."""
    SPEC = SPEC
    name: str = "stream-offline"

    def outlook(self, episode: int) -> str:
        if self.gate.cooling(episode):
            return (f"A proposal was rejected: the reflector looks for a telling column again from "
                    f"episode {self.cooldown_until}.")
        return ""

    def _open_candidates(self, ctx: ReflectionContext) -> list:
        in_pool = {p.fingerprint for p in ctx.pool} | {p.name for p in ctx.pool}
        return [c for c in getattr(ctx.scenario, "candidates", [])
                if c.fingerprint not in in_pool and c.name not in in_pool]

    def reflect(self, ctx: ReflectionContext) -> Reflection | None:
        verdict = self.gate.check(ctx)
        if not verdict:
            return None
        t, acc = ctx.episode, verdict.value
        start, failures = self.slow_window_failures(ctx)
        open_ = self._open_candidates(ctx)
        replayed = _replay(ctx.scenario, [*ctx.pool, *open_], failures) if open_ else []
        pool_ok, cand_ok = replayed[:len(ctx.pool)], replayed[len(ctx.pool):]
        unfixed = [i for i in range(len(failures)) if not any(ok[i] for ok in pool_ok)]
        counts = {cand.name: [failures[i] for i in unfixed if ok[i]] for cand, ok in zip(open_, cand_ok)}
        n_f = len(failures)
        column = {c.name: c.filters[0].key for c in open_}
        best = max(open_, key=lambda c: len(counts[c.name]), default=None)  # first column among equals
        n_fixed = len(counts[best.name]) if best else 0
        chance = _chance(ctx, self.window)
        p_value = _tail(n_fixed, len(unfixed), chance)
        alpha = ALPHA / max(1, len(open_))
        supported = (best is not None and n_fixed >= MIN_FIXED and n_fixed >= MIN_FIXED_SHARE * n_f
                     and p_value < alpha)
        gate = verdict.why
        tally = ", ".join(f"{column[c.name]} {len(counts[c.name])}" for c in open_) or "no --meta column to try"
        evidence = {"trailing_accuracy": round(acc, 4), "threshold": self.threshold, "slow_window": [start, t],
                    "failures": n_f, "unfixed_by_pool": len(unfixed),
                    "fixes_by_column": {column[c.name]: len(counts[c.name]) for c in open_},
                    "candidate": best.name if supported else "", "column": column[best.name] if supported else "",
                    "candidate_fixes": n_fixed, "fixed_episodes": counts[best.name] if best else [],
                    "chance": round(chance, 4), "p_chance": round(p_value, 6)}
        if not supported:
            if not open_:
                why = "there is no --meta column left to try"
            elif n_fixed >= MIN_FIXED and n_fixed >= MIN_FIXED_SHARE * n_f:
                why = (f"the best, {column[best.name]} with {n_fixed}, is no more than an unrelated column "
                       f"would fix by luck (p = {p_value:.3f} ≥ {alpha:.4f} with a {chance:.2f} chance that a "
                       "random past row shares the label)")
            else:
                why = f"no column's candidate fixes at least {MIN_FIXED} and {MIN_FIXED_SHARE:.0%} of them"
            return Reflection(
                episode=t, trigger=self.trigger, evidence=evidence, confidence=1.0,
                diagnosis=(f"{gate.capitalize()}; of the {n_f} failures in episodes {start}–{t}, the pool misses "
                           f"{len(unfixed)} entirely; retrieving by the same value of a column would fix: {tally}; "
                           f"{why}, so nothing is proposed."))
        col = column[best.name]
        self.gate.proposed(t)
        pattern = _pattern(ctx, col, counts[best.name])
        return Reflection(
            episode=t, trigger=self.trigger, evidence=evidence, regime_label=f"{col}-telling",
            confidence=round(n_fixed / n_f, 3) if n_f else 0.0,
            diagnosis=(f"{gate.capitalize()}; the rows' text no longer tells their label, but their {col!r} "
                       f"does: of the {n_f} failures in episodes {start}–{t}, retrieving past rows with the same "
                       f"{col} would have fixed {n_fixed} that every current policy misses (by column: {tally})."),
            insight=f"Rows with the same {col} share a label now: vote among recent rows with the query's {col}.",
            policy=best.to_dict(),
            rationale=(f"Column {col!r}: {best.name} fixes {n_fixed} of the {n_f} failures in episodes {start}–{t} "
                       f"that no pool policy fixes ({n_fixed} ≥ {MIN_FIXED} and {n_fixed / max(n_f, 1):.2f} ≥ "
                       f"{MIN_FIXED_SHARE}, and p = {p_value:.2g} that a column unrelated to the label would fix as many); "
                       f"the other columns fix {_others(open_, counts, column, best)}."
                       f"{' ' + pattern if pattern else ''}"),
        )


def _replay(scenario, specs: list, episodes: list[int]) -> list:
    """Each policy's counterfactual on `episodes`: in one replay where the world offers it."""
    many = getattr(scenario, "counterfactuals", None)
    if many is not None:
        return many(specs, episodes)
    return [scenario.counterfactual(p, episodes) for p in specs]


def _chance(ctx: ReflectionContext, window: int) -> float:
    """The chance that a past row drawn at random shares a row's label: Σ share² over the
    labels revealed in the trailing window. A candidate retrieving by a column unrelated to
    the label is right about this often, so its fixes are judged against it."""
    t = ctx.episode
    labels = ctx.scenario.labels[max(0, t - window + 1):t + 1]
    if not labels:
        return 1.0
    n = len(labels)
    return sum((c / n) ** 2 for c in Counter(labels).values())


def _tail(k: int, n: int, p: float) -> float:
    """P(X ≥ k) for X ~ Binomial(n, p): how often luck alone fixes k of n failures."""
    if k <= 0:
        return 1.0
    if k > n:
        return 0.0
    p = min(max(p, 0.0), 1.0)
    return min(1.0, sum(math.comb(n, i) * p ** i * (1 - p) ** (n - i) for i in range(k, n + 1)))


def _others(open_, counts, column, best) -> str:
    rest = [f"{column[c.name]} {len(counts[c.name])}" for c in open_ if c is not best]
    return ", ".join(rest) if rest else "none (it was the only column)"


def _pattern(ctx: ReflectionContext, column: str, fixed: list[int]) -> str:
    """How the fixed failures' values of `column` line up with their labels (revealed by now)."""
    by_value: dict[Any, Counter] = {}
    for u in fixed:
        q = ctx.scenario.query(u)
        by_value.setdefault(q.metadata.get(column), Counter())[q.truth["label"]] += 1
    ranked = sorted(by_value, key=lambda v: (-sum(by_value[v].values()), str(v)))[:3]
    parts = [f"{v} → {by_value[v].most_common(1)[0][0]} ({by_value[v].most_common(1)[0][1]} of "
             f"{sum(by_value[v].values())})" for v in ranked]
    return f"On the fixed failures, {column} → label: {', '.join(parts)}." if parts else ""
