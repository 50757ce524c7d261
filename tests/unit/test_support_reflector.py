"""The support reflector (spec §6), checked by replaying the selectors over the
prediction table C: a standalone numpy Thompson sampler with default_rng([seed, 1])
(Beta(1,1), first argmax, α += r, β += 1 − r) that asks the real reflector after
every episode and adds the arm it proposes. The same run through the engine's
Session must agree with it."""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pytest

from engine.errors import AELError
from engine.memory import MemoryStore
from engine.policies import PolicySpec
from engine.reflection import ReflectionContext
from scenarios.support import SupportScenario
from scenarios.support.policies import INITIAL_POOL, ROUTE_AWARE
from scenarios.support.reflector import SupportReflector

SEEDS = (42, 123, 456, 789, 1024)
REGIMES = [(0, 300), (300, 600), (600, 900), (900, 1200)]


@dataclass
class Run:
    correct: np.ndarray
    injected: int | None
    reflections: list

    def regime(self, g: int) -> float:
        a, b = REGIMES[g]
        return float(self.correct[a:b].mean())

    @property
    def overall(self) -> float:
        return float(self.correct.mean())


_SCENARIOS: dict[int, SupportScenario] = {}


def _scenario(seed: int) -> SupportScenario:
    if seed not in _SCENARIOS:
        _SCENARIOS[seed] = SupportScenario(seed)
    return _SCENARIOS[seed]


def _context(sc, t, history, pool, memory) -> ReflectionContext:
    return ReflectionContext(
        episode=t, window=history[-40:], trailing=history[-120:], history=history, pool=list(pool),
        posteriors=[], memory=memory, side_info={}, previous=[], scenario=sc)


def replay_ts(seed: int, reflector: SupportReflector | None = None) -> Run:
    sc = _scenario(seed)
    pool = list(INITIAL_POOL)
    columns = [sc.correct_column(p) for p in pool]
    rng = np.random.default_rng([seed, 1])
    alpha, beta = np.ones(len(pool)), np.ones(len(pool))
    correct = np.zeros(1200, dtype=bool)
    history: list[dict] = []
    memory = MemoryStore()
    injected, reflections = None, []
    for t in range(1200):
        arm = int(np.argmax(rng.beta(alpha, beta)))
        ok = bool(columns[arm][t])
        correct[t] = ok
        alpha[arm] += ok
        beta[arm] += 1 - ok
        history.append({"episode": t, "policy": pool[arm].name, "reward": float(ok), "correct": ok})
        if reflector is not None:
            refl = reflector.reflect(_context(sc, t, history, pool, memory))
            if refl is not None:
                reflections.append(refl)
                if refl.policy is not None:
                    spec = PolicySpec.from_dict(refl.policy)
                    pool.append(spec)
                    columns.append(sc.correct_column(spec))
                    alpha, beta = np.append(alpha, 1.0), np.append(beta, 1.0)
                    injected = t + 1
    return Run(correct, injected, reflections)


def replay_ucb1(seed: int) -> Run:
    c = _scenario(seed).table.correct[:, :5]
    n, s = np.zeros(5), np.zeros(5)
    correct = np.zeros(1200, dtype=bool)
    for t in range(1200):
        arm = t if t < 5 else int(np.argmax(s / n + np.sqrt(2 * np.log(t) / n)))
        correct[t] = c[t, arm]
        n[arm] += 1
        s[arm] += c[t, arm]
    return Run(correct, None, [])


def _runs(**options) -> list[Run]:
    return [replay_ts(seed, SupportReflector.from_options(options)) for seed in SEEDS]


@pytest.fixture(scope="module")
def ts_runs() -> list[Run]:
    return [replay_ts(seed) for seed in SEEDS]


@pytest.fixture(scope="module")
def default_runs() -> list[Run]:
    return _runs()


def _mean(runs: list[Run], g: int | None = None) -> float:
    return float(np.mean([r.overall if g is None else r.regime(g) for r in runs]))


