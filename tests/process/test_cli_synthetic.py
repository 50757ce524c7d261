"""`ael-lab run` on the synthetic bandit: the paper's table, determinism, resume, bad input."""

import json
import subprocess
import sys

import pytest

from ael_cli.main import main
from scenarios.synthetic.scenario import SyntheticScenario

PAPER_SEEDS = "42,123,456,789,1024"


def run(*argv) -> int:
    return main(["run", *argv, "--quiet"])


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    out = tmp_path_factory.mktemp("cli") / "out.json"
    assert run("synthetic", "--seeds", PAPER_SEEDS, "--selector", "all", "--json", str(out)) == 0
    return out


def test_reproduces_the_papers_table_within_the_specs_tolerances(table):
    doc = json.loads(table.read_text())
    assert doc["scenario"] == "synthetic" and doc["seeds"] == [42, 123, 456, 789, 1024]
    assert len(doc["runs"]) == 30
    for row in doc["summary"]:
        paper = SyntheticScenario.spec.paper_table[row["selector"]]
        assert abs(row["overall_mean"] - paper["overall"]) <= 0.03, row["selector"]
        assert abs(row["sharpe_mean"] - paper["sharpe"]) <= 0.05, row["selector"]
        for regime in ("R0", "R3"):
            assert abs(row["regimes"][regime] - paper[regime]) <= 0.07, (row["selector"], regime)


def test_the_json_has_the_documented_shape(table):
    doc = json.loads(table.read_text())
    r = doc["runs"][0]
    assert set(r) >= {"selector", "seed", "regimes", "overall", "sharpe", "injections"}
    assert list(r["regimes"]) == ["R0", "R1", "R2", "R3"]
    s = doc["summary"][0]
    assert set(s) >= {"selector", "regimes", "overall_mean", "overall_std", "sharpe_mean"}
    ts_r = [x for x in doc["runs"] if x["selector"] == "ts+reflection"]
    assert all(x["injections"] and x["injections"][0]["arm"] == "a10" for x in ts_r)


def test_running_twice_gives_identical_json(table, tmp_path):
    again = tmp_path / "again.json"
    assert run("synthetic", "--seeds", PAPER_SEEDS, "--selector", "all", "--json", str(again)) == 0
    assert again.read_bytes() == table.read_bytes()


def test_save_mid_run_then_resume_equals_the_uninterrupted_run(tmp_path):
    a, s, b = tmp_path / "a.json", tmp_path / "s.json", tmp_path / "b.json"
    assert run("synthetic", "--seeds", "7", "--selector", "ts+reflection", "--json", str(a)) == 0
    assert run("synthetic", "--seeds", "7", "--selector", "ts+reflection", "--until", "100", "--save", str(s)) == 0
    assert run("synthetic", "--resume", str(s), "--json", str(b)) == 0
    assert b.read_bytes() == a.read_bytes()


@pytest.mark.parametrize("argv,message", [
    (["nope"], "unknown scenario 'nope'"),
    (["synthetic", "--selector", "thompson"], "unknown selector 'thompson'"),
    (["synthetic", "--seeds", "4,x"], "--seeds: 'x' is not a seed"),
    (["synthetic", "--seeds", "4,4"], "listed twice"),
    (["synthetic", "--seeds", "1,2", "--save", "X"], "--save needs exactly one run"),
    (["synthetic", "--resume", "MISSING"], "no such session file"),
    (["synthetic", "--trigger", "vibes"], "--trigger"),
    (["synthetic", "--bogus"], "unrecognized arguments"),
    (["synthetic", "--data", "yahoo"], "only to the portfolio"),
    (["synthetic", "--resume", "SAVED", "--seeds", "5"], "--seeds: a resumed session keeps the settings"),
])
def test_bad_input_is_one_line_on_stderr_exit_2_and_nothing_overwritten(tmp_path, capsys, argv, message):
    target = tmp_path / "keep.json"
    target.write_text("precious")
    saved = tmp_path / "saved.json"
    if "SAVED" in argv:
        assert run("synthetic", "--seeds", "1", "--until", "5", "--save", str(saved)) == 0
    argv = [a.replace("MISSING", str(tmp_path / "missing.json")).replace("SAVED", str(saved)) for a in argv]
    assert run(*argv, "--json", str(target)) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
    assert target.read_text() == "precious"


@pytest.mark.parametrize("content", ["", "{", "not json", '{"a": 1}',
                                     '{"format": "ael-lab-session", "schema_version": 7, "session": {}}'])
def test_bad_session_files_never_overwrite_the_json_target(tmp_path, capsys, content):
    bad, target = tmp_path / "bad.json", tmp_path / "out.json"
    bad.write_text(content)
    target.write_text("precious")
    assert run("synthetic", "--resume", str(bad), "--json", str(target)) == 2
    assert capsys.readouterr().err.count("\n") == 1
    assert target.read_text() == "precious"


def test_the_console_script_exits_2_without_a_traceback(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "ael_cli.main", "run", "synthetic", "--selector", "zzz"],
                          capture_output=True, text=True)
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [
        "ael-lab: unknown selector 'zzz' (accepted: all, ts, ucb1, egreedy, rr, fixed:POLICY, oracle, reflexion, "
        "expel, meta-reflexion, evotool, factorminer, hyperagent; add +reflection for AEL's reflection)"]


def test_the_papers_rows_are_shown_only_for_comparable_runs(tmp_path, capsys):
    assert main(["run", "synthetic", "--seeds", "1"]) == 0
    assert "paper" in capsys.readouterr().out
    assert main(["run", "synthetic", "--seeds", "1", "--episodes", "50"]) == 0
    assert "paper" not in capsys.readouterr().out


def test_many_seed_ranges(tmp_path):
    out = tmp_path / "many.json"
    assert run("synthetic", "--seeds", "1..20", "--selector", "ts,ts+reflection", "--json", str(out)) == 0
    doc = json.loads(out.read_text())
    assert doc["seeds"] == list(range(1, 21)) and len(doc["runs"]) == 40


def test_json_dash_writes_the_results_to_stdout_and_nothing_else(tmp_path):
    """`--json -`: the document is the command's output (a pipe, a script), with no table
    beside it and no file named "-"."""
    done = subprocess.run([sys.executable, "-m", "ael_cli.main", "run", "synthetic", "--seeds", "1,2",
                           "--selector", "ts", "--json", "-"], cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    assert [r["seed"] for r in document["runs"]] == [1, 2] and all(r["complete"] for r in document["runs"])
    assert not (tmp_path / "-").exists()
