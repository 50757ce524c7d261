"""skills: strategy playbooks and tool skills distilled from experience, used by the agent.

In the reference code skills were stored and never used (digest §7). Here,
after every slow window in learning (digest §10's parameters; distilled
before the next episode, when the window's outcomes are all in the history):

- a *playbook* is distilled from the window's successful episodes (outcome
  score > 0): under the regime label the agent saw on them, the tools whose
  calls were right on at least 60 % of at least 10 decided calls ("When
  regime=bearish, trust momentum, technicals") and those right on at most
  40 % ("... shrink dcf_model"). One playbook per label, refreshed when the
  label comes back with new evidence;
- a *tool skill* is a whitelisted derived feature: a tool whose hit rate over
  all calls stayed below 0.4 for 3 windows in a row gets its reversal
  ("fade score_risk"): the agent reads that tool's calls the other way round.

Use: before each episode, every skill that matches (a playbook of the current
regime label, every tool skill) and passes the gate (fewer than 10 uses, or a
success rate above 0.45) shapes the agent's tool reliability priors: trust
adds `strength` right pseudo-calls, shrink and fade add that many wrong ones
(a tool judged unreliable votes against its own call), and its text goes to
the agent's notes (a model's prompt shows them). A skill succeeded on a use
when the episode's outcome score was above 0; one with at least 20 uses and
a success rate under 0.6 is pruned. At most 15 skills of each kind (the least
successful, then the oldest, make room).
"""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING, Any

import numpy as np

from ..deferred import Deferred
from ..options import OptionSpec
from . import Variant, register_variant
from .panel_views import SkillRow, SkillsView

if TYPE_CHECKING:
    from ..session import Session

MIN_CALLS = 10
TRUST, SHRINK = 0.6, 0.4
FADE_BELOW, FADE_WINDOWS = 0.4, 3
GATE_USES, GATE_RATE = 10, 0.45
PRUNE_USES, PRUNE_RATE = 20, 0.6
CAP = 15
KINDS = ("playbook", "tool")


def _short(tool: str) -> str:
    return tool.split("_", 1)[1] if "_" in tool else tool


def playbook_text(label: str, trust: list[str], shrink: list[str]) -> str:
    parts = [f"trust {', '.join(map(_short, trust))}" if trust else "",
             f"shrink {', '.join(map(_short, shrink))}" if shrink else ""]
    return f"When regime={label}, " + "; ".join(p for p in parts if p) + "."


