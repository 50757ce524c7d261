"""`ael-lab sweep` against the sequential `ael-lab run` of the same grid (the issue's
target: the 2-worker sweep in at most 0.65 of the sequential run's wall time), and
that both give the same results.

Both are commands as a user types them (new processes, start-up included), taken
in turn (run, sweep, run, sweep, ...) so a drift in the machine's load hits both;
both walls are printed, with the median of the pairs' ratios (each sweep over the
run just before it) and the ratio of the fastest of each. CPU time (the command
and its workers) is printed beside, and the sweep's critical path in CPU (its own
process plus its busiest worker, `bench.batch.critical_cpu`) over the run's CPU:
the wall ratio two idle cores approach. On a shared machine the wall ratios say
more about the load than the work.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time

import statistics

from bench.batch import critical_cpu, timed

AEL_LAB = os.path.join(os.path.dirname(sys.executable), "ael-lab")
GRID = ["synthetic", "--seeds", "1..300", "--selector", "ts,ts+reflection"]


def store_share() -> tuple[float, float]:
    """CPU seconds of the grid's 600 runs in this process, and of writing their outcomes
    to a new store (what the sweep's own process adds beside its workers; CPU, so the
    machine's load hardly moves it)."""
    from ael_cli.main import build_parser
    from ael_cli.sweep.grid import from_sources
    from ael_lab.sweep_store import Store
    from ael_cli.sweep.task import sweep_task

    tasks = from_sources(build_parser().parse_args(["sweep", *GRID, "--out", "unused"])).tasks()
    t0 = time.process_time()
    outs = [sweep_task(t) for t in tasks]
    runs = time.process_time() - t0
    with tempfile.TemporaryDirectory() as d, Store(d) as store:
        t0 = time.process_time()
        for i, (task, out) in enumerate(zip(tasks, outs)):
            store.record(i, task, out)
        store.commit()
        return runs, time.process_time() - t0


def run(rounds: int = 5) -> list[dict]:
    sequential, swept, paths = [], [], []
    with tempfile.TemporaryDirectory() as d:
        env = {**os.environ, "AEL_LAB_CACHE_DIR": d}
        for r in range(rounds):
            json_path = os.path.join(d, f"run-{r}.json")
            sequential.append(timed([AEL_LAB, "run", *GRID, "--workers", "1", "--quiet", "--json", json_path], env))
            out = os.path.join(d, f"sweep-{r}")
            wall, cpu, path = critical_cpu([AEL_LAB, "sweep", *GRID, "--workers", "2", "--quiet", "--out", out], env)
            swept.append((wall, cpu))
            paths.append(path)
        exported = subprocess.run([AEL_LAB, "sweep", "--out", out, "--export", "json"], check=True,
                                  capture_output=True, text=True, env=env).stdout
        with open(json_path) as f:
            same = json.loads(exported) == json.load(f)
    seq, sw = min(w for w, _ in sequential), min(w for w, _ in swept)
    paired = statistics.median(s[0] / q[0] for s, q in zip(swept, sequential))
    path_ratio = statistics.median(p / q[1] for p, q in zip(paths, sequential))
    runs_cpu, store_cpu = store_share()
    return [
        {"name": "machine load average (1 min) before these runs", "value": os.getloadavg()[0], "unit": "",
         "target": None},
        {"name": "`run synthetic` 300 seeds x ts,ts+reflection, 1 worker (wall, fastest)", "value": seq,
         "unit": "s", "target": None},
        {"name": "  `sweep` of the same grid, 2 workers, new store (wall, fastest)", "value": sw, "unit": "s",
         "target": None},
        {"name": "  `run` walls, median (rounds: " + ", ".join(f"{w:.2f}" for w, _ in sequential) + ")",
         "value": statistics.median(w for w, _ in sequential), "unit": "s", "target": None},
        {"name": "  `sweep` walls, median (rounds: " + ", ".join(f"{w:.2f}" for w, _ in swept) + ")",
         "value": statistics.median(w for w, _ in swept), "unit": "s", "target": None},
        {"name": "  sweep 2 workers / sequential run (wall, median of pairs)", "value": paired, "unit": "x",
         "target": 0.65},
        {"name": "  sweep 2 workers / sequential run (wall, fastest of each)", "value": sw / seq, "unit": "x",
         "target": None},
        {"name": "  sweep's critical path in CPU / run's CPU (idle 2 cores)", "value": path_ratio, "unit": "x",
         "target": None},
        {"name": "  sweep / run (CPU time of the command and its workers)",
         "value": min(c for _, c in swept) / min(c for _, c in sequential), "unit": "x", "target": None},
        {"name": "  the 600 runs in one process (CPU)", "value": runs_cpu, "unit": "s", "target": None},
        {"name": "  writing them to a new store (CPU, the sweep's own process)", "value": store_cpu,
         "unit": "s", "target": None},
        {"name": "  sweep results identical to run's (1 = yes)", "value": float(same), "unit": "", "target": 1,
         "higher": True},
    ]
