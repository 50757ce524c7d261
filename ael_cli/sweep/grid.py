"""The grid of a sweep: scenarios x settings x selectors x seeds, from flags or a TOML file.

Axes (each a list; the grid is their product):

    scenarios          synthetic, support, ...
    selectors          methods as typed: ts, ts+reflection, fixed:none, baseline:eqw; "all"
    seeds              42,123 or 1..300 (a string) or a list of integers
    reflect_every      the slow window (reflection cadence), integers
    reflect_threshold  the reflection gate's threshold, 0..1
    reflect_window     the gate's trailing window, integers
    trigger            diagnose or paper
    prior              Beta priors [alpha, beta]
    variant            sets of variants, each as `run --variant` takes it: ["planners", "skills,credit=fcc"]
    options            a scenario option's values, e.g. cost_bps = [0, 5, 10] (a list-valued
                       option's values are lists: tickers = [["AAPL", "MSFT"], ["NVDA"]])
    agent, reflector   LLM backends (offline, anthropic, ...): every agent x every reflector
                       (a scenario with no agent a model could play runs offline, once)

and single settings: episodes, warmup, approve, until, and the backends' agent_model,
reflector_model and replay. A flag replaces the file's value. Within a scenario and
a setting the runs are in `ael-lab run`'s order (each selector over every seed), so a
one-setting sweep lists its runs as `run` does.
"""

from __future__ import annotations

import argparse
import itertools
import tomllib
from dataclasses import dataclass, field
from typing import Any

from ael_lab import AELError
from ael_lab.runs import SessionConfig

from ael_cli.flags import values as types
from ael_lab.batch import RunTask, task_of

AXES = ("reflect_every", "reflect_threshold", "reflect_window", "trigger", "prior", "variant")
SINGLE = ("episodes", "warmup", "approve", "until")
LLM_KEYS = ("agent", "reflector", "agent_model", "reflector_model", "replay")
FILE_KEYS = {"scenarios", "selectors", "seeds", "options", "llm", *AXES, *SINGLE}

# axis -> (the flag's parser, the reflector option it sets)
_AXIS_TYPES = {
    "reflect_every": (types.reflect_every, "cadence"),
    "reflect_threshold": (types.reflect_threshold, "threshold"),
    "reflect_window": (types.reflect_window, "window"),
    "trigger": (None, "trigger"),
    "prior": (types.prior, None),
    "variant": (None, None),  # a set of variants as typed ("planners,per-tool"), checked per scenario
}


@dataclass
class Grid:
    scenarios: list[str]
    selectors: str = "ts+reflection"              # as typed: a comma list or "all" (checked per scenario)
    seeds: list[int] = field(default_factory=lambda: [42])
    axes: dict[str, list[Any]] = field(default_factory=dict)       # AXES -> values
    options: dict[str, list[Any]] = field(default_factory=dict)    # scenario option -> values
    single: dict[str, Any] = field(default_factory=dict)           # SINGLE -> value
    backends: list[dict[str, Any]] = field(default_factory=lambda: [{}])  # LLMConfig dicts, an axis; {} = offline

    def tasks(self) -> list[RunTask]:
        """Every run of the grid, in order; AELError for a selector or option a scenario refuses."""
        from ael_lab.worlds import spec_of

        from ael_cli.runner import _selectors

        from ael_lab.sweep_store import config_hash

        tasks: dict[str, RunTask] = {}  # by hash: backends collapse to offline where a scenario has no model
        for name in self.scenarios:
            spec = spec_of(name)
            selectors = _selectors(self.selectors, spec)
            for setting in self._settings(spec):
                for selector in selectors:
                    for seed in self.seeds:
                        task = task_of(self._config(name, seed, selector, setting), self.single.get("until"))
                        tasks.setdefault(config_hash(task), task)
        return list(tasks.values())

    def _settings(self, spec) -> list[dict[str, Any]]:
        """One dict per point of the setting axes, the scenario's options parsed by its declarations."""
        options = {}
        for key, values in self.options.items():
            declared = spec.option(key)
            if declared is None:
                continue  # an option of another scenario in this sweep (checked in from_sources)
            options[key] = [declared.parse(str(v)) if isinstance(v, (str, int, float)) else v for v in values]
        axes = {**{k: v for k, v in self.axes.items() if v}, **{f"option:{k}": v for k, v in options.items()},
                "backend": self.backends if spec.uses_llm else [{}]}
        keys = list(axes)
        return [dict(zip(keys, point)) for point in itertools.product(*(axes[k] for k in keys))]

    def _config(self, scenario: str, seed: int, selector: str, setting: dict[str, Any]) -> SessionConfig:
        reflector = {option: setting[axis] for axis, (_, option) in _AXIS_TYPES.items() if option and axis in setting}
        extra = {"variants": variant_set(setting["variant"], scenario)} if "variant" in setting else {}
        return SessionConfig(
            scenario=scenario, seed=seed, selector=selector, approval=self.single.get("approve") or "auto",
            episodes=self.single.get("episodes"), warmup=self.single.get("warmup"),
            prior=tuple(setting.get("prior", (1.0, 1.0))), slow_window=reflector.get("cadence"),
            scenario_options={k.split(":", 1)[1]: v for k, v in setting.items() if k.startswith("option:")},
            reflector_options=reflector, llm=setting["backend"], **extra)


