"""Market data: the synthetic generator, the D-full folder loader, splits and static snapshots."""

import datetime as dt
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from engine.errors import AELError
from scenarios.portfolio.data import DFULL_TICKERS, Market, load_folder, phase_of_bars, split_phases
from scenarios.portfolio.sources import load_market
from scenarios.portfolio.market import REGIME_NAMES, synthetic_market

DFULL = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "dfull"
needs_dfull = pytest.mark.skipif(not (DFULL / "prices_1h").is_dir(), reason="../shared/data/dfull is absent")


@pytest.fixture(scope="module")
def synth() -> Market:
    return load_market("synthetic")


def phase_counts(phases):
    return tuple(int((phases == p).sum()) for p in ("train", "val", "test"))


# ----------------------------------------------------------------------------- synthetic
def test_synthetic_market_is_208_bars_of_the_ten_dfull_tickers(synth):
    assert synth.tickers == list(DFULL_TICKERS)
    assert synth.close.shape == synth.volume.shape == (208, 10)
    assert synth.sectors["JPM"] == "Financial Services"


def test_synthetic_timestamps_are_four_slots_on_weekdays_in_new_york_time(synth):
    ts = synth.timestamps
    assert str(ts.tz) == "America/New_York"
    assert set(ts.strftime("%H:%M")) == {"09:30", "11:30", "13:30", "15:30"}
    assert (ts.day_of_week < 5).all()
    assert len(set(ts.date)) == 52
    assert ts.is_monotonic_increasing


def test_synthetic_split_is_128_40_40_by_whole_days(synth):
    assert phase_counts(synth.phases) == (128, 40, 40)
    assert phase_of_bars(synth) is synth.phases
    for day in set(synth.dates):
        assert len(set(synth.phases[synth.dates == day])) == 1


def test_synthetic_market_is_a_pure_function_of_its_generator():
    a = synthetic_market(np.random.default_rng(7))
    b = synthetic_market(np.random.default_rng(7))
    c = synthetic_market(np.random.default_rng(8))
    assert np.array_equal(a.close, b.close) and np.array_equal(a.volume, b.volume)
    assert np.array_equal(a.regimes, b.regimes)
    assert not np.array_equal(a.close, c.close)


def test_synthetic_market_does_not_touch_the_global_generator():
    np.random.seed(123)
    before = np.random.get_state()[1].copy()
    synthetic_market(np.random.default_rng(0))
    assert np.array_equal(np.random.get_state()[1], before)


def test_a_ticker_subset_sees_the_same_prices_as_the_full_set(synth):
    sub = load_market("synthetic", ["pg", "AAPL"])
    assert sub.tickers == ["PG", "AAPL"]
    assert np.array_equal(sub.close, synth.close[:, [7, 0]])


def test_synthetic_market_refuses_tickers_it_does_not_have():
    with pytest.raises(AELError, match="MSFT"):
        load_market("synthetic", ["MSFT"])


def test_every_regime_occurs_and_changes_only_between_days(synth):
    assert synth.regime_names == REGIME_NAMES == ("bull", "bear", "flat")
    for seed in range(20):
        m = synthetic_market(np.random.default_rng(seed))
        assert set(m.regimes) == {0, 1, 2}
        assert (m.regimes.reshape(52, 4) == m.regimes.reshape(52, 4)[:, :1]).all()


def test_bull_stretches_rise_and_bear_stretches_fall_on_average():
    by_regime = {0: [], 1: [], 2: []}
    for seed in range(10):
        m = synthetic_market(np.random.default_rng(seed))
        ew = (m.close[1:] / m.close[:-1] - 1).mean(axis=1)
        for g in by_regime:
            by_regime[g].extend(ew[m.regimes[1:] == g])
    bull, bear, flat = (np.mean(by_regime[g]) for g in (0, 1, 2))
    assert bull > abs(flat) and bear < -abs(flat)


def test_bars_are_consistent_candles_with_realistic_hourly_volatility(synth):
    m = synth
    assert (m.low <= np.minimum(m.open, m.close)).all() and (np.maximum(m.open, m.close) <= m.high).all()
    assert (m.volume > 0).all() and (m.close > 0).all()
    sd = (m.close[1:] / m.close[:-1] - 1).std(axis=0)
    assert ((0.003 < sd) & (sd < 0.03)).all()


