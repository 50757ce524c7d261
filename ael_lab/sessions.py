"""`ael_lab.new`, `ael_lab.open` and `Session`: one face over the engine's session.

Everything here calls what the lab and `ael-lab run` call: `engine.session.Session` steps,
decides and saves; `engine.timetravel` rewinds and branches by exact replay;
`engine.explain` re-runs an episode with instruments on; `engine.results.run_result` is a
run's `run --json` entry. Nothing is computed a second way, so a script's run is the
CLI's run and the lab's (tests/unit/test_library_decisions.py holds the script to it).

Every mistake a caller can make (a world that is not registered, a proposal that is not
waiting, an episode out of range, a file that is not a session) raises `AELError` with one
line that says what to do; any other exception is a bug.
"""

from __future__ import annotations

import os
from html import escape
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from engine import events
from engine.errors import AELError

from ael_lab import frames

if TYPE_CHECKING:
    import pandas as pd

    from engine.session import Session as EngineSession

    from ael_lab.pictures import Chart

APPROVAL_MODES = ("manual", "auto", "reject")
DECIDED_BY = "ael_lab"  # the audit log's `who` for a decision made from code


# ------------------------------------------------------------------ making and opening
def new(scenario: str, seed: int = 42, *, approval: str = "manual", selector: str = "ts+reflection",
        variants: Sequence[str] = (), llm: Mapping[str, Any] | None = None,
        options: Mapping[str, Any] | None = None, reflector_options: Mapping[str, Any] | None = None,
        episodes: int | None = None) -> "Session":
    """A new session of `scenario` at episode 0, as `ael-lab run SCENARIO --seeds SEED` (and the
    lab's start screen) would build it; AELError for anything a person can fix."""
    from engine.llm.setup import LLMConfig
    from engine.methods import parse_method
    from engine.session import Session as EngineSession, SessionConfig
    from engine.variants.session_variants import check_variants
    from scenarios import make_scenario, spec_of

    if not isinstance(scenario, str):
        raise AELError(f"scenario: give a world's name (one of {', '.join(scenario_names())}), not {scenario!r}")
    spec = spec_of(scenario)  # AELError naming the registered worlds
    _check_seed(seed)
    if approval not in APPROVAL_MODES:
        raise AELError(f"approval={approval!r}: expected one of {', '.join(APPROVAL_MODES)}")
    if not isinstance(selector, str):
        raise AELError(f"selector={selector!r}: give a method's text, e.g. 'ts+reflection' or 'egreedy(epsilon=0.1)'")
    parse_method(selector)  # refused in one line, with "did you mean"
    variants = [variants] if isinstance(variants, str) else list(variants or ())
    if not all(isinstance(v, str) for v in variants):
        raise AELError(f"variants={variants!r}: give each as its text, e.g. ['credit=fcc', 'per-tool(k=4)']")
    variant_texts = [v.text for v in check_variants(variants, scenario)]
    if llm is not None and not isinstance(llm, Mapping):
        raise AELError(f"llm: give a dict such as {{'reflector': 'anthropic'}}, not {type(llm).__name__}")
    llm_dict = dict(llm or {})
    if llm_dict:
        try:
            llm_config = LLMConfig.from_dict(llm_dict)
        except TypeError as err:
            raise AELError(f"llm: {err}; its keys are those of LLMConfig (agent, reflector, agent_model, "
                           "reflector_model, error_policy, replay, record, ...)") from None
        if llm_config.agent != "offline" and not spec.uses_llm:
            raise AELError(f"llm: the {scenario} scenario has no agent a model could play: leave agent offline")
        llm_config.check_local()
        llm_dict = llm_config.to_dict()
    if episodes is not None:
        _check_int("episodes", episodes, 1, None)
    reflector = _options(spec.reflector, reflector_options, f"reflector_options: {scenario}'s reflection")
    config = SessionConfig(scenario=scenario, seed=seed, selector=selector, approval=approval, episodes=episodes,
                           scenario_options=_options(spec.options, options, f"options: {scenario}"),
                           reflector_options=reflector,
                           slow_window=reflector.get("cadence"),  # as `ael-lab run`: the cadence is the slow window
                           llm=llm_dict, variants=variant_texts)
    return Session(EngineSession(config, make_scenario(scenario, seed, config.scenario_options)))


