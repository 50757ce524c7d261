"""Scenario options become command-line flags from the scenarios' descriptions."""

import argparse

import pytest

from ael_cli.flags.scenario_flags import add_scenario_flags, given_scenario_flags, scenario_options
from engine.errors import AELError
from engine.options import OptionSpec
from engine.scenario_spec import ScenarioSpec


def _spec(name, *options):
    return ScenarioSpec(name=name, summary=f"{name} world", task_brief="", factory="x:Y", selectors=("ts",),
                        options=options)


SPECS = [
    _spec("a", OptionSpec("data", str, "here", "a's data", expose=True), OptionSpec("hidden", int, 1, "code only")),
    _spec("b", OptionSpec("data", str, "there", "b's data", expose=True),
          OptionSpec("rate", float, 0.5, "b's rate", minimum=0, maximum=1, expose=True)),
    _spec("c"),
]


def _parse(*argv):
    parser = argparse.ArgumentParser()
    add_scenario_flags(parser, SPECS)
    return parser, parser.parse_args(argv)


def test_one_flag_per_exposed_option_with_each_scenarios_help():
    parser, _ = _parse()
    text = parser.format_help()
    assert "--data" in text and "--rate" in text and "--hidden" not in text
    assert "a: a's data (default here)" in " ".join(text.split())


def test_a_flag_is_parsed_by_the_scenario_run():
    _, args = _parse("--data", "x", "--rate", "0.25")
    assert scenario_options(args, SPECS[1], SPECS) == {"data": "x", "rate": 0.25}
    assert sorted(given_scenario_flags(args)) == ["--data", "--rate"]


def test_a_flag_of_other_scenarios_is_one_line_naming_them():
    _, args = _parse("--rate", "0.25")
    with pytest.raises(AELError, match="--rate applies only to the b scenario$"):
        scenario_options(args, SPECS[0], SPECS)
    _, args = _parse("--data", "x")
    with pytest.raises(AELError, match="--data applies only to the a and b scenarios"):
        scenario_options(args, SPECS[2], SPECS)


def test_a_bad_value_names_the_flag():
    _, args = _parse("--rate", "2")
    with pytest.raises(AELError, match="--rate: 2.0 is outside 0..1"):
        scenario_options(args, SPECS[1], SPECS)
