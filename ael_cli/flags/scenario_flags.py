"""Scenario options on the command line, built from every registered ScenarioSpec.

Each exposed option (`OptionSpec.expose`) of any scenario becomes one flag of
`ael-lab run` and `ael-lab lab`; two scenarios that both declare `data` share
`--data`, and its help says what it means for each. The text is parsed by the
option of the scenario actually run, so a flag given for a scenario that does
not declare it is one line naming the scenarios it applies to.
"""

from __future__ import annotations

import argparse
from typing import Any, Iterable

from ael_lab import AELError
from ael_lab.worlds import OptionSpec, ScenarioSpec

DEST_PREFIX = "scenario_option_"


def _exposed(specs: Iterable[ScenarioSpec]) -> dict[str, list[tuple[ScenarioSpec, OptionSpec]]]:
    """option name -> the (scenario, declaration) pairs exposing it, in registry order."""
    found: dict[str, list[tuple[ScenarioSpec, OptionSpec]]] = {}
    for spec in specs:
        for option in spec.options:
            if option.expose:
                found.setdefault(option.name, []).append((spec, option))
    return found


def scenario_help(specs: Iterable[ScenarioSpec]) -> str:
    """The positional argument's help: every registered scenario and its one line."""
    return "; ".join(f"{s.name}: {s.summary}" for s in specs)


def option_help(spec: ScenarioSpec, option: OptionSpec) -> str:
    """'stream: the column holding each row's label', once: the scenario's name is not said twice
    when the declaration's own help begins with it, and an empty default is not shown as '(default )'."""
    text = option.help.removeprefix(f"{spec.name}: ")
    empty = option.default is None or option.default == "" or option.default == []
    return f"{spec.name}: {text}" + ("" if empty else f" (default {option.default})")


def add_scenario_flags(parser: argparse.ArgumentParser, specs: list[ScenarioSpec]) -> None:
    """The scenarios' exposed options as flags: `ael-lab run`, `lab` and `sweep` take the same ones
    (in a sweep a flag is one value of the option, as `--option NAME=VALUE` once)."""
    exposed = _exposed(specs)
    if not exposed:
        return
    group = parser.add_argument_group("scenario options (from each scenario's description)")
    for name, uses in exposed.items():
        flag = uses[0][1].flag
        help_text = "; ".join(option_help(s, o) for s, o in uses)
        group.add_argument(flag, dest=DEST_PREFIX + name, metavar=name.upper(), help=help_text)


def given_scenario_options(args: argparse.Namespace) -> dict[str, str]:
    """option name -> the text given by its flag, for the flags given."""
    return {k[len(DEST_PREFIX):]: v for k, v in vars(args).items() if k.startswith(DEST_PREFIX) and v is not None}


def scenario_options(args: argparse.Namespace, spec: ScenarioSpec, specs: list[ScenarioSpec]) -> dict[str, Any]:
    """The options given on the command line for `spec`, parsed by its declarations;
    AELError for a flag that applies to other scenarios only."""
    options: dict[str, Any] = {}
    for name, uses in _exposed(specs).items():
        text = vars(args).get(DEST_PREFIX + name)
        if text is None:
            continue
        own = next((o for s, o in uses if s.name == spec.name), None)
        if own is None:
            names = " and ".join(s.name for s, _ in uses)
            raise AELError(f"{uses[0][1].flag} applies only to the {names} scenario{'s' if len(uses) > 1 else ''}")
        options[name] = own.parse(text)
    return options


def given_scenario_flags(args: argparse.Namespace) -> list[str]:
    """The scenario flags given (a resumed session refuses them: it keeps its own)."""
    return ["--" + k[len(DEST_PREFIX):].replace("_", "-") for k, v in vars(args).items()
            if k.startswith(DEST_PREFIX) and v is not None]
