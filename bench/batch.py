"""`ael-lab run` as a user runs it (new processes): the support table on one and on
two workers, a 3,000-seed synthetic batch's peak memory, a one-run command's start.

Wall times are taken alternately (one worker, two workers, again) so a drift in
the machine's load hits both; each command gets an empty table cache, as on a
fresh clone. Peak memory is the largest resident set of the command's processes
(`RUSAGE_CHILDREN` of a wrapper whose only child is the command).
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time

AEL_LAB = os.path.join(os.path.dirname(sys.executable), "ael-lab")
SUPPORT_TABLE = ["run", "support", "--seeds", "42,123,456,789,1024", "--selector", "all", "--quiet"]
BIG_BATCH = ["run", "synthetic", "--seeds", "1..3000", "--selector", "ts+reflection", "--quiet", "--workers", "1"]
ONE_RUN = ["run", "synthetic", "--seeds", "42", "--selector", "ts", "--quiet"]


def _wall(args: list[str], cache: str) -> float:
    t0 = time.perf_counter()
    subprocess.run([AEL_LAB, *args], check=True, env={**os.environ, "AEL_LAB_CACHE_DIR": cache})
    return time.perf_counter() - t0


def support_table(rounds: int = 2) -> tuple[float, float]:
    """Fastest of `rounds` alternating walls of the support table on 1 and 2 workers."""
    one, two = [], []
    with tempfile.TemporaryDirectory() as d:
        for r in range(rounds):
            one.append(_wall([*SUPPORT_TABLE, "--workers", "1"], os.path.join(d, f"a{r}")))
            two.append(_wall([*SUPPORT_TABLE, "--workers", "2"], os.path.join(d, f"b{r}")))
    return min(one), min(two)


def peak_mib(args: list[str]) -> float:
    probe = ("import resource, subprocess, sys; subprocess.run(sys.argv[1:], check=True); "
             "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
    out = subprocess.run([sys.executable, "-c", probe, AEL_LAB, *args], check=True, capture_output=True, text=True)
    return int(out.stdout.split()[-1]) / 1024  # Linux reports KiB


def one_run_start(repeats: int = 7) -> float:
    with tempfile.TemporaryDirectory() as d:
        return statistics.median(_wall(ONE_RUN, d) for _ in range(repeats))


def run() -> list[dict]:
    one, two = support_table()
    return [
        {"name": "support table (5 seeds x 9 selectors), 1 worker (wall)", "value": one, "unit": "s", "target": 15},
        {"name": "  the same on 2 workers (wall)", "value": two, "unit": "s", "target": None},
        {"name": "  2 workers / 1 worker", "value": two / one, "unit": "x", "target": 0.6},
        {"name": "synthetic, 3,000 seeds of ts+reflection, 1 worker: peak memory", "value": peak_mib(BIG_BATCH),
         "unit": "MiB", "target": 150},
        {"name": "`run synthetic --seeds 42 --selector ts --quiet` (wall, median)", "value": one_run_start(),
         "unit": "s", "target": 0.3},
    ]
