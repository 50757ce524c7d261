"""What a scenario declares about itself, read without building it.

`ScenarioSpec` is the one description that the CLI (its flags and `--help`),
the start screen (its fields), the compare view, the report (the paper's rows)
and the session (defaults, the task brief) all read. It lives in a light module
of the scenario's package (`scenarios/NAME/spec.py`) that imports nothing
heavy, so listing scenarios and building the command line never loads a
scenario's data libraries; `factory` names the class to import when a session
is actually built.

Defaults live here once: `ENGINE_DEFAULTS` for the session settings a scenario
may override in `session`, and each option's and reflector option's default in
its `OptionSpec`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from .options import Choice, OptionSpec

# Session settings a scenario may override (`ScenarioSpec.session`); anything it
# leaves out takes these. `phases` (episode counts per phase) has no engine default:
# without it the whole stream is one train phase unless `--split` asks for more.
ENGINE_DEFAULTS: Mapping[str, Any] = {"warmup": 15, "slow_window": 10, "memory_cap": 500}

# The reflection gate's trailing window handed to every reflector (the paper's 120) when
# the person did not set one; a reflector's own gate window is its `window` option.
TRAILING_WINDOW = 120

PaperTable = Mapping[str, Mapping[str, Any]]
SERVED_DATA = ("offline", "file", "local")  # how a served lab treats a world's `data` option (`served_data`)


@dataclass(frozen=True)
class LocalCopy:
    """A world whose data a served lab reads only from the teacher's local copy, given as
    `ael-lab serve --NAME-data PATH` (a served lab downloads nothing).

    check: "module:function": function(path, flag) reads the copy once (AELError naming `flag`
           for a bad one), so a bad copy is the teacher's one line when the server starts.
    what:  the flag's help: what the copy is.
    """

    check: str
    what: str


@dataclass(frozen=True)
class ScenarioSpec:
    """The typed description of a scenario.

    name, summary:   the registry name and one line for `--help` and the start screen.
    task_brief:      what an LLM agent or reflector is told the task is.
    factory:         "module:Class" of the scenario, imported only to build one.
    selectors:       the session methods the lab offers and `--selector all` runs, in order.
    baselines:       non-learning baselines, run as `baseline:NAME` (`Scenario.baseline_run`).
    options:         the scenario's own options (`SessionConfig.scenario_options`).
    reflector:       the offline reflector's options with this scenario's defaults
                     (trigger, cadence, window, threshold...); `make_reflector` gets them resolved.
    agents:          who may play the agent and the reflector: "offline" always; "llm" when
                     the scenario has a prompt and parser for a model.
    session:         overrides of ENGINE_DEFAULTS (warm-up, slow window, memory cap).
    paper_table:     the paper's numbers by selector (the report's dim rows), regime columns
                     and `overall`; `paper_test_table` the same for a test phase.
    paper_models:    selector -> the model that made the paper's row, where an LLM agent made it
                     ("Claude Haiku 4.5"): the report's dim row says so beside an offline run.
    shareable:       the scenario holds no run state, so sessions on one seed may share one
                     instance (and its caches); False gives every session its own.
    counterfactual:  its reflector can replay a candidate policy on past episodes.
    exports_stream:  `Scenario.export_stream(seed)` gives its stream (`ael-lab export-stream`).
    results:         how a run's results read: "regimes" (mean reward per true regime and overall)
                     or "phases" (the metrics of each train/val/test phase).
    score_name:      what the mean reward is called in tables ("accuracy" where reward = right).
    compare_with:    the selectors the lab's results view runs beside a session, on its stream.
    sample_data:     "module:function" for a world that cannot run without data given to it:
                     function(folder) writes a small sample there and returns the options that
                     read it (the conformance checks and the suite use it).
    retrieval_arms:  an arm retrieves from memory under its policy's fields; False where an arm
                     is something else (the synthetic world's Bernoulli machines), so an editor
                     says that a policy's retrieval fields change nothing there.
    columns:         the results table's columns after "overall" (the paper's layout for this world):
                     "sharpe" (the reward stream's Sharpe), "p" (Welch's t-test of each selector's
                     per-seed overall against ts+reflection's).
    lesson:          what this world teaches, in two or three sentences (the help and the tour).
    llm_settings:    (options, settings) pairs: a run whose scenario options include `options` calls
                     its model with `settings` too (a protocol's temperature); the runner reads them
                     here, so no command names a world to apply them.
    protocol_tables: the paper's numbers by selector for another protocol of this world (its option
                     `protocol` set to the key), as `paper_table` holds them: `ael-lab reproduce` reads them
                     here, so no command imports a world's module for them.
    served_data:     how a served lab (`ael-lab serve`) treats the `data` option: "offline" (only its
                     default, which reads nothing outside: the portfolio's synthetic market), "file" (a
                     file the visitor names, read only from the sessions folder) or "local" (the
                     teacher's local copy, `local_copy`, the world offered only when there is one).
    local_copy:      with served_data "local": the flag's meaning and how the copy is checked.
    prior_methods:   the paper's prior methods this world offers (engine/prior), offered beside
                     `selectors` by the start screen and the compare view once registered; not in
                     `--selector all`, which stays the paper's table of AEL and its bandits.
    """

    name: str
    summary: str
    task_brief: str
    factory: str
    selectors: tuple[str, ...]
    baselines: tuple[str, ...] = ()
    options: tuple[OptionSpec, ...] = ()
    reflector: tuple[OptionSpec, ...] = ()
    agents: tuple[str, ...] = ("offline",)
    session: Mapping[str, Any] = field(default_factory=dict)
    paper_table: PaperTable = field(default_factory=dict)
    paper_test_table: PaperTable = field(default_factory=dict)
    paper_models: Mapping[str, str] = field(default_factory=dict)
    protocol_tables: Mapping[str, PaperTable] = field(default_factory=dict)
    shareable: bool = False
    counterfactual: bool = False
    exports_stream: bool = False
    results: str = "regimes"
    score_name: str = "overall"
    compare_with: tuple[str, ...] = ()
    retrieval_arms: bool = True
    columns: tuple[str, ...] = ("sharpe",)
    lesson: str = ""
    prior_methods: tuple[str, ...] = ()
    sample_data: str = ""
    llm_settings: tuple[tuple[Mapping[str, Any], Mapping[str, Any]], ...] = ()
    served_data: str = "offline"
    local_copy: LocalCopy | None = None

    def __post_init__(self) -> None:
        unknown = set(self.session) - {*ENGINE_DEFAULTS, "phases"}
        if unknown:
            raise ValueError(f"scenario {self.name}: unknown session default {sorted(unknown)[0]!r}")
        if not self.selectors:
            raise ValueError(f"scenario {self.name}: offers no selector")
        if self.results not in ("regimes", "phases"):
            raise ValueError(f"scenario {self.name}: results must be regimes or phases, not {self.results!r}")
        if self.served_data not in SERVED_DATA or (self.served_data == "local") != (self.local_copy is not None):
            raise ValueError(f"scenario {self.name}: served_data is one of {', '.join(SERVED_DATA)}, and "
                             "\"local\" exactly when it declares its local_copy")

    @property
    def all_selectors(self) -> list[str]:
        """What `--selector all` runs: the session methods, then the baselines."""
        return [*self.selectors, *(f"baseline:{b}" for b in self.baselines)]

    @property
    def offered_prior_methods(self) -> list[str]:
        """The prior methods this world lists that are registered in this build."""
        from .methods import METHODS

        return [m for m in self.prior_methods if m in METHODS]

    @property
    def offered_methods(self) -> list[str]:
        """Beside `selectors`, what the lab's lists offer: the registered prior methods this
        world lists, then the methods that offer themselves to it (`Method.worlds`)."""
        from .method_base import self_offered

        return [*self.offered_prior_methods, *self_offered(self)]

    def session_defaults(self, **overrides: Any) -> dict[str, Any]:
        """ENGINE_DEFAULTS with this scenario's overrides, then `overrides` (an
        instance's own, e.g. phase counts that depend on its data)."""
        return {**ENGINE_DEFAULTS, **self.session, **overrides}

    def option(self, name: str) -> OptionSpec | None:
        return next((o for o in self.options if o.name == name), None)

    def reflector_option(self, name: str) -> OptionSpec:
        found = next((o for o in self.reflector if o.name == name), None)
        if found is None:
            raise KeyError(f"scenario {self.name}: no reflector option {name!r}")
        return found

    def reflector_defaults(self) -> dict[str, Any]:
        return {o.name: o.default for o in self.reflector}

    def reflector_settings(self, given: Mapping[str, Any]) -> dict[str, Any]:
        """The reflector's declared options: those given (and not None), else the defaults.
        Other keys are left out; the reflector checks the values and names a bad one."""
        return {o.name: o.default if given.get(o.name) is None else given[o.name] for o in self.reflector}

    def llm_settings_for(self, options: Mapping[str, Any]) -> dict[str, Any]:
        """The model settings `llm_settings` declares for a run with these scenario options."""
        out: dict[str, Any] = {}
        for when, settings in self.llm_settings:
            if all(options.get(k) == v for k, v in when.items()):
                out.update(settings)
        return out

    @property
    def uses_llm(self) -> bool:
        return "llm" in self.agents


def reflection_options(*, trigger: str, triggers: tuple[str, ...], cadence: int, window: int,
                       threshold: float | None, threshold_help: str = "") -> tuple[OptionSpec, ...]:
    """The four options every offline reflector here takes, with one scenario's defaults.
    (`cadence` is the slow window: how often the gate is checked.)"""
    return (
        OptionSpec("trigger", str, trigger, "when to reflect: diagnose (evidence that the pool fails) or "
                   "paper (the paper's gate alone)", choices=tuple(Choice(t, t) for t in triggers)),
        OptionSpec("cadence", int, cadence, "check the gate every N episodes (the slow window)", minimum=1),
        OptionSpec("window", int, window, "trailing episodes the gate reads", minimum=1),
        OptionSpec("threshold", float, threshold, threshold_help or "reflect when the trailing mean reward is "
                   "below this", minimum=0.0, maximum=1.0),
    )
