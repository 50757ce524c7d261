"""A resumed run that stops before its end says so (ael_cli/resume_decisions.py).

A save made in manual approval, or a branch whose run ahead holds a person's decision,
stops at a proposal that waits for a person. Before, `run --resume` printed the results
table of the part it played beside the paper's row of the whole, exited 0, and its JSON
read as a finished run. Now: exit code 3, one line naming the proposal and the flag that
decides it, no table, `"complete": false`; `--decide` and `--approve` decide it and give
the run the save would have gone on to.
"""

from __future__ import annotations

import json

import pytest

from ael_cli.main import main
from ael_cli.resume_decisions import EXIT_STOPPED
from engine.session import Session, SessionConfig
from engine.store.persistence import save_session
from scenarios import make_scenario


def results(path) -> dict:
    return json.loads(path.read_text())


def one_line(capsys) -> str:
    captured = capsys.readouterr()
    assert captured.out == ""  # no table, nothing a script could take for a result
    assert captured.err.count("\n") == 1 and captured.err.startswith("ael-lab: "), captured.err
    return captured.err


@pytest.fixture
def manual_save(tmp_path):
    """A synthetic session made in manual approval (the start screen's default), saved at its start."""
    s = Session(SessionConfig(scenario="synthetic", seed=42, approval="manual"), make_scenario("synthetic", 42, {}))
    path = tmp_path / "manual.json"
    save_session(s, path)
    return path


def test_a_manual_save_resumed_stops_at_its_first_proposal_and_says_so(manual_save, tmp_path, capsys):
    out = tmp_path / "r.json"
    assert main(["run", "synthetic", "--resume", str(manual_save), "--json", str(out)]) == EXIT_STOPPED
    err = one_line(capsys)
    assert "stopped at episode 13 of 208" in err and "proposal #1 (a new arm)" in err
    assert f"--resume {manual_save} --decide 1=approve" in err and "--approve auto|reject" in err
    doc = results(out)
    assert {k: doc["runs"][0][k] for k in ("complete", "waiting", "stopped_at", "episodes")} == \
        {"complete": False, "waiting": "proposal #1 (a new arm)", "stopped_at": 13, "episodes": 13}
    assert doc["paper_comparable"] is False  # 13 of 208 episodes: not a run to set beside the paper's


def test_approve_auto_on_a_manual_save_is_the_run_auto_approval_makes(manual_save, tmp_path, capsys):
    resumed, fresh = tmp_path / "resumed.json", tmp_path / "fresh.json"
    assert main(["run", "synthetic", "--resume", str(manual_save), "--approve", "auto", "--quiet",
                 "--json", str(resumed)]) == 0
    assert main(["run", "synthetic", "--seeds", "42", "--quiet", "--json", str(fresh)]) == 0
    assert results(resumed)["runs"] == results(fresh)["runs"]
    assert results(fresh)["runs"][0]["complete"] is True


def test_approval_as_the_issue_spells_it_is_approve(manual_save, tmp_path, capsys):
    """`--approval auto` (the trust issue's words) was 'unrecognized arguments' (exit 2): it is
    --approve's other name in run, sweep and lab, the same choices and the same run."""
    from ael_cli.main import build_parser

    resumed = tmp_path / "resumed.json"
    assert main(["run", "synthetic", "--resume", str(manual_save), "--approval", "auto", "--quiet",
                 "--json", str(resumed)]) == 0
    assert results(resumed)["runs"][0]["complete"] is True
    parser = build_parser()
    assert parser.parse_args(["sweep", "synthetic", "--approval", "reject"]).approve == "reject"
    assert parser.parse_args(["lab", "synthetic", "--approval", "auto"]).approve == "auto"


def test_decide_decides_the_proposal_and_the_run_goes_on(manual_save, tmp_path, capsys):
    saved = tmp_path / "at-13.json"
    assert main(["run", "synthetic", "--resume", str(manual_save), "--save", str(saved), "--quiet"]) == EXIT_STOPPED
    err = one_line(capsys)
    assert f"saved at episode 13 to {saved}" in err and f"--resume {saved} --decide 1=approve" in err
    out = tmp_path / "r.json"
    code = main(["run", "synthetic", "--resume", str(saved), "--decide", "1=reject", "--json", str(out), "--quiet"])
    assert code == EXIT_STOPPED  # the next proposal waits in its turn, named as the first was
    assert {k: results(out)["runs"][0][k] for k in ("waiting", "stopped_at")} == \
        {"waiting": "proposal #2 (a new arm)", "stopped_at": 78}
    assert f"--resume {saved} --decide 1=reject --decide 2=approve " in one_line(capsys)  # #1 is still to decide there
    code = main(["run", "synthetic", "--resume", str(saved), "--decide", "1=reject", "--approve", "auto",
                 "--json", str(out), "--quiet"])
    assert code == 0 and results(out)["runs"][0]["complete"] is True and results(out)["runs"][0]["episodes"] == 208
    from engine.store.persistence import read_document

    assert read_document(saved)["session"]["t"] == 13  # the save is where it stopped, #1 still waiting


