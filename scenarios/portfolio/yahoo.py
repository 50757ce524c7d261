"""Hourly bars from Yahoo Finance (yfinance), cached on disk in the D-full layout.

Yahoo's 1-hour candles start at :30 (09:30, 10:30, ... 15:30 ET). The D-full
bars are the candles at the four slots 09:30, 11:30, 13:30 and 15:30, so the
same four candles are kept here (not 2-hour aggregates): the data then has
the same meaning as D-full (the 15:30 close is the day's close). Days missing
a slot for any ticker (a half day, today's unfinished session) are dropped.
Prices are unadjusted, as D-full's hourly files.

The cache is a data folder: `<cache_dir>/<start>_<end>/prices_1h/<T>.csv`
plus `metadata/tickers.json`, loaded by the folder loader, so a second run
needs no network and a cached folder can also be given as `--data PATH`.
Only tickers not yet cached are downloaded. The folder's `checksums.json` holds the
sha256 of every file the cache wrote; a cached file is used only when it is a
regular file with that sha256, else (edited, truncated, a symlink or FIFO in its
place, a cache from before checksums) it is downloaded again and replaced, and
when that cannot be done the error names the file. A folder given as
`--data PATH` is the user's and is read as it is. No static (fundamentals...) data
is fetched: Yahoo only serves today's snapshot, which would be later than
every bar and left out anyway.

yfinance is imported only when a download is needed.
"""

from __future__ import annotations

import datetime as dt
import json
import os
from pathlib import Path
from typing import Sequence

import pandas as pd

from engine.store.cache_files import digest, read_regular, user_cache_dir, write_atomic
from engine.errors import AELError
from engine.network import downloads_allowed
from engine.safe_csv import frame_text

from .data import DFULL_SECTORS, MAX_CSV_BYTES, SLOTS, TZ, Market, load_folder

HOURLY_LIMIT_DAYS = 730
DEFAULT_START, DEFAULT_END = "2025-01-06", "2025-03-21"   # the D-full window


def default_cache_dir() -> Path:
    return user_cache_dir("yahoo")


def _date(value: str, what: str) -> dt.date:
    try:
        return dt.date.fromisoformat(str(value)[:10])
    except ValueError:
        raise AELError(f"{what} {value!r} is not a date (use YYYY-MM-DD)") from None


def check_hourly_window(start: dt.date, end: dt.date, today: dt.date) -> None:
    """Raise AELError if Yahoo cannot serve hourly bars for [start, end]."""
    if end < start:
        raise AELError(f"the end date {end} is before the start date {start}")
    oldest = today - dt.timedelta(days=HOURLY_LIMIT_DAYS - 1)
    if start < oldest:
        raise AELError(
            f"Yahoo Finance keeps hourly bars for the last {HOURLY_LIMIT_DAYS} days only, and {start} is "
            f"{(today - start).days} days ago: choose a start on or after {oldest}, "
            "or use a data folder (--data PATH) or the synthetic market (--data synthetic)")


def load_yahoo(tickers: Sequence[str], start: str | None = None, end: str | None = None,
               cache_dir: str | Path | None = None, *, split: str = "auto",
               today: dt.date | None = None) -> Market:
    """The market for `tickers` over [start, end] (inclusive ISO dates), from the
    cache when every ticker is there, else downloading the missing ones first."""
    tickers = [t.upper() for t in tickers]
    s, e = _date(start or DEFAULT_START, "start"), _date(end or DEFAULT_END, "end")
    folder = Path(cache_dir).expanduser() if cache_dir else default_cache_dir()
    folder = folder / f"{s.isoformat()}_{e.isoformat()}"
    prices = folder / "prices_1h"
    sums = _checksums(folder)
    missing = [t for t in tickers if not _intact(folder, f"prices_1h/{t}.csv", sums)]
    if missing:
        if not downloads_allowed():
            raise AELError(f"Yahoo Finance: {', '.join(missing)} not in the cache ({folder}), and this lab may "
                           "not download (a served lab); use --data synthetic or a data folder")
        try:
            check_hourly_window(s, e, today or dt.date.today())
            frames = download_hourly(missing, s, e)
        except AELError as err:
            changed = [prices / f"{t}.csv" for t in missing if os.path.lexists(prices / f"{t}.csv")]
            if changed:
                raise AELError(f"{changed[0]} is in the Yahoo cache but is not the file the cache wrote (edited, "
                               f"damaged, or from before checksums), and it cannot be downloaded again: {err} "
                               f"(delete it, or use the folder as it is with --data {folder})") from None
            raise
        _write_cache(folder, frames)
    elif not _intact(folder, TICKERS_FILE, sums):
        _write_cache(folder, {})  # the sectors file, written again from the cached tickers
    return load_folder(folder, tickers, split=split, source="yahoo")


CHECKSUMS, CACHE_FORMAT, TICKERS_FILE = "checksums.json", "yahoo-cache-1", "metadata/tickers.json"


