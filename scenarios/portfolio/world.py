"""The read-only world of a portfolio run: the market, its tools, and the per-bar arrays the agent reads.

Built once per distinct data option set and shared (an `lru_cache`), since a
batch run builds one scenario per session and the arrays never change.
Nothing here is mutated after construction.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from engine.errors import AELError

from .data import Market
from .sources import load_market
from .memory_records import FLAT
from .tools import CALL_THRESHOLD, ToolBox


@dataclass(frozen=True)
class World:
    market: Market
    toolbox: ToolBox
    tools: tuple[str, ...]     # the enabled tools, in ToolBox order
    scores: np.ndarray         # (n_bars, n_tickers, n_tools) sub-scores / 100, NaN where unavailable
    calls: np.ndarray          # (n_bars, n_tickers, n_tools) +1/0/-1; 0 where unavailable
    available: np.ndarray      # (n_bars, n_tickers, n_tools) bool
    next_returns: np.ndarray   # (n_bars, n_tickers); the last bar's are 0
    realised: np.ndarray       # (n_bars, n_tickers) direction of the next-bar return (0: flat)
    sectors: tuple[str, ...]   # per ticker
    when: tuple[str, ...]      # per bar, "YYYY-MM-DD HH:MM"

    @property
    def tickers(self) -> list[str]:
        return self.market.tickers

    @property
    def n_bars(self) -> int:
        return self.market.n_bars


def _build(market: Market, toolbox: ToolBox) -> World:
    tools = toolbox.tools
    raw = np.stack([toolbox.score[t] for t in tools], axis=-1)       # in [-100, 100]
    available = np.stack([toolbox.avail[t] for t in tools], axis=-1) & ~np.isnan(raw)
    raw = np.where(available, raw, np.nan)
    with np.errstate(invalid="ignore"):  # NaN compares False: an unavailable tool makes no call
        calls = np.where(raw >= CALL_THRESHOLD, 1, np.where(raw <= -CALL_THRESHOLD, -1, 0)).astype(np.int64)
    scores = raw / 100.0
    nxt = market.next_returns()
    realised = np.where(np.abs(nxt) < FLAT, 0, np.sign(nxt)).astype(np.int64)
    when = tuple(ts.strftime("%Y-%m-%d %H:%M") for ts in market.timestamps)
    return World(market, toolbox, tools, scores, calls, available, nxt, realised,
                 tuple(market.sectors[t] for t in market.tickers), when)


@lru_cache(maxsize=8)
def load_world(data: str, tickers: tuple[str, ...] | None, market_seed: int, split: str,
               tools: tuple[str, ...] | None, allow_lookahead: bool, cache_dir: str | None) -> World:
    """The world for one set of data options (cached: pass hashable arguments)."""
    market = load_market(data, list(tickers) if tickers else None, cache_dir, seed=market_seed, split=split)
    if market.n_bars < 2:
        raise AELError(f"the market from {data!r} has {market.n_bars} bar(s); a run needs at least 2")
    return _build(market, ToolBox(market, tools, allow_lookahead=allow_lookahead))


def data_key(data: str) -> str:
    """A cache key for the data option: folders by their resolved path."""
    if data in ("synthetic", "yahoo"):
        return data
    return str(Path(data).expanduser().resolve())
