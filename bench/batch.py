"""`ael-lab run` as a user runs it (new processes): the support table on one and on
two workers, a 3,000-seed synthetic batch's peak memory, a one-run command's start.

Wall times are taken alternately (one worker, two workers, again) so a drift in
the machine's load hits both; each command gets an empty table cache, as on a
fresh clone. Peak memory is the largest resident set of the command's processes
(`RUSAGE_CHILDREN` of a wrapper whose only child is the command).
"""

from __future__ import annotations

import os
import resource
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
    return timed([AEL_LAB, *args], {**os.environ, "AEL_LAB_CACHE_DIR": cache})[0]


def timed(cmd: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall, CPU) seconds of a command; CPU is user + system of it and its workers,
    which a busy machine hardly changes, as context for the wall time."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, env=env)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def support_table(rounds: int = 3) -> tuple[float, float, float, float]:
    """Fastest of `rounds` alternating walls of the support table on 1 and 2 workers,
    the ratio of their CPU times (what the second worker costs in duplicated work),
    and the ratio of the 2-worker command's critical path in CPU (`critical_cpu`) to
    the 1-worker command's CPU: the wall ratio an idle machine approaches."""
    one, two, paths = [], [], []
    with tempfile.TemporaryDirectory() as d:
        for r in range(rounds):
            for times, workers in ((one, "1"), (two, "2")):
                env = {**os.environ, "AEL_LAB_CACHE_DIR": os.path.join(d, f"{workers}-{r}")}
                if workers == "1":
                    times.append(timed([AEL_LAB, *SUPPORT_TABLE, "--workers", workers], env))
                else:
                    wall, cpu, path = critical_cpu([AEL_LAB, *SUPPORT_TABLE, "--workers", workers], env)
                    times.append((wall, cpu))
                    paths.append(path)
    one_cpu = min(c for _, c in one)
    return min(w for w, _ in one), min(w for w, _ in two), min(c for _, c in two) / one_cpu, min(paths) / one_cpu


def critical_cpu(cmd: list[str], env: dict[str, str]) -> tuple[float, float, float]:
    """(wall, CPU, critical-path CPU) of a command that runs worker processes: the
    critical path is the command's own CPU plus its busiest worker's (`cpu_split`).
    Under load a wall ratio cannot show what a second worker brings: the scheduler
    gives each login session one share (autogroup), however many processes it runs."""
    wall, total, own, workers = cpu_split(cmd, env)
    return wall, total, own + max(workers, default=0.0)


def cpu_split(cmd: list[str], env: dict[str, str]) -> tuple[float, float, float, list[float]]:
    """(wall, CPU, the command's own CPU, each worker's CPU) of a command that runs worker
    processes, each worker's read from /proc while it runs (Linux); CPU is user + system."""
    tick = os.sysconf("SC_CLK_TCK")
    workers: dict[int, float] = {}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env)
    while proc.poll() is None:
        for child in _children(proc.pid):
            cpu = _cpu_of(child, tick)
            if cpu is not None:
                workers[child] = cpu  # the last reading before it exits
        time.sleep(0.01)
    wall = time.perf_counter() - t0
    if proc.returncode:
        raise subprocess.CalledProcessError(proc.returncode, cmd)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    total = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, total, total - sum(workers.values()), sorted(workers.values())


def _children(pid: int) -> list[int]:
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            return [int(x) for x in f.read().split()]
    except OSError:
        return []


def _cpu_of(pid: int, tick: int) -> float | None:
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / tick  # utime, stime


def peak_mib(args: list[str]) -> float:
    probe = ("import resource, subprocess, sys; subprocess.run(sys.argv[1:], check=True); "
             "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
    out = subprocess.run([sys.executable, "-c", probe, AEL_LAB, *args], check=True, capture_output=True, text=True)
    return int(out.stdout.split()[-1]) / 1024  # Linux reports KiB


def one_run_start(repeats: int = 7) -> tuple[float, float]:
    """Median wall and CPU seconds of a one-run command, new process each time."""
    with tempfile.TemporaryDirectory() as d:
        times = [timed([AEL_LAB, *ONE_RUN], {**os.environ, "AEL_LAB_CACHE_DIR": d}) for _ in range(repeats)]
    return statistics.median(w for w, _ in times), statistics.median(c for _, c in times)


def run() -> list[dict]:
    one, two, cpu, path = support_table()
    start, start_cpu = one_run_start()
    return [
        {"name": "machine load average (1 min) before these runs", "value": os.getloadavg()[0], "unit": "",
         "target": None},
        {"name": "support table (5 seeds x 9 selectors), 1 worker (wall)", "value": one, "unit": "s", "target": 15},
        {"name": "  the same on 2 workers (wall)", "value": two, "unit": "s", "target": None},
        {"name": "  2 workers / 1 worker (wall)", "value": two / one, "unit": "x", "target": 0.6},
        {"name": "  2 workers / 1 worker (CPU time: the work the second worker repeats)", "value": cpu,
         "unit": "x", "target": None},
        {"name": "  2 workers: own + busiest worker's CPU / 1 worker's CPU", "value": path,
         "unit": "x", "target": None},
        {"name": "synthetic, 3,000 seeds of ts+reflection, 1 worker: peak memory", "value": peak_mib(BIG_BATCH),
         "unit": "MiB", "target": 150},
        {"name": "`run synthetic --seeds 42 --selector ts --quiet` (wall, median)", "value": start,
         "unit": "s", "target": 0.3},
        {"name": "  its CPU time (median)", "value": start_cpu, "unit": "s", "target": None},
    ]
