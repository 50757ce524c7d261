"""Issue 41 item 8, the small things found by a newcomer, a teacher and a researcher: each
line is what a person reads, and each test failed on what they read before."""

from __future__ import annotations

import pytest

from ael_cli.main import build_parser, main
from ael_cli.prior_report import confound_notes
from ael_tui.actions import BY_ID
from ael_tui.decisions.preview_panel import headline, summary
from ael_tui.lab.records import stamp
from ael_tui.serve.mode import ServedMode
from ael_tui.serve.server import LabServer
from engine.preview import Preview, Replayed


def test_one_visitor_is_one_visitor(tmp_path):
    mode = ServedMode(root=str(tmp_path))
    line = LabServer(mode, host="127.0.0.1", port=0, what="x", max_sessions=1, teacher_key="k" * 20, fork=False,
                     out=lambda _: None).announcement()
    assert "up to 1 visitor," in line and "visitors" not in line
    many = LabServer(mode, host="127.0.0.1", port=0, what="x", teacher_key="k" * 20, fork=False,
                     out=lambda _: None).announcement()
    assert "up to 40 visitors" in many


def test_the_compare_dialog_does_not_start_on_the_save_key():
    assert BY_ID["compare_setup.go"].key != BY_ID["lab.save"].key
    assert BY_ID["compare_setup.go"].key == BY_ID["lab.compare"].key  # c opens it, c again compares


def test_the_audit_logs_time_carries_its_day():
    assert stamp("2026-01-02T03:04:05+00:00") == "01-02 03:04:05"
    assert stamp("") == "—"


def _replayed(e: int, reward: float, reward_with: float, graded: bool) -> Replayed:
    right = (reward >= 0.5) if graded else False
    right_with = (reward_with >= 0.5) if graded else False
    return Replayed(e, "a", "a", "x", "y", "", "", reward, reward_with, right, right_with)


def test_a_replay_of_returns_says_better_and_worse_not_0_fixed_0_broken():
    returns = Preview(1, "insight", (10, 12), [_replayed(10, 0.01, 0.03, False), _replayed(11, 0.02, -0.01, False),
                                              _replayed(12, 0.0, 0.02, False)], graded=False)
    for text in (headline(returns, "x").plain, summary(returns, "x").plain):
        assert "0 fixed" not in text and "2 better, 1 worse by reward, +0.01 in all" in text
    graded = Preview(1, "insight", (10, 11), [_replayed(10, 0.0, 1.0, True), _replayed(11, 1.0, 0.0, True)])
    assert "1 fixed, 1 broken" in headline(graded, "x").plain


def test_a_reversed_seed_range_says_it_is_reversed(capsys):
    assert main(["run", "synthetic", "--seeds", "10..1"]) == 2
    err = capsys.readouterr().err
    assert "the range 10..1 is reversed" in err and "1..10" in err and err.count("\n") == 1


def test_the_confound_note_says_whose_ts_and_names_no_digest():
    summary_rows = [{"selector": "factorminer", "regimes": {"R3": 0.908}}]
    paper = {"ts": {"R3": 0.206}}
    alone = confound_notes(summary_rows, paper)
    assert alone and "§" not in alone[0] and "digest" not in alone[0]
    assert "the paper's TS, 0.206 (TS did not run here" in alone[0]
    both = confound_notes(summary_rows + [{"selector": "ts", "regimes": {"R3": 0.5}}], paper)
    assert "against TS's 0.500 in this run" in both[0]


def test_run_help_says_each_stream_option_once_and_no_empty_default():
    run = build_parser()._subparsers._group_actions[0].choices["run"]
    text = run.format_help()
    assert "stream: stream:" not in text and "(default )" not in text and "(default [])" not in text
    assert "stream: the column holding each row's label" in " ".join(text.split())


def test_sweep_takes_the_stream_flags_as_run_does(tmp_path, monkeypatch, capsys):
    from ael_cli.sweep.grid import from_sources

    monkeypatch.chdir(tmp_path)
    flags = ["--data", "t.csv", "--text", "body", "--label", "tag"]
    grid = from_sources(build_parser().parse_args(["sweep", "stream", *flags, "--out", "o"]))
    assert grid.options == {"data": ["t.csv"], "text": ["body"], "label": ["tag"]}
    (task,) = grid.tasks()
    assert "t.csv" in repr(task) and "body" in repr(task)
    assert main(["sweep", "stream", *flags, "--option", "data=t.csv", "--out", "o2"]) == 2
    assert "data is given twice" in capsys.readouterr().err


def test_resume_needs_no_scenario_and_a_different_one_is_one_line(tmp_path, capsys):
    save = tmp_path / "s.json"
    assert main(["run", "synthetic", "--until", "12", "--save", str(save), "--quiet"]) == 0
    assert main(["run", "--resume", str(save), "--quiet"]) == 0
    capsys.readouterr()
    assert main(["run", "support", "--resume", str(save)]) == 2
    err = capsys.readouterr().err
    assert "is a synthetic session, not support" in err and err.count("\n") == 1
    assert main(["run"]) == 2
    assert "name a scenario" in capsys.readouterr().err


@pytest.mark.parametrize("argv", [["run", "--resume"]])
def test_resume_without_a_file_is_a_usage_line(argv, capsys):
    assert main(argv) == 2
    assert "Traceback" not in capsys.readouterr().err
