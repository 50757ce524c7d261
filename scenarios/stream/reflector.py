"""The stream world's reflector: it looks for what would have got the window's failures right.

Every `cadence` rows, while nothing it proposed is pending:
1. gate: the accuracy over the trailing `window` rows is below `threshold`;
2. diagnose: F = the failures of the slow window just completed. The candidates: one per
   --meta column (retrieve among past rows with the same value of that column,
   `policies.candidate`), then those of each trigger that fires (signals.py: a recency
   window when labels new to memory appear or label shares shift, prototypes when the
   neighbours disagree, class balance when a label is starved). Replay each on F and
   count the failures it gets right while every policy of the current pool gets them wrong;
3. prescribe the candidate with the most such fixes (ties: the first column given, then
   the triggers' order) only if that count is at least 5 and at least a quarter of |F|
   (the support world's bar) and more than luck gives: a candidate unrelated to the label
   still fixes some failures, as often as a random past row shares the label (Σ share² of
   the labels in the trailing window), so the count must have a binomial tail below 1%
   shared among the candidates tried (with six labels and 16 failures no pool policy
   fixes, 5 or 6 fixes by an unrelated column happen by luck in a few percent of windows;
   the telling column fixes twice that).
   The rationale names the candidate, its trigger or column, and the numbers.

Nothing here, or in the world, knows which column or candidate matters: with nothing to
try, or nothing that clears the bar, nothing is proposed, and the reflection says what it
tried and why (evidence `nothing_proposed`), once: while the next windows try the same
candidates and fail for the same reason it stays silent (`said`, saved), until it tries
another, fails for another reason, proposes, or the trailing accuracy recovers above the
threshold (the next trouble is news). Candidates
already in the pool (by behaviour) are not replayed again. One proposal at a time; a
rejected one starts a cool-down of three cadences, after which the reflector looks again
on fresh failures. Its state is the settings, the two episode marks and `said`.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from engine.policies import PolicySpec
from engine.reflection import NOTHING_PROPOSED, Reflection, ReflectionContext
from engine.reflection_gate import DeclaredReflector

from .policies import trigger_candidates
from .signals import Trigger, triggers
from .spec import REPLAY_ROWS, SPEC

MIN_FIXED = 5
MIN_FIXED_SHARE = 0.25
ALPHA = 0.01  # the chance control's level, shared among the columns tried (Bonferroni)


@dataclass(frozen=True)
class Try:
    """One candidate the reflection replays, and what made it try it."""
    policy: PolicySpec
    kind: str      # "column" or a trigger's kind (signals.Trigger.kind)
    reason: str    # the column, or the triggers' clauses

    @property
    def label(self) -> str:
        return self.reason if self.kind == "column" else self.policy.name


@dataclass
class StreamReflector(DeclaredReflector):
    """Its candidates are not fixed (one per --meta column, then one set per trigger that fires):
    the pool is checked in the diagnosis."""
    SPEC = SPEC
    SAVED = ("said",)
    name: str = "stream-offline"
    # the reason the last reflection without a proposal gave, then every candidate tried since that
    # reason was first said: the same reason with nothing new tried is not said again (a reflection
    # every 25 rows would repeat it 50 times)
    said: list = field(default_factory=list)

    def should_reflect(self, ctx: ReflectionContext) -> bool:
        verdict = self.gate.check(ctx, self.holds_candidate)
        if verdict.rule == "metric":
            self.said = []  # accuracy recovered: the next trouble is news, whatever was said before it
        return verdict.open

    def outlook(self, episode: int) -> str:
        if self.gate.cooling(episode):
            return (f"A proposal was rejected: the reflector replays its candidates again from "
                    f"episode {self.cooldown_until}.")
        return ""

    def _tries(self, ctx: ReflectionContext, fired: list[Trigger]) -> tuple[list[Try], list[str]]:
        """The candidates to replay (columns first, then by trigger, each once), and the names
        of those a trigger asked for that the pool holds already (by behaviour or name)."""
        in_pool = {p.fingerprint for p in ctx.pool} | {p.name for p in ctx.pool}
        tries: list[Try] = [Try(c, "column", c.filters[0].key) for c in getattr(ctx.scenario, "candidates", [])
                            if c.fingerprint not in in_pool and c.name not in in_pool]
        held: list[str] = []
        for trig in fired:
            for c in trigger_candidates(trig.kind):
                if c.fingerprint in in_pool or c.name in in_pool:
                    held += [] if c.name in held else [c.name]
                    continue
                i = next((i for i, x in enumerate(tries) if x.policy.name == c.name), None)
                if i is None:
                    tries.append(Try(c, trig.kind, trig.why))
                else:
                    tries[i] = Try(c, trig.kind, f"{tries[i].reason}; {trig.why}")
        return tries, held

    def reflect(self, ctx: ReflectionContext) -> Reflection | None:
        verdict = self.gate.check(ctx)
        if not verdict:
            return None
        t, acc = ctx.episode, verdict.value
        start, failures = self.slow_window_failures(ctx)
        fired = triggers(ctx, self.window, self.cadence, REPLAY_ROWS)
        tries, held = self._tries(ctx, fired)
        open_ = [x.policy for x in tries]
        replayed = _replay(ctx.scenario, [*ctx.pool, *open_], failures) if open_ else []
        pool_ok, cand_ok = replayed[:len(ctx.pool)], replayed[len(ctx.pool):]
        unfixed = [i for i in range(len(failures)) if not any(ok[i] for ok in pool_ok)]
        counts = {c.name: [failures[i] for i in unfixed if ok[i]] for c, ok in zip(open_, cand_ok)}
        n_f = len(failures)
        best = max(tries, key=lambda x: len(counts[x.policy.name]), default=None)  # first among equals
        n_fixed = len(counts[best.policy.name]) if best else 0
        chance = _chance(ctx, self.window)
        p_value = _tail(n_fixed, len(unfixed), chance)
        alpha = ALPHA / max(1, len(open_))
        supported = (best is not None and n_fixed >= MIN_FIXED and n_fixed >= MIN_FIXED_SHARE * n_f
                     and p_value < alpha)
        gate = verdict.why
        columns = [x for x in tries if x.kind == "column"]
        tally = ", ".join(f"{x.label} {len(counts[x.policy.name])}" for x in tries) or "no --meta column to try"
        evidence = {"trailing_accuracy": round(acc, 4), "threshold": self.threshold, "slow_window": [start, t],
                    "failures": n_f, "unfixed_by_pool": len(unfixed),
                    "fixes_by_column": {x.reason: len(counts[x.policy.name]) for x in columns},
                    "fixes_by_candidate": {x.policy.name: len(counts[x.policy.name]) for x in tries},
                    "triggers": {trig.name: trig.why for trig in fired}, "held_by_pool": held,
                    "candidate": best.policy.name if supported else "",
                    "column": best.reason if supported and best.kind == "column" else "",
                    "candidate_fixes": n_fixed, "fixed_episodes": counts[best.policy.name] if best else [],
                    "chance": round(chance, 4), "p_chance": round(p_value, 6)}
        if not supported:
            return self._nothing(ctx, evidence, tries, held, fired, best, n_fixed, p_value, alpha, chance,
                                 unfixed, start, tally, gate)
        self.said = []  # a proposal: whatever comes after it is news
        self.gate.proposed(t)
        if best.kind != "column":
            return _trigger_proposal(ctx, self.trigger, best, tries, counts, evidence, n_f, n_fixed, p_value,
                                     start, gate)
        col, open_cols = best.reason, [x.policy for x in columns]
        column = {x.policy.name: x.reason for x in columns}
        pattern = _pattern(ctx, col, counts[best.policy.name])
        return Reflection(
            episode=t, trigger=self.trigger, evidence=evidence, regime_label=f"{col}-telling",
            confidence=round(n_fixed / n_f, 3) if n_f else 0.0,
            diagnosis=(f"{gate.capitalize()}; the rows' text no longer tells their label, but their {col!r} "
                       f"does: of the {n_f} failures in episodes {start}–{t}, retrieving past rows with the same "
                       f"{col} would have fixed {n_fixed} that every current policy misses "
                       f"(by {'column' if len(columns) == len(tries) else 'candidate'}: {tally})."),
            insight=f"Rows with the same {col} share a label now: vote among recent rows with the query's {col}.",
            policy=best.policy.to_dict(),
            rationale=(f"Column {col!r}: {best.policy.name} fixes {n_fixed} of the {n_f} failures in episodes "
                       f"{start}–{t} that no pool policy fixes ({n_fixed} ≥ {MIN_FIXED} and "
                       f"{n_fixed / max(n_f, 1):.2f} ≥ {MIN_FIXED_SHARE}, and p = {p_value:.2g} that a column "
                       f"unrelated to the label would fix as many); the other columns fix "
                       f"{_others(open_cols, counts, column, best.policy)}.{' ' + pattern if pattern else ''}"),
        )

    def _nothing(self, ctx, evidence, tries, held, fired, best, n_fixed, p_value, alpha, chance, unfixed,
                 start, tally, gate) -> Reflection | None:
        """What was tried and why nothing clears the bar, said once: None when the last such
        reflection tried the same candidates and failed for the same reason."""
        t, n_f = ctx.episode, evidence["failures"]
        if not tries:
            code = "nothing to try"
            why = "there is no --meta column left to try"
            if fired:
                why += (f", and what the triggers ask for is in the pool already ({', '.join(held)})" if held
                        else ", and no candidate answers the triggers")
            else:
                why += " and no trigger fired (no label new to memory, no shift in label shares, no disagreeing "
                why += "neighbours, no starved label)"
        elif n_fixed >= MIN_FIXED and n_fixed >= MIN_FIXED_SHARE * n_f:
            code = "luck"
            why = (f"the best, {best.label} with {n_fixed}, is no more than an unrelated "
                   f"{'column' if best.kind == 'column' else 'policy'} would fix by luck (p = {p_value:.3f} ≥ "
                   f"{alpha:.4f} with a {chance:.2f} chance that a random past row shares the label)")
        else:
            code = "below the bar"
            what = "column's candidate" if all(x.kind == "column" for x in tries) else "candidate"
            why = f"no {what} fixes at least {MIN_FIXED} and {MIN_FIXED_SHARE:.0%} of them"
        if tries and held:
            why += f" ({', '.join(held)}, which the triggers ask for, {'is' if len(held) == 1 else 'are'} in the pool)"
        names = {x.policy.name for x in tries} | set(held)
        if self.said and self.said[0] == code and names <= set(self.said[1:]):
            return None  # the same reason, nothing tried that it has not said: said already
        self.said = [code, *sorted(names | (set(self.said[1:]) if self.said and self.said[0] == code else set()))]
        evidence[NOTHING_PROPOSED] = {"tried": evidence["fixes_by_candidate"], "held_by_pool": held,
                                      "triggers": evidence["triggers"], "why": why}
        fired_text = "; ".join(f"{trig.name}: {trig.why}" for trig in fired)
        return Reflection(
            episode=t, trigger=self.trigger, evidence=evidence, confidence=1.0,
            diagnosis=(f"{gate.capitalize()}; {('triggers — ' + fired_text + '; ') if fired else ''}of the {n_f} "
                       f"failures in episodes {start}–{t}, the pool misses {len(unfixed)} entirely; "
                       f"{_would_fix(tries, tally)}{why}, so nothing is proposed (said once: not again while "
                       f"what it tries and why stay the same)."))


def _would_fix(tries: list[Try], tally: str) -> str:
    if not tries:
        return ""
    what = "retrieving by the same value of a column" if all(x.kind == "column" for x in tries) else \
        "the candidates"
    return f"{what} would fix: {tally}; "


INSIGHTS = {
    "recency": ("new-labels", "Labels new to memory (or whose share grew) are outvoted by older rows: vote among "
                              "the most similar recent rows."),
    "prototypes": ("disagreeing-neighbours", "The nearest rows disagree: compare the query with each label's "
                                             "prototype too."),
    "balance": ("starved-label", "A label the vote never answers is outvoted: let every label's nearest row vote."),
}


def _trigger_proposal(ctx, trigger: str, best: Try, tries: list[Try], counts, evidence, n_f, n_fixed, p_value, start,
                      gate) -> Reflection:
    t = ctx.episode
    label, insight = INSIGHTS[best.kind]
    others = ", ".join(f"{x.label} {len(counts[x.policy.name])}" for x in tries if x is not best) or "none"
    return Reflection(
        episode=t, trigger=trigger, evidence=evidence, regime_label=label,
        confidence=round(n_fixed / n_f, 3) if n_f else 0.0,
        diagnosis=(f"{gate.capitalize()}; {best.reason}: of the {n_f} failures in episodes {start}–{t}, "
                   f"{best.policy.name} would have fixed {n_fixed} that every current policy misses."),
        insight=insight, policy=best.policy.to_dict(),
        rationale=(f"{best.policy.name} ({best.reason}) fixes {n_fixed} of the {n_f} failures in episodes "
                   f"{start}–{t} that no pool policy fixes ({n_fixed} ≥ {MIN_FIXED} and "
                   f"{n_fixed / max(n_f, 1):.2f} ≥ {MIN_FIXED_SHARE}, and p = {p_value:.2g} that a policy "
                   f"unrelated to the label would fix as many); the other candidates fix {others}."),
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
