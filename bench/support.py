"""Support-stream benchmarks: one TS + reflection run, and resuming a saved one.

The prediction table is kept on disk by stream hash (`scenarios/support/table_cache.py`);
each figure here says whether it starts with that cache empty (a fresh clone) or
filled by the run that made the save (a resume, as a user does it).
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time

from engine.session import Session, SessionConfig
from scenarios import make_scenario

from .batch import timed

AEL_LAB = os.path.join(os.path.dirname(sys.executable), "ael-lab")


def one_run(seed: int = 97) -> tuple[float, float]:
    """Engine time (wall, and this process's CPU time) of one 1,200-episode TS + reflection
    session on a fresh seed with an empty table cache: the per-seed precompute (stream,
    similarity, prediction table) is included."""
    with tempfile.TemporaryDirectory() as cache:
        old = os.environ.get("AEL_LAB_CACHE_DIR")
        os.environ["AEL_LAB_CACHE_DIR"] = cache
        try:
            t0, c0 = time.perf_counter(), time.process_time()
            s = Session(SessionConfig("support", seed, "ts+reflection"), make_scenario("support", seed))
            s.run()
            return time.perf_counter() - t0, time.process_time() - c0
        finally:
            if old is None:
                os.environ.pop("AEL_LAB_CACHE_DIR")
            else:
                os.environ["AEL_LAB_CACHE_DIR"] = old


def fresh_runs(seeds: tuple[int, ...] = (97, 98, 99)) -> tuple[float, float]:
    """Median wall and CPU of `one_run` over seeds no other benchmark touched (each
    pays its own stream, similarity and table, as a first run on a fresh clone)."""
    times = [one_run(seed) for seed in seeds]
    return statistics.median(w for w, _ in times), statistics.median(c for _, c in times)


def resume(repeats: int = 5) -> tuple[float, float, float]:
    """Wall time (median, new process each) of `ael-lab run support --resume` on a save
    made one episode before the end: with the table cache the saving run filled, and
    with an empty one (for comparison); and the CPU time of the first (median)."""
    with tempfile.TemporaryDirectory() as d:
        env = {**os.environ, "AEL_LAB_CACHE_DIR": os.path.join(d, "cache")}
        save = os.path.join(d, "s.json")
        subprocess.run([AEL_LAB, "run", "support", "--seeds", "42", "--selector", "ts+reflection",
                        "--until", "1199", "--save", save, "--quiet"], check=True, env=env)
        warm, cold = [], []
        for i in range(repeats):
            for times, cache in ((warm, env["AEL_LAB_CACHE_DIR"]), (cold, os.path.join(d, f"empty{i}"))):
                times.append(timed([AEL_LAB, "run", "support", "--resume", save, "--quiet"],
                                   {**env, "AEL_LAB_CACHE_DIR": cache}))
        return (statistics.median(w for w, _ in warm), statistics.median(w for w, _ in cold),
                statistics.median(c for _, c in warm))


def run() -> list[dict]:
    load = os.getloadavg()[0]
    warm, cold, cpu = resume()
    engine, engine_cpu = fresh_runs()
    return [
        {"name": "machine load average (1 min) before these runs", "value": load, "unit": "", "target": None},
        {"name": "support: 1,200-episode TS+reflection run, fresh seed (engine)", "value": engine,
         "unit": "s", "target": 0.8},
        {"name": "  its CPU time (both: median of 3 seeds)", "value": engine_cpu, "unit": "s", "target": None},
        {"name": "support: resume one episode before the end (wall, median)", "value": warm,
         "unit": "s", "target": 0.5},
        {"name": "  its CPU time (median)", "value": cpu, "unit": "s", "target": None},
        {"name": "  the same with an empty table cache (wall, median)", "value": cold, "unit": "s",
         "target": None},
    ]
