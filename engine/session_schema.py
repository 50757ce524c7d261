"""The explicit schema of a saved session (`"session"` in a save), checked on load.

pydantic v2 models in strict mode: a string is not a number, a float is not
an int, NaN and infinities are refused, unknown fields are refused where the
engine writes a fixed set. Ranges and list lengths are the engine's own
invariants; `SessionDoc`'s last validator checks the relations between parts
(t matches the history, phases in order, arms match the pool, proposals point
at reflections that exist). What depends on the scenario (t within its stream,
what it reads from memory entries) is checked by `persistence.load_session`
once the scenario is built.
Retrieval policies are checked by `PolicySpec.from_dict`, the engine's single
policy validator; a code policy's structure is checked there, its trust is not
decided here.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from .approvals import DECISIONS, KINDS, STANDING
from .methods import METHODS, parse_method
from .errors import AELError
from .limits import CONTEXT_MAX, COUNT_MAX, POSITIVE_MAX, POSTERIOR_MAX, RETRIES_MAX, SEED_MAX
from .llm.settings import PROVIDERS
from .memory import TIERS
from .policies import PolicySpec
from .variant_set import check_variants, parse_variant

MAX_ITEMS = 200_000          # episodes, memory entries, proposals: far above any real stream
MAX_TEXT = 1_000_000         # characters in one text field
PHASES = ("warmup", "train", "val", "test")

Count = Annotated[int, Field(ge=0, le=COUNT_MAX)]
Episodes = Annotated[int, Field(ge=1, le=COUNT_MAX)]
Unit = Annotated[float, Field(ge=0.0, le=1.0)]
Positive = Annotated[float, Field(gt=0.0, le=POSITIVE_MAX)]
Posterior = Annotated[float, Field(gt=0.0, le=POSTERIOR_MAX)]  # a prior (Positive) plus counts
Finite = Annotated[float, Field(ge=-1e15, le=1e15)]
Text = Annotated[str, Field(max_length=MAX_TEXT)]
Name = Annotated[str, Field(min_length=1, max_length=200)]
Items = Field(max_length=MAX_ITEMS)


class Strict(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid", allow_inf_nan=False)


class Open(Strict):
    """A part whose fields the scenario or a later version may extend."""
    model_config = ConfigDict(strict=True, extra="allow", allow_inf_nan=False)


class ReflectorOptions(Strict):
    trigger: Literal["diagnose", "paper"] | None = None
    cadence: Episodes | None = None
    window: Episodes | None = None
    threshold: Unit | None = None


class LLMSection(Strict):
    agent: Literal[PROVIDERS] = "offline"  # type: ignore[valid-type]
    reflector: Literal[PROVIDERS] = "offline"  # type: ignore[valid-type]
    agent_model: Text | None = None
    reflector_model: Text | None = None
    error_policy: Literal["raise", "fallback"] = "raise"
    temperature: Annotated[float, Field(ge=0.0, le=2.0)] = 0.3
    timeout_s: Positive = 30.0
    max_retries: Annotated[int, Field(ge=0, le=RETRIES_MAX)] = 3
    base_url: Text | None = None
    record: Text | None = None
    replay: Text | None = None
    context_tokens: Annotated[int, Field(ge=1, le=CONTEXT_MAX)] | None = None  # --llm-context


class ScenarioOptions(Open):
    data: Text | None = None  # the portfolio's market data: synthetic, yahoo or a folder


class Config(Strict):
    scenario: Name
    seed: Annotated[int, Field(ge=0, le=SEED_MAX)] = 42
    selector: Name = "ts+reflection"
    approval: Literal["auto", "reject", "manual"] = "auto"
    episodes: Episodes | None = None
    warmup: Count | None = None
    slow_window: Episodes | None = None
    split: Annotated[list[Unit], Field(min_length=2, max_length=2)] | None = None
    prior: Annotated[list[Positive], Field(min_length=2, max_length=2)] = [1.0, 1.0]
    distill_every: Episodes = 10
    allow_code_auto: bool = False
    scenario_options: ScenarioOptions = ScenarioOptions()
    reflector_options: ReflectorOptions = ReflectorOptions()
    llm: LLMSection = LLMSection()
    variants: Annotated[list[Name], Field(max_length=50)] = []

    @field_validator("selector")
    @classmethod
    def _known_selector(cls, v: str) -> str:
        try:
            parse_method(v)
        except AELError as err:
            raise ValueError(str(err)) from None
        return v

    @model_validator(mode="after")
    def _variants_fit(self) -> "Config":
        try:
            check_variants(self.variants, self.scenario)
        except AELError as err:
            raise ValueError(str(err)) from None
        return self

    @model_validator(mode="after")
    def _split_fits(self) -> "Config":
        if self.split is not None and not (self.split[0] > 0 and sum(self.split) <= 1):
            raise ValueError(f"split {self.split}: train must be above 0 and train + val at most 1")
        return self


class RNGState(Strict):
    state: Annotated[int, Field(ge=0, lt=2**128)]
    inc: Annotated[int, Field(ge=0, lt=2**128)]


class RNG(Strict):
    bit_generator: Literal["PCG64"]
    state: RNGState
    has_uint32: Annotated[int, Field(ge=0, le=1)]
    uinteger: Annotated[int, Field(ge=0, lt=2**32)]


class Arm(Strict):
    name: Name
    alpha: Posterior
    beta: Posterior
    pulls: Count = 0
    reward_sum: Annotated[float, Field(ge=0.0, le=1e12)] = 0.0
    added_at: Count = 0
    last_sample: Unit | None = None

    @model_validator(mode="after")
    def _rewards_fit_pulls(self) -> "Arm":
        if self.reward_sum > self.pulls + 1e-9:
            raise ValueError(f"reward_sum {self.reward_sum} exceeds its {self.pulls} pulls (rewards are in [0, 1])")
        return self


class SelectorState(Open):
    """The built-in selectors' fields are typed here; a registered method's selector
    may add its own (its class checks them when it loads)."""

    kind: Name
    frozen: bool = False
    t: Count = 0
    arms: Annotated[list[Arm], Field(min_length=1, max_length=10_000)]
    epsilon: Unit | None = None
    arm_name: Text | None = None

    @field_validator("kind")
    @classmethod
    def _registered_kind(cls, v: str) -> str:
        kinds = {m.selector_class.kind for m in METHODS.values()}
        if v not in kinds:
            raise ValueError(f"unknown selector kind {v!r} (registered: {', '.join(sorted(kinds))})")
        return v


class Entry(Strict):
    id: Name
    tier: Literal[TIERS]  # type: ignore[valid-type]
    content: Text
    metadata: dict[str, Any]
    quality: Unit
    episode: Count
    retrieval_count: Count = 0
    usefulness: Annotated[float, Field(ge=0.0, le=2**53)] = 0.0


class Corroboration(Open):
    direction: Text
    windows: Count
    last_window: Count


class Pruned(Open):
    id: Name
    content: Text
    episode: Count
    reason: Text


class Memory(Strict):
    episode: int = Field(ge=-1, le=2**53)
    frozen: bool
    next_id: dict[Literal[TIERS], Count]  # type: ignore[valid-type]
    tiers: dict[Literal[TIERS], Annotated[list[Entry], Items]]  # type: ignore[valid-type]
    corroboration: dict[Text, Corroboration]
    rule_uses: dict[Name, Annotated[list[Literal[0, 1]], Items]]
    pruned: Annotated[list[Pruned], Items]

    @model_validator(mode="after")
    def _entries_in_their_tier(self) -> "Memory":
        if set(self.next_id) != set(TIERS):
            raise ValueError(f"next_id needs a count for each tier ({', '.join(TIERS)})")
        for tier, entries in self.tiers.items():
            seen: set[str] = set()
            for i, e in enumerate(entries):
                if e.tier != tier:
                    raise ValueError(f"tiers.{tier}[{i}] says it is in the {e.tier} tier")
                if e.id in seen:
                    raise ValueError(f"tiers.{tier}[{i}]: the id {e.id!r} is used twice")
                seen.add(e.id)
        return self


class Insight(Open):
    """The insight in use (a decided insight proposal's payload and its episode)."""
    insight: Text
    regime_label: Text = ""
    confidence: Unit = 0.0
    episode: Count | None = None


class Proposal(Strict):
    id: Count
    kind: Literal[KINDS]  # type: ignore[valid-type]
    episode: Count
    payload: dict[str, Any]
    reflection: Annotated[int, Field(ge=-1, le=2**53)]  # -1: a method's or variant's own (engine/proposers.py)
    rationale: Text = ""
    evidence: dict[str, Any] = {}
    status: Literal["pending", "approved", "edited", "rejected"] = "pending"
    code: bool = False
    source: Name = "offline"

    @model_validator(mode="after")
    def _insight_payload(self) -> "Proposal":
        if self.kind == "insight" and self.status == "pending":  # what approving it would put in use
            try:
                Insight.model_validate(self.payload)
            except ValidationError as err:
                first = err.errors(include_url=False)[0]
                where = ".".join(str(p) for p in first["loc"])
                raise ValueError(f"payload.{where}: {first['msg'][0].lower()}{first['msg'][1:]}") from None
        return self


class Audit(Strict):
    seq: Count
    episode: Count
    proposal_id: Count
    kind: Literal[KINDS]  # type: ignore[valid-type]
    decision: Literal[(*DECISIONS, "drop", "admit", "suspend")]  # type: ignore[valid-type]
    who: Name
    proposed: dict[str, Any]
    accepted: dict[str, Any] | None
    reason: Text = ""
    at: Text = ""
    source: Name = "offline"
    code_sha256: Annotated[str, Field(pattern="^([0-9a-f]{64})?$")] = ""  # a code policy's source hash


class StandingRule(Strict):
    """One entry of the standing-rules log (engine/approvals.py)."""
    kind: Literal[KINDS]  # type: ignore[valid-type]
    rule: Literal[STANDING]  # type: ignore[valid-type]
    who: Name
    episode: Annotated[int, Field(ge=-1, le=2**53)]  # -1: set before the first episode, or by an older save
    at: Text = ""
    revoked_episode: Annotated[int, Field(ge=-1, le=2**53)] | None = None
    revoked_at: Text = ""
    revoked_by: Text = ""


class Queue(Strict):
    mode: Literal["auto", "reject", "manual"]
    standing: dict[Literal[KINDS], Literal[STANDING]]  # type: ignore[valid-type]
    allow_code_auto: bool = False
    proposals: Annotated[list[Proposal], Items]
    audit: Annotated[list[Audit], Items]
    rules: Annotated[list[StandingRule], Items] = []


class CodeFailure(Strict):
    errors: Annotated[dict[Name, Text], Field(max_length=10_000)]
    fallback: Name | None = None


class CodeArms(Strict):
    """Which code arms failed in a row and which were suspended (engine/codearms.py)."""
    failures: Annotated[dict[Name, Count], Field(max_length=10_000)] = {}
    suspended: Annotated[dict[Name, Text], Field(max_length=10_000)] = {}


class Record(Strict):
    episode: Count
    phase: Literal[PHASES]  # type: ignore[valid-type]
    regime: int | Text | None
    policy: Name
    reward: Unit
    score: Annotated[float, Field(ge=-1.0, le=1.0)]
    correct: bool | None
    action: Text
    result: Text
    hits: Count
    insight: bool
    info: dict[str, Any] | None = None
    credited: Unit | None = None              # the reward the bandit was credited, when a variant changed it
    variant: dict[str, Any] | None = None     # what the variants showed the agent (AgentView.record)
    code_failure: CodeFailure | None = None  # a code policy failed in its worker this episode


class Reflection(Strict):
    episode: Count
    trigger: Text
    diagnosis: Text
    insight: Text = ""
    regime_label: Text = ""
    confidence: Unit = 0.0
    evidence: dict[str, Any] = {}
    policy: dict[str, Any] | None = None
    rationale: Text = ""
    source: Name = "offline"


class Injection(Open):
    episode: Count
    arm: Name
    proposal: Count


class ReflectorState(Strict):
    trigger: Literal["diagnose", "paper"] | None = None
    cadence: Episodes | None = None
    window: Episodes | None = None
    threshold: Unit | None = None
    margin: Annotated[float, Field(ge=0.0, le=1.0)] | None = None
    candidate: dict[str, Any] | None = None
    proposed_at: Count | None = None
    last_label: Text | None = None
    checks: Annotated[list[Literal[0, 1]], Items] | None = None
    cooldown: Count | None = None        # episodes (or bars) a rejection silences the reflector for
    cooldown_until: Count | None = None  # when it may propose again after a rejection
    heuristic: "ReflectorState | None" = None

    @field_validator("candidate")
    @classmethod
    def _candidate_is_a_policy(cls, v: dict | None) -> dict | None:
        if v is not None:
            try:
                PolicySpec.from_dict(v)
            except AELError as err:
                raise ValueError(str(err)) from None
        return v


class MarketData(Strict):
    source: Text
    tickers: Annotated[list[Name], Field(max_length=1000)]
    n_bars: Count


class Portfolio(Strict):
    tickers: Annotated[list[Name], Field(max_length=1000)]
    weights: Annotated[list[Annotated[float, Field(ge=0.0, le=1.0)]], Field(max_length=1000)]
    value: Positive
    peak: Positive
    returns: Annotated[list[Finite], Items]
    turnovers: Annotated[list[Annotated[float, Field(ge=0.0, le=1e6)]], Items]

    @model_validator(mode="after")
    def _one_weight_per_ticker(self) -> "Portfolio":
        if len(self.weights) != len(self.tickers):
            raise ValueError(f"{len(self.weights)} weights for {len(self.tickers)} tickers")
        if sum(self.weights) > 1 + 1e-6:
            raise ValueError(f"the weights sum to {sum(self.weights):.4f}, more than 1")
        return self


class ScenarioState(Strict):
    seed: Count | None = None
    n_episodes: Episodes | None = None
    articles: Count | None = None  # the news corpus's size: a save resumes on the same articles only
    data: MarketData | None = None
    portfolio: Portfolio | None = None
    shadow: Annotated[list[Annotated[list[Finite], Field(min_length=3, max_length=3)]], Items] | None = None

    @field_validator("shadow")
    @classmethod
    def _bars_are_counts(cls, v: list[list[float]] | None) -> list[list[float]] | None:
        for i, (bar, _, _) in enumerate(v or []):
            if not float(bar).is_integer() or bar < 0:
                raise ValueError(f"shadow[{i}][0] should be a bar number (0 or more), got {bar!r}")
        return v


class UsageRecord(Strict):
    purpose: Text
    provider: Text
    model: Text
    input_tokens: Count
    output_tokens: Count
    cost_usd: Annotated[float, Field(ge=0.0, le=1e9)]
    latency_s: Annotated[float, Field(ge=0.0, le=1e9)]
    attempts: Count
    fallback: bool
    reason: Text = ""
    request_hash: Text = ""
    repaired: bool = False  # the reply fitted only after one repair round
    trimmed: Text = ""      # what was cut from the prompt to fit the model's context


class Usage(Open):
    version: Annotated[int, Field(ge=1)] = 1
    records: Annotated[list[UsageRecord], Items]


# ------------------------------------------------------------ the prior methods' own state (engine/prior)
MAX_PRIOR_ITEMS = 10_000
Word = Annotated[str, Field(max_length=200)]


class PriorRecord(Open):
    """A critic record (engine/prior/world.py); a world adds its own fields (advice, salient...)."""
    episode: Count
    text: Text
    success: bool
    label: Word
    keys: dict[str, Any] = {}
    source: Literal["llm", "fallback"] | None = None


class ReflexionState(Strict):
    critiques: Annotated[list[PriorRecord], Field(max_length=MAX_PRIOR_ITEMS)]


class ExpelLesson(Strict):
    record: PriorRecord
    uses: Count
    added: Count


class ExpelState(Strict):
    lessons: Annotated[list[ExpelLesson], Field(max_length=MAX_PRIOR_ITEMS)]
    evicted: Count = 0


class MetaRule(Strict):
    directive: Annotated[list[Word], Field(min_length=1, max_length=4)]
    text: Text
    born: Count
    applications: Count
    successes: Count

    @model_validator(mode="after")
    def _successes_fit(self) -> "MetaRule":
        if self.successes > self.applications:
            raise ValueError(f"{self.successes} successes in {self.applications} applications")
        return self


class MetaReflexionState(Strict):
    raw: Annotated[list[PriorRecord], Field(max_length=MAX_PRIOR_ITEMS)]
    rules: Annotated[list[MetaRule], Field(max_length=MAX_PRIOR_ITEMS)]
    episodes: Count
    distillations: Count
    pruned: Annotated[list[MetaRule], Field(max_length=MAX_PRIOR_ITEMS)] = []


class ToolPolicyState(Strict):
    members: Annotated[list[Word], Field(min_length=1, max_length=100)]
    fitness: Unit
    n_evals: Count
    born: Annotated[int, Field(ge=-1, le=2**53)]


class MutationState(Strict):
    episode: Count
    slot: Count
    parent: Count
    dropped: Annotated[list[Word], Field(max_length=100)]
    added: Annotated[list[Word], Field(max_length=100)]
    swapped: Annotated[list[Word], Field(max_length=2)]
    members: Annotated[list[Word], Field(min_length=1, max_length=100)]
    fitness: Unit
    replaced: Annotated[list[Word], Field(max_length=100)]
    replaced_fitness: Unit


class PopulationState(Strict):
    policies: Annotated[list[ToolPolicyState], Field(min_length=1, max_length=100)]
    mutations: Annotated[list[MutationState], Field(max_length=MAX_PRIOR_ITEMS)]
    n_mutations: Count
    n_blames: Count
    chosen: Count | None = None
    last_blamed: Annotated[list[Word], Field(max_length=100)] = []


class EvoToolState(Strict):
    population: PopulationState | None = None   # drawn at the first episode


class SkillState(Strict):
    key: Word
    value: Annotated[list[Word], Field(min_length=1, max_length=100)]
    success: Unit
    n: Episodes
    created: Count
    last: Count
    wins: Count
    losses: Count


class ExperienceState(Strict):
    episode: Count
    key: Word
    predicted: Word
    actual: Word
    correct: bool
    record: PriorRecord | None = None


class SkillBookState(Strict):
    skills: Annotated[list[SkillState], Field(max_length=MAX_PRIOR_ITEMS)]
    experiences: Annotated[list[ExperienceState], Field(max_length=100_000)]
    evicted: Count = 0


class FactorMinerState(Strict):
    book: SkillBookState


Theta = Annotated[list[Finite], Field(min_length=1, max_length=100)]
SourceText = Annotated[str, Field(max_length=20_000)]   # code is vetted again (and a person admits it) after a load


class GenerationState(Strict):
    number: Count
    episode: Count
    theta: Annotated[list[Finite | None], Field(max_length=100)]
    moved: Annotated[list[Word], Field(max_length=100)]
    valid: bool
    failure: Text = ""
    score: Finite | None = None
    best_before: Finite | None = None
    accepted: bool = False
    improved: bool = False
    sigma: Positive
    adapted_to: Positive | None = None
    code: SourceText = ""                       # a model's allocation code (engine/prior/hyperagent_code.py)
    source: Literal["offline", "llm", "fallback"] = "offline"


class SearchState(Strict):
    incumbent: Theta
    best: Theta
    best_score: Finite | None = None
    sigma: Positive
    generations: Annotated[list[GenerationState], Field(max_length=MAX_PRIOR_ITEMS)]
    since_adapt: Annotated[list[bool], Field(max_length=MAX_PRIOR_ITEMS)]
    incumbent_code: SourceText = ""              # approved code: quarantined again after every load
    best_code: SourceText = ""


class PendingCode(Strict):
    """A model's allocation code waiting in the queue for a person (engine/prior/hyperagent.py)."""
    generation: Count
    episode: Count
    code: SourceText


class HyperAgentState(Strict):
    search: SearchState
    fallbacks: Count = 0
    pending: PendingCode | None = None


# a prior method's name -> the model of its saved state (`method` in a save); one line per method
PRIOR_STATES: dict[str, type[BaseModel]] = {
    "reflexion": ReflexionState,
    "expel": ExpelState,
    "meta-reflexion": MetaReflexionState,
    "evotool": EvoToolState,
    "factorminer": FactorMinerState,
    "hyperagent": HyperAgentState,
}


def check_method_state(name: str, state: dict[str, Any] | None, t: int) -> None:
    """A method's own state against its declared model; ValueError naming the field."""
    model = PRIOR_STATES.get(name)
    if model is None:  # a method registered from outside declares no model: its own load checks it
        return
    try:
        model.model_validate(state or {})
    except ValidationError as err:
        first = err.errors(include_url=False)[0]
        where = ".".join(str(p) for p in first["loc"])
        raise ValueError(f"method.{where}: {first['msg'][0].lower()}{first['msg'][1:]}") from None
    episodes = [r["episode"] for key in ("critiques", "raw") for r in (state or {}).get(key, [])]
    episodes += [x["added"] for x in (state or {}).get("lessons", [])]
    episodes += [m["episode"] for m in ((state or {}).get("population") or {}).get("mutations", [])]
    book = (state or {}).get("book") or {}
    episodes += [s["last"] for s in book.get("skills", [])] + [e["episode"] for e in book.get("experiences", [])]
    episodes += [g["episode"] for g in ((state or {}).get("search") or {}).get("generations", [])]
    if episodes and max(episodes) >= max(t, 1):
        raise ValueError(f"method: a record of episode {max(episodes)}, beyond the {t} episodes run")


class SessionDoc(Strict):
    config: Config
    t: Count
    rng: RNG
    selector: SelectorState
    pool: Annotated[list[dict[str, Any]], Field(min_length=1, max_length=10_000)]
    memory: Memory
    queue: Queue
    history: Annotated[list[Record], Items]
    reflections: Annotated[list[Reflection], Items]
    insight: Insight | None
    injections: Annotated[list[Injection], Items]
    last_hits: Annotated[list[Name], Items]
    reflector: ReflectorState | None
    scenario_state: ScenarioState
    usage: Usage | None = None
    code_arms: CodeArms | None = None
    method: dict[str, Any] | None = None  # a registered method's state beyond its selector (engine.methods)
    variants: dict[Name, dict[str, Any]] | None = None  # each variant's state, by name (VARIANT_STATES)

    @field_validator("pool")
    @classmethod
    def _policies(cls, pool: list[dict[str, Any]]) -> list[dict[str, Any]]:
        names: set[str] = set()
        for i, raw in enumerate(pool):
            try:
                spec = PolicySpec.from_dict(raw)
            except AELError as err:
                raise ValueError(f"pool[{i}]: {err}") from None
            if spec.name in names:
                raise ValueError(f"pool[{i}]: the policy name {spec.name!r} is used twice")
            names.add(spec.name)
        return pool

    @model_validator(mode="after")
    def _relations(self) -> "SessionDoc":
        _check_relations(self)
        _check_variant_states(self)
        return self


def _check_variant_states(d: SessionDoc) -> None:
    """Every saved variant state belongs to a variant the config runs, and fits its model."""
    running = {parse_variant(v).name for v in d.config.variants}
    for name, state in (d.variants or {}).items():
        if name not in running:
            raise ValueError(f"variants: state for {name!r}, which config.variants does not run")
        model = VARIANT_STATES.get(name)
        if model is None:
            raise ValueError(f"variants.{name}: this variant declares no saved state")
        try:
            model.model_validate(state)
        except ValidationError as err:
            first = err.errors(include_url=False)[0]
            where = ".".join(str(p) for p in first["loc"])
            raise ValueError(f"variants.{name}.{where}: {first['msg']}") from None


def _check_relations(d: SessionDoc) -> None:
    """What no single field can say: the parts of a session must describe one run."""
    if len(d.history) != d.t:
        raise ValueError(f"t is {d.t} but the history holds {len(d.history)} episodes")
    last_phase = 0
    for i, r in enumerate(d.history):
        if r.episode != i:
            raise ValueError(f"history[{i}] is numbered episode {r.episode}")
        phase = PHASES.index(r.phase)
        if phase < last_phase:
            raise ValueError(f"history[{i}] is in phase {r.phase} after {PHASES[last_phase]}: "
                             f"phases run {', '.join(PHASES)} in order")
        last_phase = phase
    pool = [p["name"] for p in d.pool]
    arms = [a.name for a in d.selector.arms]
    if arms != pool:
        raise ValueError(f"the selector's arms ({', '.join(arms)}) do not match the policy pool "
                         f"({', '.join(pool)})")
    method = parse_method(d.config.selector)
    check_method_state(method.name, d.method, d.t)
    kind = method.selector_class.kind
    if d.selector.kind != kind:
        raise ValueError(f"selector kind {d.selector.kind!r} does not match config.selector "
                         f"{d.config.selector!r}")
    if method.argument and d.selector.arm_name not in pool:
        raise ValueError(f"the fixed selector plays {d.selector.arm_name!r}, which is not in the pool")
    for i, r in enumerate(d.history):
        if r.policy not in pool:
            raise ValueError(f"history[{i}] played {r.policy!r}, which is not in the pool")
    if d.selector.t > d.t:
        raise ValueError(f"selector.t is {d.selector.t}, more choices than the {d.t} episodes run")
    if d.memory.episode >= max(d.t, 1):
        raise ValueError(f"memory.episode is {d.memory.episode}, beyond the {d.t} episodes run")
    ids = [p.id for p in d.queue.proposals]
    if len(set(ids)) != len(ids):
        raise ValueError("queue.proposals: a proposal id is used twice")
    for i, p in enumerate(d.queue.proposals):
        if p.reflection < 0 and p.kind not in ("allocator", "planner"):
            raise ValueError(f"queue.proposals[{i}] ({p.kind}) must come from a reflection")
        if p.reflection >= len(d.reflections):
            raise ValueError(f"queue.proposals[{i}] comes from reflection {p.reflection}, "
                             f"but there are {len(d.reflections)}")
        if p.episode >= max(d.t, 1):
            raise ValueError(f"queue.proposals[{i}] was made at episode {p.episode}, beyond the {d.t} run")
    for i, a in enumerate(d.queue.audit):
        if a.seq != i:
            raise ValueError(f"queue.audit[{i}] is numbered {a.seq}")
        # proposal 0: a decision about code already in use (admitted, rejected after a load, suspended)
        if a.proposal_id not in ids and not (a.proposal_id == 0 and a.code_sha256):
            raise ValueError(f"queue.audit[{i}] decides proposal #{a.proposal_id}, which does not exist")
    for i, r in enumerate(d.reflections):
        if r.episode >= max(d.t, 1):
            raise ValueError(f"reflections[{i}] was made at episode {r.episode}, beyond the {d.t} run")
    for i, inj in enumerate(d.injections):
        if inj.arm not in pool:
            raise ValueError(f"injections[{i}] injected {inj.arm!r}, which is not in the pool")


# ------------------------------------------------------------------ variants' saved state
# One model per variant that keeps state (engine/variants.py), by the variant's name.

Beta = Annotated[list[Positive], Field(min_length=2, max_length=2)]


class PerToolState(Strict):
    """per-tool: a Beta posterior per tool and the tools last shown."""
    arms: Annotated[dict[Name, Beta], Field(max_length=100)]
    pulls: Annotated[dict[Name, Count], Field(max_length=100)] = {}
    last: Annotated[list[Name], Field(max_length=100)] = []
    last_samples: Annotated[dict[Name, Unit], Field(max_length=100)] = {}


class LinUCBArm(Strict):
    A: Annotated[list[Annotated[list[Finite], Field(max_length=64)]], Field(max_length=64)]
    b: Annotated[list[Finite], Field(max_length=64)]
    pulls: Count = 0
    added_at: Count = 0
    rule: Name | None = None          # an evolved planner: the library rule it plays
    reason: Text = ""                  # why it was added (the diagnosis it counters)
    code: SourceText = ""              # a model's plan() code, approved by a person; quarantined after a load


class PlannersState(Strict):
    """planners: LinUCB over the planners (A, b per arm), the total updates, the last choice."""
    arms: Annotated[dict[Name, LinUCBArm], Field(max_length=20)]
    n: Count = 0
    last: Name | None = None
    last_context: Annotated[list[Finite], Field(max_length=64)] = []
    last_scores: Annotated[dict[Name, Finite], Field(max_length=20)] = {}
    streaks: Annotated[dict[Name, Count], Field(max_length=20)] = {}
    window: Annotated[list[Name], Items] = []   # planners played since the last reflection


class ColdStartState(Strict):
    """cold-start: the ratings applied and the tool priors they gave the agent."""
    source: Text
    applied_at: Annotated[int, Field(ge=-1, le=2**53)] = -1
    tool_ratings: Annotated[dict[Name, Annotated[int, Field(ge=1, le=5)]], Field(max_length=100)] = {}
    planner_ratings: Annotated[dict[Name, Annotated[int, Field(ge=1, le=5)]], Field(max_length=20)] = {}
    tool_prior: Annotated[dict[Name, Annotated[list[Annotated[float, Field(ge=0.0, le=1e6)]],
                                               Field(min_length=2, max_length=2)]], Field(max_length=100)] = {}


VARIANT_STATES: dict[str, type[BaseModel]] = {
    "per-tool": PerToolState,
    "planners": PlannersState,
    "cold-start": ColdStartState,
}


class ShuffledPayload(Strict):
    episode: Count
    insight: Text
    regime_label: Text = ""
    confidence: Unit = 0.0
    evidence: dict[str, Any] = {}


class ShuffledReflectionState(Strict):
    """shuffled-reflection: the first pass's insights and the derangement that swaps them."""
    payloads: Annotated[list[ShuffledPayload], Items]
    order: Annotated[list[Count], Items] = []
    swapped: Count = 0

    @model_validator(mode="after")
    def _a_derangement(self) -> "ShuffledReflectionState":
        n = len(self.payloads)
        if self.order and (sorted(self.order) != list(range(n)) or any(i == j for i, j in enumerate(self.order))):
            raise ValueError(f"order: must be a derangement of the {n} insights (a permutation without fixed points)")
        return self


Credit1 = Annotated[float, Field(ge=-1.0, le=1.0)]
CreditModule = Literal["planner", "tools", "memory"]


class CreditState(Strict):
    """credit: the last bar's parts per module, the coalition values, running sums."""
    n: Count
    sums: dict[CreditModule, Annotated[float, Field(ge=-2**53, le=2**53)]]
    last: dict[CreditModule, dict[Literal["structural", "counterfactual", "shapley", "model", "combined"], Credit1]]
    last_values: Annotated[dict[Name, Credit1], Field(max_length=8)] = {}
    last_episode: Annotated[int, Field(ge=-1, le=2**53)] = -1
    source: Name | Literal[""] = ""
    fallbacks: Count = 0


class Skill(Strict):
    kind: Literal["playbook", "tool"]
    key: Name
    label: Name
    trust: Annotated[list[Name], Field(max_length=100)] = []
    shrink: Annotated[list[Name], Field(max_length=100)] = []
    text: Text
    created_at: Count
    refreshed_at: Count
    uses: Count = 0
    successes: Count = 0

    @model_validator(mode="after")
    def _successes_are_uses(self) -> "Skill":
        if self.successes > self.uses:
            raise ValueError(f"successes ({self.successes}) exceed uses ({self.uses})")
        return self


class PrunedSkill(Strict):
    key: Name
    episode: Count
    uses: Count
    successes: Count


class SkillsState(Strict):
    """skills: the playbooks and tool skills, the tools' miss streaks, the last ones used, the pruned."""
    skills: Annotated[list[Skill], Field(max_length=30)] = []
    streaks: Annotated[dict[Name, Count], Field(max_length=100)] = {}
    applied: Annotated[list[Name], Field(max_length=30)] = []
    pruned: Annotated[list[PrunedSkill], Field(max_length=15)] = []


VARIANT_STATES.update({
    "skills": SkillsState,
    "shuffled-reflection": ShuffledReflectionState,
    "credit": CreditState,
})