def variant_set(text: str, scenario: str) -> list[str]:
    """A set of variants as a session config stores it, checked as `run --variant` checks it."""
    try:
        from ael_cli.flags.variant_flags import variants_of
    except ImportError:
        raise AELError("--variant: this build has no variants") from None
    return variants_of(argparse.Namespace(variant=text), scenario)


def _axis_values(axis: str, values: Any, where: str) -> list[Any]:
    parse, _ = _AXIS_TYPES[axis]
    if not isinstance(values, list) or (axis == "prior" and values and not isinstance(values[0], (list, str))):
        values = [values]
    out = []
    for v in values:
        text = ",".join(map(str, v)) if isinstance(v, list) else str(v)
        if axis == "trigger":
            if text not in ("diagnose", "paper"):
                raise AELError(f"{where}: trigger {text!r} is not diagnose or paper")
            out.append(text)
        elif axis == "variant":
            out.append(text)
        else:
            out.append(parse(text))
    return out


def _flag_axis(axis: str, given: list[str]) -> list[Any]:
    """--reflect-every 7,13 --reflect-every 25 -> [7, 13, 25]; --prior takes one pair a flag,
    --variant one set of variants a flag."""
    items = given if axis in ("prior", "variant") else [part for text in given for part in text.split(",")]
    return _axis_values(axis, items, "--" + axis.replace("_", "-"))


MAX_CONFIG_BYTES = 2**20  # a grid is a few lines; /dev/zero is not read for ever


def read_file(path: str) -> dict[str, Any]:
    """The --config file's TOML (a pipe such as `--config <(...)` too), read up to a cap; a file
    too large, not text, or nested past what the parser can follow is one line."""
    try:
        with open(path, "rb") as f:
            raw = f.read(MAX_CONFIG_BYTES + 1)
    except OSError as err:
        raise AELError(f"--config: cannot read {path}: {err.strerror or err}") from None
    if len(raw) > MAX_CONFIG_BYTES:
        raise AELError(f"--config: {path} is over {MAX_CONFIG_BYTES // 2**20} MiB: not a sweep's grid")
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise AELError(f"--config: {path} is not UTF-8 text") from None
    except tomllib.TOMLDecodeError as err:
        raise AELError(f"--config: {path} is not valid TOML ({err})") from None
    except RecursionError:  # tomllib recurses once per nested array or table
        raise AELError(f"--config: {path} nests deeper than its parser follows: not a sweep's grid") from None
    unknown = sorted(set(data) - FILE_KEYS)
    if unknown:
        raise AELError(f"--config: {path}: unknown key {unknown[0]!r} (expected {', '.join(sorted(FILE_KEYS))})")
    return data


