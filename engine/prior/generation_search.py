"""HyperAgent offline: a parametric allocator searched generation by generation.

The paper's HyperAgent has an LLM rewrite an `allocate()` function, keeps a
candidate when its train+val Sharpe is within epsilon of the best, and at the
end runs the best code frozen on every bar (digest §6). Offline (digest §10)
the code is a parametric allocator over theta and the LLM's proposal is a
seeded Gaussian move:

- theta = 7 feature coefficients (ret4, ret8, RSI, tech score, vol30, DCF
  upside, risk overall; each feature z-scored across the tickers of its bar,
  missing values 0), `mix` in [0, 1] and `cash` in [0, CASH_MAX]; weights =
  (1 - cash) x ((1 - mix) x equal weight + mix x softmax(coefficients . z));
  theta0 (all 0) is equal weight, the original's initial code;
- a generation moves 1 or 2 coordinates of the incumbent by N(0, sigma x the
  coordinate's range); a non-finite or out-of-bound theta fails validation
  and is logged, as the original's invalid code was;
- a valid candidate is scored by the annualised Sharpe (ddof 1, x sqrt(1008),
  the run script's convention) of its returns on the scoring bars; it is
  accepted (becomes the incumbent) when score >= best - epsilon, and becomes
  the best only on a strict improvement. The best starts at -inf, so the
  first valid candidate is always accepted and equal weight is never scored
  (`score_ew_first` scores it first instead);
- every 3rd generation (from the 3rd on) whose candidate validated, sigma
  adapts by the 1/5 success rule over the generations since the last
  adaptation (the original rewrote its meta-prompt there);
- at test the best theta runs frozen. `key_mismatch` reproduces the original's
  train/test state mismatch: at test a theta that reads the history features
  (ret4, ret8, vol30) fails on every bar and falls back to equal weight.

World-independent: features (bars x tickers x 7) and next-bar returns come in
as arrays; every draw from the generator passed in.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any, Callable, Sequence

import numpy as np

from engine.errors import AELError

FEATURES = ("ret4", "ret8", "rsi", "tech_score", "vol30", "dcf_upside", "risk_overall")
HISTORY_FEATURES = ("ret4", "ret8", "vol30")   # read from the state's history in the original's code
COEF_MAX = 3.0
CASH_MAX = 0.5
COORDS = (*FEATURES, "mix", "cash")
LOWER = np.array([-COEF_MAX] * len(FEATURES) + [0.0, 0.0])
UPPER = np.array([COEF_MAX] * len(FEATURES) + [1.0, CASH_MAX])
EQUAL_WEIGHT = np.zeros(len(COORDS))
ANN = 1008
SIGMA_BOUNDS = (0.01, 0.5)
FIFTH_RULE_FACTOR = 0.82   # sigma x this when fewer than 1/5 improved, / this when more


@dataclass(frozen=True)
class HyperAgentConfig:
    generations: int = 20
    epsilon: float = 0.05
    sigma: float = 0.1              # initial step, as a share of each coordinate's range
    adapt_every: int = 3
    score_ew_first: bool = False
    key_mismatch: bool = False

    def __post_init__(self) -> None:
        if self.generations < 1 or self.adapt_every < 1 or not (SIGMA_BOUNDS[0] <= self.sigma <= SIGMA_BOUNDS[1]):
            raise AELError(f"hyperagent: generations and adapt_every must be at least 1 and sigma in "
                           f"[{SIGMA_BOUNDS[0]}, {SIGMA_BOUNDS[1]}]")


def validation_error(theta: Sequence[float]) -> str | None:
    """Why theta cannot run (None if it can): the offline stand-in for code that fails to validate."""
    th = np.asarray(theta, dtype=float)
    if th.shape != (len(COORDS),):
        return f"theta has {th.size} coordinates, not {len(COORDS)}"
    if not np.isfinite(th).all():
        return "non-finite " + ", ".join(c for c, x in zip(COORDS, th) if not math.isfinite(x))
    out = [c for c, x, lo, hi in zip(COORDS, th, LOWER, UPPER) if not lo <= x <= hi]
    return "out of bounds: " + ", ".join(out) if out else None


def reads_history(theta: Sequence[float]) -> bool:
    return any(theta[COORDS.index(f)] != 0.0 for f in HISTORY_FEATURES)


def weights(theta: Sequence[float], z: np.ndarray) -> np.ndarray:
    """Ticker weights for one bar from its z-scored features (tickers x 7); cash = 1 - sum."""
    th = np.asarray(theta, dtype=float)
    k = z.shape[0]
    s = z @ th[:len(FEATURES)]
    p = np.exp(s - s.max())
    p /= p.sum()
    mix, cash = th[-2], th[-1]
    return (1.0 - cash) * ((1.0 - mix) / k + mix * p)


def standardise(features: np.ndarray) -> np.ndarray:
    """z-score each feature across the tickers of its bar; missing or constant -> 0."""
    x = np.asarray(features, dtype=float)
    x = np.where(np.isfinite(x), x, np.nan)
    have = (~np.isnan(x)).sum(axis=-2, keepdims=True)
    safe = np.where(np.isnan(x), 0.0, x)
    mean = safe.sum(axis=-2, keepdims=True) / np.maximum(have, 1)
    dev = np.where(np.isnan(x), 0.0, x - mean)
    sd = np.sqrt((dev ** 2).sum(axis=-2, keepdims=True) / np.maximum(have, 1))
    with np.errstate(invalid="ignore", divide="ignore"):
        z = dev / np.where(sd > 1e-12, sd, np.inf)
    return np.where(np.isfinite(z), z, 0.0)


def portfolio_returns(theta: Sequence[float], z: np.ndarray, next_returns: np.ndarray) -> np.ndarray:
    """Per-bar returns of theta held frozen over the given bars (z: bars x tickers x 7)."""
    return np.array([weights(theta, z[i]) @ next_returns[i] for i in range(len(z))])


def sharpe_ddof1(returns: np.ndarray, ann: float = ANN) -> float:
    """mean / std (ddof 1) x sqrt(ann); 0 with fewer than 2 bars or no spread."""
    r = np.asarray(returns, dtype=float)
    if len(r) < 2:
        return 0.0
    sd = r.std(ddof=1)
    return float(r.mean() / sd * math.sqrt(ann)) if sd > 1e-12 else 0.0


@dataclass
class Generation:
    number: int
    episode: int
    theta: list[float | None]          # None where a given candidate was not finite (JSON holds no NaN)
    moved: list[str]
    valid: bool
    failure: str = ""
    score: float | None = None
    best_before: float | None = None   # None: -inf
    accepted: bool = False
    improved: bool = False
    sigma: float = 0.0                 # the step used
    adapted_to: float | None = None    # sigma after a 1/5-rule adaptation here
    code: str = ""                     # a model's allocation code (engine/prior/hyperagent_code.py), theta empty
    source: str = "offline"            # offline, llm, fallback (the model did not answer: a Gaussian move)


@dataclass
class Search:
    """The search state: the incumbent (what a next candidate moves from), the best
    (what runs frozen at test) and its score, sigma and every generation so far."""

    config: HyperAgentConfig = field(default_factory=HyperAgentConfig)
    incumbent: list[float] = field(default_factory=lambda: EQUAL_WEIGHT.tolist())
    best: list[float] = field(default_factory=lambda: EQUAL_WEIGHT.tolist())
    best_score: float | None = None    # None: -inf (nothing scored yet)
    sigma: float = 0.1
    generations: list[Generation] = field(default_factory=list)
    since_adapt: list[bool] = field(default_factory=list)   # improvements since the last adaptation
    incumbent_code: str = ""           # when set, the incumbent is this approved code, not a theta
    best_code: str = ""                # when set, the best is this approved code (run only in the sandbox)

    @classmethod
    def start(cls, config: HyperAgentConfig) -> "Search":
        return cls(config, sigma=config.sigma)

    @property
    def done(self) -> bool:
        return len(self.generations) >= self.config.generations

    def propose(self, rng: np.random.Generator) -> tuple[np.ndarray, list[str]]:
        """The seeded Gaussian stand-in for the LLM's rewrite: 1 or 2 coordinates moved."""
        n_moved = int(rng.integers(1, 3))
        coords = sorted(int(i) for i in rng.choice(len(COORDS), size=n_moved, replace=False))
        theta = np.array(self.incumbent, dtype=float)
        theta[coords] += rng.normal(0.0, self.sigma, size=n_moved) * (UPPER - LOWER)[coords]
        return theta, [COORDS[i] for i in coords]

    def generation(self, episode: int, rng: np.random.Generator, score: Callable[[np.ndarray], float],
                   candidate: Sequence[float] | None = None, moved: Sequence[str] = ()) -> Generation:
        """One generation: a proposal (or the `candidate` given, e.g. code a person approved),
        validated, scored with `score(theta)`, accepted by the epsilon rule."""
        if self.done:
            raise AELError(f"hyperagent: all {self.config.generations} generations have run")
        number = len(self.generations)
        if number == 0 and self.config.score_ew_first and self.best_score is None:
            self.best_score = float(score(np.array(self.best)))
        if candidate is None:
            theta, moved = self.propose(rng)
        else:
            theta = np.asarray(candidate, dtype=float)
        failure = validation_error(theta)
        shown = [float(x) if math.isfinite(x) else None for x in np.ravel(theta)]
        gen = Generation(number, episode, shown, list(moved), failure is None,
                         failure or "", best_before=self.best_score, sigma=self.sigma)
        self.generations.append(gen)
        if failure is not None:
            return gen   # the original `continue`s: no scoring, no adaptation
        self._judge(gen, float(score(theta)), [float(x) for x in theta], "")
        return gen

    def code_generation(self, episode: int, code: str, score: float | None, failure: str = "",
                        source: str = "llm") -> Generation:
        """One generation whose candidate is a model's code: `score` its train+val Sharpe
        computed in the sandbox, or `failure` why it could not run (refused by the filter,
        the smoke test or a person, or a call failed): a validation failure."""
        if self.done:
            raise AELError(f"hyperagent: all {self.config.generations} generations have run")
        gen = Generation(len(self.generations), episode, [], ["code"], not failure, failure,
                         best_before=self.best_score, sigma=self.sigma, code=code, source=source)
        self.generations.append(gen)
        if not failure and score is not None:
            self._judge(gen, float(score), None, code)
        return gen

    def _judge(self, gen: Generation, s: float, theta: list[float] | None, code: str) -> None:
        """The epsilon rule on a scored candidate (a theta, or code), then the 1/5 rule."""
        gen.score = s
        best = -math.inf if self.best_score is None else self.best_score
        gen.accepted = s >= best - self.config.epsilon
        gen.improved = s > best + 1e-12   # not a float-rounding tie (theta moved where it has no effect)
        if gen.accepted:
            if theta is not None:
                self.incumbent = theta
            self.incumbent_code = code
        if gen.improved:
            if theta is not None:
                self.best = theta
            self.best_code, self.best_score = code, s
        self.since_adapt.append(gen.improved)
        if gen.number > 0 and gen.number % self.config.adapt_every == 0:
            self._adapt(gen)

    def _adapt(self, gen: Generation) -> None:
        rate = sum(self.since_adapt) / len(self.since_adapt)
        if rate > 0.2:
            self.sigma = min(SIGMA_BOUNDS[1], self.sigma / FIFTH_RULE_FACTOR)
        elif rate < 0.2:
            self.sigma = max(SIGMA_BOUNDS[0], self.sigma * FIFTH_RULE_FACTOR)
        gen.adapted_to = self.sigma
        self.since_adapt = []

    def frozen_weights(self, z: np.ndarray, test: bool) -> tuple[np.ndarray, bool]:
        """The best theta's weights for one bar, and whether it fell back to equal weight
        (the key mismatch at test)."""
        if test and self.config.key_mismatch and reads_history(self.best):
            return weights(EQUAL_WEIGHT, z), True
        return weights(self.best, z), False

    # ------------------------------------------------------------------ state
    def state_dict(self) -> dict[str, Any]:
        return {"incumbent": list(self.incumbent), "best": list(self.best), "best_score": self.best_score,
                "sigma": self.sigma, "generations": [asdict(g) for g in self.generations],
                "since_adapt": list(self.since_adapt),
                **({"incumbent_code": self.incumbent_code} if self.incumbent_code else {}),
                **({"best_code": self.best_code} if self.best_code else {})}

    @classmethod
    def from_state_dict(cls, config: HyperAgentConfig, state: dict[str, Any]) -> "Search":
        for name in ("incumbent", "best"):
            err = validation_error(state[name])
            if err:
                raise AELError(f"hyperagent: the saved {name} theta cannot run ({err})")
        gens = [Generation(**g) for g in state["generations"]]
        if len(gens) > config.generations:
            raise AELError(f"hyperagent: the save has {len(gens)} generations, the method {config.generations}")
        return cls(config, [float(x) for x in state["incumbent"]], [float(x) for x in state["best"]],
                   state["best_score"], float(state["sigma"]), gens, [bool(x) for x in state["since_adapt"]],
                   str(state.get("incumbent_code", "")), str(state.get("best_code", "")))