def open(path: str | os.PathLike, *, llm_url: str | None = None, trust_code: bool = False) -> "Session":  # noqa: A001
    """A saved session (the lab's save, `ael-lab run --save`, `Session.save`), checked against the
    save's schema and ready to step on exactly as if it had never stopped. A save holding Python-code
    policies opens only with `trust_code=True` (they then run sandboxed), as `--trust-code`."""
    from engine.store.persistence import load_session
    from scenarios import make_scenario

    session = load_session(_path(path, "path"), make_scenario, llm_url=llm_url)
    session.admit_saved_code(trust_code, f"{DECIDED_BY}:trust_code", str(path), "trust_code=True", "allow_code_auto")
    return Session(session)


def scenario_names() -> list[str]:
    """The registered worlds, plugins' included."""
    from scenarios import scenario_names as names

    return names()


# ------------------------------------------------------------------ the session
class Session:
    """One run of one world, seed and method, stepped from code. Stepping, deciding and going
    back change this session; `branch` returns a new one and leaves this one as it is."""

    def __init__(self, engine_session: "EngineSession"):
        self._s = engine_session

    # ---------------------------------------------------------------- what it is
    @property
    def engine(self) -> "EngineSession":
        """The engine's session underneath (provisional: for what no method here reads yet)."""
        return self._s

    @property
    def scenario(self) -> str:
        return self._s.config.scenario

    @property
    def seed(self) -> int:
        return self._s.config.seed

    @property
    def selector(self) -> str:
        return self._s.config.selector

    @property
    def episode(self) -> int:
        """The next episode to play (0 at the start; `n_episodes` when finished)."""
        return self._s.t

    @property
    def n_episodes(self) -> int:
        return self._s.n_episodes

    @property
    def done(self) -> bool:
        return self._s.done

    @property
    def phase(self) -> str:
        return self._s.phase

    @property
    def approval(self) -> str:
        """manual, auto or reject: what happens to a proposal nobody decides. Settable, as
        `ael-lab run --resume --approve` sets it from there on."""
        return self._s.queue.mode

    @approval.setter
    def approval(self, mode: str) -> None:
        if mode not in APPROVAL_MODES:
            raise AELError(f"approval={mode!r}: expected one of {', '.join(APPROVAL_MODES)}")
        self._s.queue.mode = mode

    @property
    def waiting(self) -> str | None:
        """Why the session cannot step now (a proposal waiting, the end), in one line; None if it can."""
        return self._s.blocked_reason

    def __repr__(self) -> str:
        s = self._s
        where = "finished" if s.done else f"at episode {s.t} of {s.n_episodes} ({s.phase})"
        pending = s.queue.pending
        wait = f"; waiting: {', '.join(f'#{p.id} {p.kind}' for p in pending)}" if pending else ""
        return f"<ael_lab.Session {self.scenario} seed {self.seed} {self.selector} {s.queue.mode}: {where}{wait}>"

    # ---------------------------------------------------------------- stepping
    def step(self, n: int = 1) -> "Session":
        """Play `n` episodes, stopping early at a proposal that waits for a decision. AELError
        when not even one can be played (a decision waiting, the run finished)."""
        _check_int("n", n, 1, None)
        reason = self._s.blocked_reason
        if reason:
            raise AELError(f"cannot step: {reason}")
        self._s.run(until=self._s.t + n)
        return self

    def run(self, until: int | None = None) -> "Session":
        """Play to episode `until` (exclusive; None: the end), stopping early at a proposal
        that waits for a decision (manual approval)."""
        if until is not None:
            _check_int("until", until, 0, None)
        self._s.run(until=until)
        return self

    def run_to_reflection(self) -> "Session":
        """Play until a reflection has happened (its proposals, if any, then wait in manual
        approval), the run ends, or something waits for a decision."""
        self._s.run(stop_on=lambda step: any(isinstance(e, events.Reflected) for e in step))
        return self

    # ---------------------------------------------------------------- deciding
    def pending(self) -> "pd.DataFrame":
        """The proposals waiting for a decision, as `proposals()` has them."""
        return frames.proposals(self._s, pending_only=True)

    def approve(self, k: int, reason: str = "", *, always: bool = False) -> "Session":
        """Approve proposal `k` as it stands; `always=True` also sets the standing rule "always
        approve this kind" (later ones are approved as they come)."""
        return self._decide(k, "approve", None, reason, standing=always)

    def reject(self, k: int, reason: str = "") -> "Session":
        return self._decide(k, "reject", None, reason)

    def edit(self, k: int, obj: Mapping[str, Any], reason: str = "") -> "Session":
        """Approve proposal `k` changed to `obj` (a policy dict for an arm; {insight, regime_label,
        confidence} for an insight), validated as the lab's editor validates it."""
        if not isinstance(obj, Mapping):
            raise AELError(f"edit #{k}: give the edited proposal as a dict, not {type(obj).__name__}")
        return self._decide(k, "edit", dict(obj), reason)

    def _decide(self, k: int, decision: str, edited: dict | None, reason: str, standing: bool = False) -> "Session":
        _check_int("k", k, 1, None)
        if not isinstance(reason, str):
            raise AELError(f"reason: give a text, not {type(reason).__name__}")
        self._s.queue.get(k)  # AELError: no such proposal
        self._s.decide(k, decision, edited=edited, reason=reason, who=DECIDED_BY, standing=standing)
        return self

    # ---------------------------------------------------------------- going back
    def rewind(self, n: int) -> "Session":
        """This session as it stood at the start of episode n (exact replay); stepping on plays
        the same run again, and a person's decisions in it wait for a decision again."""
        _check_int("n", n, 0, None)
        self._s.rewind_to(n)
        return self

    def branch(self, n: int, decide: Mapping[int, str] | None = None) -> "Session":
        """A new session: this run taken back to the start of episode n with each proposal in
        `decide` ({k: "approve"|"reject"}) decided the other way there. This session is unchanged;
        the branch keeps it as its original (the lab's compare view shows both)."""
        from engine.timetravel import detached

        _check_int("n", n, 0, None)
        flips = {}
        for k, what in dict(decide or {}).items():
            _check_int("decide key", k, 1, None)
            if what not in ("approve", "reject"):
                raise AELError(f"decide={{{k}: {what!r}}}: decide 'approve' or 'reject'")
            flips[k] = what
        copy = detached(self._s)()
        copy.timeline.keep_original(copy)
        copy.branch(n, flips, who=DECIDED_BY)
        return Session(copy)

    def explain(self, n: int) -> "Explanation":
        """Why episode n went as it did: the episode re-run with instruments on (this session is
        only read). A dict (the `ael-lab explain --json` document) that prints as text."""
        from engine.explain import explain

        return Explanation(explain(self._s, n))

    # ---------------------------------------------------------------- files
    def save(self, path: str | os.PathLike, *, force: bool = False) -> Path:
        """Write the session (atomically) to `path`; refuses to replace a file that is not a
        session unless `force=True`. Returns the path."""
        from engine.store.atomic import check_target
        from engine.store.persistence import is_session_file, save_session

        target = _path(path, "path")
        folder = target.parent if str(target.parent) else Path(".")
        if not folder.is_dir():
            raise AELError(f"save: cannot write {target}: folder {folder} does not exist")
        check_target(target)
        if not force and target.exists() and target.stat().st_size and not is_session_file(target):
            raise AELError(f"save: {target} exists and is not an AEL Lab session; name another file, "
                           "or pass force=True to replace it")
        save_session(self._s, target)
        return target

    def close(self) -> None:
        """Flush a cassette this session records model calls to, and let another process record
        to it (a session without a model has nothing to close). `with ael_lab.new(...) as s:` closes."""
        self._s.llm.close()

    def __enter__(self) -> "Session":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # ---------------------------------------------------------------- reading
    def history(self) -> "pd.DataFrame":
        return frames.history(self._s)

    def posteriors(self) -> "pd.DataFrame":
        return frames.posteriors(self._s)

    def memory(self) -> "pd.DataFrame":
        return frames.memory(self._s)

    def audit(self) -> "pd.DataFrame":
        return frames.audit(self._s)

    def proposals(self) -> "pd.DataFrame":
        return frames.proposals(self._s)

    def results(self) -> dict[str, Any]:
        """This run's entry of `ael-lab run --json`'s "runs", as the CLI computes it."""
        from engine.results import finite, run_outcome, run_result

        return finite({**run_result(self._s), **run_outcome(self._s)})

    def chart(self, kind: str) -> "Chart":
        """One picture of the run: "arms" (which policy played when), "reward" (cumulative),
        "regret" (cumulative, against an oracle run on the same world and seed) or "regimes"
        (the mean per true regime). A notebook shows it inline; `.save(path)` writes the SVG."""
        from ael_lab.pictures import chart

        return chart(self._s, kind)


