"""The prior methods: engine time of one run per registered prior method, beside TS + reflection.

Every method registered as a prior method (engine/prior) is timed, so a method
added later appears here without a change: one 208-bar portfolio run on the
synthetic market and one 1,200-episode support run (seed 42, the prediction
table computed before timing, as it is shared by every session on a seed).
Wall time and CPU time (`process_time`) are both reported: on a loaded
machine the ratio to the TS + reflection row of the same process is what to
compare.
"""

from __future__ import annotations

import time

from engine.methods import METHODS
from engine.prior import PRIOR_ORDER, PriorMethod
from engine.session import Session, SessionConfig
from scenarios import make_scenario, spec_of


def prior_methods() -> list[str]:
    names = [n for n, c in METHODS.items() if issubclass(c, PriorMethod)]
    return sorted(names, key=lambda n: (PRIOR_ORDER.index(n) if n in PRIOR_ORDER else len(PRIOR_ORDER), n))


def timed(scenario: str, selector: str, seed: int = 42) -> tuple[float, float]:
    """(wall s, CPU s) of `Session.run` for one whole run."""
    session = Session(SessionConfig(scenario, seed, selector), make_scenario(scenario, seed, {}))
    session.scenario.prepare()
    w0, c0 = time.perf_counter(), time.process_time()
    session.run()
    return time.perf_counter() - w0, time.process_time() - c0


def run() -> list[dict]:
    rows = []
    for scenario, what in (("portfolio", "208-bar portfolio run"), ("support", "1,200-episode support run")):
        offered = set(spec_of(scenario).prior_methods)
        for name in ["ts+reflection", *(m for m in prior_methods() if m in offered)]:
            wall, cpu = timed(scenario, name)
            rows.append({"name": f"prior: {name}, one {what} (engine, wall)", "value": wall, "unit": "s",
                         "target": None})
            rows.append({"name": f"prior: {name}, the same (CPU)", "value": cpu, "unit": "s", "target": None})
    return rows
