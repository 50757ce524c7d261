"""Market data for the portfolio scenario: one `Market` whatever the source.

The `Market` type, the D-full constants, the split and the folder source live
here; the entry point that picks a source, `load_market`, is in `sources.py`,
so the synthetic and Yahoo sources can build on this module without it
importing them back. Three sources sit behind `load_market(source, ...)`:
- `"synthetic"` (the default): a deterministic regime-switching market for
  the ten D-full tickers (`market.py`), no files, no network;
- `"yahoo"`: hourly bars from Yahoo Finance via yfinance, cached on disk
  (`yahoo.py`);
- a folder path in the layout of the reference's data folder (D-full):
  `prices_1h/<T>.csv` (required), and optionally `metadata/tickers.json`,
  `fundamentals/`, `analyst/`, `options/`, `earnings/` JSON per ticker.

Static data and look-ahead. The reference's fundamentals, analyst, options
and earnings files are yfinance snapshots taken around March 2026, a year
after the 2025 benchmark bars: using them for a 2025 decision leaks the
future. Every static record therefore carries a snapshot date, and the tools
leave a record out (by default) on bars dated before it. The date comes, in
order of precedence, from a `"snapshot_date"` key in the file, from
`<folder>/snapshots.json` (`{"fundamentals": "2025-01-03", ...}`), or is
inferred: the latest date the kind's files in the folder mention (all files
of a kind were collected by one run; statement period ends, analyst grade
dates), and for options the earliest expiry minus 7 days (a chain lists
expiries after its snapshot). Inferred dates are lower bounds, which is the
safe side for a leak check. A record whose date cannot be told is treated as
leaking.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Sequence

import numpy as np
import pandas as pd

from engine.errors import AELError

TZ = "America/New_York"
SLOTS = ("09:30", "11:30", "13:30", "15:30")
BARS_PER_DAY = len(SLOTS)
PHASES = ("train", "val", "test")
STATIC_KINDS = ("fundamentals", "analyst", "options", "earnings")

DFULL_TICKERS = ("AAPL", "NVDA", "JNJ", "UNH", "JPM", "GS", "XOM", "PG", "CAT", "NEE")
DFULL_SECTORS = {
    "AAPL": "Technology", "NVDA": "Technology", "JNJ": "Healthcare", "UNH": "Healthcare",
    "JPM": "Financial Services", "GS": "Financial Services", "XOM": "Energy",
    "PG": "Consumer Defensive", "CAT": "Industrials", "NEE": "Utilities",
}
# The reference's split, by calendar day (both boundaries inclusive on the earlier phase).
DFULL_TRAIN_END = dt.date(2025, 2, 21)
DFULL_VAL_END = dt.date(2025, 3, 7)
DFULL_WINDOW = (dt.date(2025, 1, 1), dt.date(2025, 3, 31))


def is_paper_market(market: "Market") -> bool:
    """Whether `market` is the paper's D-full data (its ten tickers, its 208 bars from
    2025-01-06 to 2025-03-21), so that the paper's numbers are comparable with ours."""
    days = market.dates
    return (tuple(market.tickers) == DFULL_TICKERS and market.n_bars == 208 and len(days) > 0
            and str(days[0]) == "2025-01-06" and str(days[-1]) == "2025-03-21")
# 128/40/40 of 208 bars, applied to trading days on any other data.
TRAIN_FRACTION = 128 / 208
VAL_FRACTION = 40 / 208


@dataclass(frozen=True)
class StaticRecord:
    """One static (snapshot) file of a ticker. `snapshot` is the date it was
    taken (or a lower bound); None if it cannot be told."""

    kind: str
    data: dict[str, Any]
    snapshot: dt.date | None
    snapshot_source: str  # "file" | "snapshots.json" | "inferred" | "unknown"


