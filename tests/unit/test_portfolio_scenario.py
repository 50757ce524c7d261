"""The portfolio scenario through the engine: split, memory that matters, no look-ahead in
what is written, resume, determinism, the CLI's JSON and the baselines."""

import json
from pathlib import Path

import numpy as np
import pytest

from ael_cli.main import main
from engine.errors import AELError
from engine.policies import PAPER_POLICIES
from engine.session import Session
from scenarios import make_scenario
from scenarios.portfolio import PortfolioScenario
from tests.conftest import new_session

DFULL = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "dfull"
needs_dfull = pytest.mark.skipif(not (DFULL / "prices_1h").is_dir(), reason="../shared/data/dfull is absent")
POLICY = {p.name: p for p in PAPER_POLICIES}


def run_cli(*argv) -> int:
    return main(["run", "portfolio", *argv, "--quiet"])


@pytest.fixture(scope="module")
def after_60():
    """A session that has played 60 bars under full_detailed: memory holds every tier."""
    s = new_session("portfolio", seed=42, selector="fixed:full_detailed")
    s.run(until=60)
    return s


# ----------------------------------------------------------------------------- split
def test_synthetic_splits_its_52_days_by_fractions_into_128_40_40_bars():
    sc = PortfolioScenario(42)
    assert sc.defaults["phases"] == {"train": 128, "val": 40, "test": 40}
    assert (sc.defaults["warmup"], sc.defaults["slow_window"], sc.defaults["memory_cap"]) == (15, 4, 500)


@needs_dfull
def test_dfull_splits_by_calendar_day_into_128_40_40_bars():
    sc = PortfolioScenario(42, data=str(DFULL))
    assert sc.defaults["phases"] == {"train": 128, "val": 40, "test": 40}
    s = Session(new_session("portfolio", scenario_options={"data": str(DFULL)}).config, sc)
    assert s.phase_ends == {"warmup": 15, "train": 128, "val": 168, "test": 208}


def test_the_synthetic_market_is_the_same_for_every_session_seed():
    a, b = PortfolioScenario(1), PortfolioScenario(2)
    assert np.array_equal(a.world.market.close, b.world.market.close)
    assert not np.array_equal(a.world.market.close, PortfolioScenario(1, market_seed=5).world.market.close)


def test_unknown_options_and_reward_modes_are_user_errors():
    with pytest.raises(AELError, match="unknown option 'colour'"):
        PortfolioScenario(1, colour="red")
    with pytest.raises(AELError, match="reward"):
        PortfolioScenario(1, reward="bonus")


# ----------------------------------------------------------------------------- memory matters
def test_memory_holds_ten_keyed_entries_per_bar_after_warm_up(after_60):
    entries = after_60.memory.entries("episodic")
    assert len(entries) == 10 * (60 - 15)
    last = entries[-10:]
    assert {e.episode for e in last} == {59}
    assert {e.metadata["ticker"] for e in last} == set(after_60.scenario.world.tickers)
    for e in last:
        assert {"task_type", "ticker", "sector", "regime"} <= set(e.metadata)
    assert after_60.memory.counts()["semantic"] > 0


def test_an_entry_records_the_bar_it_was_written_after_so_no_decision_reads_its_own_outcome(after_60):
    w = after_60.scenario.world
    for e in after_60.memory.entries("episodic")[-10:]:
        j = w.tickers.index(e.metadata["ticker"])
        assert e.metadata["next_return"] == pytest.approx(w.next_returns[59, j], abs=1e-8)
        assert e.metadata["regime"] == after_60.history[59]["info"]["regime"]  # the agent's label, not the truth


def test_two_policies_allocate_differently_on_the_same_bar_once_memory_holds_entries(after_60):
    sc, mem, t = after_60.scenario, after_60.memory, 60
    counts_before = [e.retrieval_count for e in mem.entries("episodic")]
    weights = {name: sc.allocation(POLICY[name], t, mem)[0].weights for name in POLICY}
    assert not np.allclose(weights["full_detailed"], weights["compressed"])
    assert not np.allclose(weights["recent_window"], weights["none"])
    # 'none' reads nothing: it is the prior, the same as with an empty memory
    prior = sc.allocation(POLICY["none"], t, type(mem)(sc.match_bonuses))[0]
    assert np.allclose(weights["none"], prior.weights) and prior.evidence_calls.sum() == 0
    # a counterfactual read leaves no retrieval counts behind
    assert [e.retrieval_count for e in mem.entries("episodic")] == counts_before


def test_warm_up_bars_play_none_and_write_nothing():
    s = new_session("portfolio", seed=3, selector="ts")
    s.run(until=15)
    assert {h["policy"] for h in s.history} == {"none"} and s.memory.counts()["episodic"] == 0


