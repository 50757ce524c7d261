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

What an extension saves is modelled beside it, not here: the schema asks the
registries for the model a method's or variant's class names in `state_model`
(`method_state_model`, `variant_state_model`), and `persistence.load_session`
checks the scenario's run state against its class's `state_model` once it is
built. The building blocks (`Strict`, `Count`, `Name`...) are in
engine/store/schema_types.py and re-exported here. The session's own parts are those of
`Session.PARTS` (a test holds the two lists equal).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, ValidationError, field_validator, model_validator

from ..approvals import DECISIONS, KINDS, STANDING
from ..methods import METHODS, parse_method
from ..errors import AELError
from ..limits import CONTEXT_MAX, RETRIES_MAX, SEED_MAX
from ..llm.settings import PROVIDERS
from ..memory import TIERS
from ..policies import PolicySpec
from .schema_types import (  # noqa: F401  (re-exported: the scenarios' saved_metadata modules import them here)
    MAX_ITEMS, MAX_TEXT, Count, Episodes, Finite, Items, Name, Open, Positive, Posterior, SavedState, Strict, Text,
    Unit,
    check_state,
)
from ..variants.session_variants import check_variants, parse_variant
from ..variants import VARIANTS

PHASES = ("warmup", "train", "val", "test")


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
    """Which code arms failed in a row and which were suspended (engine/sandbox/codearms.py)."""
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
    # the stream reflector's last "nothing proposed": its reason and the candidates it tried, so
    # that the same is not said again (scenarios/stream/reflector.py)
    said: Annotated[list[Name], Items] | None = None

    @field_validator("candidate")
    @classmethod
    def _candidate_is_a_policy(cls, v: dict | None) -> dict | None:
        if v is not None:
            try:
                PolicySpec.from_dict(v)
            except AELError as err:
                raise ValueError(str(err)) from None
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


def method_state_model(name: str) -> Any:
    """The model of a registered method's saved state (`Method.state_model`), or None."""
    cls = METHODS.get(name)
    return None if cls is None else cls.state_model


def variant_state_model(name: str) -> Any:
    """The model of a registered variant's saved state (`Variant.state_model`), or None."""
    cls = VARIANTS.get(name)
    return None if cls is None else cls.state_model


def check_method_state(name: str, state: dict[str, Any] | None, t: int) -> None:
    """A method's own state against the model its class declares; ValueError naming the field.
    A method that declares none is checked by its own `load_state_dict`."""
    model = method_state_model(name)
    if model is not None:
        check_state(model, state, "method", t)


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
    scenario_state: dict[Name, Any]  # checked by the scenario's own `state_model` once it is built (persistence.py)
    usage: Usage | None = None
    code_arms: CodeArms | None = None
    method: dict[str, Any] | None = None  # a registered method's state beyond its selector (engine.methods)
    variants: dict[Name, dict[str, Any]] | None = None  # each variant's state, by name (`Variant.state_model`)

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


class Tape(Strict):
    """The run ahead of a session that went back (engine/timetravel.py, `Tape`)."""
    t: Count
    history: Annotated[list[Record], Items]
    audit: Annotated[list[Audit], Items]
    rules: Annotated[list[StandingRule], Items] = []

    @model_validator(mode="after")
    def _whole(self) -> "Tape":
        if len(self.history) != self.t:
            raise ValueError(f"t is {self.t} but the history holds {len(self.history)} episodes")
        for i, r in enumerate(self.history):
            if r.episode != i:
                raise ValueError(f"history[{i}] is numbered episode {r.episode}")
        return self


class TimelineDoc(Strict):
    """`"timeline"` in a save (`Timeline.to_doc`): whether it belongs to the session beside it is
    checked once that session is built (`Timeline.load_doc`)."""
    tape: Tape | None = None
    original: SessionDoc | None = None


def _check_variant_states(d: SessionDoc) -> None:
    """Every saved variant state belongs to a variant the config runs, and fits its model."""
    running = {parse_variant(v).name for v in d.config.variants}
    for name, state in (d.variants or {}).items():
        if name not in running:
            raise ValueError(f"variants: state for {name!r}, which config.variants does not run")
        if variant_state_model(name) is None:
            raise ValueError(f"variants.{name}: this variant declares no saved state")
        check_state(variant_state_model(name), state, f"variants.{name}")


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