def test_opening_bars_carry_the_overnight_gap_and_the_most_volume(synth):
    r = synth.close[1:] / synth.close[:-1] - 1
    slot = np.arange(1, synth.n_bars) % 4
    assert r[slot == 0].std() > 1.3 * r[slot == 2].std()
    vol_slot = np.arange(synth.n_bars) % 4
    assert synth.volume[vol_slot == 0].mean() > synth.volume[vol_slot == 1].mean()


def test_tickers_of_one_sector_move_together_more_than_across_sectors(synth):
    corr = np.corrcoef((synth.close[1:] / synth.close[:-1] - 1).T)
    sectors = [synth.sectors[t] for t in synth.tickers]
    same = [corr[a, b] for a in range(10) for b in range(a) if sectors[a] == sectors[b]]
    other = [corr[a, b] for a in range(10) for b in range(a) if sectors[a] != sectors[b]]
    assert np.mean(same) > np.mean(other) + 0.05


def test_next_returns_are_the_next_bars_move_and_zero_on_the_last_bar(synth):
    r = synth.next_returns()
    assert np.allclose(r[:-1], synth.close[1:] / synth.close[:-1] - 1)
    assert (r[-1] == 0).all()


def test_truncation_keeps_rows_up_to_the_bar(synth):
    t = synth.truncated(9)
    assert t.n_bars == 10 and np.array_equal(t.close, synth.close[:10])
    assert np.array_equal(t.phases, synth.phases[:10]) and np.array_equal(t.regimes, synth.regimes[:10])
    assert (t.next_returns()[-1] == 0).all()


# ----------------------------------------------------------------------------- splits
def test_reference_split_by_date_on_dfull_like_dates():
    days = pd.bdate_range("2025-01-06", "2025-03-21")
    days = days[~days.isin(pd.to_datetime(["2025-01-09", "2025-01-20", "2025-02-17"]))]
    ts = pd.DatetimeIndex([pd.Timestamp(f"{d.date()} {s}", tz="America/New_York")
                           for d in days for s in ("09:30", "11:30", "13:30", "15:30")])
    phases = split_phases(ts)
    assert phase_counts(phases) == (128, 40, 40)
    assert phases[np.array(ts.date) == dt.date(2025, 3, 7)][0] == "val"      # boundary day inclusive
    assert phases[np.array(ts.date) == dt.date(2025, 3, 10)][0] == "test"


def test_fraction_split_elsewhere_keeps_whole_days():
    ts = pd.DatetimeIndex([pd.Timestamp(f"{d.date()} {s}", tz="America/New_York")
                           for d in pd.bdate_range("2023-06-01", periods=26) for s in ("09:30", "15:30")])
    phases = split_phases(ts)
    assert phase_counts(phases) == (2 * 16, 2 * 5, 2 * 5)    # round(26 x .615) = 16, round(26 x .192) = 5


def test_fraction_split_can_be_forced_on_dfull_dates():
    ts = pd.DatetimeIndex([pd.Timestamp(f"{d.date()} 09:30", tz="America/New_York")
                           for d in pd.bdate_range("2025-01-06", periods=52)])
    assert phase_counts(split_phases(ts, "fractions")) == (32, 10, 10)
    assert phase_counts(split_phases(ts, "dates")) == (35, 10, 7)      # the paper's 140/40/28 artefact


def test_an_unknown_split_mode_is_a_user_error():
    with pytest.raises(AELError, match="split"):
        split_phases(pd.DatetimeIndex([]), "random")


# ----------------------------------------------------------------------------- folder source
def write_prices(root: Path, ticker: str, stamps: list[str], start: float = 100.0) -> None:
    (root / "prices_1h").mkdir(parents=True, exist_ok=True)
    close = start + np.arange(len(stamps), dtype=float)
    pd.DataFrame({"Datetime": stamps, "Close": close, "High": close + 1, "Low": close - 1, "Open": close,
                  "Volume": 1000.0}).to_csv(root / "prices_1h" / f"{ticker}.csv", index=False)


STAMPS = [f"2024-05-0{d} {h}:30:00-04:00" for d in (6, 7) for h in ("09", "11", "13", "15")]


def test_folder_loader_aligns_tickers_on_common_timestamps(tmp_path):
    write_prices(tmp_path, "AAA", STAMPS)
    write_prices(tmp_path, "BBB", STAMPS[1:])
    m = load_folder(tmp_path)
    assert m.tickers == ["AAA", "BBB"] and m.n_bars == 7
    assert m.close[0].tolist() == [101.0, 100.0]
    assert m.sectors == {"AAA": "Unknown", "BBB": "Unknown"}


