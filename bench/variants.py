"""What each registered variant costs per 208-bar portfolio run (TS + reflection, synthetic market).

Every variant in the registry (engine/variants/__init__.py) that has a meaning on the
portfolio is run with its default options, so a new variant appears here
without an edit. Times are CPU seconds of `Session.run` (the machine is shared:
CPU time is steadier than wall time), the median of `REPEATS` runs taken in
turn with the plain run, so the ratio to it compares like with like.
"""

from __future__ import annotations

import statistics
import time

from engine.errors import AELError
from engine.session import Session, SessionConfig
from engine.variants.session_variants import variant_names
from engine.variants import VARIANTS
from scenarios.portfolio.scenario import PortfolioScenario

REPEATS = 3
SELECTOR = "ts+reflection"


def cpu_seconds(variants: list[str], seed: int = 42) -> float:
    s = Session(SessionConfig("portfolio", seed, SELECTOR, variants=variants), PortfolioScenario(seed))
    t0 = time.process_time()
    s.run()
    return time.process_time() - t0


def run() -> list[dict]:
    variant_names()  # registers the built-in variants
    names = [n for n, cls in VARIANTS.items() if not cls.scenarios or "portfolio" in cls.scenarios]
    times: dict[str, list[float]] = {"": [], **{n: [] for n in names}}
    refused: dict[str, str] = {}
    for _ in range(REPEATS):
        for name in times:
            if name in refused:
                continue
            try:
                times[name].append(cpu_seconds([name] if name else []))
            except AELError as err:  # a variant that needs what the bench does not give (a model)
                refused[name] = str(err)
    plain = statistics.median(times[""])
    rows = [{"name": f"variants: plain {SELECTOR}, one 208-bar portfolio run (CPU)", "value": plain, "unit": "s",
             "target": None}]
    for name in names:
        if name in refused:
            print(f"    variants: {name} not run: {refused[name]}")
            continue
        cost = statistics.median(times[name])
        rows.append({"name": f"variants: +{name} per 208-bar run (CPU; {cost / plain:.2f}x plain)", "value": cost,
                     "unit": "s", "target": None, "ratio": cost / plain})
    return rows
