"""The lab loop: one session = one scenario, one seed, one selector, run episode by episode.

A session owns everything that learns (the generator, the selector, the policy
pool, memory, reflections, the approval queue) and the history. One episode:

  query → selector picks a policy → memory retrieves under it → the agent acts
  (with the insight and the procedural rules) → the outcome is scored → the
  selector learns (unless frozen) → the episode is written to memory →
  every `distill_every` episodes distillation → at a slow-window boundary
  corroboration/promotion, then reflection, whose proposals wait for decisions.

Phases: warm-up (the first `warmup` episodes play the first arm with no draw,
as the reference does, and write nothing to memory), then train, val, test;
learning (bandit, memory, reflection) is frozen in test while the selector
keeps sampling. In manual approval mode a pending proposal blocks stepping.
"""

from __future__ import annotations

import copy
from dataclasses import asdict, dataclass, field
from typing import Any, Callable

from . import events as ev
from .approvals import RENEWS, ApprovalQueue
from .bandits import Selector
from .sandbox.codearms import CodeArms
from .decisions import Decisions
from .errors import AELError
from .llm.ledger import UsageLedger
from .llm.setup import LLMConfig, LLMRuntime, shared_cassette
from .memory import MemoryStore
from .method_base import check_offered
from .methods import parse_method
from .policies import PolicySpec
from .proposers import queue_outboxes
from .reflection import Reflection, ReflectionContext, Reflector
from .rng import make_rng, restore_rng, rng_state
from .secrets import clip
from .timetravel import Timeline
from .variants.session_variants import Variants
from .scenario import AgentContext, Scenario
from .scenario_spec import ENGINE_DEFAULTS, TRAILING_WINDOW

PHASES = ("warmup", "train", "val", "test")


@dataclass
class SessionConfig:
    scenario: str
    seed: int = 42
    selector: str = "ts+reflection"
    approval: str = "auto"                 # auto | reject | manual
    episodes: int | None = None            # stop early (None = the whole stream)
    warmup: int | None = None              # None = the scenario's default
    slow_window: int | None = None         # None = the scenario's default
    split: tuple[float, float] | None = None  # train, val fractions of the post-warm-up stream
    prior: tuple[float, float] = (1.0, 1.0)   # Beta prior of every arm, initial and injected
    distill_every: int = 10
    allow_code_auto: bool = False          # may a standing rule admit a Python-code policy? (off: a person must)
    scenario_options: dict[str, Any] = field(default_factory=dict)
    reflector_options: dict[str, Any] = field(default_factory=dict)
    llm: dict[str, Any] = field(default_factory=dict)  # an LLMConfig as a dict; {} = offline
    variants: list[str] = field(default_factory=list)  # extensions and ablations (engine/variants/__init__.py)

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["prior"] = list(self.prior)
        d["split"] = list(self.split) if self.split else None
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "SessionConfig":
        d = dict(d)
        d["prior"] = tuple(d["prior"])
        d["split"] = tuple(d["split"]) if d.get("split") else None
        return cls(**d)


# ------------------------------------------------------------ the session's state, declared once
@dataclass(frozen=True)
class Part:
    """One piece of a session's state: its key in a save, how it is written and read
    back, and what a step's checkpoint keeps of it. `Session.PARTS` lists every piece
    once; `to_dict`, `load_state`, `_checkpoint` and `_rollback` are derived from it, so
    a new piece of state is one entry here (and a field of the save schema's
    `SessionDoc`, which a test holds to this list).

    save(session) -> JSON        what the save holds (and, for a "value", the checkpoint, deep-copied)
    load(session, value)         back into the session (a "value" is rolled back this way too)
    kind:  "value"   a step may change it: the checkpoint copies it, a rollback loads it back
           "log"     a list a step only appends to (attribute `key`): the checkpoint keeps its
                     length, a rollback cuts it back
           "spent"   not undone by a rollback (LLM calls made are spent); `load_state(keep_usage=True)`
                     keeps the session's own
    written(session) -> bool     whether a save holds it (None: always); a part left out is read as None
    checkpoint / rollback        for a value whose in-memory form is cheaper to copy than to save
    """

    key: str
    save: Callable[["Session"], Any]
    load: Callable[["Session", Any], None]
    kind: str = "value"
    written: Callable[["Session"], bool] | None = None
    checkpoint: Callable[["Session"], Any] | None = None
    rollback: Callable[["Session", Any], None] | None = None