@dataclass
class Market:
    """Aligned bars of several tickers.

    Price arrays have shape (n_bars, n_tickers), rows in time order, columns
    in `tickers` order. `timestamps` are tz-aware (America/New_York), bar
    open times. `regimes` (synthetic only) is the true regime index per bar,
    for display and analysis only: nothing the agent sees may use it.
    """

    source: str
    tickers: list[str]
    timestamps: pd.DatetimeIndex
    open: np.ndarray
    high: np.ndarray
    low: np.ndarray
    close: np.ndarray
    volume: np.ndarray
    sectors: dict[str, str]
    phases: np.ndarray
    static: dict[str, dict[str, StaticRecord]] = field(default_factory=dict)
    regimes: np.ndarray | None = None
    regime_names: tuple[str, ...] = ()
    _next_returns: np.ndarray | None = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        # One memory layout for every source: numpy's reductions sum in a layout-dependent
        # order, and a tool's value at a bar must be the same whatever built the arrays.
        for name in ("open", "high", "low", "close", "volume"):
            setattr(self, name, np.ascontiguousarray(getattr(self, name), dtype=float))
        shape = self.close.shape
        if shape != (len(self.timestamps), len(self.tickers)) or any(
                getattr(self, a).shape != shape for a in ("open", "high", "low", "volume")):
            raise ValueError(f"price arrays must be (n_bars, n_tickers) = "
                             f"({len(self.timestamps)}, {len(self.tickers)}), got {shape}")

    @property
    def n_bars(self) -> int:
        return int(self.close.shape[0])

    @property
    def n_tickers(self) -> int:
        return len(self.tickers)

    @property
    def dates(self) -> np.ndarray:
        """The calendar day (datetime.date) of every bar."""
        return np.array(self.timestamps.date)

    def bar_time(self, bar: int) -> str:
        return self.timestamps[bar].isoformat()

    def index(self, ticker: str) -> int:
        return self.tickers.index(ticker)

    def next_returns(self) -> np.ndarray:
        """close(t+1) / close(t) - 1 per bar and ticker; the last bar's is 0
        (there is no next bar), as the reference."""
        if self._next_returns is None:
            r = np.zeros_like(self.close)
            r[:-1] = self.close[1:] / self.close[:-1] - 1.0
            self._next_returns = r
        return self._next_returns

    def truncated(self, last_bar: int) -> "Market":
        """The same market with rows 0..last_bar only (phases and regimes kept, not recomputed)."""
        s = slice(0, last_bar + 1)
        return replace(
            self, timestamps=self.timestamps[s], open=self.open[s], high=self.high[s], low=self.low[s],
            close=self.close[s], volume=self.volume[s], phases=self.phases[s],
            regimes=None if self.regimes is None else self.regimes[s], _next_returns=None,
        )


def phase_of_bars(market: Market) -> np.ndarray:
    """The phase ("train" / "val" / "test") of every bar."""
    return market.phases


def split_phases(timestamps: pd.DatetimeIndex, mode: str = "auto") -> np.ndarray:
    """The phase of each bar, whole trading days per phase.

    mode "dates": the reference's calendar split (day <= 2025-02-21 train,
    <= 2025-03-07 val, else test: 128/40/40 on D-full). mode "fractions":
    the first round(128/208 of the trading days) train, the next
    round(40/208) val, the rest test (32/10/10 days on 52 days). mode "auto":
    "dates" when every bar lies in Jan-Mar 2025 and the dates give three
    non-empty phases (real D-full-like data), else "fractions".
    """
    days = np.array(timestamps.date)
    if mode not in ("auto", "dates", "fractions"):
        raise AELError(f"unknown split mode {mode!r} (use auto, dates or fractions)")
    by_date = np.where(days <= DFULL_TRAIN_END, "train", np.where(days <= DFULL_VAL_END, "val", "test"))
    if mode == "dates":
        return by_date.astype("<U5")
    if mode == "auto" and len(days) and DFULL_WINDOW[0] <= days.min() and days.max() <= DFULL_WINDOW[1] \
            and all((by_date == p).any() for p in PHASES):
        return by_date.astype("<U5")
    unique_days = list(dict.fromkeys(days))
    n_days = len(unique_days)
    n_train = int(round(n_days * TRAIN_FRACTION))
    n_val = int(round(n_days * VAL_FRACTION))
    day_phase = {d: ("train" if k < n_train else "val" if k < n_train + n_val else "test")
                 for k, d in enumerate(unique_days)}
    return np.array([day_phase[d] for d in days], dtype="<U5")


# ----------------------------------------------------------------------------- folder source
MAX_CSV_BYTES = 64 * 1024 * 1024  # D-full's largest price file is under 20 KiB
PRICE_COLUMNS = ("Open", "High", "Low", "Close")


