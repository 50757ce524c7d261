"""`ael-lab sweep`: the same results as `ael-lab run`, a store that resumes, failures
recorded without stopping the others, the grid from flags or TOML, exports."""

from __future__ import annotations

import json
import sqlite3

import pytest

from ael_cli.main import main
from ael_lab.sweep_store import STORE_NAME, Store

GRID = ["synthetic", "--seeds", "1..6", "--selector", "ts,ts+reflection"]


def sweep(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["sweep", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def export(capsys, folder, fmt: str = "json") -> str:
    code, out, err = sweep(capsys, "--out", str(folder), "--export", fmt)
    assert code == 0, err
    return out


@pytest.mark.heavy
def test_a_sweep_gives_exactly_the_results_of_run_on_any_worker_count(tmp_path, capsys):
    assert main(["run", *GRID, "--quiet", "--workers", "1", "--json", str(tmp_path / "run.json")]) == 0
    expected = json.loads((tmp_path / "run.json").read_text())
    for workers in ("1", "2"):
        code, _, err = sweep(capsys, *GRID, "--workers", workers, "--out", str(tmp_path / workers))
        assert code == 0, err
        assert json.loads(export(capsys, tmp_path / workers)) == expected


@pytest.mark.heavy
def test_a_second_sweep_runs_only_what_the_store_lacks(tmp_path, capsys):
    folder = str(tmp_path / "s")
    assert sweep(capsys, "synthetic", "--seeds", "1..3", "--selector", "ts", "--out", folder)[0] == 0
    code, _, err = sweep(capsys, "synthetic", "--seeds", "1..5", "--selector", "ts", "--out", folder)
    assert code == 0
    assert "2 run(s) done, 3 already in the store" in err
    with Store(folder) as store:
        assert [r["seed"] for r in store.runs()] == [1, 2, 3, 4, 5]


def test_the_store_keeps_config_metrics_rewards_and_timings_per_run(tmp_path, capsys):
    folder = tmp_path / "s"
    assert sweep(capsys, "synthetic", "--seeds", "7", "--selector", "ts+reflection", "--out", str(folder))[0] == 0
    db = sqlite3.connect(folder / STORE_NAME)
    (config, overall, wall, status), = db.execute("SELECT config, overall, wall_s, status FROM runs")
    assert json.loads(config)["seed"] == 7 and status == "ok" and wall > 0
    assert db.execute("SELECT count(*) FROM rewards").fetchone()[0] == 208
    mean, = db.execute("SELECT avg(reward) FROM rewards").fetchone()
    assert mean == pytest.approx(overall)
    names = {n for (n,) in db.execute("SELECT name FROM metrics")}
    assert {"overall", "sharpe", "regimes.R3"} <= names


@pytest.mark.heavy
def test_a_failed_run_is_recorded_and_the_others_finish(tmp_path, capsys):
    folder = tmp_path / "s"
    code, _, err = sweep(capsys, "synthetic,portfolio", "--seeds", "1,2", "--selector", "ts",
                         "--option", f"data={tmp_path / 'no-such-market'}", "--out", str(folder))
    assert code == 1
    assert "2 run(s) failed" in err
    with Store(folder) as store:
        runs = store.runs()
    assert [(r["scenario"], r["status"]) for r in runs] == [("synthetic", "ok")] * 2 + [("portfolio", "failed")] * 2
    assert "no-such-market" in runs[-1]["error"]
    doc = json.loads(export(capsys, folder))
    assert [d["scenario"] for d in doc] == ["synthetic", "portfolio"]
    assert len(doc[1]["failed"]) == 2 and doc[1]["runs"] == []


def test_a_run_that_failed_before_is_replaced_whole_when_it_succeeds(tmp_path):
    from ael_lab.batch import task_of
    from ael_cli.sweep.task import sweep_task
    from engine.session import SessionConfig

    task = task_of(SessionConfig(scenario="synthetic", seed=3, selector="ts", episodes=40), None)
    with Store(tmp_path) as store:
        store.record(0, task, {"error": "ConnectionError: the provider went away", "started": 0.0, "finished": 1.0})
        store.record(0, task, sweep_task(task))
        db = store.db
        (run, status, error), = db.execute("SELECT id, status, error FROM runs").fetchall()
        assert (status, error) == ("ok", None)
        assert db.execute("SELECT count(*), min(run), max(run) FROM rewards").fetchone() == (40, run, run)
        assert db.execute("SELECT count(DISTINCT run) FROM metrics").fetchone() == (1,)


def test_setting_axes_multiply_the_grid(tmp_path, capsys):
    folder = tmp_path / "s"
    code, _, _ = sweep(capsys, "synthetic", "--seeds", "1,2", "--selector", "ts+reflection",
                       "--reflect-every", "7,13", "--prior", "1,1", "--prior", "0.5,0.5", "--episodes", "30",
                       "--out", str(folder))
    assert code == 0
    with Store(folder) as store:
        configs = [r["config"] for r in store.runs()]
    assert len(configs) == 2 * 2 * 2
    assert {(c["reflector_options"]["cadence"], tuple(c["prior"])) for c in configs} == \
        {(7, (1.0, 1.0)), (7, (0.5, 0.5)), (13, (1.0, 1.0)), (13, (0.5, 0.5))}
    assert all(c["slow_window"] == c["reflector_options"]["cadence"] for c in configs)
    assert len(json.loads(export(capsys, folder))) == 4  # one run --json document per setting


@pytest.mark.heavy
def test_a_toml_grid_is_the_same_as_its_flags(tmp_path, capsys):
    grid = tmp_path / "grid.toml"
    grid.write_text('scenarios = ["synthetic"]\nselectors = ["ts", "ts+reflection"]\nseeds = "1..6"\n')
    code, _, err = sweep(capsys, "--config", str(grid), "--out", str(tmp_path / "toml"))
    assert code == 0, err
    assert sweep(capsys, *GRID, "--out", str(tmp_path / "flags"))[0] == 0
    assert export(capsys, tmp_path / "toml") == export(capsys, tmp_path / "flags")


def test_csv_export_has_a_row_per_run_with_every_metric(tmp_path, capsys):
    import io

    import pandas as pd

    assert sweep(capsys, *GRID, "--out", str(tmp_path))[0] == 0
    frame = pd.read_csv(io.StringIO(export(capsys, tmp_path, "csv")))
    assert len(frame) == 12
    assert {"selector", "seed", "overall", "wall_s", "metric.regimes.R3"} <= set(frame.columns)


@pytest.mark.parametrize("content, says", [
    ("seeds = " + "[" * 100_000 + "]" * 100_000 + "\n", "nests deeper than its parser follows"),
    (b"\xff\xfe seeds = 1", "not UTF-8 text"),
    ("# " + "x" * (2**20) + "\n", "is over 1 MiB"),
], ids=["deep", "not-utf8", "over-the-cap"])
def test_a_hostile_config_file_is_one_line(tmp_path, capsys, content, says):
    """A TOML grid nested 100,000 deep was a RecursionError traceback; /dev/zero was read for ever."""
    config = tmp_path / "grid.toml"
    config.write_bytes(content if isinstance(content, bytes) else content.encode())
    code, out, err = sweep(capsys, "synthetic", "--config", str(config), "--out", str(tmp_path / "s"))
    assert code == 2 and err.count("\n") == 1 and says in err and "Traceback" not in err, err
    assert not (tmp_path / "s").exists()


def test_the_export_on_a_terminal_shows_escapes_from_data_never_obeys_them(monkeypatch):
    """A stream's regime names become metric columns: `--export csv` printed an OSC 52 (the
    clipboard) and a title escape as they were to the terminal. On a terminal they are shown;
    to a file or a pipe the CSV keeps the data as it is; parquet's bytes go to a file only."""
    import io

    import pandas as pd

    from ael_cli.sweep import export as exporting
    from engine.errors import AELError

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    hostile = pd.DataFrame({"selector": ["ts"], "metric.regimes.\x1b]52;c;cHduZWQ=\x07R": [0.5],
                            "error": ["\x1b]0;title\x07\x1b[2J"]})
    monkeypatch.setattr(exporting, "table", lambda store: hostile.copy())
    shown, piped = Terminal(), io.StringIO()
    exporting.export(None, "csv", shown)
    exporting.export(None, "csv", piped)
    assert "\x1b" not in shown.getvalue() and "\x07" not in shown.getvalue()
    assert "␛]52;c;cHduZWQ=␇R" in shown.getvalue() and "␛]0;title␇␛[2J" in shown.getvalue()
    assert "\x1b]52;c;cHduZWQ=\x07R" in piped.getvalue()
    with pytest.raises(AELError, match="parquet writes binary"):
        exporting.export(None, "parquet", Terminal())


@pytest.mark.parametrize("argv, says", [
    (["--out", "{tmp}/empty", "--export", "json"], "no sweep store here"),
    (["synthetic", "--out", "{tmp}/s", "--option", "cost_bps=5"], "no scenario of this sweep has it"),
    (["synthetic", "--out", "{tmp}/s", "--reflect-every", "0"], "--reflect-every"),
    (["synthetic", "--out", "{tmp}/s", "--trigger", "often"], "not diagnose or paper"),
    (["synthetic", "--out", "{tmp}/s", "--config", "{tmp}/bad.toml"], "unknown key 'colour'"),
    (["synthetic", "--out", "{tmp}/s", "--selector", "nope"], "unknown selector"),
    (["synthetic"], "--out DIR is needed"),
    (["synthetic", "--out", "{tmp}/s", "--export", "csv"], "runs nothing: drop the scenarios"),
    (["synthetic", "--out", "{tmp}/s", "--workers", "0"], "--workers: must be 1 or more"),
])
def test_bad_input_is_one_line_and_exit_2(tmp_path, capsys, argv, says):
    (tmp_path / "bad.toml").write_text('colour = "red"\n')
    code, _, err = sweep(capsys, *[a.format(tmp=tmp_path) for a in argv])
    assert code == 2
    assert says in err and len(err.strip().splitlines()) == 1


def test_parquet_without_pyarrow_says_so_in_one_line(tmp_path, capsys):
    pytest.importorskip("pandas")
    try:
        import pyarrow  # noqa: F401
        pytest.skip("pyarrow is installed here")
    except ImportError:
        pass
    assert sweep(capsys, "synthetic", "--out", str(tmp_path))[0] == 0
    code, out, err = sweep(capsys, "--out", str(tmp_path), "--export", "parquet")
    assert code == 2 and out == "" and "needs pyarrow" in err


def test_a_file_that_is_not_a_sweep_store_is_refused_in_one_line(tmp_path, capsys):
    (tmp_path / STORE_NAME).write_text("not a database, just text " * 100)
    code, _, err = sweep(capsys, "synthetic", "--out", str(tmp_path))
    assert code == 2 and "not a sweep store this version can read" in err and len(err.strip().splitlines()) == 1
    newer = tmp_path / "newer"
    with Store(newer) as store:
        store.set_info("format", 99)
    code, _, err = sweep(capsys, "--out", str(newer), "--export", "csv")
    assert code == 2 and "format 99" in err


def test_the_progress_tally_counts_failures_and_llm_cost():
    from ael_cli.sweep.progress import Tally

    tally = Tally(total=3, slots=2)
    tally.finished({"result": {"llm": {"cost_usd": 0.25}}})
    tally.finished({"error": "boom"})
    assert (tally.done, tally.failed, tally.cost_usd, tally.running) == (2, 1, 0.25, 1)


def test_backends_are_an_axis_where_a_scenario_has_a_model_to_play():
    from ael_cli.main import build_parser
    from ael_cli.sweep.grid import from_sources

    args = build_parser().parse_args(["sweep", "support,synthetic", "--seeds", "1,2", "--selector", "ts",
                                      "--agent", "offline,anthropic", "--out", "unused"])
    tasks = from_sources(args).tasks()
    assert [(t.config.scenario, t.config.llm.get("agent", "offline")) for t in tasks] == [
        ("support", "offline"), ("support", "offline"), ("support", "anthropic"), ("support", "anthropic"),
        ("synthetic", "offline"), ("synthetic", "offline")]


def test_variant_sets_are_an_axis_checked_as_run_checks_them(tmp_path, capsys):
    """Where this build has variants (issue 16) each --variant is one point of the axis, stored
    as `run --variant` stores it; where it has none, the flag is one line."""
    from ael_cli.main import build_parser
    from ael_cli.sweep.grid import from_sources

    argv = ["sweep", "portfolio", "--seeds", "1", "--selector", "ts", "--variant", "planners",
            "--variant", "skills,per-tool", "--out", str(tmp_path)]
    try:
        from ael_cli.flags.variant_flags import variants_of
    except ImportError:
        code, _, err = sweep(capsys, *argv[1:])
        assert code == 2 and "this build has no variants" in err
        return
    import argparse

    tasks = from_sources(build_parser().parse_args(argv)).tasks()
    assert [t.config.variants for t in tasks] == [
        variants_of(argparse.Namespace(variant=v), "portfolio") for v in ("planners", "skills,per-tool")]


def test_rewards_of_keeps_each_records_fields_and_none_where_one_lacks_them():
    from ael_cli.sweep.task import REWARD_FIELDS, rewards_of

    full = [{"episode": 0, "reward": 1.0, "regime": 0, "phase": "train", "policy": "a1", "other": 5}]
    assert rewards_of(full) == [(0, 1.0, 0, "train", "a1")]
    partial = full + [{"episode": 1, "reward": 0.0}]  # a scenario whose records have no regime or phase
    assert rewards_of(partial) == [(0, 1.0, 0, "train", "a1"), (1, 0.0, None, None, None)]
    assert len(REWARD_FIELDS) == 5 and rewards_of([]) == []
