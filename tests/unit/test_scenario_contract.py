"""The scenario contract: a scenario is one package and one registry line.

`tests/tiny_scenario` is written only against the contract (under 100 lines); once
registered it must run, save, compare and report like the built-in worlds, with
no change anywhere else.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import scenarios
from ael_cli.main import main
from ael_tui.compare.lockstep import build_compare, default_selectors
from ael_tui.widgets.opening import selectors_of
from engine.errors import AELError
from engine.methods import parse_method
from engine.options import OptionSpec
from engine.store.persistence import load_session, save_session
from engine.session import Session, SessionConfig

TINY = Path(__file__).parent.parent / "tiny_scenario"


@pytest.fixture
def tiny():
    scenarios.register("tiny", "tests.tiny_scenario.spec")
    yield scenarios.spec_of("tiny")
    scenarios.unregister("tiny")


def test_the_test_scenario_is_small_and_uses_only_the_contract():
    source = "".join(p.read_text() for p in TINY.glob("*.py"))
    assert len(source.splitlines()) < 100
    imports = {line.split()[1] for line in source.splitlines() if line.startswith(("from ", "import "))}
    assert imports <= {"engine.options", "engine.policies", "engine.scenario", "engine.scenario_spec", ".spec"}


def test_every_built_in_scenario_describes_itself(tiny):
    for spec in scenarios.all_specs():
        cls = scenarios.scenario_class(spec.name)
        assert cls.spec is spec and cls.name == spec.name
        assert spec.summary and spec.selectors
        for text in spec.selectors:
            parse_method(text)  # every offered selector is a registered method
        for option in spec.options:
            assert option.help and option.check(option.default) == option.default


def test_a_registered_scenario_runs_saves_and_resumes_exactly(tiny, tmp_path):
    config = SessionConfig(scenario="tiny", seed=3, selector="ts", scenario_options={"length": 30})
    s = Session(config, scenarios.make_scenario("tiny", 3, {"length": 30}))
    assert (s.n_episodes, s.warmup, s.slow_window) == (30, 0, 5)
    s.run(until=12)
    save_session(s, tmp_path / "tiny.json")
    again = load_session(tmp_path / "tiny.json", scenarios.make_scenario)
    s.run()
    again.run()
    assert again.history == s.history


def test_its_options_are_checked_by_its_declaration(tiny):
    with pytest.raises(AELError, match="length"):
        scenarios.make_scenario("tiny", 1, {"length": 1})
    with pytest.raises(AELError, match="unknown option 'colour'"):
        scenarios.make_scenario("tiny", 1, {"colour": "red"})


def test_it_is_offered_to_the_lab_and_the_compare_view(tiny):
    assert "tiny" in scenarios.scenario_names()
    assert selectors_of("tiny") == ["ts", "rr", "fixed:heads", "oracle"]
    config = SessionConfig(scenario="tiny", seed=3, selector="ts")
    chosen = default_selectors(selectors_of("tiny"))
    sessions = build_compare(config, chosen)
    assert list(sessions) == ["ts", "oracle"]
    assert len({id(s.scenario) for s in sessions.values()}) == 1  # shareable: one instance


def test_ael_lab_run_runs_it_and_prints_its_paper_row(tiny, capsys):
    assert main(["run", "tiny", "--seeds", "1,2", "--selector", "all"]) == 0
    out = capsys.readouterr().out
    assert "tiny: 2 seed(s)" in out and "oracle" in out and "paper" in out


def test_an_unknown_scenario_is_one_line_naming_the_registered_ones(tiny, capsys):
    assert main(["run", "nowhere"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "tiny" in err and "portfolio" in err


def test_an_option_declaration_refuses_what_it_does_not_describe():
    count = OptionSpec("count", int, 3, "how many", minimum=1)
    assert count.parse("4") == 4
    with pytest.raises(AELError, match="--count: 'x' is not a whole number"):
        count.parse("x")
    with pytest.raises(AELError, match="outside"):
        count.check(0)
    with pytest.raises(AELError, match="not a whole number"):
        count.check(True)


def test_it_appears_in_ael_lab_run_help_with_its_options(tiny, capsys):
    with pytest.raises(SystemExit) as done:
        main(["run", "--help"])
    assert done.value.code == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "tiny: three coins whose best flips halfway" in out
    assert "--length LENGTH tiny: episodes in the stream (default 40)" in out


def test_its_flag_reaches_it_and_no_other_scenario(tiny, tmp_path, capsys):
    out = tmp_path / "tiny.json"
    assert main(["run", "tiny", "--length", "12", "--selector", "ts", "--json", str(out), "--quiet"]) == 0
    assert json.loads(out.read_text())["runs"][0]["episodes"] == 12
    assert main(["run", "synthetic", "--length", "12"]) == 2
    assert "--length applies only to the tiny scenario" in capsys.readouterr().err


def test_a_worker_that_never_saw_the_registration_runs_it_from_the_task(tiny):
    from ael_lab.batch import run_task, task_of

    task = task_of(SessionConfig(scenario="tiny", seed=2, selector="ts"), None)
    scenarios.unregister("tiny")  # as in a worker process started before the test registered it
    assert run_task(task)["episodes"] == 40 and "tiny" in scenarios.scenario_names()
