"""The paper's D-full hourly portfolio task: data sources, the 12 tools, episode
mechanics, non-LLM baselines and the LLM prompt/parser.

Modules: `data` (Market, load_market, phases), `market` (synthetic generator),
`yahoo` (yfinance with an on-disk cache), `tools` (ToolBox), `episode`
(weights, returns, outcome score, bandit reward), `baselines`, `prompt`;
and the scenario the engine runs: `scenario` (PortfolioScenario), `world`
(the cached per-bar arrays), `agent` (the offline allocator),
`memory_records` (what memory holds), `reflector` (daily reflection).
"""

from .baselines import BASELINES, evaluate_baselines, simulate_baseline
from .data import DFULL_TICKERS, PHASES, Market, load_market, phase_of_bars, split_phases
from .episode import PortfolioState, bandit_reward, outcome_score, return_regime, step_portfolio
from .prompt import PromptContext, build_prompt, parse_weights
from .scenario import PortfolioScenario
from .tools import TOOL_NAMES, ToolBox

__all__ = [
    "BASELINES", "DFULL_TICKERS", "Market", "PHASES", "PortfolioScenario", "PortfolioState", "PromptContext",
    "TOOL_NAMES", "ToolBox", "bandit_reward", "build_prompt", "evaluate_baselines", "load_market", "outcome_score",
    "parse_weights", "phase_of_bars", "return_regime", "simulate_baseline", "split_phases", "step_portfolio",
]
