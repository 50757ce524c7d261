"""The Yahoo source, offline: yfinance.download is replaced by a fake (there is no network)."""

import datetime as dt
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from engine.errors import AELError
from scenarios.portfolio.sources import load_market
from scenarios.portfolio.yahoo import load_yahoo

TODAY = dt.date(2025, 6, 1)
DAYS = ["2025-03-03", "2025-03-04", "2025-03-05"]
HOURS = ["09:30", "10:30", "11:30", "12:30", "13:30", "14:30", "15:30"]


def fake_frame(tickers, partial_last_day=True):
    """What yfinance.download(group_by="ticker") returns: (Ticker, Price) columns, exchange-time index."""
    stamps = [pd.Timestamp(f"{d} {h}", tz="America/New_York") for d in DAYS for h in HOURS]
    if partial_last_day:
        stamps = [s for s in stamps if not (str(s.date()) == DAYS[-1] and s.hour >= 13)]
    idx = pd.DatetimeIndex(stamps, name="Datetime")
    cols, data = [], []
    for k, t in enumerate(tickers):
        close = 100.0 * (k + 1) + np.arange(len(idx))
        for field, values in (("Adj Close", close), ("Close", close), ("High", close + 1), ("Low", close - 1),
                              ("Open", close - 0.5), ("Volume", np.full(len(idx), 1e5))):
            cols.append((t, field))
            data.append(values)
    return pd.DataFrame(np.column_stack(data), index=idx, columns=pd.MultiIndex.from_tuples(cols,
                                                                                           names=["Ticker", "Price"]))


@pytest.fixture(autouse=True)
def yfinance():
    """yfinance imported by the tests, not at collection (every worker collects this module)."""
    return pytest.importorskip("yfinance")


@pytest.fixture
def calls(monkeypatch):
    """Record every download; serve the fake frame."""
    log = []

    def download(tickers, **kw):
        log.append((list(tickers), kw))
        return fake_frame(tickers)

    monkeypatch.setattr("yfinance.download", download)
    return log


def test_download_keeps_the_four_slots_of_complete_days_and_writes_the_cache(tmp_path, calls):
    m = load_yahoo(["AAPL", "XOM"], "2025-03-03", "2025-03-05", tmp_path, today=TODAY)
    assert m.source == "yahoo" and m.tickers == ["AAPL", "XOM"]
    assert m.n_bars == 8                                          # 2 complete days x 4 slots
    assert list(m.timestamps.strftime("%H:%M")[:4]) == ["09:30", "11:30", "13:30", "15:30"]
    assert m.close[:4, 0].tolist() == [100.0, 102.0, 104.0, 106.0]
    assert m.sectors == {"AAPL": "Technology", "XOM": "Energy"}
    assert (tmp_path / "2025-03-03_2025-03-05" / "prices_1h" / "AAPL.csv").is_file()
    (tickers, kw), = calls
    assert kw["interval"] == "1h" and kw["end"] == "2025-03-06"      # yfinance's end is exclusive


def test_a_cached_window_loads_offline_without_yfinance(tmp_path, calls, monkeypatch):
    first = load_yahoo(["AAPL"], "2025-03-03", "2025-03-05", tmp_path, today=TODAY)

    def no_network(*a, **kw):
        raise AssertionError("the cache should have been used")

    monkeypatch.setattr("yfinance.download", no_network)
    again = load_yahoo(["AAPL"], "2025-03-03", "2025-03-05", tmp_path, today=dt.date(2030, 1, 1))
    assert np.array_equal(first.close, again.close) and first.timestamps.equals(again.timestamps)


def test_only_tickers_missing_from_the_cache_are_downloaded(tmp_path, calls):
    load_yahoo(["AAPL"], "2025-03-03", "2025-03-05", tmp_path, today=TODAY)
    m = load_yahoo(["AAPL", "PG"], "2025-03-03", "2025-03-05", tmp_path, today=TODAY)
    assert [c[0] for c in calls] == [["AAPL"], ["PG"]]
    assert m.tickers == ["AAPL", "PG"]


def test_load_market_routes_yahoo_with_dates_and_cache(tmp_path, calls):
    load_yahoo(["NEE"], "2025-03-03", "2025-03-05", tmp_path, today=TODAY)
    m = load_market("yahoo", ["NEE"], tmp_path, start="2025-03-03", end="2025-03-05")
    assert m.tickers == ["NEE"] and m.n_bars == 8 and len(calls) == 1


def test_dates_beyond_the_730_day_hourly_limit_are_refused_before_any_download(tmp_path, calls):
    with pytest.raises(AELError, match="730 days.*--data synthetic"):
        load_yahoo(["AAPL"], "2023-01-03", "2023-02-01", tmp_path, today=TODAY)
    assert calls == []


def test_a_network_failure_becomes_an_actionable_error(tmp_path, monkeypatch):
    def offline(*a, **kw):
        raise ConnectionError("Failed to resolve query1.finance.yahoo.com")

    monkeypatch.setattr("yfinance.download", offline)
    with pytest.raises(AELError, match="check the network"):
        load_yahoo(["AAPL"], "2025-03-03", "2025-03-05", tmp_path, today=TODAY)
    assert not (tmp_path / "2025-03-03_2025-03-05" / "prices_1h" / "AAPL.csv").exists()


def test_an_empty_answer_names_the_likely_causes(tmp_path, monkeypatch):
    monkeypatch.setattr("yfinance.download", lambda *a, **kw: pd.DataFrame())
    with pytest.raises(AELError, match="no network.*730-day limit"):
        load_yahoo(["AAPL"], "2025-03-03", "2025-03-05", tmp_path, today=TODAY)


def test_a_ticker_yahoo_did_not_return_is_named(tmp_path, monkeypatch):
    monkeypatch.setattr("yfinance.download", lambda tickers, **kw: fake_frame(["AAPL"]))
    with pytest.raises(AELError, match="ZZZZ"):
        load_yahoo(["AAPL", "ZZZZ"], "2025-03-03", "2025-03-05", tmp_path, today=TODAY)


def test_bad_dates_are_user_errors(tmp_path, calls):
    with pytest.raises(AELError, match="not a date"):
        load_yahoo(["AAPL"], "March 3", "2025-03-05", tmp_path, today=TODAY)
    with pytest.raises(AELError, match="before the start"):
        load_yahoo(["AAPL"], "2025-03-05", "2025-03-03", tmp_path, today=TODAY)


def test_yfinance_is_imported_only_when_a_download_is_needed():
    code = ("import sys; import scenarios.portfolio as p; p.load_market('synthetic'); "
            "print('yfinance' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
