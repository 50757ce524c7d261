"""The paper's D-full hourly portfolio task: data sources, the 12 tools, episode
mechanics, non-LLM baselines and the LLM prompt/parser.

Modules: `data` (Market, load_market, phases), `market` (synthetic generator),
`yahoo` (yfinance with an on-disk cache), `tools` (ToolBox).
"""

from .data import DFULL_TICKERS, PHASES, Market, load_market, phase_of_bars, split_phases
from .tools import TOOL_NAMES, ToolBox

__all__ = ["DFULL_TICKERS", "Market", "PHASES", "TOOL_NAMES", "ToolBox", "load_market", "phase_of_bars",
           "split_phases"]
