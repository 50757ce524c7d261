"""The fast loop: selectors choose from the session's generator and learn only when not frozen."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.bandits import Selector
from engine.methods import parse_method


def make_selector(kind, arms, prior, fixed=None):
    return parse_method(f"{kind}:{fixed}" if fixed else kind).make_selector(arms, prior)


def parse_selector(text):
    m = parse_method(text)
    return m.name, m.reflection, m.arg
from engine.errors import AELError


@given(st.lists(st.tuples(st.integers(0, 3), st.floats(0, 1)), max_size=200))
def test_ts_posterior_counts_equal_the_rewards_fed(feed):
    ts = make_selector("ts", ["a", "b", "c", "d"], (1.0, 1.0))
    for arm, r in feed:
        ts.update(arm, r)
    for i, arm in enumerate(ts.arms):
        rewards = [r for a, r in feed if a == i]
        assert arm.alpha == pytest.approx(1.0 + sum(rewards))
        assert arm.beta == pytest.approx(1.0 + len(rewards) - sum(rewards))
        assert arm.pulls == len(rewards)


def test_frozen_ts_keeps_sampling_but_stops_learning():
    ts = make_selector("ts", ["a", "b"], (1.0, 1.0))
    ts.update(0, 1.0)
    ts.frozen = True
    before = [(a.alpha, a.beta) for a in ts.arms]
    rng = np.random.default_rng(0)
    choices = {ts.select(rng) for _ in range(50)}
    ts.update(1, 1.0)
    assert [(a.alpha, a.beta) for a in ts.arms] == before
    assert choices == {0, 1}  # still sampling both arms


def test_a_new_arm_enters_with_the_configured_prior():
    ts = make_selector("ts", ["a"], (1.0, 1.0))
    arm = ts.add_arm("new", prior=(0.5, 2.0), episode=40)
    assert (arm.alpha, arm.beta, arm.added_at) == (0.5, 2.0, 40)
    with pytest.raises(AELError, match="already in the pool"):
        ts.add_arm("new")


def test_ts_draws_one_beta_per_arm_in_pool_order_first_max_wins():
    ts = make_selector("ts", ["a", "b", "c"], (1.0, 1.0))
    rng, twin = np.random.default_rng(5), np.random.default_rng(5)
    chosen = ts.select(rng)
    draws = [twin.beta(1.0, 1.0) for _ in range(3)]
    assert chosen == int(np.argmax(draws))
    assert rng.random() == twin.random()  # exactly three draws were taken


def test_ucb1_plays_every_arm_once_then_the_upper_bound():
    ucb = make_selector("ucb1", ["a", "b", "c"], (1.0, 1.0))
    rng = np.random.default_rng(0)
    first = []
    for r in (0.0, 1.0, 0.0):
        i = ucb.select(rng)
        first.append(i)
        ucb.update(i, r)
    assert first == [0, 1, 2]
    assert ucb.select(rng) == 1


def test_round_robin_and_fixed():
    rr = make_selector("rr", ["a", "b", "c"], (1.0, 1.0))
    rng = np.random.default_rng(0)
    assert [rr.select(rng) for _ in range(5)] == [0, 1, 2, 0, 1]
    fixed = make_selector("fixed", ["a", "b"], (1.0, 1.0), fixed="b")
    assert fixed.select(rng) == 1
    with pytest.raises(AELError, match="no arm named 'zzz'"):
        make_selector("fixed", ["a"], (1.0, 1.0), fixed="zzz")


def test_epsilon_greedy_exploits_the_best_mean_without_exploring():
    eg = make_selector("egreedy", ["a", "b"], (1.0, 1.0))
    eg.epsilon = 0.0
    eg.update(1, 1.0)
    assert eg.select(np.random.default_rng(0)) == 1


def test_the_oracle_plays_the_arm_it_is_told_and_never_grows_the_pool_itself():
    oracle = make_selector("oracle", ["a", "b"], (1.0, 1.0))
    assert oracle.select(np.random.default_rng(0), lambda: "b") == 1
    with pytest.raises(AELError, match="no arm named 'hidden'"):
        oracle.select(np.random.default_rng(0), lambda: "hidden")
    assert oracle.names() == ["a", "b"]


def test_the_session_admits_the_oracles_arm_from_outside_the_pool_before_choosing():
    from tests.conftest import new_session

    s = new_session(selector="oracle")  # synthetic: the hidden arm a10 is best in the last regime
    s.run()
    hidden = s.selector.arms[s.selector.index("a10")]
    assert "a10" in s.pool and hidden.added_at == 156 and s.history[156]["policy"] == "a10"


@pytest.mark.parametrize("text,expected", [
    ("ts", ("ts", False, None)), ("ts+reflection", ("ts", True, None)),
    ("fixed:none", ("fixed", False, "none")), ("oracle", ("oracle", False, None)),
])
def test_parse_selector(text, expected):
    assert parse_selector(text) == expected


@pytest.mark.parametrize("bad", ["thompson", "fixed:", "fixed", "+reflection", ""])
def test_unknown_selectors_are_refused_with_the_accepted_list(bad):
    with pytest.raises(AELError):
        parse_selector(bad)


@settings(max_examples=30)
@given(st.sampled_from(["ts", "ucb1", "egreedy", "rr"]), st.lists(st.floats(0, 1), max_size=30))
def test_selector_state_round_trips(kind, rewards):
    sel = make_selector(kind, ["a", "b", "c"], (1.0, 1.0))
    rng = np.random.default_rng(1)
    for r in rewards:
        sel.update(sel.select(rng), r)
    copy = Selector.from_dict(sel.to_dict())
    assert copy.to_dict() == sel.to_dict()
    assert type(copy) is type(sel)


@pytest.mark.parametrize("kind", ["ts", "ucb1", "egreedy", "rr"])
def test_a_skipped_arm_is_never_chosen(kind):
    sel = make_selector(kind, ["a", "b", "c"], (1.0, 1.0))
    sel.arms[1].alpha = 1e6  # "b" would win every Thompson draw
    rng = np.random.default_rng(3)
    for _ in range(60):
        i = sel.select(rng, skip=frozenset({"b"}))
        assert sel.arms[i].name != "b"
        sel.update(i, 0.5)


def test_skipping_an_arm_draws_the_same_numbers_from_the_generator():
    # suspending a code arm must not shift every later draw of the run
    skipped, plain = (make_selector("ts", ["a", "b", "c"], (1.0, 1.0)) for _ in range(2))
    r1, r2 = np.random.default_rng(9), np.random.default_rng(9)
    for _ in range(20):
        skipped.select(r1, skip=frozenset({"c"}))
        plain.select(r2)
    assert r1.random() == r2.random()


def test_when_every_arm_is_skipped_the_skip_is_ignored():
    sel = make_selector("ts", ["a"], (1.0, 1.0))
    assert sel.select(np.random.default_rng(0), skip=frozenset({"a"})) == 0


def test_thompson_draws_are_shown_but_are_not_learning_state():
    ts = make_selector("ts", ["a", "b"], (1.0, 1.0))
    before = ts.to_dict()
    ts.frozen = True  # no learning: a choice alone must leave the saved state as it was, but t
    ts.select(np.random.default_rng(3))
    assert set(ts.last_draws) == {"a", "b"} and all(0 <= x <= 1 for x in ts.last_draws.values())
    after = ts.to_dict()
    assert {**after, "t": 0} == {**before, "frozen": True} and "last" not in str(after)
