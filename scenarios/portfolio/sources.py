"""The one entry point to market data: `load_market(source, ...)` picks the source.

It sits apart from `data` (the Market type, the constants, the folder source)
because the synthetic generator (`market`) and Yahoo (`yahoo`) build on `data`:
with the dispatch here, data never imports them back.
"""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

import numpy as np

from engine.errors import AELError

from .data import DFULL_TICKERS, Market, load_folder
from .market import synthetic_market
from .yahoo import load_yahoo  # yfinance itself is imported only when a download is needed


def load_market(source: str = "synthetic", tickers: Sequence[str] | None = None,
                cache_dir: str | Path | None = None, *, seed: int = 0, start: str | None = None,
                end: str | None = None, split: str = "auto") -> Market:
    """The market of a run.

    source: "synthetic" (seeded generator; `seed` picks the market, 0 by
    default, so the market is one fixed dataset unless asked otherwise),
    "yahoo" (yfinance, cached under `cache_dir`; `start`/`end` ISO dates,
    default the D-full window) or a folder path in the D-full layout.
    `split`: see `split_phases` (synthetic data always uses fractions).
    """
    if source == "synthetic":
        return synthetic_market(np.random.default_rng(seed), tickers=tickers)
    if source == "yahoo":
        return load_yahoo(tickers or DFULL_TICKERS, start=start, end=end, cache_dir=cache_dir, split=split)
    path = Path(source).expanduser()
    if not path.exists():
        raise AELError(f"data source {source!r} is neither 'synthetic', 'yahoo' nor an existing folder")
    return load_folder(path, tickers, split=split)
