"""Issue 29 item 9: a misspelled selector got a partial list (no rr, egreedy, all, baselines or
the prior methods) and no "did you mean"; a misspelled variant likewise."""

from __future__ import annotations

import pytest

from ael_cli.main import main
from engine.method_base import METHODS


@pytest.mark.parametrize("argv, guess", [
    (["run", "support", "--selector", "reflexon"], "did you mean 'reflexion'?"),
    (["run", "synthetic", "--selector", "ts,reflexon+reflection"], "did you mean 'reflexion+reflection'?"),
    (["run", "synthetic", "--selector", "ts+reflexion"], "did you mean 'ts+reflection'?"),
    (["run", "support", "--selector", "fixd:none"], "did you mean 'fixed:none'?"),
    (["sweep", "synthetic", "--out", "{tmp}/s", "--selector", "egredy"], "did you mean 'egreedy'?"),
])
def test_a_misspelled_selector_gets_the_closest_name_and_every_accepted_one(tmp_path, capsys, argv, guess):
    assert main([a.format(tmp=tmp_path) for a in argv]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and guess in err
    accepted = err.split("accepted: ", 1)[1]
    for name in ["all", "rr", "egreedy", "ucb1", "ts", "oracle", "fixed:POLICY", "+reflection", *METHODS]:
        assert name in accepted, name


def test_the_portfolio_lists_its_baselines_and_nonsense_gets_no_guess(capsys):
    assert main(["run", "portfolio", "--selector", "zzz"]) == 2
    err = capsys.readouterr().err
    assert "did you mean" not in err and "baseline:eqw" in err and "baseline:invm" in err and "hyperagent" in err


def test_the_lab_says_did_you_mean_too(capsys):
    assert main(["lab", "support", "--selector", "reflexon"]) == 2
    assert "did you mean 'reflexion'?" in capsys.readouterr().err


@pytest.mark.parametrize("variant, guess", [("plannners", "'planners'"), ("cold-strat=llm", "'cold-start=llm'"),
                                            ("skils", "'skills'")])
def test_a_misspelled_variant_gets_did_you_mean(capsys, variant, guess):
    assert main(["run", "support", "--variant", variant, "--episodes", "5"]) == 2
    err = capsys.readouterr().err
    assert f"did you mean {guess}?" in err and "task-procedural=task|global" in err
