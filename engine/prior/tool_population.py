"""EvoTool's population of tool policies: fitness, choice, blame, mutation, replacement.

The mechanism of the paper's EvoTool baseline, world-independent (digest §5,
§9, §10): a population of tool policies, each an ordered list of members drawn
from a universe (the portfolio's 12 tools; support's 5 retrieval policies).

- fitness starts at 0.5 and is an EMA with alpha = 2 / (n + 1) on the episode's
  outcome (1 correct, 0 wrong), n counting this evaluation, so the first
  evaluation sets it;
- one policy is chosen per episode, with probability proportional to its
  fitness floored at `FITNESS_FLOOR`;
- on a failure the caller names the blamed members (those wrong themselves);
- after every update, the worst policy among those evaluated at least
  `min_evals` times (lowest fitness; the later slot among equals), unless it is
  the best, is replaced by a mutant of the best (highest fitness; the earlier slot among equals): the
  parent's members minus the blamed, one missing member added with probability
  `p_add`, two members swapped with probability `p_swap`, padded with random
  missing members to `min_size`; the mutant's fitness is `inheritance` x the
  parent's and it has no evaluations.

`as_code=True` reproduces the released code's degeneracy: every outcome counts
as correct, so nothing is ever blamed and every evaluated policy sits at 1.0;
and the worst of all policies is the one due, so an unevaluated worst blocks
replacement, as in the released code.

Every draw comes from the generator passed in (the session's); the state is
plain data (`state_dict` / `from_state_dict`).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Sequence

import numpy as np

from engine.errors import AELError

FITNESS_FLOOR = 0.01
MUTATION_LOG = 50   # mutations kept for display (the counts are kept in full)


@dataclass
class ToolPolicy:
    members: list[str]
    fitness: float = 0.5
    n_evals: int = 0
    born: int = -1          # the episode it was made (-1: the initial population)


@dataclass
class Mutation:
    """One replacement, for the lab: which slot, from which parent, what changed."""

    episode: int
    slot: int
    parent: int
    dropped: list[str]
    added: list[str]
    swapped: list[str]
    members: list[str]
    fitness: float
    replaced: list[str]       # the members of the policy it replaced
    replaced_fitness: float


@dataclass(frozen=True)
class EvoToolConfig:
    universe: tuple[str, ...]
    population: int = 5
    init_size: tuple[int, int] = (4, 12)   # members of an initial policy, inclusive
    min_size: int = 3
    p_add: float = 0.5
    p_swap: float = 0.3
    inheritance: float = 0.9
    min_evals: int = 3
    as_code: bool = False

    def __post_init__(self) -> None:
        lo, hi = self.init_size
        if not (1 <= self.min_size <= len(self.universe) and 1 <= lo <= hi <= len(self.universe)):
            raise AELError(f"evotool: sizes {self.init_size} / minimum {self.min_size} do not fit a universe "
                           f"of {len(self.universe)}")
        if self.population < 1:
            raise AELError("evotool: the population needs at least one policy")


@dataclass
class Population:
    config: EvoToolConfig
    policies: list[ToolPolicy]
    mutations: list[Mutation] = field(default_factory=list)
    n_mutations: int = 0
    n_blames: int = 0
    chosen: int | None = None   # the slot chosen for the current episode
    last_blamed: list[str] = field(default_factory=list)   # blamed at the last update

    @classmethod
    def initial(cls, config: EvoToolConfig, rng: np.random.Generator) -> "Population":
        lo, hi = config.init_size
        policies = []
        for _ in range(config.population):
            size = int(rng.integers(lo, hi + 1))
            picks = rng.choice(len(config.universe), size=size, replace=False)
            policies.append(ToolPolicy([config.universe[int(i)] for i in picks]))
        return cls(config, policies)

    # ------------------------------------------------------------------ choice
    def probabilities(self) -> np.ndarray:
        f = np.maximum([p.fitness for p in self.policies], FITNESS_FLOOR)
        return f / f.sum()

    def choose(self, rng: np.random.Generator) -> int:
        """The slot that plays this episode (one draw, fitness-proportional)."""
        self.chosen = int(rng.choice(len(self.policies), p=self.probabilities()))
        return self.chosen

    # ------------------------------------------------------------------ update
    def update(self, slot: int, correct: bool, blamed: Sequence[str], episode: int,
               rng: np.random.Generator) -> Mutation | None:
        """Score the policy in `slot` on an outcome, then replace the worst if it is due.
        `blamed` counts only on a failure (and never under `as_code`)."""
        if self.config.as_code:
            correct, blamed = True, ()
        pol = self.policies[slot]
        pol.n_evals += 1
        alpha = 2.0 / (pol.n_evals + 1)
        pol.fitness += alpha * ((1.0 if correct else 0.0) - pol.fitness)
        blamed = [] if correct else [b for b in blamed if b in pol.members]
        self.n_blames += bool(blamed)
        self.last_blamed = list(blamed)
        return self._replace_worst(blamed, episode, rng)

    def _replace_worst(self, blamed: list[str], episode: int, rng: np.random.Generator) -> Mutation | None:
        fit = [p.fitness for p in self.policies]
        best = min(range(len(fit)), key=lambda i: (-fit[i], i))
        # The released code replaces the worst of all only once it has min_evals: with a
        # real label a policy that fails its first two evaluations sinks to the floor, is
        # almost never chosen again and blocks every replacement. So the worst among the
        # policies evaluated min_evals times goes (the released rule under as_code).
        due = range(len(fit)) if self.config.as_code else \
            [i for i, p in enumerate(self.policies) if p.n_evals >= self.config.min_evals]
        worst = min(due, key=lambda i: (fit[i], -i), default=None)
        if worst is None or worst == best or self.policies[worst].n_evals < self.config.min_evals:
            return None
        parent, old = self.policies[best], self.policies[worst]
        members, change = self._mutant(parent.members, blamed, rng)
        self.policies[worst] = ToolPolicy(members, self.config.inheritance * parent.fitness, 0, episode)
        m = Mutation(episode, worst, best, change["dropped"], change["added"], change["swapped"], list(members),
                     self.policies[worst].fitness, list(old.members), old.fitness)
        self.mutations = (self.mutations + [m])[-MUTATION_LOG:]
        self.n_mutations += 1
        return m

    def _mutant(self, members: list[str], blamed: list[str], rng: np.random.Generator
                ) -> tuple[list[str], dict[str, list[str]]]:
        cfg = self.config
        out = [m for m in members if m not in blamed]
        change: dict[str, list[str]] = {"dropped": [m for m in members if m in blamed], "added": [], "swapped": []}
        if rng.random() < cfg.p_add:
            self._add_one(out, change, blamed, rng)
        if rng.random() < cfg.p_swap and len(out) >= 2:
            i, j = (int(x) for x in rng.choice(len(out), size=2, replace=False))
            out[i], out[j] = out[j], out[i]
            change["swapped"] = [out[j], out[i]]
        while len(out) < cfg.min_size:
            self._add_one(out, change, blamed, rng)
        return out, change

    def _add_one(self, out: list[str], change: dict[str, list[str]], blamed: list[str],
                 rng: np.random.Generator) -> None:
        """Append a random missing member, preferring those not just blamed."""
        missing = [u for u in self.config.universe if u not in out]
        fresh = [u for u in missing if u not in blamed] or missing
        if fresh:
            pick = fresh[int(rng.integers(len(fresh)))]
            out.append(pick)
            change["added"].append(pick)

    # ------------------------------------------------------------------- state
    def state_dict(self) -> dict[str, Any]:
        return {"policies": [asdict(p) for p in self.policies], "mutations": [asdict(m) for m in self.mutations],
                "n_mutations": self.n_mutations, "n_blames": self.n_blames, "chosen": self.chosen, "last_blamed": list(self.last_blamed)}

    @classmethod
    def from_state_dict(cls, config: EvoToolConfig, state: dict[str, Any]) -> "Population":
        policies = [ToolPolicy(**p) for p in state["policies"]]
        universe = set(config.universe)
        for p in policies:
            if not p.members or set(p.members) - universe or len(set(p.members)) != len(p.members):
                raise AELError(f"evotool: a saved policy {p.members} is not a set of "
                               f"{', '.join(config.universe)}")
        if len(policies) != config.population:
            raise AELError(f"evotool: the save has {len(policies)} policies, the method {config.population}")
        return cls(config, policies, [Mutation(**m) for m in state["mutations"]], int(state["n_mutations"]),
                   int(state["n_blames"]), state.get("chosen"), list(state.get("last_blamed", [])))
