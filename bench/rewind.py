"""Time travel: rewind to any episode, and explain one (issue 31's targets).

A 1,200-episode support session and a 208-bar D-full portfolio session (the paper's
data in ../shared/data/dfull when it is there, else the offline synthetic market of
the same length) are run once with their checkpoints; then `rewind_to` goes to 40
episodes drawn by a seeded generator, and `explain` opens 20 (and each one's next
episode, which the explanation's replica reaches without a restore; the first
explanation, which builds the replica, is timed apart). The inspector opens once it has
copied what the explanation needs under the session's lock (`basis`) and explains in
a worker, saying "explaining…" until then. What a rewind costs
is the restore of the nearest checkpoint and the replay from it, so the worst case
is what the target is about. Also: the share of the run's time spent taking its
checkpoints, and a rewind of a loaded save (no checkpoint but its start, as
`ael-lab branch` has).
"""

from __future__ import annotations

import json
import random
import statistics
import time
from pathlib import Path

from engine.explain import basis, explain
from engine.session import Session, SessionConfig
from scenarios import make_scenario

DFULL = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "dfull"
TARGETS = 40
EXPLAINS = 20


def _session(name: str, episodes: int | None, options: dict) -> Session:
    return Session(SessionConfig(scenario=name, seed=42, episodes=episodes, scenario_options=options),
                   make_scenario(name, 42, options))


def _run(name: str, episodes: int | None, options: dict) -> tuple[Session, float]:
    s = _session(name, episodes, options)
    t0 = time.perf_counter()
    s.run()
    return s, time.perf_counter() - t0


def _rewinds(s: Session, rng: random.Random) -> list[float]:
    times = []
    for _ in range(TARGETS):
        n = rng.randrange(s.n_episodes + 1)
        t0 = time.perf_counter()
        s.rewind_to(n)
        times.append(time.perf_counter() - t0)
    return times


def _explains(s: Session, rng: random.Random) -> tuple[float, list[float], list[float], list[float]]:
    """The first explanation (it builds the session's replica), then EXPLAINS at random
    episodes, each followed by the next episode's (the replica goes on from where it stands),
    and what the inspector takes under the session's lock before it opens (the basis)."""
    s.rewind_to(s.n_episodes)
    t0 = time.perf_counter()
    explain(s, s.n_episodes // 2)
    first = time.perf_counter() - t0
    times, nexts, opens = [], [], []
    for _ in range(EXPLAINS):
        n = rng.randrange(s.n_episodes - 1)
        t0 = time.perf_counter()
        basis(s, n)
        opens.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        explain(s, n)
        t1 = time.perf_counter()
        explain(s, n + 1)
        times.append(t1 - t0)
        nexts.append(time.perf_counter() - t1)
    return first, times, nexts, opens


def _world(label: str, name: str, episodes: int | None, options: dict) -> list[dict]:
    rng = random.Random(31)
    s, wall = _run(name, episodes, options)
    kept, capturing = len(s.timeline.checkpoints), s.timeline.capture_s
    rewinds = _rewinds(s, rng)
    first, explains, nexts, opens = _explains(s, rng)
    loaded = Session.from_dict(json.loads(json.dumps(s.to_dict())), make_scenario)
    t0 = time.perf_counter()
    loaded.rewind_to(s.n_episodes - 100)
    from_save = time.perf_counter() - t0
    ms = 1000.0
    return [
        {"name": f"{label}: rewind to a random episode, worst of {TARGETS}", "value": max(rewinds) * ms,
         "unit": "ms", "target": 300},
        {"name": f"{label}:   median", "value": statistics.median(rewinds) * ms, "unit": "ms", "target": None},
        {"name": f"{label}: explain a random episode, worst of {EXPLAINS}", "value": max(explains) * ms,
         "unit": "ms", "target": None},
        {"name": f"{label}:   median (the inspector's target is 50 ms)", "value": statistics.median(explains) * ms,
         "unit": "ms", "target": 50},
        {"name": f"{label}: the inspector opens (its basis, under the lock), median",
         "value": statistics.median(opens) * ms, "unit": "ms", "target": 50},
        {"name": f"{label}: explain the next episode after one, median", "value": statistics.median(nexts) * ms,
         "unit": "ms", "target": None},
        {"name": f"{label}: the first explanation (builds the replica)", "value": first * ms,
         "unit": "ms", "target": None},
        {"name": f"{label}: share of the run spent taking its {kept} checkpoints",
         "value": 100.0 * capturing / wall, "unit": "%", "target": None},
        {"name": f"{label}: rewind a loaded save to episode {s.n_episodes - 100} (start only)",
         "value": from_save * ms, "unit": "ms", "target": None},
    ]


def run() -> list[dict]:
    dfull = DFULL.is_dir()
    return [
        *_world("support 1200", "support", 1200, {}),
        *_world("portfolio 208 bars " + ("D-full" if dfull else "synthetic (no D-full data here)"), "portfolio",
                None, {"data": str(DFULL)} if dfull else {}),
    ]
