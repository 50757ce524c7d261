"""`ael-lab lab` builds its session from the flags, LLM flags included, and the host
knows when progress is unsaved."""

from __future__ import annotations

from ael_tui import app as app_module
from ael_cli.main import build_parser
from ael_tui.config import LabSettings
from ael_tui.lab.session_host import SessionHost
from ael_tui.widgets.readouts import status_of
from tests.tui_helpers import frozen_lab, synthetic  # noqa: F401


def test_the_lab_command_honours_the_llm_flags(monkeypatch):
    opened = []
    monkeypatch.setattr(app_module.AelLab, "run", lambda self: opened.append(self.initial_session))
    args = build_parser().parse_args(["lab", "synthetic", "--seed", "7", "--reflector", "openai-compatible",
                                      "--reflector-model", "m1", "--llm-url", "http://127.0.0.1:9",
                                      "--llm-timeout", "5", "--error-policy", "fallback"])
    assert app_module.run_app(args) == 0
    session = opened[0]
    llm = session.config.llm
    assert (llm["reflector"], llm["reflector_model"], llm["base_url"], llm["timeout_s"], llm["error_policy"]) == \
        ("openai-compatible", "m1", "http://127.0.0.1:9", 5.0, "fallback")
    status = status_of(session)
    assert status.backend == "agent offline, reflector openai-compatible/m1" and status.cost == 0.0


def test_without_llm_flags_the_lab_runs_offline(monkeypatch):
    opened = []
    monkeypatch.setattr(app_module.AelLab, "run", lambda self: opened.append(self.initial_session))
    app_module.run_app(build_parser().parse_args(["lab", "synthetic"]))
    assert opened[0].config.llm == {} and status_of(opened[0]).backend == "offline"


def test_progress_is_unsaved_after_a_step_and_saved_after_a_save(tmp_path):
    host = SessionHost(synthetic(approval="auto"), LabSettings(delay=0, saves_dir=tmp_path))
    assert not host.unsaved
    host.begin("step")
    host.run("step")
    assert host.unsaved
    host.save(tmp_path / "s.json")
    assert not host.unsaved and host.saved_at == tmp_path / "s.json"


def test_the_lab_command_takes_the_reflection_flags_of_run(monkeypatch):
    """Issue 13 item 12: `ael-lab lab` lacked --trigger and --reflect-*."""
    opened = []
    monkeypatch.setattr(app_module.AelLab, "run", lambda self: opened.append(self.initial_session))
    args = build_parser().parse_args(["lab", "support", "--trigger", "paper", "--reflect-every", "80",
                                      "--reflect-window", "200", "--reflect-threshold", "0.5"])
    assert app_module.run_app(args) == 0
    s = opened[0]
    assert s.config.reflector_options == {"trigger": "paper", "cadence": 80, "window": 200, "threshold": 0.5}
    assert s.slow_window == 80 and (s.reflector.trigger, s.reflector.cadence) == ("paper", 80)


def test_a_bad_reflection_flag_is_one_line(capsys):
    from ael_cli.main import main
    assert main(["lab", "support", "--reflect-every", "0"]) == 2
    assert "--reflect-every" in capsys.readouterr().err


def test_the_portfolio_table_reads_as_metrics_not_keys(capsys):
    """Issue 13 item 10: raw keys (max_drawdown_pct) and a 'bandit reward' of 0.504 in every row."""
    from ael_cli.main import main
    assert main(["run", "portfolio", "--seeds", "42", "--selector", "ts,baseline:eqw"]) == 0
    out = capsys.readouterr().out
    assert "MaxDD %" in out and "Sharpe" in out and "baseline:eqw" in out
    assert "max_drawdown_pct" not in out and "bandit reward" not in out