@register_variant
class Skills(Variant):
    name = "skills"
    state_model = Deferred("engine.variants.states", "SkillsState")  # its saved state, read only with a save
    summary = "playbooks and tool skills distilled from successful episodes, gated, pruned and used by the agent"
    options = (OptionSpec("strength", float, 6.0, "pseudo-calls a skill adds to a tool's reliability prior",
                          minimum=0.0, maximum=1000.0),)
    scenarios = ("portfolio",)
    help = ("At each slow window a playbook is distilled from the successful bars (which tools were "
            "right under the regime label the agent saw) and a tool that kept missing (hit rate < 0.4 for 3 "
            "windows) gets its reversal as a tool skill. A matching skill that passes its gate (< 10 uses or "
            "success > 0.45) shifts the agent's tool reliability priors and is shown to a model as a note; one "
            "with 20 uses and success < 0.6 is pruned. The panel lists each skill, its uses and success.")

    def __init__(self, **options: Any):
        super().__init__(**options)
        self.skills: list[dict[str, Any]] = []
        self.streaks: dict[str, int] = {}
        self.applied: list[str] = []          # keys of the skills used on the last episode
        self.pruned: list[dict[str, Any]] = []

    # ---------------------------------------------------------------- use
    def _open(self, skill: dict[str, Any]) -> bool:
        uses = skill["uses"]
        return uses < GATE_USES or skill["successes"] / uses > GATE_RATE

    def agent_context(self, session: "Session", query, ctx) -> None:
        t, n = query.episode, session.slow_window
        # a slow window just ended (its episodes are all in the history now): distil it first
        if t % n == 0 and t - n >= session.warmup and not session.frozen:
            self._distill(session, t - n, t)
        label = query.metadata.get("regime")
        self.applied = []
        strength = self.settings["strength"]
        for skill in self.skills:
            if (skill["kind"] == "playbook" and skill["label"] != label) or not self._open(skill):
                continue
            for tool in skill["trust"]:
                right, wrong = ctx.view.tool_prior.get(tool, (0.0, 0.0))
                ctx.view.tool_prior[tool] = (right + strength, wrong)
            for tool in skill["shrink"]:
                right, wrong = ctx.view.tool_prior.get(tool, (0.0, 0.0))
                ctx.view.tool_prior[tool] = (right, wrong + strength)
            ctx.view.notes.append(f"Skill: {skill['text']}")
            self.applied.append(skill["key"])

    # -------------------------------------------------------------- learn
    def learn(self, session: "Session", query, outcome, ctx) -> None:
        t = query.episode
        if session.frozen or session.phase_of(t) == "warmup":
            return
        success = outcome.score > 0
        for skill in self.skills:
            if skill["key"] in self.applied:
                skill["uses"] += 1
                skill["successes"] += int(success)
        self._prune(t)

    def _prune(self, t: int) -> None:
        keep = []
        for s in self.skills:
            if s["uses"] >= PRUNE_USES and s["successes"] / s["uses"] < PRUNE_RATE:
                self.pruned = (self.pruned + [{"key": s["key"], "episode": t, "uses": s["uses"],
                                               "successes": s["successes"]}])[-CAP:]
            else:
                keep.append(s)
        self.skills = keep

    def _distill(self, session: "Session", start: int, end: int) -> None:
        """Skills from the episodes [start, end)."""
        t = end - 1
        window = session.history[start:end]
        tools = list(session.scenario.tool_names())
        right_good = defaultdict(lambda: np.zeros((2, len(tools))))   # label -> [right, decided]
        hit = np.zeros((2, len(tools)))
        for r in window:
            calls, realised = session.scenario.tool_verdicts(r["episode"])
            decided = (calls != 0) & (realised[:, None] != 0)
            correct = decided & (calls == realised[:, None])
            hit += [correct.sum(axis=0), decided.sum(axis=0)]
            if r["score"] > 0:
                right_good[r["info"]["regime"]] += [correct.sum(axis=0), decided.sum(axis=0)]
        for label, (right, decided) in right_good.items():
            rate = np.divide(right, decided, out=np.full(len(tools), 0.5), where=decided > 0)
            enough = decided >= MIN_CALLS
            trust = [tools[i] for i in np.flatnonzero(enough & (rate >= TRUST))]
            shrink = [tools[i] for i in np.flatnonzero(enough & (rate <= SHRINK))]
            if trust or shrink:
                self._add({"kind": "playbook", "key": f"playbook:{label}", "label": label, "trust": trust,
                           "shrink": shrink, "text": playbook_text(label, trust, shrink)}, t)
        for i, tool in enumerate(tools):
            missed = hit[1, i] >= MIN_CALLS and hit[0, i] / hit[1, i] < FADE_BELOW
            self.streaks[tool] = self.streaks.get(tool, 0) + 1 if missed else 0
            if self.streaks[tool] >= FADE_WINDOWS and not any(s["key"] == f"fade:{tool}" for s in self.skills):
                self._add({"kind": "tool", "key": f"fade:{tool}", "label": "*", "trust": [], "shrink": [tool],
                           "text": f"fade {_short(tool)}: its calls missed on more than 60 % of decided calls "
                                   f"for {FADE_WINDOWS} windows, so read them the other way round."}, t)

    def _add(self, skill: dict[str, Any], t: int) -> None:
        old = next((s for s in self.skills if s["key"] == skill["key"]), None)
        if old is not None:  # the same situation again: new evidence, the record of use kept
            old.update({k: skill[k] for k in ("trust", "shrink", "text")}, refreshed_at=t)
            return
        same = [s for s in self.skills if s["kind"] == skill["kind"]]
        if len(same) >= CAP:
            worst = min(same, key=lambda s: (s["successes"] / s["uses"] if s["uses"] else 0.5, -s["created_at"]))
            self.skills.remove(worst)
        self.skills.append({**skill, "created_at": t, "refreshed_at": t, "uses": 0, "successes": 0})

    # ---------------------------------------------------------------- the lab
    def panel_view(self, session: "Session") -> SkillsView:
        """Each skill with its uses, success, gate and whether it shaped the last episode; the pruned."""
        rows = [SkillRow(s["kind"], s["text"], s["uses"], s["successes"] / s["uses"] if s["uses"] else None,
                         self._open(s), s["key"] in self.applied, s["created_at"]) for s in self.skills]
        pruned = [f"{p['key']} at {p['episode']} ({p['successes']}/{p['uses']})" for p in self.pruned]
        return SkillsView(rows, pruned)

    # ---------------------------------------------------------------- state
    def state_dict(self) -> dict[str, Any]:
        if not (self.skills or self.pruned or any(self.streaks.values())):
            return {}
        return {"skills": [dict(s) for s in self.skills], "streaks": dict(self.streaks),
                "applied": list(self.applied), "pruned": list(self.pruned)}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.skills = [dict(s) for s in state.get("skills", [])]
        self.streaks = dict(state.get("streaks", {}))
        self.applied = list(state.get("applied", []))
        self.pruned = list(state.get("pruned", []))