class Explanation(dict):
    """`Session.explain`'s report: the JSON document of `ael-lab explain --json`, shown as its text."""

    def text(self, width: int | None = None) -> str:
        """The report as `ael-lab explain` prints it (`width`: other policies side by side)."""
        from engine.explain import render

        return render(self, width)

    def __str__(self) -> str:
        return self.text()

    def _repr_html_(self) -> str:
        return f"<pre>{escape(self.text())}</pre>"


# ------------------------------------------------------------------ checks
def _check_seed(seed: Any) -> None:
    """The save's bounds (engine/limits.py): what starts here can be saved and resumed."""
    from engine.limits import SEED_MAX

    if isinstance(seed, bool) or not isinstance(seed, int):
        raise AELError(f"seed: {seed!r} is not a whole number")
    if not 0 <= seed <= SEED_MAX:
        raise AELError(f"seed: {seed} is outside 0..{SEED_MAX}; give a non-negative integer below 2**63")


def _check_int(name: str, value: Any, low: int, high: int | None) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise AELError(f"{name}={value!r}: give a whole number")
    if value < low or (high is not None and value > high):
        bound = f"{low}..{high}" if high is not None else f"{low} or more"
        raise AELError(f"{name}={value}: must be {bound}")
    return value


def _path(path: Any, name: str) -> Path:
    if not isinstance(path, (str, os.PathLike)) or not str(path):
        raise AELError(f"{name}={path!r}: give a file's path")
    return Path(path).expanduser()


def _options(declared_options, given: Mapping[str, Any] | None, owner: str) -> dict[str, Any]:
    """Options by their declarations (a world's, its reflection's): an unknown name is refused, a
    text is parsed as its flag would be, a typed value is checked as the option's kind."""
    if given is not None and not isinstance(given, Mapping):
        raise AELError(f"{owner}: give the options as a dict of name to value, not {type(given).__name__}")
    out: dict[str, Any] = {}
    declared = {o.name: o for o in declared_options}
    for name, value in dict(given or {}).items():
        option = declared.get(name)
        if option is None:
            raise AELError(f"{owner} has no option {name!r} (its options: {', '.join(declared) or 'none'})")
        label = f"{owner.split(':')[0]}[{name!r}]"
        out[name] = option.parse(value, label) if isinstance(value, str) and option.kind is not str else \
            option.check(value, label)
    return out