# ----------------------------------------------------------------------------- persistence, determinism
@pytest.mark.heavy
def test_saving_mid_run_then_resuming_equals_the_uninterrupted_run():
    whole = new_session("portfolio", seed=7, selector="ts+reflection")
    whole.run()
    part = new_session("portfolio", seed=7, selector="ts+reflection")
    part.run(until=101)
    doc = json.loads(json.dumps(part.to_dict()))
    resumed = Session.from_dict(doc, make_scenario)
    resumed.run()
    assert resumed.history == whole.history
    assert resumed.selector.to_dict() == whole.selector.to_dict()
    assert json.dumps(resumed.memory.to_dict()) == json.dumps(whole.memory.to_dict())
    assert resumed.scenario.state_dict() == whole.scenario.state_dict()
    assert [r.to_dict() for r in resumed.reflections] == [r.to_dict() for r in whole.reflections]


@pytest.fixture(scope="module")
def cli_json(tmp_path_factory):
    out = tmp_path_factory.mktemp("pf") / "out.json"
    assert run_cli("--seeds", "42,123", "--selector", "ts+reflection,baseline:eqw", "--json", str(out)) == 0
    return out


@pytest.mark.heavy
def test_running_twice_gives_identical_json(cli_json, tmp_path):
    again = tmp_path / "again.json"
    assert run_cli("--seeds", "42,123", "--selector", "ts+reflection,baseline:eqw", "--json", str(again)) == 0
    assert again.read_bytes() == cli_json.read_bytes()


@pytest.mark.heavy
def test_every_run_carries_phase_metrics_and_the_summary_their_test_means_and_sds(cli_json):
    doc = json.loads(cli_json.read_text())
    keys = {"sharpe", "sortino", "calmar", "max_drawdown_pct", "total_return_pct", "win_rate", "tail_ratio",
            "n_bars", "cost_adjusted_sharpe"}
    for run in doc["runs"]:
        assert set(run["phases"]) == {"train", "val", "test"}
        assert set(run["phases"]["test"]) == keys
        assert set(run["phases"]["test"]["cost_adjusted_sharpe"]) == {"0", "5", "10", "20"}
        assert set(run) >= {"selector", "seed", "regimes", "overall", "sharpe", "injections"}
    agent = [r for r in doc["runs"] if r["selector"] == "ts+reflection"]
    assert [r["phases"]["test"]["n_bars"] for r in agent] == [40, 40]   # every test bar, the last one's 0
    base = [r for r in doc["runs"] if r["selector"] == "baseline:eqw"]
    assert [r["phases"]["test"]["n_bars"] for r in base] == [39, 39]    # the baselines drop each first bar
    row = next(s for s in doc["summary"] if s["selector"] == "ts+reflection")
    sharpes = [r["phases"]["test"]["sharpe"] for r in agent]
    assert row["test_mean"]["sharpe"] == pytest.approx(np.mean(sharpes))
    assert row["test_std"]["sharpe"] == pytest.approx(np.std(sharpes, ddof=1))


def test_an_unknown_baseline_is_refused_before_anything_runs(capsys):
    assert run_cli("--selector", "ts,baseline:magic") == 2
    assert "baseline:magic" in capsys.readouterr().err


@pytest.mark.heavy
@needs_dfull
def test_the_baseline_selectors_reproduce_the_papers_dfull_test_sharpes(tmp_path):
    out = tmp_path / "b.json"
    assert run_cli("--data", str(DFULL), "--selector", "baseline:eqw,baseline:mom,baseline:minv,baseline:invm",
                   "--json", str(out)) == 0
    got = {r["selector"]: round(r["test_mean"]["sharpe"], 2) for r in json.loads(out.read_text())["summary"]}
    assert got == {"baseline:eqw": 0.70, "baseline:mom": 1.44, "baseline:minv": -0.61, "baseline:invm": -0.20}


# ----------------------------------------------------------------------------- options, oracle
def test_costs_are_charged_on_turnover_and_the_as_logged_reward_is_half_plus_a_sixth():
    s = new_session("portfolio", seed=5, selector="ts", scenario_options={"cost_bps": 10, "reward": "as_logged"})
    s.run(until=30)
    for h in s.history[1:]:
        info = h["info"]
        assert info["cost"] == pytest.approx(info["turnover"] * 10 / 1e4)
        assert info["port_return"] == pytest.approx(info["gross_return"] - info["cost"])
        assert h["reward"] == pytest.approx(0.5 * np.clip((h["score"] + 1) / 2, 0.05, 0.95) + 1 / 6)


def test_the_oracle_plays_the_pool_arm_that_earns_most_and_resumes_exactly():
    s = new_session("portfolio", seed=5, selector="oracle")
    s.run(until=40)
    sc, t = s.scenario, 40
    gains = {name: sc._net_return(sc.allocation(spec, t, s.memory)[0].weights, t) for name, spec in POLICY.items()}
    resumed = Session.from_dict(json.loads(json.dumps(s.to_dict())), make_scenario)
    s.step()
    assert s.history[t]["policy"] == max(gains, key=gains.get)
    assert s.history[t]["info"]["port_return"] == pytest.approx(max(gains.values()))
    resumed.run(until=60)
    s.run(until=60)
    assert resumed.history == s.history
