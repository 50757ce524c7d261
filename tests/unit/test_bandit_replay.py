"""`ael-lab replay`: the paper's bandit replay (tab:bandit_replay) on a saved run."""

import json

import numpy as np
import pytest

from ael_cli.main import main
from engine.bandit_replay import check_selectors, replay_trace, simulate, trace_of
from engine.errors import AELError
from engine.store.persistence import read_document


@pytest.fixture(scope="module")
def save(tmp_path_factory):
    path = tmp_path_factory.mktemp("replay") / "ts.json"
    assert main(["run", "portfolio", "--selector", "ts+reflection", "--quiet", "--episodes", "120",
                 "--save", str(path)]) == 0
    return path


def test_bags_are_the_rewards_each_initial_policy_earned_in_training(save):
    session = read_document(save)["session"]
    trace = trace_of(session, str(save))
    train = [r for r in session["history"] if r["phase"] in ("warmup", "train")]
    assert trace.horizon == len(train)
    for arm, bag in trace.bags.items():
        assert bag == [r["reward"] for r in train if r["policy"] == arm]
    assert trace.realised == pytest.approx(np.mean([x for b in trace.bags.values() for x in b]))


def test_replay_is_deterministic_and_the_oracle_is_the_best_bag(save):
    trace = trace_of(read_document(save)["session"], str(save))
    a = replay_trace(trace, ["rr", "egreedy", "ucb1", "oracle"], runs=5)
    b = replay_trace(trace, ["ucb1"], runs=5)
    assert a.simulated["ucb1"] == b.simulated["ucb1"]  # other selectors listed change nothing
    assert a.oracle == max(a.policy_means.values())
    assert a.policy_means[a.oracle_policy] == a.oracle
    # every simulated reward comes from a bag, so a run's mean lies within the bags' range
    low, high = min(min(b) for b in trace.bags.values()), max(max(b) for b in trace.bags.values())
    assert all(low <= x <= high for x in a.simulated["rr"])
    assert simulate(trace, "rr", 0) != simulate(trace, "rr", 1)  # the runs draw differently


def test_the_command_prints_the_papers_layout(save, capsys):
    assert main(["replay", str(save), "--runs", "5"]) == 0
    out = capsys.readouterr().out
    for row in ("Round-robin", "ε-greedy (epsilon=0.1)", "UCB1", "ts+reflection (the run itself, realised)",
                "single fixed policy", "compressed", "Oracle (per-seed hindsight best)", "paper"):
        assert row in out, row
    assert "0.547 ± 0.025" in out  # the paper's oracle beside ours (portfolio)
    # the paper's column is an LLM trace, ours an offline one: the output says so (issue 42)
    assert "its LLM agent's training trace (Claude Haiku 4.5" in out
    assert "replay the offline heuristic agent's runs" in out


def test_several_saves_are_seeds(save, tmp_path, capsys):
    other = tmp_path / "s2.json"
    assert main(["run", "portfolio", "--selector", "ts", "--seeds", "7", "--quiet", "--episodes", "120",
                 "--save", str(other)]) == 0
    assert main(["replay", str(save), str(other), "--runs", "3", "--selector", "rr,oracle"]) == 0
    assert "Train reward (2 seeds)" in capsys.readouterr().out


def test_a_run_that_never_played_a_policy_is_refused_in_one_line(tmp_path, capsys):
    path = tmp_path / "fixed.json"
    assert main(["run", "portfolio", "--selector", "fixed:none", "--quiet", "--episodes", "40",
                 "--save", str(path)]) == 0
    assert main(["replay", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "was never played" in err


@pytest.mark.parametrize("content", ["not json", json.dumps({"format": "ael-lab-session", "schema_version": 1,
                                                              "session": {"t": "x"}}), "[]"])
def test_a_bad_file_is_one_line_and_exit_2(tmp_path, capsys, content):
    path = tmp_path / "bad.json"
    path.write_text(content)
    assert main(["replay", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("ael-lab: ")


def test_selectors_that_cannot_be_replayed_are_refused(save, capsys):
    with pytest.raises(AELError):
        check_selectors(["fixed:none"])
    assert main(["replay", str(save), "--selector", "ts+reflection"]) == 2
    assert main(["replay", str(save), "--selector", "bogus"]) == 2
    assert main(["replay", str(save), "--runs", "0"]) == 2
