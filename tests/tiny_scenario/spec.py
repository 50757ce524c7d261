from engine.options import OptionSpec
from engine.scenario_spec import ScenarioSpec

SPEC = ScenarioSpec(
    name="tiny",
    summary="three coins whose best flips halfway (a test scenario)",
    task_brief="Pick the coin that pays; the best coin changes halfway through.",
    factory="tests.tiny_scenario.scenario:TinyScenario",
    selectors=("ts", "rr", "fixed:heads", "oracle"),
    options=(OptionSpec("length", int, 40, "episodes in the stream", minimum=2, maximum=400, expose=True),),
    session={"warmup": 0, "slow_window": 5},
    paper_table={"oracle": {"overall": 0.9}},
    shareable=True,
)
