"""`ael-lab sweep` against the sequential `ael-lab run` of the same grid (the issue's
target: the 2-worker sweep in at most 0.65 of the sequential run's wall time), and
that both give the same results.

All are commands as a user types them (new processes, start-up included), taken
in turn (run --workers 1, run --workers 2, sweep, run --workers 1, ...) so a drift
in the machine's load hits all; the walls are printed, with the median of the
pairs' ratios (each sweep over the run just before it) and the ratio of the fastest
of each. Beside the wall ratio, its cause in CPU seconds (the command's own process
and its workers', read from /proc, `bench.batch.cpu_split`): the sweep's CPU beyond
`run --workers 1`'s, split into what two workers cost by themselves (`run --workers 2`
against `--workers 1`) and what the sweep adds to `run --workers 2` in its own process
(the store's writes, the results' unpickling) and in its workers (the rewards taken
and pickled). On two idle cores the wall ratio is about 0.5 plus the start-up's
share plus half that overhead over the run's CPU. Then the sweep's critical path in
CPU (its own process plus its busiest worker) over the run's CPU: the wall ratio
two idle cores approach. On a shared machine the wall ratios say more about the load
than the work; the CPU figures far less (though a loaded host slows every process's
CPU second too: compare figures of one round, not of two evenings).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time

import statistics

from bench.batch import cpu_split, timed

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
    sequential, parallel, swept = [], [], []  # (wall, CPU) / (wall, CPU, own CPU, workers' CPU)
    loads = [os.getloadavg()[0]]  # the 1-minute load before the first round: wall ratios mean little under load
    with tempfile.TemporaryDirectory() as d:
        env = {**os.environ, "AEL_LAB_CACHE_DIR": d}
        for r in range(rounds):
            json_path = os.path.join(d, f"run-{r}.json")
            sequential.append(timed([AEL_LAB, "run", *GRID, "--workers", "1", "--quiet", "--json", json_path], env))
            wall, cpu, own, workers = cpu_split([AEL_LAB, "run", *GRID, "--workers", "2", "--quiet"], env)
            parallel.append((wall, cpu, own, sum(workers)))
            out = os.path.join(d, f"sweep-{r}")
            wall, cpu, own, workers = cpu_split([AEL_LAB, "sweep", *GRID, "--workers", "2", "--quiet", "--out", out],
                                                env)
            swept.append((wall, cpu, own, sum(workers), own + max(workers, default=0.0)))
        exported = subprocess.run([AEL_LAB, "sweep", "--out", out, "--export", "json"], check=True,
                                  capture_output=True, text=True, env=env).stdout
        with open(json_path) as f:
            same = json.loads(exported) == json.load(f)
    med = statistics.median
    seq, sw = min(q[0] for q in sequential), min(s[0] for s in swept)
    pairs = [s[0] / q[0] for s, q in zip(swept, sequential)]
    paired = med(pairs)
    overhead = med(s[1] - q[1] for s, q in zip(swept, sequential))
    share = overhead / med(q[1] for q in sequential)
    path_ratio = med(s[4] / q[1] for s, q in zip(swept, sequential))
    runs_cpu, store_cpu = store_share()
    return [
        {"name": "machine load average (1 min) before these runs", "value": os.getloadavg()[0], "unit": "",
         "target": None},
        {"name": "`run synthetic` 300 seeds x ts,ts+reflection, 1 worker (wall, fastest)", "value": seq,
         "unit": "s", "target": None},
        {"name": "  `sweep` of the same grid, 2 workers, new store (wall, fastest)", "value": sw, "unit": "s",
         "target": None},
        {"name": "  `run` walls, median (rounds: " + ", ".join(f"{q[0]:.2f}" for q in sequential) + ")",
         "value": med(q[0] for q in sequential), "unit": "s", "target": None},
        {"name": "  `sweep` walls, median (rounds: " + ", ".join(f"{s[0]:.2f}" for s in swept) + ")",
         "value": med(s[0] for s in swept), "unit": "s", "target": None},
        {"name": "  sweep 2 workers / `run --workers 1` (wall, median of pairs: "
                 + ", ".join(f"{r:.2f}" for r in pairs) + "; load before the first "
                 + f"{loads[0]:.1f}, after the last {os.getloadavg()[0]:.1f}; CPU overhead beside it "
                 + f"+{overhead:.2f} s, {share:.1%} of the run's CPU)", "value": paired, "unit": "x", "target": 0.65},
        {"name": "  its cause, CPU: the sweep's CPU (command + workers) beyond `run --workers 1`'s, median of pairs",
         "value": overhead, "unit": "s", "target": None},
        {"name": "    of which two workers by themselves (`run --workers 2` beyond `--workers 1`)",
         "value": med(p[1] - q[1] for p, q in zip(parallel, sequential)), "unit": "s", "target": None},
        {"name": "    the sweep's own process beyond `run --workers 2`'s (the store's writes, unpickling)",
         "value": med(s[2] - p[2] for s, p in zip(swept, parallel)), "unit": "s", "target": None},
        {"name": "    the sweep's workers beyond `run --workers 2`'s (rewards taken and pickled)",
         "value": med(s[3] - p[3] for s, p in zip(swept, parallel)), "unit": "s", "target": None},
        {"name": "  `run --workers 2` / `run --workers 1` (wall, median of pairs: the executor alone)",
         "value": med(p[0] / q[0] for p, q in zip(parallel, sequential)), "unit": "x", "target": None},
        {"name": "  sweep 2 workers / sequential run (wall, fastest of each)", "value": sw / seq, "unit": "x",
         "target": None},
        {"name": "  sweep's critical path in CPU / run's CPU (idle 2 cores)", "value": path_ratio, "unit": "x",
         "target": None},
        {"name": "  sweep / run (CPU time of the command and its workers, fastest of each)",
         "value": min(s[1] for s in swept) / min(q[1] for q in sequential), "unit": "x", "target": None},
        {"name": "  the 600 runs in one process (CPU)", "value": runs_cpu, "unit": "s", "target": None},
        {"name": "  writing them to a new store (CPU, the sweep's own process)", "value": store_cpu,
         "unit": "s", "target": None},
        {"name": "  sweep results identical to run's (1 = yes)", "value": float(same), "unit": "", "target": 1,
         "higher": True},
    ]
