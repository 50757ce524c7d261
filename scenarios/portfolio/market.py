"""The embedded synthetic market: regime-switching hourly bars for the D-full tickers.

52 trading days x 4 bars (09:30, 11:30, 13:30, 15:30 ET, weekdays from
2025-01-06) = 208 bars, so the scenario runs with no network and no files.

Model, per bar t and ticker i (simple returns):
    r_ti = beta_i * m_t + s_{sector(i), t} + e_ti
- m_t, the market factor, has a regime drift and a regime volatility. The
  regime is constant over stretches of 5-12 trading days; the first three
  stretches are bull, bear and flat in a random order (so all three occur),
  the rest switch at random, never to the same regime.
- s, a sector factor shared by the tickers of a sector (the correlation the
  correlation tool and a sector cap can see);
- e, idiosyncratic noise, Student-t (5 dof, scaled to unit variance) for
  fat tails.
Variance is spread over the day's four bars with more at the 09:30 bar,
whose return includes the overnight gap (as in the real D-full bars, where
the open bar's spread is about twice the others'). Volume follows the
intraday U shape, rises with the size of the move and in bear stretches.
Levels (start prices, betas, volatilities, volumes) are set near the
tickers' real ones in early 2025.

The true regime of each bar is exposed as `Market.regimes` for display and
analysis only.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import numpy as np
import pandas as pd

from engine.errors import AELError

from .data import BARS_PER_DAY, DFULL_SECTORS, DFULL_TICKERS, SLOTS, TZ, Market, split_phases

REGIME_NAMES = ("bull", "bear", "flat")
BULL, BEAR, FLAT = 0, 1, 2


@dataclass(frozen=True)
class TickerProfile:
    price: float       # first close
    beta: float        # loading on the market factor
    idio_vol: float    # daily idiosyncratic volatility
    volume: float      # mean volume of a mid-day bar


PROFILES = {
    "AAPL": TickerProfile(245.0, 1.10, 0.012, 4.5e6),
    "NVDA": TickerProfile(150.0, 1.80, 0.026, 3.0e7),
    "JNJ": TickerProfile(143.0, 0.50, 0.009, 9.0e5),
    "UNH": TickerProfile(515.0, 0.60, 0.015, 1.0e6),
    "JPM": TickerProfile(243.0, 1.10, 0.010, 1.2e6),
    "GS": TickerProfile(586.0, 1.30, 0.013, 3.0e5),
    "XOM": TickerProfile(109.0, 0.70, 0.011, 2.0e6),
    "PG": TickerProfile(161.0, 0.40, 0.009, 9.0e5),
    "CAT": TickerProfile(369.0, 1.20, 0.013, 3.5e5),
    "NEE": TickerProfile(71.0, 0.70, 0.014, 1.1e6),
}


@dataclass(frozen=True)
class SyntheticConfig:
    n_days: int = 52
    start: str = "2025-01-06"
    min_stretch: int = 5                     # trading days
    max_stretch: int = 12
    # Daily market drift and volatility per regime (bull, bear, flat).
    drift: tuple[float, float, float] = (0.0040, -0.0050, 0.0)
    market_vol: tuple[float, float, float] = (0.008, 0.016, 0.006)
    sector_vol: float = 0.006
    # Share of the daily variance in each bar; the 09:30 bar carries the overnight gap.
    slot_variance: tuple[float, ...] = (0.45, 0.20, 0.18, 0.17)
    # Share of the 09:30 bar's move that happens overnight (the gap to the open).
    overnight_share: float = 0.6
    volume_shape: tuple[float, ...] = (2.2, 0.9, 0.75, 1.15)
    volume_noise: float = 0.25
    bear_volume: float = 1.3
    tail_dof: float = 5.0
    profiles: dict[str, TickerProfile] = field(default_factory=lambda: dict(PROFILES))
    sectors: dict[str, str] = field(default_factory=lambda: dict(DFULL_SECTORS))


def regime_days(rng: np.random.Generator, n_days: int, cfg: SyntheticConfig) -> np.ndarray:
    """The regime of each trading day: stretches, the first three a permutation of all regimes."""
    order = list(rng.permutation(len(REGIME_NAMES)))
    days: list[int] = []
    while len(days) < n_days:
        if order:
            regime = int(order.pop(0))
        else:
            others = [r for r in range(len(REGIME_NAMES)) if r != days[-1]]
            regime = int(others[rng.integers(len(others))])
        days.extend([regime] * int(rng.integers(cfg.min_stretch, cfg.max_stretch + 1)))
    return np.array(days[:n_days], dtype=np.int64)


def _timestamps(start: str, n_days: int) -> pd.DatetimeIndex:
    days = pd.bdate_range(start=start, periods=n_days)
    stamps = [pd.Timestamp(f"{d.date()} {slot}", tz=TZ) for d in days for slot in SLOTS]
    return pd.DatetimeIndex(stamps, name="Datetime")


def _student(rng: np.random.Generator, dof: float, shape: tuple[int, ...]) -> np.ndarray:
    """Student-t draws scaled to unit variance."""
    return rng.standard_t(dof, size=shape) * np.sqrt((dof - 2.0) / dof)


def synthetic_market(rng: np.random.Generator, tickers: Sequence[str] | None = None,
                     config: SyntheticConfig | None = None) -> Market:
    """A deterministic synthetic market drawn from `rng` (never the global RNG).

    All ten D-full tickers are always drawn, in D-full order, and the requested
    subset is taken afterwards, so a subset sees the same prices as the full set.
    """
    cfg = config or SyntheticConfig()
    chosen = [t.upper() for t in tickers] if tickers else list(DFULL_TICKERS)
    unknown = [t for t in chosen if t not in cfg.profiles]
    if unknown:
        raise AELError(f"the synthetic market has no ticker {', '.join(unknown)} "
                       f"(it has {', '.join(cfg.profiles)}); use --data yahoo or a data folder for others")
    names = list(cfg.profiles)
    k, n_days = len(names), cfg.n_days
    n = n_days * BARS_PER_DAY

    day_regime = regime_days(rng, n_days, cfg)
    regimes = np.repeat(day_regime, BARS_PER_DAY)
    slot = np.tile(np.arange(BARS_PER_DAY), n_days)
    share = np.asarray(cfg.slot_variance) / np.sum(cfg.slot_variance)
    bar_scale = np.sqrt(share[slot])                              # per-bar share of the daily std
    drift = np.asarray(cfg.drift)[regimes] / BARS_PER_DAY
    mvol = np.asarray(cfg.market_vol)[regimes] * bar_scale

    sector_names = sorted({cfg.sectors.get(t, "Unknown") for t in names})
    sector_of = np.array([sector_names.index(cfg.sectors.get(t, "Unknown")) for t in names])
    beta = np.array([cfg.profiles[t].beta for t in names])
    idio = np.array([cfg.profiles[t].idio_vol for t in names])

    market = drift + mvol * rng.standard_normal(n)
    sector = cfg.sector_vol * bar_scale[:, None] * rng.standard_normal((n, len(sector_names)))
    noise = idio[None, :] * bar_scale[:, None] * _student(rng, cfg.tail_dof, (n, k))
    ret = beta[None, :] * market[:, None] + sector[:, sector_of] + noise
    ret = np.clip(ret, -0.2, 0.2)  # a t draw far out must not make a price negative
    ret[0] = 0.0  # the first bar anchors the price level

    close = np.array([cfg.profiles[t].price for t in names])[None, :] * np.cumprod(1.0 + ret, axis=0)
    prev = np.vstack([close[:1], close[:-1]])
    # Open: the 09:30 bar opens after the overnight part of its move; other bars open
    # near the previous close (a tiny auction gap).
    gap = np.where((slot == 0)[:, None], cfg.overnight_share * ret,
                   0.0005 * bar_scale[:, None] * rng.standard_normal((n, k)))
    gap[0] = 0.0
    open_ = prev * (1.0 + gap)
    bar_sd = np.sqrt((beta[None, :] * mvol[:, None]) ** 2 + (idio[None, :] * bar_scale[:, None]) ** 2)
    wick = np.abs(rng.standard_normal((n, k, 2))) * 0.5 * bar_sd[..., None]
    high = np.maximum(open_, close) * (1.0 + wick[..., 0])
    low = np.minimum(open_, close) * (1.0 - wick[..., 1])

    base = np.array([cfg.profiles[t].volume for t in names])
    shape_ = np.asarray(cfg.volume_shape)[slot]
    surprise = 1.0 + 0.5 * np.abs(ret) / np.maximum(bar_sd, 1e-9)   # big moves trade more
    regime_mult = np.where(regimes == BEAR, cfg.bear_volume, 1.0)
    volume = base[None, :] * shape_[:, None] * regime_mult[:, None] * surprise \
        * np.exp(cfg.volume_noise * rng.standard_normal((n, k)) - 0.5 * cfg.volume_noise ** 2)
    volume = np.round(volume)

    cols = [names.index(t) for t in chosen]
    timestamps = _timestamps(cfg.start, n_days)
    return Market(
        source="synthetic", tickers=chosen, timestamps=timestamps,
        open=open_[:, cols], high=high[:, cols], low=low[:, cols], close=close[:, cols],
        volume=volume[:, cols], sectors={t: cfg.sectors.get(t, "Unknown") for t in chosen},
        phases=split_phases(timestamps, "fractions"), static={},
        regimes=regimes, regime_names=REGIME_NAMES,
    )
