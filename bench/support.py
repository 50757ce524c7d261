"""Support-stream benchmarks: one TS + reflection run, and the five-seed table."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time

from engine.session import Session, SessionConfig
from scenarios import make_scenario


def one_run(seed: int = 97) -> float:
    """Engine time of one 1,200-episode TS + reflection session on a fresh seed,
    including the per-seed precompute (stream, similarity, prediction table)."""
    t0 = time.perf_counter()
    s = Session(SessionConfig("support", seed, "ts+reflection"), make_scenario("support", seed))
    s.run()
    return time.perf_counter() - t0


def table_wall() -> float:
    """Wall time of `ael-lab run support --seeds 42,123,456,789,1024 --selector all`,
    as a user runs it (a new process: imports and start-up included)."""
    with tempfile.TemporaryDirectory() as d:
        cmd = [os.path.join(os.path.dirname(sys.executable), "ael-lab"), "run", "support",
               "--seeds", "42,123,456,789,1024", "--selector", "all", "--quiet", "--json", os.path.join(d, "o.json")]
        t0 = time.perf_counter()
        subprocess.run(cmd, check=True)
        return time.perf_counter() - t0


def run() -> list[dict]:
    return [
        {"name": "support: one 1,200-episode TS+reflection run, fresh seed (engine)", "value": one_run(), "unit": "s", "target": 1.0},
        {"name": "support: 5 seeds x 9 selectors table, `ael-lab run` (wall)", "value": table_wall(), "unit": "s", "target": 15},
    ]
