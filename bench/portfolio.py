"""Portfolio benchmarks: one 208-bar TS + reflection run, and what it costs to build its world."""

from __future__ import annotations

import statistics
import time

from engine.session import Session, SessionConfig
from scenarios.portfolio.scenario import PortfolioScenario
from scenarios.portfolio.world import load_world


def world_build() -> float:
    """Synthetic market + the 12 tools' arrays + the per-bar views, uncached."""
    load_world.cache_clear()
    t0 = time.perf_counter()
    PortfolioScenario(42)
    return time.perf_counter() - t0


def one_run(seed: int = 42) -> float:
    """Engine time (median of 3) of one 208-bar TS + reflection session on the synthetic
    market: ten tickers, every price tool, ten retrievals and ten memory writes a bar, the
    reflector's counterfactual replay, a reflection a day."""
    times = []
    for _ in range(3):
        s = Session(SessionConfig("portfolio", seed, "ts+reflection"), PortfolioScenario(seed))
        t0 = time.perf_counter()
        s.run()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def run() -> list[dict]:
    return [
        {"name": "portfolio: world build (synthetic market + tools), uncached", "value": world_build(),
         "unit": "s", "target": None},
        {"name": "portfolio: one 208-bar TS+reflection run (engine)", "value": one_run(), "unit": "s", "target": 3.0},
    ]
