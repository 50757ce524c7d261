from engine.options import OptionSpec
from engine.scenario_spec import ScenarioSpec

SPEC = ScenarioSpec(
    name="urns",
    summary="three urns that empty as they are drawn from (a test world with run state)",
    task_brief="Draw from the urn most likely to give a red ball; each draw takes a ball out.",
    factory="tests.ext_world.scenario:UrnScenario",
    selectors=("ts", "ts+reflection", "rr", "oracle"),
    options=(OptionSpec("balls", int, 30, "balls in each urn at the start", minimum=5, maximum=1000, expose=True),),
    session={"warmup": 2, "slow_window": 6},
    prior_methods=("tally",),   # offered once registered (tests/ext_method.py)
    shareable=False,            # it keeps run state: every session its own urns
)
