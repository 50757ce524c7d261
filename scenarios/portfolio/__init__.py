"""The paper's D-full hourly portfolio task: data sources, the 12 tools, episode
mechanics, non-LLM baselines and the LLM prompt/parser.

Modules: `spec` (what the scenario declares: light, no pandas), `data` (Market,
phases, the folder source), `sources` (load_market: picks the source), `market` (synthetic generator), `yahoo` (yfinance with an
on-disk cache), `tools` (ToolBox), `episode` (weights, returns, outcome score,
bandit reward), `baselines`, `prompt`; and the scenario the engine runs:
`scenario` (PortfolioScenario), `world` (the cached per-bar arrays), `agent` (the
offline allocator), `memory_records` (what memory holds), `reflector` (daily
reflection).

The names below are loaded on first use, not with the package: the registry
reads `spec` to build the command line and the start screen, and that must not
import pandas.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "BASELINES": "baselines", "evaluate_baselines": "baselines", "simulate_baseline": "baselines",
    "DFULL_TICKERS": "data", "PHASES": "data", "Market": "data", "load_market": "sources",
    "phase_of_bars": "data", "split_phases": "data",
    "PortfolioState": "episode", "bandit_reward": "episode", "outcome_score": "episode",
    "return_regime": "episode", "step_portfolio": "episode",
    "PromptContext": "prompt", "build_prompt": "prompt", "parse_weights": "prompt",
    "PortfolioScenario": "scenario",
    "TOOL_NAMES": "tools", "ToolBox": "tools",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:  # PEP 562: a lazy export
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)
