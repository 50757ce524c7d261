"""The method contract: methods are registered classes, parsed from their text, with
typed options and state that round-trips through saves."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest

from engine.bandits import Selector, ThompsonSampling
from engine.errors import AELError
from engine.methods import METHODS, Method, method_help, parse_method, register_method
from engine.store.persistence import load_session, save_session
from engine.session import Session, SessionConfig
from scenarios import make_scenario


def test_every_selector_a_scenario_offers_is_a_registered_method():
    from scenarios import all_specs

    for spec in all_specs():
        for text in spec.selectors:
            assert parse_method(text).name in METHODS


@pytest.mark.parametrize("text", ["ts", "ts+reflection", "fixed:none", "egreedy(epsilon=0.05)+reflection"])
def test_a_method_prints_as_the_text_that_parses_to_it(text):
    assert parse_method(text).text == text


def test_method_options_are_typed_and_checked():
    assert parse_method("egreedy(epsilon=0.3)").make_selector(["a"], (1, 1)).epsilon == 0.3
    with pytest.raises(AELError, match="epsilon"):
        parse_method("egreedy(epsilon=2)")
    with pytest.raises(AELError, match="options: epsilon"):
        parse_method("egreedy(colour=red)")
    with pytest.raises(AELError, match="takes no argument"):
        parse_method("ts:none")


def test_an_unknown_method_lists_the_registered_ones():
    with pytest.raises(AELError) as err:
        parse_method("thompson")
    assert all(name in str(err.value) for name in METHODS)
    assert "fixed:POLICY" in method_help()


@dataclass
class _Greedy(ThompsonSampling):
    """A test method's selector with a learning field of its own."""

    kind: str = "test-greedy"
    choices: int = 0

    def choose(self, rng, oracle):
        self.choices += 1
        return int(np.argmax([a.mean for a in self.arms]))


class _GreedyMethod(Method):
    name = "test-greedy"
    summary = "the best posterior mean, no exploration (a test method)"
    selector_class = _Greedy

    def __init__(self, *args, **kw):
        super().__init__(*args, **kw)
        self.seen = 0

    def state_dict(self):
        return {"seen": self.seen}

    def load_state_dict(self, state):
        self.seen = state.get("seen", 0)


@pytest.fixture
def greedy():
    register_method(_GreedyMethod)
    yield _GreedyMethod
    METHODS.pop(_GreedyMethod.name)


def test_a_registered_method_runs_saves_and_resumes_exactly(greedy, tmp_path):
    config = SessionConfig(scenario="synthetic", seed=7, selector="test-greedy+reflection", approval="auto")
    s = Session(config, make_scenario("synthetic", 7))
    s.run(until=60)
    s.method.seen = 60
    save_session(s, tmp_path / "s.json")
    again = load_session(tmp_path / "s.json", make_scenario)
    assert isinstance(again.selector, _Greedy) and again.selector.choices == s.selector.choices == 60
    assert again.method.seen == 60 and again.reflector is not None
    s.run()
    again.run()
    assert again.history == s.history


def test_a_saved_selector_of_an_unknown_kind_is_refused():
    with pytest.raises(AELError, match="unknown selector kind"):
        Selector.from_dict({"kind": "nobody", "arms": []})


def test_a_comma_inside_an_option_list_does_not_separate_methods():
    from engine.methods import split_methods

    assert split_methods("ts, egreedy(epsilon=0.2,x=1)+reflection,oracle") == [
        "ts", "egreedy(epsilon=0.2,x=1)+reflection", "oracle"]


def test_a_bad_option_value_inside_a_selector_names_the_selector_and_the_option():
    with pytest.raises(AELError, match=r"^selector egreedy: epsilon: 3\.0 is outside 0\.\.1$"):
        parse_method("egreedy(epsilon=3)")
    with pytest.raises(AELError, match=r"^selector egreedy: epsilon: 'lots' is not a number$"):
        parse_method("egreedy(epsilon=lots)")