def _attr(name: str, read: Callable[[Any], Any] = lambda v: v) -> Callable[["Session", Any], None]:
    return lambda s, v: setattr(s, name, read(v))


def _load_reflector(s: "Session", state: Any) -> None:
    if s.reflector is not None and state is not None:
        s.reflector.load_state_dict(state)


SESSION_PARTS: tuple[Part, ...] = (
    Part("t", lambda s: s.t, _attr("t", int)),
    Part("rng", lambda s: rng_state(s.rng), _attr("rng", restore_rng)),
    Part("selector", lambda s: s.selector.to_dict(), _attr("selector", Selector.from_dict)),
    Part("pool", lambda s: [p.to_dict() for p in s.pool.values()],
         _attr("pool", lambda v: {p["name"]: PolicySpec.from_dict(p) for p in v}),
         checkpoint=lambda s: dict(s.pool), rollback=_attr("pool")),
    Part("memory", lambda s: s.memory.to_dict(), lambda s, v: s.memory.load_dict(v)),
    Part("queue", lambda s: s.queue.to_dict(), _attr("queue", ApprovalQueue.from_dict)),
    Part("history", lambda s: s.history, _attr("history", list), kind="log"),
    Part("reflections", lambda s: [r.to_dict() for r in s.reflections],
         _attr("reflections", lambda v: [Reflection.from_dict(r) for r in v]), kind="log"),
    Part("insight", lambda s: s.insight, _attr("insight")),
    Part("injections", lambda s: s.injections, _attr("injections", list), kind="log"),
    Part("last_hits", lambda s: s.last_hits, _attr("last_hits", list)),
    Part("reflector", lambda s: s.reflector.state_dict() if s.reflector else None, _load_reflector),
    Part("scenario_state", lambda s: s.scenario.state_dict(), lambda s, v: s.scenario.load_state_dict(v)),
    Part("usage", lambda s: s.usage.to_dict(),
         lambda s, v: s.llm.ledger.replace_with(UsageLedger.load(v)) if v else None, kind="spent"),
    # a method's learning beyond its selector (the prior methods' memories; the bandits have none)
    Part("method", lambda s: s.method.state_dict(), lambda s, v: s.method.load_state_dict(v or {}),
         written=lambda s: bool(s.method.state_dict())),
    Part("variants", lambda s: s.variants.state_dict(), lambda s, v: s.variants.load_state_dict(v),
         written=lambda s: bool(s.variants.state_dict())),
    # only when a code arm has failed: a save without code stays as it was; quarantine is not a step's
    Part("code_arms", lambda s: s.code_arms.to_dict(), lambda s, v: s.code_arms.load_dict(v),
         written=lambda s: bool(s.code_arms.failures or s.code_arms.suspended)),
)