# ----------------------------------------------------------- §8 structure
def test_default_settings_inject_at_920_on_every_seed(default_runs):
    assert [r.injected for r in default_runs] == [920] * 5


def test_reflection_changes_nothing_before_regime_3(default_runs, ts_runs):
    for with_r, without in zip(default_runs, ts_runs):
        np.testing.assert_array_equal(with_r.correct[:920], without.correct[:920])


def test_ts_sits_at_the_backend_error_share_in_regime_3(ts_runs):
    assert _mean(ts_runs, 3) == pytest.approx(0.206, abs=0.03)


def test_ts_matches_the_paper_row(ts_runs):
    assert _mean(ts_runs) == pytest.approx(0.535, abs=0.02)


def test_ts_with_reflection_matches_the_paper_row(default_runs):
    assert _mean(default_runs, 3) == pytest.approx(0.863, abs=0.04)
    assert _mean(default_runs) == pytest.approx(0.700, abs=0.02)


def test_ucb1_matches_the_paper_row_and_stays_below_ts(ts_runs):
    ucb = [replay_ucb1(seed) for seed in SEEDS]
    assert _mean(ucb) == pytest.approx(0.508, abs=0.03)
    assert _mean(ucb) < _mean(ts_runs)


# --------------------------------------------------------- sensitivity (HP)
def test_cadence_80_delays_injection_to_960_and_costs_regime_3_accuracy(default_runs):
    slow = _runs(cadence=80)
    assert [r.injected for r in slow] == [960] * 5
    assert 0.05 <= _mean(default_runs, 3) - _mean(slow, 3) <= 0.12  # paper: 8.9pp


def test_threshold_066_matches_the_default(default_runs):
    for a, b in zip(_runs(threshold=0.66), default_runs):
        assert a.injected == b.injected
        np.testing.assert_array_equal(a.correct, b.correct)


def test_threshold_050_injects_at_920_or_960():
    # Known gap (spec §8): the paper has 960 on every seed; the band is narrow.
    assert {r.injected for r in _runs(threshold=0.50)} <= {920, 960}


def test_paper_gate_injects_long_before_regime_3():
    # Spec §9: the pure gate fires at episode 40 at .58 and .66, while memory is nearly empty
    # (here seed 123 passes the .58 gate at 40 and fires at 400), and at 440 at .50.
    assert [r.injected for r in _runs(trigger="paper", threshold=0.66)] == [40] * 5
    at_058 = [r.injected for r in _runs(trigger="paper")]
    assert at_058.count(40) >= 4 and max(at_058) < 600
    assert [r.injected for r in _runs(trigger="paper", threshold=0.50)] == [440] * 5


# ----------------------------------------------------------- the reflector
def test_a_proposal_cites_the_counts_and_the_endpoint_pattern(default_runs):
    refl = default_runs[0].reflections[-1]
    assert refl.policy == ROUTE_AWARE.to_dict()
    ev = refl.evidence
    assert ev["candidate_fixes"] >= 5 and ev["candidate_fixes"] >= 0.25 * ev["failures"]
    assert f"would have fixed {ev['candidate_fixes']}" in refl.rationale
    assert f"of the {ev['failures']} failures" in refl.rationale.lower()
    assert "endpoint → gold route on the fixed failures: /v1/" in refl.rationale
    assert refl.regime_label == "route-aware regression"


def test_a_gate_without_a_diagnosis_gives_a_reflection_without_a_policy(default_runs):
    quiet = [r for r in default_runs[0].reflections if r.policy is None]
    assert quiet and all(r.diagnosis and not r.insight for r in quiet)
    assert all(r.evidence["trailing_accuracy"] < 0.58 for r in quiet)


def test_it_proposes_at_most_once(default_runs):
    for run in default_runs:
        assert sum(r.policy is not None for r in run.reflections) == 1
        assert all(r.episode < run.injected for r in run.reflections)


def _compressed_history(sc, n):
    """A run that played compressed throughout."""
    c = sc.table.correct[:, sc.table.column_of("compressed")]
    return [{"episode": t, "policy": "compressed", "reward": float(c[t]), "correct": bool(c[t])} for t in range(n)]


