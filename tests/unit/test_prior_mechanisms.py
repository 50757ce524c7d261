"""The three prior mechanisms built here, world-independent: EvoTool's population,
FactorMiner's skill book, HyperAgent's generations. Each must move, stay seeded and
round-trip its state."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from engine.errors import AELError
from engine.prior.tool_population import EvoToolConfig, Population
from engine.prior.skill_book import Experience, FactorMinerConfig, SkillBook
from engine.prior import generation_search as ha

TOOLS = tuple(f"tool{i}" for i in range(12))
POLICIES = ("none", "recent_window", "compressed", "full_detailed", "class_balanced")


def support_config(**kw) -> EvoToolConfig:
    return EvoToolConfig(POLICIES, init_size=(2, 5), min_size=2, **kw)


# ------------------------------------------------------------------ EvoTool
def test_initial_population_respects_sizes_and_is_seeded():
    a = Population.initial(EvoToolConfig(TOOLS), np.random.default_rng(1))
    b = Population.initial(EvoToolConfig(TOOLS), np.random.default_rng(1))
    assert [p.members for p in a.policies] == [p.members for p in b.policies]
    assert all(4 <= len(p.members) <= 12 and len(set(p.members)) == len(p.members) for p in a.policies)
    s = Population.initial(support_config(), np.random.default_rng(2))
    assert all(2 <= len(p.members) <= 5 for p in s.policies)


def test_first_evaluation_sets_fitness_and_ema_follows():
    pop = Population.initial(EvoToolConfig(TOOLS), np.random.default_rng(0))
    rng = np.random.default_rng(0)
    pop.update(0, True, (), 0, rng)
    assert pop.policies[0].fitness == 1.0           # alpha = 2/(1+1) = 1
    pop.update(0, False, (), 1, rng)
    assert pop.policies[0].fitness == pytest.approx(1.0 - 2 / 3)


def test_choice_is_fitness_proportional_with_a_floor():
    pop = Population.initial(EvoToolConfig(TOOLS), np.random.default_rng(0))
    for i, f in enumerate([0.0, 0.0, 0.0, 0.0, 1.0]):
        pop.policies[i].fitness = f
    p = pop.probabilities()
    assert p[0] == pytest.approx(0.01 / 1.04) and p[4] == pytest.approx(1.0 / 1.04)
    rng = np.random.default_rng(3)
    picks = [pop.choose(rng) for _ in range(500)]
    assert picks.count(4) > 430


def test_failure_blames_members_and_the_mutant_of_the_best_drops_them():
    pop = Population.initial(support_config(), np.random.default_rng(5))
    rng = np.random.default_rng(5)
    for i, p in enumerate(pop.policies):
        p.n_evals, p.fitness = 5, 0.9 - 0.1 * i
    pop.policies[0].members = ["compressed", "none", "recent_window"]
    pop.policies[2].members = ["none", "recent_window", "full_detailed"]
    blamed = ["none", "recent_window", "class_balanced"]   # class_balanced is not a member: not blamed
    pop.policies[4].fitness = 0.05
    m = pop.update(2, False, blamed, 7, rng)
    assert pop.last_blamed == ["none", "recent_window"] and pop.n_blames == 1
    assert pop.policies[2].fitness == pytest.approx(0.7 * (1 - 2 / 7))
    assert m is not None and m.slot == 4 and m.parent == 0
    assert m.dropped == ["none", "recent_window"]
    assert m.members[0] == "compressed" and len(m.members) >= 2
    assert m.replaced_fitness == 0.05
    new = pop.policies[4]
    assert new.n_evals == 0 and new.born == 7 and new.fitness == pytest.approx(0.9 * 0.9)
    assert pop.n_mutations == 1 and pop.mutations[-1] is m


def test_the_worst_is_not_replaced_before_three_evaluations():
    pop = Population.initial(EvoToolConfig(TOOLS), np.random.default_rng(4))
    rng = np.random.default_rng(4)
    assert pop.update(0, True, (), 0, rng) is None   # the others are unevaluated (0.5 < 1.0)
    assert pop.n_mutations == 0


def test_as_code_never_blames_and_fitness_only_rises():
    pop = Population.initial(support_config(as_code=True), np.random.default_rng(6))
    rng = np.random.default_rng(6)
    for t in range(60):
        slot = pop.choose(rng)
        pop.update(slot, False, list(POLICIES), t, rng)
    assert pop.n_blames == 0
    assert all(p.fitness == 1.0 or p.n_evals == 0 for p in pop.policies)
    assert all(not m.dropped for m in pop.mutations)


def test_a_long_run_mutates_and_replaces_and_resumes_exactly():
    def run(pop, rng, episodes):
        for t in episodes:
            slot = pop.choose(rng)
            wrong = [m for m in pop.policies[slot].members if (t * 7 + len(m)) % 3 == 0]
            pop.update(slot, not wrong, wrong, t, rng)

    cfg = EvoToolConfig(TOOLS)
    rng = np.random.default_rng(11)
    pop = Population.initial(cfg, rng)
    run(pop, rng, range(50))
    saved = json.loads(json.dumps(pop.state_dict()))
    rng_state = rng.bit_generator.state
    run(pop, rng, range(50, 120))
    assert pop.n_mutations > 3 and pop.n_blames > 3
    assert any(m.dropped for m in pop.mutations)
    back = Population.from_state_dict(cfg, saved)
    rng2 = np.random.default_rng()
    rng2.bit_generator.state = rng_state
    run(back, rng2, range(50, 120))
    assert back.state_dict() == pop.state_dict()


def test_a_saved_population_with_foreign_members_is_refused():
    cfg = support_config()
    state = Population.initial(cfg, np.random.default_rng(0)).state_dict()
    state["policies"][0]["members"] = ["route_aware"]
    with pytest.raises(AELError, match="evotool"):
        Population.from_state_dict(cfg, state)


# -------------------------------------------------------------- FactorMiner
def test_skill_success_moves_both_ways():
    book = SkillBook()
    book.create("a_b", ["a", "b"], 0)
    assert book.usable("a_b").success == 1.0
    book.reinforce("a_b", False, 1)                 # n=2: alpha 2/3 toward 0
    assert book.skills["a_b"].success == pytest.approx(1 / 3)
    assert book.usable("a_b") is None               # below the 0.5 rule
    book.reinforce("a_b", True, 2)                  # n=3: alpha 1/2 toward 1
    assert book.skills["a_b"].success == pytest.approx(2 / 3)
    s = book.skills["a_b"]
    assert (s.wins, s.losses, s.n) == (2, 1, 3)


def test_as_code_skills_never_fall():
    book = SkillBook(FactorMinerConfig(as_code=True))
    book.create("k", ["x"], 0)
    for t in range(10):
        book.reinforce("k", False, t)
    assert book.skills["k"].success == 1.0


def test_skill_cap_evicts_the_worst_and_experiences_are_fifo():
    book = SkillBook(FactorMinerConfig(max_skills=15, max_experiences=200))
    for i in range(15):
        book.create(f"k{i}", [str(i)], i)
    book.reinforce("k3", False, 20)
    book.create("new", ["n"], 21)
    assert len(book.skills) == 15 and "k3" not in book.skills and book.evicted == 1
    for t in range(250):
        book.remember(Experience(t, "k", "up", "down", False))
    assert len(book.experiences) == 200 and book.experiences[0].episode == 50
    assert [e.episode for e in book.recent(5)] == [245, 246, 247, 248, 249]


def test_skill_book_round_trips_and_refuses_overfull_saves():
    book = SkillBook()
    book.create("a", ["x"], 0)
    book.reinforce("a", False, 1)
    book.remember(Experience(1, "a", "p", "q", False))
    state = json.loads(json.dumps(book.state_dict()))
    assert SkillBook.from_state_dict(book.config, state).state_dict() == book.state_dict()
    state["skills"] = state["skills"] * 16
    with pytest.raises(AELError, match="factorminer"):
        SkillBook.from_state_dict(book.config, state)


# --------------------------------------------------------------- HyperAgent
@pytest.fixture
def market():
    rng = np.random.default_rng(0)
    feats = rng.normal(size=(60, 10, len(ha.FEATURES)))
    z = ha.standardise(feats)
    # returns that the tech score predicts, so a search has something to find
    nxt = 0.002 * z[:, :, ha.FEATURES.index("tech_score")] + rng.normal(0, 0.004, size=(60, 10))
    return z, nxt


def test_theta_zero_is_equal_weight_and_cash_is_kept_out():
    z = np.random.default_rng(1).normal(size=(10, 7))
    assert np.allclose(ha.weights(ha.EQUAL_WEIGHT, z), 0.1)
    th = ha.EQUAL_WEIGHT.copy()
    th[-1] = 0.3
    th[-2] = 1.0
    th[3] = 2.0
    w = ha.weights(th, z)
    assert w.sum() == pytest.approx(0.7) and (w >= 0).all() and w.argmax() == z[:, 3].argmax()


def test_validation_refuses_non_finite_and_out_of_bound_theta():
    th = ha.EQUAL_WEIGHT.copy()
    assert ha.validation_error(th) is None
    th[0] = math.nan
    assert "non-finite" in ha.validation_error(th)
    th[0], th[-1] = 0.0, 0.9
    assert "cash" in ha.validation_error(th)


def test_generations_validate_score_and_accept_by_epsilon(market):
    z, nxt = market
    score = lambda th: ha.sharpe_ddof1(ha.portfolio_returns(th, z, nxt))  # noqa: E731
    rng = np.random.default_rng(42)
    search = ha.Search.start(ha.HyperAgentConfig(generations=20))
    for g in range(20):
        search.generation(g, rng, score)
    gens = search.generations
    valid = [g for g in gens if g.valid]
    assert any(not g.valid for g in gens) and all(g.score is None for g in gens if not g.valid)
    assert valid[0].accepted and valid[0].best_before is None      # -inf: the first valid is always taken
    for g in valid[1:]:
        assert g.accepted == (g.score >= g.best_before - 0.05)
        assert g.improved == (g.score > g.best_before)
    assert any(g.accepted and not g.improved for g in valid) or any(not g.accepted for g in valid)
    assert search.best_score == max(g.score for g in valid)
    assert any(g.adapted_to is not None for g in gens)
    assert search.best_score > score(ha.EQUAL_WEIGHT)


def test_score_ew_first_starts_from_equal_weights_score(market):
    z, nxt = market
    score = lambda th: ha.sharpe_ddof1(ha.portfolio_returns(th, z, nxt))  # noqa: E731
    search = ha.Search.start(ha.HyperAgentConfig(score_ew_first=True))
    g = search.generation(0, np.random.default_rng(0), score)
    assert g.best_before == pytest.approx(score(ha.EQUAL_WEIGHT))


def test_a_rejected_candidate_keeps_the_incumbent():
    search = ha.Search.start(ha.HyperAgentConfig())
    search.generation(0, None, lambda th: 1.0, candidate=np.r_[np.zeros(7), 0.5, 0.0])
    g = search.generation(1, None, lambda th: 0.5, candidate=np.r_[np.ones(7), 0.5, 0.0])
    assert not g.accepted and search.incumbent[0] == 0.0 and search.best_score == 1.0


def test_key_mismatch_falls_back_to_equal_weight_at_test_only():
    z = np.random.default_rng(2).normal(size=(10, 7))
    search = ha.Search.start(ha.HyperAgentConfig(key_mismatch=True))
    search.best = np.r_[1.0, np.zeros(6), 1.0, 0.0].tolist()    # reads ret4
    w, fell = search.frozen_weights(z, test=True)
    assert fell and np.allclose(w, 0.1)
    assert not search.frozen_weights(z, test=False)[1]
    search.best = np.r_[np.zeros(3), 1.0, np.zeros(3), 1.0, 0.0].tolist()   # tech score only
    assert not search.frozen_weights(z, test=True)[1]


def test_search_resumes_exactly(market):
    z, nxt = market
    score = lambda th: ha.sharpe_ddof1(ha.portfolio_returns(th, z, nxt))  # noqa: E731
    cfg = ha.HyperAgentConfig(generations=12)
    rng = np.random.default_rng(7)
    s = ha.Search.start(cfg)
    for g in range(5):
        s.generation(g, rng, score)
    saved, rs = json.loads(json.dumps(s.state_dict())), rng.bit_generator.state
    for g in range(5, 12):
        s.generation(g, rng, score)
    back = ha.Search.from_state_dict(cfg, saved)
    rng2 = np.random.default_rng()
    rng2.bit_generator.state = rs
    for g in range(5, 12):
        back.generation(g, rng2, score)
    assert back.state_dict() == s.state_dict()
    with pytest.raises(AELError, match="all 12"):
        back.generation(12, rng2, score)
