"""Meta-Reflexion: observations distilled every 5 episodes into rules that are tracked and pruned.

Digest §4, §9, §10. After every learning episode the critic's record is kept
as a raw observation. Every `every` (5) episodes, with at least 3 raw
observations, up to 2 new rules are distilled: directives (trust a tool,
overweight a sector; support: an endpoint or a token means a route) that at
least 2 of the last 10 observations share, that no rule holds yet and that no
observation among them nor any rule held contradicts (the same tool, sector,
endpoint or token with other advice); then the raw list is cut to its last 3
(as the reference). At most 20 rules are stored and 10 shown. Every stored rule
that bears on the episode (portfolio: every bar; support: its endpoint or
token is the ticket's) counts an application, and a success when the episode
succeeded, shown or hidden (the reference's update loops over every rule), so
a hidden rule can recover or be pruned; a rule is hidden at ≥3 applications
with a success rate < .4, and pruned at ≥5 with a rate < .3. How it differs from AEL: the rules come from
one critic's observations on a fixed cadence, nothing chooses how memory is
read, and a rule is judged by the episodes it was shown on, not by whether
its advice held.

Degeneracy option: `as_code=true` reproduces the released code, where only
rules with applications > 0 were ever applied, so no rule is applied, hidden
or pruned, and the 10 oldest are shown forever.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from ..deferred import Deferred
from ..method_base import register_method
from ..options import OptionSpec
from .base import BASE_POLICY, PriorMethod, Shown, Table, label_option

RAW_KEPT = 3      # raw observations left after a distillation (the reference's cut)
RECENT = 10       # observations a distillation reads
MIN_RAW = 3
SUPPORT = 2       # observations that must share a directive


@register_method
class MetaReflexion(PriorMethod):
    name = "meta-reflexion"
    state_model = Deferred("engine.prior.saved_state", "MetaReflexionState")  # its saved state, read only with a save
    summary = "Meta-Reflexion: rules distilled every 5 episodes, hidden below 40% and pruned below 30% success"
    help = ("Meta-Reflexion turns per-episode observations into rules every 5 episodes (a directive at least 2 "
            "recent observations share), keeps at most 20 and shows 10, and tracks each shown rule's "
            "applications and successes: hidden after 3 applications below 40% success, pruned after 5 below "
            "30%. Unlike AEL, rules are judged by the episodes they were shown on, not by whether the advice "
            "held, and nothing chooses how memory is read.")
    options = (
        OptionSpec("every", int, 5, "distil every N episodes", minimum=1, maximum=1000),
        OptionSpec("new_rules", int, 2, "rules a distillation may add", minimum=1, maximum=20),
        OptionSpec("max_rules", int, 10, "rules shown (twice as many are stored)", minimum=1, maximum=100),
        OptionSpec("hide_after", int, 3, "applications before a rule may be hidden", minimum=1),
        OptionSpec("hide_below", float, 0.4, "success rate under which it is hidden", minimum=0.0, maximum=1.0),
        OptionSpec("prune_after", int, 5, "applications before a rule may be pruned", minimum=1),
        OptionSpec("prune_below", float, 0.3, "success rate under which it is pruned", minimum=0.0, maximum=1.0),
        label_option("alpha"),
        OptionSpec("as_code", bool, False, "as the released code: rules are never applied, so never hidden "
                   "or pruned (the 10 oldest are shown forever)"),
        BASE_POLICY,
    )
    llm_purpose = "prior.meta_reflexion"

    def reset(self) -> None:
        self.raw: list[dict[str, Any]] = []
        self.rules: list[dict[str, Any]] = []   # {"directive", "text", "born", "applications", "successes"}
        self.episodes = 0
        self.distillations = 0
        self.pruned: list[dict[str, Any]] = []  # the last pruned rules, for display
        self._applied: list[int] = []           # indices of the rules applied this episode (not saved:
                                                # set by `shown`, read by `learn` of the same step)

    @staticmethod
    def rate(rule: dict[str, Any]) -> float:
        return rule["successes"] / max(rule["applications"], 1)

    def active(self, rule: dict[str, Any]) -> bool:
        s = self.settings
        return rule["applications"] < s["hide_after"] or self.rate(rule) >= s["hide_below"]

    def shown(self, query, t, rng) -> Shown:
        s = self.settings
        active = [i for i, r in enumerate(self.rules) if self.active(r)][:s["max_rules"]]
        # every stored rule that bears on the episode is applied, shown or hidden (the reference's update
        # loops over all rules), so a hidden rule can recover or be pruned; as_code: only those already applied
        self._applied = [i for i, r in enumerate(self.rules) if self.world.fires(tuple(r["directive"]), query)
                         and not (s["as_code"] and r["applications"] == 0)]
        recent = self.raw[-RAW_KEPT:]
        return Shown(records=recent, weights=[1.0] * len(recent),
                     rules=[tuple(self.rules[i]["directive"]) for i in active],
                     lines={"rules": [self.rules[i]["text"] for i in active],
                            "lessons": [self.world.record_line(r) for r in recent]})

    def learn(self, record, query, outcome, t) -> None:
        s = self.settings
        for i in self._applied:  # the rules shown and bearing on this episode
            self.rules[i]["applications"] += 1
            self.rules[i]["successes"] += bool(record["success"])
        self._applied = []
        kept = [r for r in self.rules if not (r["applications"] >= s["prune_after"] and self.rate(r) < s["prune_below"])]
        self.pruned = ([r for r in self.rules if r not in kept] + self.pruned)[:10]
        self.rules = kept
        self.raw.append(record)
        self.episodes += 1
        if self.episodes % s["every"] == 0 and len(self.raw) >= MIN_RAW:
            self._distil(t)
            self.raw = self.raw[-RAW_KEPT:]   # as the reference, after every distillation

    def _distil(self, t: int) -> None:
        s = self.settings
        recent = self.raw[-RECENT:]
        said = [d for r in recent for d in dict.fromkeys(self.world.directives(r))]
        counts = Counter(said)
        held = {tuple(r["directive"]) for r in self.rules}
        # contradicted: another directive on the same condition, among these observations or the rules held
        conditions = Counter(self.world.condition(d) for d in {*counts, *held})
        added = 0
        for d, n in sorted(counts.items(), key=lambda x: (-x[1], said.index(x[0]))):
            if added >= s["new_rules"] or len(self.rules) >= 2 * s["max_rules"]:
                break
            if n < SUPPORT or d in held or conditions[self.world.condition(d)] > 1:
                continue
            self.rules.append({"directive": list(d), "text": self.world.directive_text(d), "born": t,
                               "applications": 0, "successes": 0})
            added += 1
        self.distillations += 1

    def state_dict(self) -> dict[str, Any]:
        return {"raw": self.raw, "rules": self.rules, "episodes": self.episodes,
                "distillations": self.distillations, "pruned": self.pruned}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.raw = list(state.get("raw", []))
        self.rules = [dict(r) for r in state.get("rules", [])]
        self.episodes = int(state.get("episodes", 0))
        self.distillations = int(state.get("distillations", 0))
        self.pruned = list(state.get("pruned", []))
        self._applied = []

    def memory_view(self) -> list[Table]:
        active = [r for r in self.rules if self.active(r)][:self.settings["max_rules"]]
        rows = [["shown" if r in active else "hidden" if not self.active(r) else "stored", str(r["born"]),
                 str(r["applications"]), f"{self.rate(r):.2f}", r["text"]] for r in self.rules]
        rows += [["pruned", str(r["born"]), str(r["applications"]), f"{self.rate(r):.2f}", r["text"]]
                 for r in self.pruned]
        raw = [[str(r["episode"]), "✓" if r["success"] else "✗", r["text"]] for r in reversed(self.raw)]
        return [Table(f"Rules ({len(self.rules)} stored, {len(active)} shown; {self.distillations} "
                      "distillations)", ["state", "born", "applied", "success", "rule"], rows),
                Table("Raw observations (since the last distillation)", ["episode", "ok", "observation"], raw)]
