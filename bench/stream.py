"""Stream-world benchmark (issue 33): a 20,000-row labelled stream, offline.

- wall: `ael-lab run stream` on the generated demo stream of 20,000 rows (three --meta
  columns, a regime column), `ts+reflection`, one seed: a new process, so reading the CSV,
  the TF-IDF fit, imports and start-up are included. Target: under 30 s on two cores.
  Its CPU time is reported beside it: on a loaded machine the wall time waits for others.
- flat: time per episode of `Session.step` over rows 500-2,500 and over the last 2,000
  rows, when memory holds 18,000 (it keeps every row; each policy reads a bounded window);
  target: the last block no slower than 1.5 times the first, i.e. no growth as memory fills.
- unique labels: building the world (reading, TF-IDF, the running prior) on a stream of
  100,000 rows whose label is unique to each row, in this process (sklearn imported
  before the clock starts). The running prior was quadratic in the number of labels:
  161 s here; linear, it is the file's reading and TF-IDF. Target: under 20 s.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
N_ROWS = 20_000
BLOCK = 2_000
META = ["source", "region", "channel"]


def _write(folder: str) -> Path:
    from scenarios.stream.demo import write_demo

    return write_demo(Path(folder) / "stream20k.csv", 1, N_ROWS)


def wall(path: Path, out: str) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of the command: on a loaded machine the two differ."""
    cmd = [sys.executable, "-m", "ael_cli.main", "run", "stream", "--data", str(path), "--text", "text", "--label",
           "label", "--meta", ",".join(META), "--regime", "phase", "--seeds", "1", "--selector", "ts+reflection",
           "--workers", "1", "--quiet", "--json", out]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, env=env)
    seconds = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return seconds, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def per_episode(path: Path) -> tuple[float, float]:
    """ms per episode over the first block after memory filled, and over the last block."""
    import scenarios
    from engine.session import Session, SessionConfig

    opts = {"data": str(path), "text": "text", "label": "label", "meta": META, "regime": "phase"}
    s = Session(SessionConfig("stream", 1, "ts+reflection", scenario_options=dict(opts)),
                scenarios.make_scenario("stream", 1, opts))
    s.run(until=500)  # memory is full from here on
    t0 = time.perf_counter()
    s.run(until=500 + BLOCK)
    first = (time.perf_counter() - t0) / BLOCK * 1000
    s.run(until=N_ROWS - BLOCK)
    t0 = time.perf_counter()
    s.run()
    last = (time.perf_counter() - t0) / BLOCK * 1000
    return first, last


UNIQUE_ROWS = 100_000
WORDS = ("printer", "password", "invoice", "refund", "login", "screen", "battery", "order", "delay", "account",
         "network", "update", "crash", "email", "charge", "shipping")


def _write_unique(folder: str) -> Path:
    """UNIQUE_ROWS rows of six words each, a label of its own on every row."""
    import numpy as np

    rng = np.random.default_rng(7)
    words = rng.integers(0, len(WORDS), size=(UNIQUE_ROWS, 6))
    path = Path(folder) / "unique100k.csv"
    lines = ["text,label"] + [f"{' '.join(WORDS[w] for w in row)},L{i:06d}" for i, row in enumerate(words)]
    path.write_text("\n".join(lines) + "\n")
    return path


def unique_labels(path: Path) -> float:
    """Seconds to build the stream world on the file of unique labels."""
    import sklearn.feature_extraction.text  # noqa: F401  (its import is not what is measured)

    import scenarios

    t0 = time.perf_counter()
    scenarios.make_scenario("stream", 1, {"data": str(path), "text": "text", "label": "label"})
    return time.perf_counter() - t0


def run() -> list[dict]:
    with tempfile.TemporaryDirectory() as d:
        path = _write(d)
        seconds, cpu = wall(path, os.path.join(d, "out.json"))
        first, last = per_episode(path)
        unique = unique_labels(_write_unique(d))
    return [
        {"name": f"stream: {N_ROWS:,} rows, ts+reflection, `ael-lab run` (wall)", "value": seconds, "unit": "s",
         "target": 30},
        {"name": "stream: the same command's CPU time (user + system)", "value": cpu, "unit": "s", "target": None},
        {"name": "stream: ms per episode, rows 500-2,500", "value": first, "unit": "ms", "target": None},
        {"name": "stream: ms per episode, the last 2,000 rows (18,000 in memory)", "value": last, "unit": "ms",
         "target": None},
        {"name": "stream: last block / first block (flat as memory fills)", "value": last / first, "unit": "x",
         "target": 1.5},
        {"name": f"stream: {UNIQUE_ROWS:,} rows, a unique label each: building the world", "value": unique,
         "unit": "s", "target": 20},
    ]


if __name__ == "__main__":
    for row in run():
        print(f"{row['name']:<62} {row['value']:>10.3f} {row['unit']}")