def _checksums(folder: Path) -> dict[str, str]:
    """relative path -> sha256 of the files the cache wrote ({} when there is no readable list)."""
    data = read_regular(folder / CHECKSUMS, 1 << 20)
    try:
        doc = json.loads(data) if data is not None else {}
    except ValueError:
        return {}
    files = doc.get("files") if isinstance(doc, dict) and doc.get("format") == CACHE_FORMAT else None
    return {k: v for k, v in files.items() if isinstance(v, str)} if isinstance(files, dict) else {}


def _intact(folder: Path, name: str, sums: dict[str, str]) -> bool:
    data = read_regular(folder / name, MAX_CSV_BYTES)
    return data is not None and name in sums and digest(data) == sums[name]


def download_hourly(tickers: list[str], start: dt.date, end: dt.date) -> dict[str, pd.DataFrame]:
    """Download 1-hour candles and keep the four D-full slots; one frame per ticker."""
    try:
        import yfinance
    except ImportError:
        raise AELError("--data yahoo needs the yfinance package (pip install yfinance)") from None
    try:
        raw = yfinance.download(
            tickers=tickers, start=start.isoformat(), end=(end + dt.timedelta(days=1)).isoformat(),
            interval="1h", auto_adjust=False, prepost=False, group_by="ticker", progress=False,
            threads=False, multi_level_index=True,
        )
    except Exception as exc:  # yfinance raises many types for network trouble
        raise AELError(f"could not download hourly bars from Yahoo Finance ({type(exc).__name__}: {exc}); "
                       "check the network, or use --data synthetic or a data folder") from None
    if raw is None or raw.empty:
        raise AELError(
            f"Yahoo Finance returned no hourly bars for {', '.join(tickers)} from {start} to {end}: "
            "no network, unknown tickers, or dates beyond its 730-day limit for hourly data; "
            "use --data synthetic or a data folder offline")
    out = {}
    for t in tickers:
        frame = _slot_bars(_ticker_frame(raw, t))
        if frame.empty:
            raise AELError(f"Yahoo Finance returned no complete trading day for {t} from {start} to {end}")
        out[t] = frame
    return out


def _ticker_frame(raw: pd.DataFrame, ticker: str) -> pd.DataFrame:
    """One ticker's OHLCV columns, whatever the column layout yfinance chose."""
    if isinstance(raw.columns, pd.MultiIndex):
        for level in range(raw.columns.nlevels):
            if ticker in raw.columns.get_level_values(level):
                frame = raw.xs(ticker, axis=1, level=level)
                break
        else:
            raise AELError(f"Yahoo Finance returned no data for {ticker} (unknown or delisted ticker?)")
    else:
        frame = raw
    frame = frame.rename(columns=lambda c: str(c).title())
    need = ["Open", "High", "Low", "Close", "Volume"]
    if any(c not in frame.columns for c in need):
        raise AELError(f"Yahoo Finance data for {ticker} lacks OHLCV columns (got {list(frame.columns)})")
    return frame[need]


def _slot_bars(frame: pd.DataFrame) -> pd.DataFrame:
    idx = pd.DatetimeIndex(frame.index)
    idx = idx.tz_localize("UTC") if idx.tz is None else idx   # yfinance gives exchange time; naive means UTC
    frame = frame.set_axis(idx.tz_convert(TZ)).dropna()
    frame = frame[frame.index.strftime("%H:%M").isin(SLOTS)]
    complete = frame.groupby(frame.index.date).size() == len(SLOTS)
    keep = set(complete[complete].index)
    return frame[[d in keep for d in frame.index.date]].astype(float)


def _write_cache(folder: Path, frames: dict[str, pd.DataFrame]) -> None:
    """Write the frames' price files, the sectors of every cached ticker and the checksums
    of all of them, each file atomically (checksums last: a file written before them is
    only downloaded again)."""
    prices = folder / "prices_1h"
    prices.mkdir(parents=True, exist_ok=True)
    sums = _checksums(folder)
    for t, frame in frames.items():
        out = frame[["Close", "High", "Low", "Open", "Volume"]].copy()
        out.index.name = "Datetime"
        data = frame_text(out, index=True).encode()
        write_atomic(prices / f"{t}.csv", data, private=False)  # a half-written file is never read as cache
        sums[f"prices_1h/{t}.csv"] = digest(data)
    # the sectors file is a function of the cached tickers: written whole each time
    cached = sorted(name[len("prices_1h/"):-len(".csv")] for name in sums if name.startswith("prices_1h/"))
    meta = {t: {"sector": DFULL_SECTORS.get(t, "Unknown")} for t in cached}
    data = (json.dumps(meta, indent=1, sort_keys=True) + "\n").encode()
    (folder / "metadata").mkdir(parents=True, exist_ok=True)
    write_atomic(folder / TICKERS_FILE, data, private=False)
    sums[TICKERS_FILE] = digest(data)
    write_atomic(folder / CHECKSUMS, json.dumps({"format": CACHE_FORMAT, "files": sums}, indent=1,
                                                sort_keys=True).encode(), private=False)
