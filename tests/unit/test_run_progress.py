"""`ael-lab run`'s progress (ael_cli/run_progress.py): rows done, rows per second and the
time left on stderr once a run lasts SHOW_AFTER_S, paced as the sweep's lines off a
terminal, one line redrawn in place (and wiped) in one; driven by a fake clock."""

import io
import json
import threading
from types import SimpleNamespace

import pytest

from ael_cli import run_progress as rp
from ael_cli.main import main
from ael_cli.sweep.progress import LINE_EVERY_S


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def session(rows=1000, t=0):
    return SimpleNamespace(t=t, n_episodes=rows, config=SimpleNamespace(selector="ts", seed=1))


def play(progress, s, clock, rows, seconds_per_row, until=None):
    """What Session.run does with should_stop: asked before each row."""
    tick = progress.watch(s, until)
    for _ in range(rows):
        tick()
        clock.now += seconds_per_row
        s.t += 1
    progress.run_done()


@pytest.mark.parametrize("live, after", [(True, rp.SHOW_AFTER_S), (False, rp.SHOW_LINES_AFTER_S)])
def test_a_short_run_says_nothing_however_long_its_world_took_to_build(live, after):
    clock, out = Clock(), io.StringIO()
    progress = rp.RowProgress(1, out, live=live, clock=clock)
    clock.now += 60  # reading a big file: not the run's rows
    play(progress, session(1000), clock, 1000, (after - 0.5) / 1000)
    assert out.getvalue() == ""


def test_off_a_terminal_a_long_run_prints_rows_speed_and_time_left_then_a_last_line():
    clock, out = Clock(), io.StringIO()
    progress = rp.RowProgress(1, out, live=False, clock=clock)
    clock.now += 5.0  # building the world: not counted in the speed
    play(progress, session(10_000), clock, 10_000, 0.01)  # 100 rows/s, 100 s
    lines = out.getvalue().splitlines()
    assert lines[0] == "ael-lab: run: 1,000/10,000 rows · 100 rows/s · 0:15 elapsed · about 1:30 to go"
    assert lines[1].startswith("ael-lab: run: 2,000/10,000 rows")
    assert lines[-1] == "ael-lab: run: 10,000/10,000 rows · 100 rows/s · 1:45 elapsed"
    assert len(lines) == 10  # one at each tenth of the rows (10 s apart), not a line per row


def test_a_slow_run_prints_at_least_every_interval():
    clock, out = Clock(), io.StringIO()
    progress = rp.RowProgress(1, out, live=False, clock=clock)
    play(progress, session(100), clock, 100, LINE_EVERY_S / 3)  # a tenth takes a whole interval
    assert len(out.getvalue().splitlines()) >= 100 * (LINE_EVERY_S / 3) / LINE_EVERY_S


def test_in_a_terminal_one_line_is_redrawn_in_place_at_most_twice_a_second_and_wiped():
    clock, out = Clock(), io.StringIO()
    progress = rp.RowProgress(1, out, live=True, clock=clock)
    play(progress, session(10_000), clock, 10_000, 0.001)  # 10 s
    text = out.getvalue()
    assert "\n" not in text and text.endswith("\r\x1b[K")
    drawn = text.split("\r")
    assert (10 - rp.SHOW_AFTER_S) / rp.REDRAW_S <= len(drawn) - 2 <= (10 - rp.SHOW_AFTER_S) / rp.REDRAW_S + 1
    assert "rows/s" in drawn[1] and "to go" in drawn[1]


def test_several_runs_count_all_their_rows_and_name_the_one_playing():
    clock, out = Clock(), io.StringIO()
    progress = rp.RowProgress(3, out, live=False, clock=clock)
    for _ in range(3):
        play(progress, session(1000), clock, 1000, 0.01)
    lines = out.getvalue().splitlines()
    assert any("/3,000 rows · run 2/3 (ts seed 1)" in line for line in lines)
    assert lines[-1].startswith("ael-lab: run: 3,000/3,000 rows · run 3/3 ·")


def test_runs_in_worker_processes_are_counted_as_they_finish():
    clock, out = Clock(), io.StringIO()
    progress = rp.RowProgress(4, out, live=False, clock=clock)
    for _ in range(4):
        clock.now += 12
        progress.run_done(600)
    assert out.getvalue().splitlines()[0] == "ael-lab: run: 600/2,400 rows · run 2/4 · 50 rows/s · 0:12 elapsed · " \
                                             "about 0:36 to go"


def test_a_resumed_run_counts_the_rows_it_plays_up_to_until():
    clock, out = Clock(), io.StringIO()
    progress = rp.RowProgress(1, out, live=False, clock=clock)
    play(progress, session(1000, t=600), clock, 200, 0.1, until=800)
    assert out.getvalue().splitlines()[-1].startswith("ael-lab: run: 200/200 rows")


def test_the_progress_starts_no_thread():
    # a process with a thread cannot fork the executor's workers
    before = threading.active_count()
    progress = rp.run_progress(False, 10)
    assert threading.active_count() == before and progress is not None


def test_json_to_stdout_stays_the_document_alone_and_quiet_prints_no_progress(tmp_path, capsys, monkeypatch):
    from ael_cli import runner

    clock = iter(range(0, 10_000, 5))  # every reading of the clock 5 s later: the progress shows
    monkeypatch.setattr(runner, "run_progress", lambda quiet, runs: rp.run_progress(quiet, runs, lambda: next(clock)))
    assert main(["run", "synthetic", "--seeds", "1", "--selector", "ts", "--episodes", "40", "--json", "-"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["runs"][0]["episodes"] == 40
    assert "ael-lab: run: 40/40 rows" in err
    assert main(["run", "synthetic", "--seeds", "1", "--selector", "ts", "--episodes", "40", "--quiet",
                 "--json", "-"]) == 0
    assert capsys.readouterr().err == ""
