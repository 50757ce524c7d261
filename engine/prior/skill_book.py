"""FactorMiner's memory: skills whose success rates move both ways, and a FIFO of experiences.

The mechanism of the paper's FactorMiner baseline, world-independent (digest
§3, §9, §10):

- a skill is keyed by what it is about (the portfolio: the sorted names of at
  most 4 tools relied on together; support: "endpoint@label") and holds a value
  (the tools; the retrieval policy that solved such tickets), a success rate
  and a count n;
- a skill is created on a correct episode with success 1.0 and n = 1; an
  existing skill moves by an EMA with alpha = 2 / (n + 1) toward 1 on a correct
  episode and toward 0 on a wrong one (the released code's label was always
  "correct", so its skills only ever rose: `as_code` reproduces that);
- at most `max_skills` (15): a new skill evicts the worst (lowest success,
  then fewest uses, then the oldest);
- experiences (episode, key, prediction, actual, correct) in a FIFO of at most
  `max_experiences` (200);
- the decision rule: a skill is used when its success is at least `threshold`
  (0.5).

No randomness. The state is plain data (`state_dict` / `from_state_dict`).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from engine.errors import AELError


@dataclass
class Skill:
    key: str
    value: list[str]           # the tools (portfolio) or [policy] (support)
    success: float = 1.0
    n: int = 1
    created: int = 0           # episode
    last: int = 0              # episode of the last update
    wins: int = 1              # updates toward 1 (the creation counts)
    losses: int = 0            # updates toward 0


@dataclass
class Experience:
    episode: int
    key: str
    predicted: str
    actual: str
    correct: bool
    record: dict[str, Any] | None = None   # the critic's record (support: it votes again)


@dataclass(frozen=True)
class FactorMinerConfig:
    max_skills: int = 15
    max_experiences: int = 200
    threshold: float = 0.5
    as_code: bool = False

    def __post_init__(self) -> None:
        if self.max_skills < 1 or self.max_experiences < 1:
            raise AELError("factorminer: the skill and experience caps must be at least 1")


@dataclass
class SkillBook:
    config: FactorMinerConfig = field(default_factory=FactorMinerConfig)
    skills: dict[str, Skill] = field(default_factory=dict)
    experiences: list[Experience] = field(default_factory=list)
    evicted: int = 0

    # ---------------------------------------------------------------- decision
    def usable(self, key: str) -> Skill | None:
        """The skill under `key` if the decision rule lets it be used."""
        s = self.skills.get(key)
        return s if s is not None and s.success >= self.config.threshold else None

    def ranked(self) -> list[Skill]:
        """Best first: success, then uses, then the older."""
        return sorted(self.skills.values(), key=lambda s: (-s.success, -s.n, s.created, s.key))

    def best_usable(self) -> Skill | None:
        top = self.ranked()
        return top[0] if top and top[0].success >= self.config.threshold else None

    def recent(self, n: int = 5, key: str | None = None) -> list[Experience]:
        """The last n experiences (of `key` only, if given), oldest first."""
        found = [e for e in self.experiences if key is None or e.key == key]
        return found[-n:]

    # ------------------------------------------------------------------ update
    def reinforce(self, key: str, correct: bool, episode: int) -> Skill | None:
        """Move an existing skill toward 1 (correct) or 0 (wrong); None if there is none."""
        s = self.skills.get(key)
        if s is None:
            return None
        correct = correct or self.config.as_code
        s.n += 1
        s.success += 2.0 / (s.n + 1) * ((1.0 if correct else 0.0) - s.success)
        s.wins += correct
        s.losses += not correct
        s.last = episode
        return s

    def create(self, key: str, value: list[str], episode: int) -> Skill:
        """A new skill at success 1.0 (replacing one under the same key), evicting the worst when full."""
        if key not in self.skills and len(self.skills) >= self.config.max_skills:
            worst = min(self.skills.values(), key=lambda s: (s.success, s.n, -s.created, s.key))
            del self.skills[worst.key]
            self.evicted += 1
        s = self.skills[key] = Skill(key, list(value), 1.0, 1, episode, episode)
        return s

    def remember(self, exp: Experience) -> None:
        if self.config.as_code:
            exp.correct = True
        self.experiences.append(exp)
        del self.experiences[:-self.config.max_experiences]

    # ------------------------------------------------------------------- state
    def state_dict(self) -> dict[str, Any]:
        return {"skills": [asdict(s) for s in self.skills.values()],
                "experiences": [asdict(e) for e in self.experiences], "evicted": self.evicted}

    @classmethod
    def from_state_dict(cls, config: FactorMinerConfig, state: dict[str, Any]) -> "SkillBook":
        skills = [Skill(**s) for s in state["skills"]]
        experiences = [Experience(**e) for e in state["experiences"]]
        if len(skills) > config.max_skills or len(experiences) > config.max_experiences:
            raise AELError(f"factorminer: the save holds {len(skills)} skills and {len(experiences)} experiences, "
                           f"above the caps {config.max_skills} and {config.max_experiences}")
        if len({s.key for s in skills}) != len(skills):
            raise AELError("factorminer: the save holds two skills under one key")
        return cls(config, {s.key: s for s in skills}, experiences, int(state.get("evicted", 0)))