def from_sources(args: argparse.Namespace) -> Grid:
    """The grid the flags and the --config file describe (flags win); AELError for bad input."""
    data = read_file(args.config) if args.config else {}
    where = f"--config {args.config}" if args.config else "sweep"
    names = [n.strip() for text in (args.scenario or []) for n in text.split(",") if n.strip()]
    scenarios = names or _listed(data.get("scenarios"), "scenarios", where)
    if not scenarios:
        raise AELError("sweep: name at least one scenario (ael-lab sweep synthetic ...) or give scenarios in --config")
    from ael_lab.worlds import spec_of

    specs = [spec_of(s) for s in scenarios]
    selectors = args.selector or ",".join(_listed(data.get("selectors"), "selectors", where)) or "ts+reflection"
    if args.seeds:
        seeds = args.seeds
    elif "seeds" in data:
        seeds = _file_seeds(data["seeds"], where)
    else:
        seeds = [42]
    axes = {}
    for axis in AXES:
        given = getattr(args, axis)
        axes[axis] = _flag_axis(axis, given) if given else (
            _axis_values(axis, data[axis], where) if axis in data else [])
    options = dict(data.get("options") or {})
    given: dict[str, list[str]] = {}  # --option NAME=VALUE, repeated: the values of one name form an axis
    for text in args.option or []:
        key, sep, value = text.partition("=")
        if not sep or not key.strip():
            raise AELError(f"--option: {text!r} is not NAME=VALUE (e.g. --option cost_bps=5)")
        given.setdefault(key.strip(), []).append(value)
    from ael_cli.flags.scenario_flags import given_scenario_options

    for key, value in given_scenario_options(args).items():  # --data FILE, as `run` takes it: one value
        if key in given:
            raise AELError(f"sweep: {key} is given twice, as --{key.replace('_', '-')} and as --option {key}=…; "
                           "give one (--option, repeated, makes an axis)")
        given[key] = [value]
    options.update(given)
    for key, values in options.items():
        if not any(s.option(key) for s in specs):
            raise AELError(f"option {key!r}: no scenario of this sweep has it "
                           f"({'; '.join(f'{s.name}: ' + (', '.join(o.name for o in s.options) or 'none') for s in specs)})")
        options[key] = values if isinstance(values, list) else [values]
    single = {k: data[k] for k in SINGLE if k in data}
    single.update({k: getattr(args, k) for k in SINGLE if getattr(args, k) is not None})
    _check_single(single, where)
    return Grid(scenarios, selectors, seeds, axes, options, single, _backends(args, data, specs))


def _listed(value: Any, key: str, where: str) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [v.strip() for v in value.split(",") if v.strip()]
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return value
    raise AELError(f"{where}: {key} should be a list of names")


def _file_seeds(value: Any, where: str) -> list[int]:
    if isinstance(value, int) and not isinstance(value, bool):
        value = [value]
    if isinstance(value, list) and all(isinstance(v, int) and not isinstance(v, bool) for v in value):
        value = ",".join(map(str, value))
    if not isinstance(value, str):
        raise AELError(f"{where}: seeds should be a list of integers or a text like \"1..300\"")
    return types.parse_seeds(value)


def _check_single(single: dict[str, Any], where: str) -> None:
    checks = {"episodes": types.episodes, "warmup": types.warmup, "until": types.until}
    for key, parse in checks.items():
        if key in single and single[key] is not None:
            single[key] = parse(str(single[key]))
    if single.get("approve") not in (None, "auto", "reject"):
        raise AELError(f"{where}: approve must be auto or reject, not {single['approve']!r}")


def _backends(args: argparse.Namespace, data: dict[str, Any], specs) -> list[dict[str, Any]]:
    """The LLM backends, an axis: every agent x every reflector named (comma lists:
    --agent offline,anthropic), from the flags, else the file's [llm] table; each
    checked as `run` checks it. A scenario with no agent a model could play runs offline."""
    from ael_cli.flags.llm_flags import llm_config

    table = data.get("llm") or {}
    unknown = sorted(set(table) - set(LLM_KEYS))
    if unknown:
        raise AELError(f"--config: [llm] has no key {unknown[0]!r} (expected {', '.join(LLM_KEYS)})")
    merged = argparse.Namespace(**vars(args))
    for key in LLM_KEYS:
        default = "offline" if key in ("agent", "reflector") else None
        if getattr(args, key) == default and key in table:
            setattr(merged, key, table[key])
    spec = next((s for s in specs if s.uses_llm), specs[0])
    backends = []
    for agent in _listed(merged.agent, "agent", "--agent"):
        for reflector in _listed(merged.reflector, "reflector", "--reflector"):
            one = argparse.Namespace(**{**vars(merged), "agent": agent, "reflector": reflector, "scenario": spec.name})
            backend = llm_config(one)
            if backend not in backends:
                backends.append(backend)
    return backends