def test_a_branch_resumed_stops_where_its_run_ahead_had_a_persons_decision(tmp_path, capsys):
    """The issue's four commands on the synthetic world (its first proposal comes at episode 12)."""
    run, b100, b5, out = (tmp_path / n for n in ("run.json", "b100.json", "b5.json", "r.json"))
    assert main(["run", "synthetic", "--seeds", "42", "--save", str(run), "--quiet"]) == 0
    assert main(["branch", str(run), "--at", "100", "--decide", "1=reject", "--save", str(b100)]) == 0
    assert main(["branch", str(b100), "--at", "5", "--save", str(b5)]) == 0
    capsys.readouterr()
    assert main(["run", "synthetic", "--resume", str(b5), "--json", str(out)]) == EXIT_STOPPED
    err = one_line(capsys)
    assert "proposal #1 (a new arm) waits" in err and "the run ahead: #1 rejected" in err
    assert f"--resume {b5} --decide 1=reject" in err
    assert results(out)["runs"][0]["complete"] is False
    truth = tmp_path / "truth.json"  # the branch continued: what b5 was cut from
    assert main(["run", "synthetic", "--resume", str(b100), "--quiet", "--json", str(truth)]) == 0
    for flags in (["--approve", "auto"], ["--decide", "1=reject"]):
        assert main(["run", "synthetic", "--resume", str(b5), *flags, "--quiet", "--json", str(out)]) == 0
        assert results(out)["runs"] == results(truth)["runs"], flags
    assert main(["run", "synthetic", "--resume", str(b5), "--decide", "1=approve", "--quiet",
                 "--json", str(out)]) == 0
    original = tmp_path / "original.json"
    assert main(["run", "synthetic", "--seeds", "42", "--quiet", "--json", str(original)]) == 0
    assert results(out)["runs"] == results(original)["runs"]  # approved, as the run it branched from


@pytest.mark.parametrize("argv, words", [
    (["--seeds", "42", "--decide", "1=approve"], "--decide: only with --resume"),
    (["--resume", "SAVE", "--decide", "1=approve", "--decide", "1=reject"], "both approve and reject"),
    (["--resume", "SAVE", "--decide", "1=maybe"], "K=approve or K=reject"),
    (["--resume", "DECIDED", "--decide", "1=reject"], "proposal #1 was already approved"),
])
def test_bad_decide_flags_are_one_line(argv, words, manual_save, tmp_path, capsys):
    decided = tmp_path / "decided.json"
    s = Session(SessionConfig(scenario="synthetic", seed=42), make_scenario("synthetic", 42, {}))
    s.run(until=20)
    save_session(s, decided)
    argv = [str(manual_save) if a == "SAVE" else str(decided) if a == "DECIDED" else a for a in argv]
    assert main(["run", "synthetic", *argv, "--quiet"]) == 2
    err = one_line(capsys)
    assert words in err


def test_run_help_says_what_exit_code_3_is(capsys):
    with pytest.raises(SystemExit):
        main(["run", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "3 a resumed run stopped before its end" in text and "--decide K=approve|reject" in text


@pytest.mark.heavy
def test_the_issues_four_support_commands(tmp_path, capsys):
    """Finding 2 as reported: 920 of 1,200 episodes were printed as a finished run (exit 0)."""
    sup, b1000, b300, out, truth = (tmp_path / n for n in ("sup.json", "b1000.json", "b300.json", "r.json",
                                                            "truth.json"))
    assert main(["run", "support", "--seeds", "42", "--save", str(sup), "--quiet"]) == 0
    assert main(["branch", str(sup), "--at", "1000", "--decide", "2=reject", "--save", str(b1000)]) == 0
    assert main(["branch", str(b1000), "--at", "300", "--save", str(b300)]) == 0
    capsys.readouterr()
    assert main(["run", "support", "--resume", str(b300), "--json", str(out)]) == EXIT_STOPPED
    err = one_line(capsys)
    assert "stopped at episode 920 of 1200" in err and "proposal #2 (a new arm)" in err
    assert results(out)["runs"][0]["complete"] is False and results(out)["runs"][0]["episodes"] == 920
    assert main(["run", "support", "--resume", str(b1000), "--quiet", "--json", str(truth)]) == 0
    assert main(["run", "support", "--resume", str(b300), "--approve", "auto", "--quiet", "--json", str(out)]) == 0
    assert results(out)["runs"] == results(truth)["runs"]
    assert round(results(out)["runs"][0]["overall"], 3) == 0.637 and results(out)["runs"][0]["complete"] is True