def test_it_never_proposes_a_policy_already_in_the_pool():
    sc = _scenario(42)
    renamed = replace(ROUTE_AWARE, name="endpoint_vote", description="")
    history = _compressed_history(sc, 920)
    r = SupportReflector()
    for pool in ([*INITIAL_POOL, ROUTE_AWARE], [*INITIAL_POOL, renamed]):
        assert r.reflect(_context(sc, 919, history, pool, MemoryStore())) is None
    assert r.reflect(_context(sc, 919, history, INITIAL_POOL, MemoryStore())).policy is not None


def test_it_checks_only_every_cadence_episodes():
    sc = _scenario(42)
    history = [{"episode": t, "policy": "none", "reward": 0.0, "correct": False} for t in range(920)]
    r = SupportReflector(cadence=40)
    assert not r.should_reflect(_context(sc, 918, history[:919], INITIAL_POOL, MemoryStore()))
    assert r.reflect(_context(sc, 918, history[:919], INITIAL_POOL, MemoryStore())) is None
    assert r.should_reflect(_context(sc, 919, history, INITIAL_POOL, MemoryStore()))


def test_state_round_trips():
    r = SupportReflector(cadence=80, threshold=0.5)
    r.proposed_at = 960
    again = SupportReflector()
    again.load_state_dict(r.state_dict())
    assert again == r


@pytest.mark.parametrize("options, field", [
    ({"trigger": "always"}, "trigger"), ({"cadence": 0}, "reflect_every"),
    ({"window": -1}, "reflect_window"), ({"threshold": 1.5}, "reflect_threshold"),
])
def test_bad_options_are_refused_with_the_field_named(options, field):
    with pytest.raises(AELError, match=field):
        SupportReflector.from_options(options)


def test_scenario_builds_the_reflector_from_the_cli_keys():
    r = _scenario(42).make_reflector({"cadence": 80, "window": 200, "threshold": 0.66, "trigger": "paper"})
    assert (r.cadence, r.window, r.threshold, r.trigger) == (80, 200, 0.66, "paper")
    assert _scenario(42).make_reflector({}) == SupportReflector()


# ---------------------------------------------------------- through the engine
@pytest.mark.parametrize("selector", ["ts", "ts+reflection"])
def test_the_engine_session_runs_exactly_the_replay(selector, default_runs, ts_runs):
    from engine.session import Session, SessionConfig

    session = Session(SessionConfig(scenario="support", seed=42, selector=selector), _scenario(42))
    session.run()
    got = np.array([r["correct"] for r in session.history])
    expected = (default_runs if selector == "ts+reflection" else ts_runs)[0]
    np.testing.assert_array_equal(got, expected.correct)
    assert [i["episode"] for i in session.injections] == ([920] if selector == "ts+reflection" else [])


def test_a_rejected_proposal_starts_a_cool_down_then_the_reflector_proposes_again_on_fresh_evidence(tmp_path):
    """Issue 13 item 8: after a person rejected route_aware the reflector never spoke again."""
    from engine.store.persistence import load_session, save_session
    from ael_tui.widgets.opening import NewSession, build_session
    from scenarios import make_scenario
    s = build_session(NewSession("support", 42, "ts+reflection", "manual"))
    s.run()
    assert s.t == 920 and {p.kind for p in s.queue.pending} == {"insight", "arm"}
    for p in list(s.queue.pending):
        s.decide(p.id, "reject", reason="not yet")
    assert "cool-down until episode 1040" in s.reflector.outlook(s.t)
    save_session(s, tmp_path / "cooling.json")
    s = load_session(tmp_path / "cooling.json", make_scenario)  # the cool-down survives a save
    s.run()
    again = s.reflections[-1]
    assert s.t == 1080 and again.episode == 1079 and again.policy["name"] == "route_aware"
    assert min(again.evidence["fixed_episodes"]) >= 1040  # evidence from after the rejection
    assert s.reflector.outlook(s.t) == ""