def read_bar_csv(path: Path) -> pd.DataFrame:
    """One prices_1h CSV: Datetime (tz-aware) index in ET; Open/High/Low/Close/Volume floats.

    Rows with an empty cell are dropped (gaps in the source); a cell that holds
    something else than a date or a number, a price that is not positive and
    finite or a negative volume is refused, naming the file, row and column."""
    read_capped_check(path)
    try:
        df = pd.read_csv(path, dtype=str, keep_default_na=False)
    except (OSError, ValueError, UnicodeDecodeError) as e:
        raise AELError(f"cannot read price file {path}: {e}") from e
    need = ["Datetime", "Open", "High", "Low", "Close", "Volume"]
    missing = [c for c in need if c not in df.columns]
    if missing:
        raise AELError(f"{path} lacks column(s) {', '.join(missing)} (expected {', '.join(need)})")
    df = df[need].replace("", np.nan).dropna()
    idx = pd.to_datetime(df["Datetime"], utc=True, errors="coerce", format="ISO8601")
    _refuse_first(path, df["Datetime"], idx.isna(), "Datetime", "a date and time like 2025-01-06 09:30:00-05:00")
    out = pd.DataFrame({c: pd.to_numeric(df[c], errors="coerce") for c in need[1:]})
    for c in need[1:]:
        _refuse_first(path, df[c], out[c].isna(), c, "a number")
        bad = ~np.isfinite(out[c]) | (out[c] <= 0 if c in PRICE_COLUMNS else out[c] < 0)
        _refuse_first(path, df[c], bad, c, "a positive price" if c in PRICE_COLUMNS else "a volume of 0 or more")
    out.index = pd.DatetimeIndex(idx.dt.tz_convert(TZ), name="Datetime")
    out = out[~out.index.duplicated(keep="first")].sort_index()
    return out.astype(float)


def read_capped_check(path: Path) -> None:
    """A price file must be a regular file of sane size before pandas reads it."""
    import os
    import stat

    try:
        st = os.stat(path)
    except OSError as e:
        raise AELError(f"cannot read price file {path}: {e.strerror or e}") from e
    if not stat.S_ISREG(st.st_mode):
        raise AELError(f"price file {path} is not a regular file")
    if st.st_size > MAX_CSV_BYTES:
        raise AELError(f"price file {path} is {st.st_size // 2**20} MiB: more than the "
                       f"{MAX_CSV_BYTES // 2**20} MiB a price file may be")


def _refuse_first(path: Path, raw: pd.Series, bad: pd.Series, column: str, expected: str) -> None:
    if bad.any():
        row = bad.to_numpy().nonzero()[0][0]
        line = int(raw.index[row]) + 2  # 1-based, after the header line
        raise AELError(f"{path}: line {line}, column {column}: {raw.iloc[row]!r} is not {expected}")


def _align(frames: dict[str, pd.DataFrame], where: str) -> tuple[pd.DatetimeIndex, dict[str, np.ndarray]]:
    """Keep the timestamps every ticker has (inner join), so arrays line up."""
    common = None
    for df in frames.values():
        common = df.index if common is None else common.intersection(df.index)
    if common is None or len(common) < 2:
        raise AELError(f"the price files in {where} share fewer than 2 timestamps; "
                       "check that they cover the same dates")
    common = common.sort_values()
    arrays = {c: np.column_stack([frames[t].loc[common, c].to_numpy(float) for t in frames])
              for c in ("Open", "High", "Low", "Close", "Volume")}
    return common, arrays


def _default_tickers(available: list[str]) -> list[str]:
    if all(t in available for t in DFULL_TICKERS):
        return list(DFULL_TICKERS)
    return sorted(t for t in available if t != "SPY")