class Session(Decisions):
    PARTS: tuple[Part, ...] = SESSION_PARTS  # what a save holds besides the config, in its order

    def __init__(self, config: SessionConfig, scenario: Scenario, cassette=None):
        self.config = config
        self.scenario = scenario
        pins = getattr(scenario, "pinned_options", None)  # what a save must carry to rebuild the world (a file's hash)
        if pins:
            config.scenario_options = {**config.scenario_options, **pins}
        defaults = {**ENGINE_DEFAULTS, **scenario.defaults}
        self.n_episodes = min(config.episodes or scenario.n_episodes, scenario.n_episodes)
        self.warmup = defaults["warmup"] if config.warmup is None else config.warmup
        self.slow_window = config.slow_window or defaults["slow_window"]
        self.phase_ends = self._phase_ends(defaults)
        self.method = parse_method(config.selector)
        check_offered(self.method, scenario.spec)  # a method that names its worlds runs only there
        self.variants = Variants(config.variants, config.scenario)  # refuses one with no meaning here
        self.reflection_on = self.method.reflection
        self.pool: dict[str, PolicySpec] = {p.name: p for p in scenario.initial_pool}
        self.selector: Selector = self.method.make_selector(list(self.pool), config.prior)
        self.rng = make_rng(scenario.session_seed())
        self.memory = MemoryStore(scenario.match_bonuses, cap_per_tier=defaults["memory_cap"])
        self.code_arms = CodeArms()  # code policies run only in its sandboxed worker
        self.memory.code_runner = self.code_arms.run
        self.llm = LLMRuntime(LLMConfig.from_dict(config.llm), cassette)
        if config.llm:  # the runtime pinned each role's model: the save keeps it
            config.llm = self.llm.config.to_dict()
        self.method.sandbox = self.code_arms  # where a method's model-written code runs (engine/proposers.py)
        self.method.bind(scenario, self.llm)  # a prior method's world adapter and critic (engine/prior)
        self.reflector: Reflector | None = None
        if self.reflection_on:
            self.reflector = self.method.make_reflector(scenario, config.reflector_options)
            if self.llm.reflector is not None and self.reflector is not None:
                from .llm.reflector import LLMReflector  # only with a model: offline start-up stays light

                self.reflector = LLMReflector(self.reflector, self.llm.reflector,
                                              task=scenario.spec.task_brief)
        self.variants.check(self)  # after the LLM runtime: a variant may need a model
        self.queue = ApprovalQueue(mode=config.approval, allow_code_auto=config.allow_code_auto)
        self.t = 0
        self.history: list[dict[str, Any]] = []
        self.reflections: list[Reflection] = []
        self.insight: dict[str, Any] | None = None
        self.injections: list[dict[str, Any]] = []
        self.last_hits: list[str] = []
        self.acted: tuple | None = None  # (query, AgentContext) of the last step: not saved, not learning
        self.explaining = False  # an explanation's replica: the agent reports how it decided (engine/decision.py)
        self.decided = None      # that report for the last step (not saved)
        self._patterns_at = -1
        self._patterns: list = []
        self.timeline = Timeline()  # checkpoints kept as the run goes: rewind and branch (engine/timetravel.py)
        self.timeline.capture(self)  # episode 0, so a loaded save can go back to its start

    # ------------------------------------------------------------ phases
    def _phase_ends(self, defaults: dict[str, Any]) -> dict[str, int]:
        """Last episode (exclusive) of each phase. A scenario may fix the split by
        episode counts (`defaults["phases"]`); `config.split` gives fractions."""
        n, w = self.n_episodes, self.warmup
        if self.config.split is not None:
            tr, va = self.config.split
            if not (0 < tr <= 1 and 0 <= va <= 1 and tr + va <= 1):
                raise AELError("--split: give train,val fractions in (0,1] that sum to at most 1")
            body = n - w
            train_end = w + round(tr * body)
            val_end = w + round((tr + va) * body)
        elif "phases" in defaults:
            ph = defaults["phases"]
            train_end = min(n, ph["train"])
            val_end = min(n, ph["train"] + ph["val"])
        else:
            train_end = val_end = n
        return {"warmup": min(w, n), "train": max(train_end, min(w, n)), "val": max(val_end, train_end), "test": n}

    def phase_of(self, t: int) -> str:
        for name in PHASES:
            if t < self.phase_ends[name]:
                return name
        return "test"

    @property
    def phase(self) -> str:
        return self.phase_of(min(self.t, self.n_episodes - 1))

    @property
    def usage(self) -> UsageLedger:
        """Every LLM call of the session: tokens, estimated cost, fallbacks."""
        return self.llm.ledger

    @property
    def backend(self) -> str:
        return self.llm.describe()

    @property
    def frozen(self) -> bool:
        return self.selector.frozen

    @property
    def done(self) -> bool:
        return self.t >= self.n_episodes

    # ------------------------------------------------------------ events
    def _emit(self, out: list[ev.Event], event: ev.Event) -> None:
        # events travel back as the step's return value: whoever stepped (the lab's
        # worker, the runner) hands them on, so the engine keeps no listeners
        out.append(event)

    # ---------------------------------------------------------- stepping
    @property
    def blocked_reason(self) -> str | None:
        if self.done:
            return f"the run is finished ({self.n_episodes} episodes)"
        if self.code_arms.quarantined:
            name = next(iter(self.code_arms.quarantined))
            return (f"code policy {name!r} came from a file and is quarantined: review its source and admit "
                    "or reject it before stepping")
        pending = self.queue.pending
        if pending:
            p = pending[0]
            what = {"arm": "a new arm", "insight": "an insight", "allocator": "allocation code",
                    "planner": "a new planner"}.get(p.kind, p.kind)
            return (f"proposal #{p.id} ({what}) is waiting for a decision: approve, edit or reject it "
                    "before stepping on")
        return None

    def step(self) -> list[ev.Event]:
        """Run one episode. Refused (AELError) while a decision is pending or when finished.

        With an LLM under the `raise` error policy a call can fail mid-episode; the
        episode is then undone (generator, bandit, memory, scenario state), so the
        session is exactly as before the step and can be saved or stepped again."""
        reason = self.blocked_reason
        if reason:
            raise AELError(f"cannot step: {reason}")
        if not (self.llm.config.uses_llm and self.llm.config.error_policy == "raise"):
            return self._step()
        before = self._checkpoint()
        try:
            return self._step()
        except AELError:
            self._rollback(before)
            raise

    def _checkpoint(self) -> dict[str, Any]:
        """What one episode can change, copied (`PARTS`): not the logs (a step only appends
        to them, so their lengths are enough), nor the LLM ledger (calls made are spent)."""
        cp: dict[str, Any] = {}
        for part in self.PARTS:
            if part.kind == "log":
                cp[part.key] = len(getattr(self, part.key))
            elif part.kind == "value":
                cp[part.key] = (part.checkpoint or part.save)(self)
        return copy.deepcopy(cp)

    def _rollback(self, cp: dict[str, Any]) -> None:
        for part in self.PARTS:
            if part.kind == "log":
                del getattr(self, part.key)[cp[part.key]:]
            elif part.kind == "value":
                (part.rollback or part.load)(self, cp[part.key])
        self._patterns_at = -1

    def _step(self) -> list[ev.Event]:
        self.timeline.before_step(self)  # a checkpoint when one is due (engine/timetravel.py)
        out: list[ev.Event] = []
        t = self.t
        phase = self.phase_of(t)
        if phase == "test" and not self.selector.frozen:  # a run that starts in test
            self._enter_phase(out)
        scenario = self.scenario
        self.memory.episode = t
        self.code_arms.begin_episode()
        query = scenario.query(t)
        if phase == "warmup":
            arm_i = self.selector.index("none") if "none" in self.pool else 0
            self.selector.t += 1  # a forced pull makes no draw, but it is a choice
        else:
            best = self._admit_hindsight_arm(t) if self.method.hindsight else None
            arm_i = self.selector.select(self.rng, None if best is None else lambda: best,
                                         skip=self.code_arms.unavailable)
        arm = self.selector.arms[arm_i]
        policy = self.pool[arm.name]
        qdict = {**query.metadata, "_episode": t}
        hits_from = policy.name
        if phase == "warmup":
            hits, rules, insight = [], [], None
        else:
            hits = self.memory.retrieve(policy, qdict, scenario.similarity)
            if not hits and policy.fallback and policy.fallback in self.pool:
                hits_from = policy.fallback
                hits = self.memory.retrieve(self.pool[policy.fallback], qdict, scenario.similarity)
            rules = scenario.applicable_rules(query, self.memory)
            insight = self.insight
        # a prior method advises from episode 0 (the reference's baselines had no warm-up)
        prior = self.method.advise(query, t, self.rng, learning=not self.memory.frozen)
        ctx = AgentContext(policy=policy, hits=hits, rules=rules, insight=insight, memory=self.memory,
                           rng=self.rng, hits_from=hits_from, llm=self.llm.agent, prior=prior,
                           explain=self.explaining)
        if self.variants:
            if t == 0:
                self.variants.start(self)  # before episode 0; a loaded session restores what it set up
            self.variants.agent_context(self, query, ctx)
        self.acted = (query, ctx)  # what the agent was given this episode (an explanation reads it)
        outcome = scenario.act(query, ctx)
        self.decided = outcome.decided
        self.method.observe(query, outcome, t, learning=not self.memory.frozen)
        credited = self.variants.credit(self, query, outcome, ctx) if self.variants else outcome.reward
        self.selector.update(arm_i, credited)
        if self.variants:
            self.variants.learn(self, query, outcome, ctx)
        if not self.memory.frozen:
            self.memory.mark_used(hits, outcome.reward >= 0.5)
            for rule in ctx.rules:  # the rules the agent was given (a variant may have changed them)
                held = scenario.rule_held(rule, query, outcome)
                if held is not None:
                    gone = self.memory.record_rule_use(rule.id, held)
                    if gone is not None:
                        self._emit(out, ev.RulePruned(t, gone.id, gone.content, self.memory.pruned[-1]["reason"]))
            if phase != "warmup":
                written = scenario.episodic_entry(query, outcome, arm.name)
                for content, metadata, quality in ([] if written is None else
                                                   written if isinstance(written, list) else [written]):
                    self.memory.write("episodic", content, metadata, quality)
        self.last_hits = [h.entry.id for h in hits]
        record = {
            "episode": t, "phase": phase, "regime": scenario.regime(t), "policy": arm.name,
            "reward": outcome.reward, "score": outcome.score, "correct": outcome.correct,
            "action": outcome.action, "result": outcome.result, "hits": len(hits),
            "insight": insight is not None, **({"info": outcome.info} if outcome.info else {}),
            **({"credited": credited} if credited != outcome.reward else {}),
            **({"variant": ctx.view.record()} if self.variants and ctx.view.record() else {}),
        }
        if self.code_arms.failed_now:  # a code policy failed: say so, and what was used instead
            record["code_failure"] = {"errors": dict(self.code_arms.failed_now),
                                      "fallback": hits_from if hits_from != arm.name else None}
        self.history.append(record)
        self.t = t + 1
        self._emit(out, ev.EpisodeDone(t, record))
        self._suspend_failing_code_arms(t, out)
        if not self.memory.frozen and phase != "warmup":
            self._slow_loop(t, out)
        queue_outboxes(self, out)  # what the method and variants proposed this step (engine/proposers.py)
        if self.done:
            self._emit(out, ev.RunFinished(t))
        else:
            self._enter_phase(out)
        self.timeline.after_step(self)
        return out

    def _enter_phase(self, out: list[ev.Event]) -> None:
        """Announce the phase of the next episode; entering test freezes learning now,
        so between steps `frozen` already says what the next episode will do."""
        t = self.t
        phase = self.phase_of(t)
        if phase == "test" and not self.selector.frozen:
            self.selector.frozen = self.memory.frozen = True
            self._emit(out, ev.PhaseChanged(t, "test", True))
        elif t > 0 and phase != self.phase_of(t - 1):
            self._emit(out, ev.PhaseChanged(t, phase, False))

    def _admit_hindsight_arm(self, t: int) -> str:
        """The scenario's best arm for episode t, put in the pool and the selector first
        when it is new (the synthetic hidden arm): an engine step of its own, so choosing
        never changes the pool."""
        spec = self.scenario.oracle_arm(t, list(self.pool.values()), self.memory)
        self.pool.setdefault(spec.name, spec)
        if spec.name not in self.selector.names():
            self.selector.add_arm(spec.name, episode=self.selector.t)
        return spec.name

    # ------------------------------------------------------ time travel
    def rewind_to(self, n: int) -> None:
        """The session as it stood at the start of episode n, from the nearest checkpoint and
        an exact replay (engine/timetravel.py); stepping on gives the same run again."""
        self.timeline.rewind(self, n)

    def branch(self, n: int, decide: dict[int, str], who: str = "human") -> str | None:
        """Rewind to episode n with proposal K (a key of `decide`) decided the other way
        ("approve" or "reject"); returns why the branch stopped before n, or None."""
        return self.timeline.branch(self, n, decide, who=who)

    def reopen(self, pid: int) -> None:
        """Undo the decision on proposal `pid`: back to where it waited, pending again."""
        self.timeline.reopen(self, pid)

    # --------------------------------------------------------- slow loop
    def _distill(self, t: int) -> list:
        if self._patterns_at != t:
            self._patterns = self.scenario.distill(self.memory, t)
            self._patterns_at = t
        return self._patterns

    def _slow_loop(self, t: int, out: list[ev.Event]) -> None:
        done = t + 1 - self.warmup  # episodes completed since warm-up
        if done % self.config.distill_every == 0:
            patterns = self._distill(t)
            new = sum(self.memory.upsert_pattern(p)[1] for p in patterns)
            self._emit(out, ev.Distilled(t, len(patterns), new))
        if (t + 1) % self.slow_window != 0:
            return
        window_index = (t + 1) // self.slow_window
        for rule in self.memory.corroborate(self._distill(t), window_index):
            self._emit(out, ev.RulePromoted(t, rule.id, rule.content))
        if self.reflector is None:
            return
        ctx = self._reflection_context(t)
        if not self.reflector.should_reflect(ctx):
            return
        # side information is for the reflection itself, not its gate: computed only when it runs
        ctx.side_info = self.scenario.side_info(max(0, t + 1 - self.slow_window), t + 1)
        refl = self.reflector.reflect(ctx)
        if refl is not None and self.variants:
            refl = self.variants.reflected(self, refl)
        if refl is None:
            return
        self.reflections.append(refl)
        index = len(self.reflections) - 1
        self._emit(out, ev.Reflected(t, index, refl.trigger, refl.diagnosis))
        if refl.insight:
            payload = {"insight": refl.insight, "regime_label": refl.regime_label,
                       "confidence": refl.confidence}
            evidence = refl.evidence
            using = self.insight
            if using and (using.get("insight"), using.get("regime_label")) == (refl.insight, refl.regime_label):
                # the same insight again: a person sees a renewal, not a new finding
                evidence = {**evidence, RENEWS: f"the insight in use since episode {using.get('episode')}, "
                                                "word for word (approving it again renews it)"}
            self._propose("insight", payload, index, refl.diagnosis, evidence, out)
        if refl.policy is not None and not self.method.injects_arms:
            p = self._new_proposal("arm", refl.policy, index, refl.rationale, refl.evidence)
            p.status = "rejected"
            self.queue.record(p, "drop", "engine", None, f"{self.method.name} plays one policy: no arm is "
                              "injected, only insights are applied", t)
            return
        if refl.policy is not None:
            try:
                spec = PolicySpec.from_dict(refl.policy, set(self.pool))
                if spec.name in self.pool:
                    raise AELError(f"policy field 'name': {spec.name!r} is already in the pool")
                self.scenario.check_policy(spec)
            except AELError as err:
                p = self._new_proposal("arm", refl.policy, index, refl.rationale, refl.evidence)
                p.status = "rejected"
                self.queue.record(p, "drop", "engine", None, clip(str(err)), t)  # may quote a model's long value
                return
            self._propose("arm", spec.to_dict(), index, refl.rationale, refl.evidence, out)

    def _reflection_context(self, t: int) -> ReflectionContext:
        # the gate's trailing window as configured, else the paper's; reflectors may read more from history
        trailing_n = int(self.config.reflector_options.get("window") or TRAILING_WINDOW)
        posteriors = [
            {"arm": a.name, "alpha": a.alpha, "beta": a.beta, "mean": a.mean, "pulls": a.pulls}
            for a in self.selector.arms
        ]
        start = max(0, t + 1 - self.slow_window)
        return ReflectionContext(
            episode=t, window=self.history[start:], trailing=self.history[-trailing_n:],
            history=self.history, pool=list(self.pool.values()), posteriors=posteriors,
            memory=self.memory, side_info={},
            previous=self.reflections[-3:], scenario=self.scenario,
        )

    # --------------------------------------------------------------- run
    def run(self, until: int | None = None, should_stop: Callable[[], bool] | None = None,
            stop_on: Callable[[list[ev.Event]], bool] | None = None) -> list[ev.Event]:
        """Step until episode `until` (exclusive), the end, a pending decision,
        `should_stop()` or `stop_on(events of the last step)`."""
        end = self.n_episodes if until is None else min(until, self.n_episodes)
        out: list[ev.Event] = []
        while self.t < end and self.blocked_reason is None:
            if should_stop is not None and should_stop():
                break
            step_events = self.step()
            out.extend(step_events)
            if stop_on is not None and stop_on(step_events):
                break
        return out

    # ------------------------------------------------------- persistence
    def to_dict(self) -> dict[str, Any]:
        """The save's "session": the config, then every part of `PARTS` that is written."""
        out: dict[str, Any] = {"config": self.config.to_dict()}
        for part in self.PARTS:
            if part.written is None or part.written(self):
                out[part.key] = part.save(self)
        return out

    @classmethod
    def from_dict(cls, d: dict[str, Any], scenario_factory: Callable[[str, int, dict], Scenario]) -> "Session":
        config = SessionConfig.from_dict(d["config"])
        scenario = scenario_factory(config.scenario, config.seed, config.scenario_options)
        # a resumed session that records adds to its cassette instead of starting it afresh
        s = cls(config, scenario, shared_cassette(LLMConfig.from_dict(config.llm), append=True))
        s.load_state(d)
        s.quarantine_code_arms()  # code from a file runs only after a person admits it again
        return s

    def load_state(self, d: dict[str, Any], keep_usage: bool = False) -> None:
        """Everything but the config from a `to_dict` document (the scenario is rebuilt by the caller):
        each part of `PARTS` in order; one a save leaves out is read as None."""
        for part in self.PARTS:
            if part.kind == "spent" and keep_usage:
                continue
            part.load(self, d[part.key] if part.written is None and part.kind != "spent" else d.get(part.key))
        self._patterns_at = -1
