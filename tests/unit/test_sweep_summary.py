"""Issue 29 item 12: `sweep` printed nothing but a count, the CSV's started/finished were
epoch floats, and `reproduce` and `sweep` showed no progress off a terminal."""

from __future__ import annotations

import io
import json
import re

import numpy as np

from ael_cli.main import main

GRID = ["synthetic", "--seeds", "1..3", "--selector", "ts,ts+reflection", "--workers", "1"]


def test_a_sweep_ends_with_mean_and_sd_per_selector_and_regime(tmp_path, capsys):
    assert main(["sweep", *GRID, "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert main(["sweep", "--out", str(tmp_path), "--export", "json"]) == 0
    runs = json.loads(capsys.readouterr().out)["runs"]
    assert "synthetic: 3 seed(s), mean ± sd over seeds" in out
    for selector in ("ts", "ts+reflection"):
        line = next(x for x in out.splitlines() if x.startswith(f"│ {selector} "))
        mine = [r for r in runs if r["selector"] == selector]
        for cell in ("R0", "R3"):
            values = [r["regimes"][cell] for r in mine]
            assert f"{np.mean(values):.3f} ± {np.std(values, ddof=1):.3f}" in line, (selector, cell)
        overall = [r["overall"] for r in mine]
        assert f"{np.mean(overall):.3f} ± {np.std(overall, ddof=1):.3f}" in line


def test_a_second_sweep_tables_the_runs_it_found_in_the_store_and_quiet_prints_none(tmp_path, capsys):
    assert main(["sweep", *GRID, "--out", str(tmp_path)]) == 0
    capsys.readouterr()
    assert main(["sweep", *GRID, "--out", str(tmp_path)]) == 0
    assert "│ ts+reflection " in capsys.readouterr().out
    assert main(["sweep", *GRID, "--out", str(tmp_path), "--quiet"]) == 0
    assert capsys.readouterr() == ("", "")


def test_the_csv_export_writes_iso_times(tmp_path, capsys):
    import pandas as pd

    assert main(["sweep", "synthetic", "--seeds", "1,2", "--selector", "ts", "--out", str(tmp_path)]) == 0
    capsys.readouterr()
    assert main(["sweep", "--out", str(tmp_path), "--export", "csv"]) == 0
    frame = pd.read_csv(io.StringIO(capsys.readouterr().out))
    iso = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00$")
    for started, finished, wall in zip(frame["started"], frame["finished"], frame["wall_s"]):
        assert iso.match(started) and iso.match(finished)
        took = (pd.Timestamp(finished) - pd.Timestamp(started)).total_seconds()
        assert abs(took - wall) < 0.002


def test_off_a_terminal_a_sweep_prints_progress_lines(tmp_path, capsys):
    assert main(["sweep", *GRID, "--out", str(tmp_path)]) == 0
    err = capsys.readouterr().err  # captured: not a terminal
    assert "ael-lab: sweep: 6/6 runs done, 0 failed" in err


def test_reproduce_prints_its_progress_lines_too(tmp_path, capsys):
    assert main(["reproduce", "synthetic", "--out", str(tmp_path / "runs")]) == 0
    err = capsys.readouterr().err
    assert re.search(r"ael-lab: reproduce: (\d+)/\1 runs done, 0 failed", err), err


def test_progress_lines_come_at_tenths_no_faster_than_the_gap_and_at_least_every_interval():
    from ael_cli.sweep.progress import LINE_EVERY_S, LINE_GAP_S, ProgressLines, Tally

    now = [0.0]
    tally, out = Tally(total=100, slots=2), io.StringIO()
    lines = ProgressLines(tally, "sweep", out, clock=lambda: now[0])

    def finish(n: int, step: float) -> None:
        for _ in range(n):
            now[0] += step
            tally.finished({})
            lines.update()

    finish(10, 0.01)  # a tenth, but 0.1 s after the start: too soon for a line
    assert out.getvalue() == ""
    finish(1, LINE_GAP_S)  # a gap later: the tenth is said
    assert out.getvalue() == "ael-lab: sweep: 11/100 runs done, 0 failed, 0:02 elapsed, about 0:17 to go\n"
    finish(1, LINE_EVERY_S)  # a slow run: the interval passed without a tenth
    assert out.getvalue().count("\n") == 2 and "12/100" in out.getvalue()
    finish(88, 0.0)  # tenths crossed at once: no line until the last run
    assert out.getvalue().count("\n") == 3
    assert out.getvalue().splitlines()[-1] == "ael-lab: sweep: 100/100 runs done, 0 failed, 0:32 elapsed"