def load_folder(path: str | Path, tickers: Sequence[str] | None = None, *, split: str = "auto",
                source: str | None = None) -> Market:
    """A Market from a folder in the D-full layout (see the module docstring).

    Default tickers: the ten D-full tickers when all are present, else every
    CSV in prices_1h/ but SPY.
    """
    root = Path(path).expanduser()
    prices = root / "prices_1h"
    if not prices.is_dir():
        raise AELError(f"no prices_1h/ folder in {root}: --data needs a folder in the D-full layout "
                       "(prices_1h/<TICKER>.csv), 'yahoo' or 'synthetic'")
    available = sorted(p.stem for p in prices.glob("*.csv"))
    chosen = [t.upper() for t in tickers] if tickers else _default_tickers(available)
    missing = [t for t in chosen if t not in available]
    if missing:
        raise AELError(f"no price file for {', '.join(missing)} in {prices} "
                       f"(available: {', '.join(available) or 'none'})")
    if not chosen:
        raise AELError(f"no price files in {prices}")
    frames = {t: read_bar_csv(prices / f"{t}.csv") for t in chosen}
    timestamps, arr = _align(frames, str(prices))
    return Market(
        source=source or str(root), tickers=chosen, timestamps=timestamps,
        open=arr["Open"], high=arr["High"], low=arr["Low"], close=arr["Close"], volume=arr["Volume"],
        sectors=_read_sectors(root, chosen), phases=split_phases(timestamps, split),
        static=_read_static(root, chosen),
    )


def _read_json(path: Path, adapter=None) -> Any:
    """A folder's JSON file, size-capped and checked against its schema (data_schema)."""
    from .data_schema import STATIC, read_checked

    return read_checked(path, adapter or STATIC)


def _read_sectors(root: Path, tickers: list[str]) -> dict[str, str]:
    meta_path = root / "metadata" / "tickers.json"
    from .data_schema import TICKERS

    meta = _read_json(meta_path, TICKERS) if meta_path.is_file() else {}
    out = {}
    for t in tickers:
        sector = (meta.get(t) or {}).get("sector")
        if not sector:
            fpath = root / "fundamentals" / f"{t}.json"
            if fpath.is_file():
                sector = (_read_json(fpath).get("info") or {}).get("sector")
        out[t] = sector if isinstance(sector, str) and sector else DFULL_SECTORS.get(t, "Unknown")
    return out


_DATE_RE = re.compile(r"\b(20\d\d-[01]\d-[0-3]\d)")


def _has_content(data: Any) -> bool:
    """False for the reference's empty placeholders ({"earnings_dates": [], ...})."""
    if isinstance(data, dict):
        return any(_has_content(v) for k, v in data.items() if k != "snapshot_date")
    if isinstance(data, list):
        return len(data) > 0
    return data is not None


def _inferred_date(kind: str, data: dict[str, Any]) -> dt.date | None:
    """A lower bound of the snapshot date from the dates a file mentions."""
    if kind == "options":
        exp = sorted(d for d in data.get("expiration_dates", []) if _DATE_RE.match(str(d)))
        if not exp:
            exp = sorted(str(k) for k in (data.get("chains") or {}) if _DATE_RE.match(str(k)))
        return dt.date.fromisoformat(exp[0][:10]) - dt.timedelta(days=7) if exp else None
    found = _DATE_RE.findall(json.dumps(data))
    return dt.date.fromisoformat(max(found)) if found else None


def _read_static(root: Path, tickers: list[str]) -> dict[str, dict[str, StaticRecord]]:
    overrides_path = root / "snapshots.json"
    from .data_schema import SNAPSHOTS

    overrides = _read_json(overrides_path, SNAPSHOTS) if overrides_path.is_file() else {}
    out: dict[str, dict[str, StaticRecord]] = {t: {} for t in tickers}
    for kind in STATIC_KINDS:
        folder = root / kind
        if not folder.is_dir():
            continue
        # Every file of a kind was collected by one run: infer over all of them.
        raw = {p.stem: _read_json(p) for p in sorted(folder.glob("*.json"))}
        inferred = [d for d in (_inferred_date(kind, v) for v in raw.values() if isinstance(v, dict)) if d]
        kind_date = max(inferred) if inferred else None
        for t in tickers:
            data = raw.get(t)
            if not isinstance(data, dict) or not _has_content(data):
                continue
            if data.get("snapshot_date"):
                date, how = dt.date.fromisoformat(str(data["snapshot_date"])[:10]), "file"
            elif overrides.get(kind):
                date, how = dt.date.fromisoformat(str(overrides[kind])[:10]), "snapshots.json"
            elif kind_date is not None:
                date, how = kind_date, "inferred"
            else:
                date, how = None, "unknown"
            out[t][kind] = StaticRecord(kind, data, date, how)
    return out
