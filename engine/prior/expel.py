"""ExpeL: a store of reusable lessons, retrieved by key and counted when used.

Digest §2, §9, §10. After every learning episode the critic's record becomes
a lesson with a success flag. The store holds at most `cap` (100) lessons;
when full, the least-used lesson goes, the oldest among equals. Before each
episode the `k` (5) best lessons are retrieved by the paper's keys, scored
2·[same primary key: the sector held most / the endpoint] + 1·[same lagged
label] + similarity (support: Jaccard of the texts) + 0.5·[success], ties to
the newest, and each one retrieved counts a use. Successes are shown as rules,
failures as lessons. How it differs from AEL: one fixed retrieval rule instead
of a bandit over several, lessons are never scored by what they led to, and
the only forgetting is by use.

Degeneracy option: `as_code=true` reproduces the released portfolio code, which
never called retrieval: the last 10 lessons are shown, use counts stay 0 and
eviction is first-in first-out.
"""

from __future__ import annotations

from typing import Any

from ..deferred import Deferred
from ..method_base import register_method
from ..options import OptionSpec
from .base import BASE_POLICY, PriorMethod, Shown, Table, label_option


@register_method
class ExpeL(PriorMethod):
    name = "expel"
    state_model = Deferred("engine.prior.saved_state", "ExpelState")  # its saved state, read only with a save
    summary = "ExpeL: up to 100 lessons, the 5 best by key retrieved and counted; the least-used evicted"
    help = ("ExpeL keeps a store of reusable lessons (\"RULE: in a bear bar trust momentum, overweight Energy\"; "
            "\"RULE: /v1/billing tickets about refunds go to billing\"), at most 100, and before each episode "
            "retrieves the 5 that match best by key (same sector or endpoint +2, same label +1, text overlap, "
            "success +0.5), counting each use; when full it drops the least-used. Unlike AEL one fixed "
            "retrieval rule reads it, and a lesson's worth is never judged by what followed.")
    endpoint_keyed = True
    options = (
        OptionSpec("cap", int, 100, "lessons kept", minimum=1, maximum=10_000),
        OptionSpec("k", int, 5, "lessons retrieved per episode", minimum=1, maximum=100),
        label_option("return"),
        OptionSpec("as_code", bool, False, "as the released portfolio code: no retrieval, the last 10 shown, "
                   "use counts stay 0, first-in first-out eviction"),
        BASE_POLICY,
    )
    llm_purpose = "prior.expel"

    def reset(self) -> None:
        self.lessons: list[dict[str, Any]] = []   # {"record", "uses", "added"}
        self.evicted = 0

    def _score(self, lesson: dict[str, Any], keys: dict[str, Any]) -> float:
        rec = lesson["record"]
        rk = rec.get("keys", {})
        return (2.0 * (rk.get("primary") is not None and rk.get("primary") == keys.get("primary"))
                + 1.0 * (rk.get("label") is not None and rk.get("label") == keys.get("label"))
                + self.world.similarity(keys, rec) + 0.5 * bool(rec["success"]))

    def shown(self, query, t, rng) -> Shown:
        if self.settings["as_code"]:
            picked = self.lessons[-10:]
        else:
            keys = self.world.query_keys(query)
            order = sorted(range(len(self.lessons)),
                           key=lambda i: (-self._score(self.lessons[i], keys), -self.lessons[i]["added"]))
            picked = [self.lessons[i] for i in order[:self.settings["k"]]]
            for lesson in picked if self.learning else ():
                lesson["uses"] += 1
        recs = [x["record"] for x in picked]
        lines = {"rules": [self.world.record_line(r) for r in recs if r["success"]],
                 "lessons": [self.world.record_line(r) for r in recs if not r["success"]]}
        return Shown(records=recs, weights=[1.0] * len(recs), lines=lines)

    def learn(self, record, query, outcome, t) -> None:
        if len(self.lessons) >= self.settings["cap"]:
            if self.settings["as_code"]:
                gone = 0
            else:  # least-used first, oldest among equals
                gone = min(range(len(self.lessons)), key=lambda i: (self.lessons[i]["uses"], self.lessons[i]["added"]))
            del self.lessons[gone]
            self.evicted += 1
        self.lessons.append({"record": record, "uses": 0, "added": t})

    def state_dict(self) -> dict[str, Any]:
        return {"lessons": self.lessons, "evicted": self.evicted}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.lessons = [dict(x) for x in state.get("lessons", [])]
        self.evicted = int(state.get("evicted", 0))

    def memory_view(self) -> list[Table]:
        shown = {id(r) for r in self.last_shown.records}
        rows = [["▶" if id(x["record"]) in shown else "", str(x["added"]), str(x["uses"]),
                 "✓" if x["record"]["success"] else "✗", x["record"]["text"]]
                for x in sorted(self.lessons, key=lambda x: (-x["uses"], -x["added"]))]
        return [Table(f"Lesson store ({len(self.lessons)}/{self.settings['cap']}, {self.evicted} evicted; "
                      "most used first, ▶ retrieved now)", ["", "added", "uses", "ok", "lesson"], rows)]
