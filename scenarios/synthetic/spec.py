"""What the synthetic regime bandit declares (read without building it)."""

from __future__ import annotations

from engine.scenario_spec import ScenarioSpec, reflection_options

SPEC = ScenarioSpec(
    name="synthetic",
    summary="ten Bernoulli arms whose best arm moves every 52 episodes, and a hidden arm only reflection "
            "brings in",
    task_brief=("Choose among Bernoulli arms whose pay rates change with a hidden regime every 52 pulls; "
                "an eleventh arm, best in the last regime, is not in the pool until reflection proposes it."),
    factory="scenarios.synthetic.scenario:SyntheticScenario",
    selectors=("rr", "ucb1", "egreedy", "ts", "ts+reflection", "oracle"),
    # the spec's gate: every slow window of 13, propose the hidden arm when the trailing-25
    # mean reward is below 0.42 (`paper`); `diagnose` also asks the most trusted arm to fail
    reflector=reflection_options(trigger="paper", triggers=("paper", "diagnose"), cadence=13, window=25,
                                 threshold=0.42),
    session={"warmup": 0, "slow_window": 13},
    # The paper's table `tab:synth_crossdomain` (R1 and R2 are not published).
    paper_table={
        "rr": {"R0": .364, "R3": .352, "overall": .385, "overall_sd": .023, "sharpe": .79},
        "ucb1": {"R0": .392, "R3": .410, "overall": .402, "overall_sd": .026, "sharpe": .82},
        "egreedy": {"R0": .396, "R3": .331, "overall": .364, "overall_sd": .017, "sharpe": .76},
        "ts": {"R0": .372, "R3": .359, "overall": .385, "overall_sd": .021, "sharpe": .79},
        "ts+reflection": {"R0": .408, "R3": .452, "overall": .400, "overall_sd": .020, "sharpe": .82},
        "oracle": {"R0": .632, "R3": .731, "overall": .688, "overall_sd": .011, "sharpe": 1.49},
    },
    shareable=True,  # holds no run state: sessions on one seed may share it
    compare_with=("rr", "ts", "oracle"),
    retrieval_arms=False,  # an arm is a Bernoulli machine: a policy's retrieval fields are not used
)