def test_folder_without_prices_is_an_actionable_error(tmp_path):
    with pytest.raises(AELError, match="prices_1h"):
        load_folder(tmp_path)


def test_folder_missing_a_ticker_lists_what_is_there(tmp_path):
    write_prices(tmp_path, "AAA", STAMPS)
    with pytest.raises(AELError, match="ZZZ.*available: AAA"):
        load_folder(tmp_path, ["ZZZ"])


def test_an_unknown_source_is_an_actionable_error():
    with pytest.raises(AELError, match="synthetic"):
        load_market("/no/such/folder")


def test_static_snapshot_dates_by_precedence(tmp_path):
    write_prices(tmp_path, "AAA", STAMPS)
    write_prices(tmp_path, "BBB", STAMPS)
    (tmp_path / "fundamentals").mkdir()
    (tmp_path / "fundamentals" / "AAA.json").write_text(json.dumps(
        {"info": {"sector": "Energy"}, "income_statement": {"2023-12-31T00:00:00": {}}, "snapshot_date": "2024-01-15"}))
    (tmp_path / "fundamentals" / "BBB.json").write_text(json.dumps(
        {"info": {"beta": 1.0}, "income_statement": {"2024-03-31T00:00:00": {}}}))
    (tmp_path / "earnings").mkdir()
    (tmp_path / "earnings" / "AAA.json").write_text(json.dumps({"earnings_dates": [], "quarterly_revenue": []}))
    (tmp_path / "analyst").mkdir()
    (tmp_path / "analyst" / "AAA.json").write_text(json.dumps({"recommendation_mean": 2.0}))
    (tmp_path / "options").mkdir()
    (tmp_path / "options" / "BBB.json").write_text(json.dumps({"expiration_dates": ["2024-05-10"], "chains": {}}))
    m = load_folder(tmp_path)
    assert m.sectors["AAA"] == "Energy"
    aaa, bbb = m.static["AAA"], m.static["BBB"]
    assert (aaa["fundamentals"].snapshot, aaa["fundamentals"].snapshot_source) == (dt.date(2024, 1, 15), "file")
    # inferred per kind over all its files: the latest date any of them mentions
    assert (bbb["fundamentals"].snapshot, bbb["fundamentals"].snapshot_source) == (dt.date(2024, 3, 31), "inferred")
    assert "earnings" not in aaa                                  # empty placeholder: no data
    assert (aaa["analyst"].snapshot, aaa["analyst"].snapshot_source) == (None, "unknown")
    assert bbb["options"].snapshot == dt.date(2024, 5, 3)          # earliest expiry - 7 days
    (tmp_path / "snapshots.json").write_text(json.dumps({"analyst": "2024-02-01"}))
    again = load_folder(tmp_path)
    assert (again.static["AAA"]["analyst"].snapshot, again.static["AAA"]["analyst"].snapshot_source) \
        == (dt.date(2024, 2, 1), "snapshots.json")


# ----------------------------------------------------------------------------- D-full
@needs_dfull
def test_dfull_folder_loads_the_reference_benchmark():
    m = load_market(str(DFULL))
    assert m.tickers == list(DFULL_TICKERS) and m.n_bars == 208
    assert m.bar_time(0) == "2025-01-06T09:30:00-05:00" and m.bar_time(207) == "2025-03-21T15:30:00-04:00"
    assert phase_counts(m.phases) == (128, 40, 40)
    assert m.sectors["GS"] == "Financial Services" and m.sectors["NEE"] == "Utilities"


@needs_dfull
def test_dfull_next_returns_match_the_reference_returns_file():
    m = load_market(str(DFULL))
    ref = pd.read_csv(DFULL / "returns_1h" / "NVDA.csv")["return_1bar"].to_numpy()
    r = m.next_returns()[:, m.index("NVDA")]
    assert np.allclose(r[:-1], ref[:-1], rtol=0, atol=1e-12)
    assert np.isnan(ref[-1]) and r[-1] == 0.0


@needs_dfull
def test_dfull_static_snapshots_are_dated_after_every_bar():
    m = load_market(str(DFULL))
    last_day = m.dates[-1]
    for ticker, records in m.static.items():
        assert {"fundamentals", "analyst", "options"} <= set(records)
        for rec in records.values():
            assert rec.snapshot is not None and rec.snapshot > last_day, (ticker, rec.kind, rec.snapshot)
    assert "earnings" in m.static["AAPL"] and "earnings" not in m.static["JNJ"]   # JNJ's file is empty
