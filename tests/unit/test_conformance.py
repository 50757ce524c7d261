"""Every registered scenario, method and variant passes the public conformance checks
(ael_tui/extension_checks.py): parametrized over the registries, so a new extension gets
these tests by being registered."""

from __future__ import annotations

import importlib

import pytest

import scenarios
from ael_tui.extension_checks import check_method, check_scenario, check_variant
from engine.conformance import ConformanceError, check_resume
from engine.methods import METHODS
from engine.session import Session, SessionConfig
from engine.variants.session_variants import variant_names


@pytest.fixture(scope="module")
def news_data(tmp_path_factory) -> str:
    """The news world reads a corpus folder (the real one is a download): the tests' own."""
    from tests.news_corpus import write_corpus

    return str(write_corpus(tmp_path_factory.mktemp("news")))


def sample_options(name: str, request) -> dict | None:
    """What a world that needs data given to it runs on: its own sample (`sample_data` on its
    spec), or, for news, whose sample generator belongs to the tests, the tests' corpus."""
    if name == "news":
        return {"data": request.getfixturevalue("news_data")}
    maker = scenarios.spec_of(name).sample_data
    if not maker:
        return None
    module, _, function = maker.partition(":")
    return getattr(importlib.import_module(module), function)(request.getfixturevalue("tmp_path"))


@pytest.mark.parametrize("name", scenarios.scenario_names())
def test_every_registered_scenario_conforms(name, request):
    check_scenario(name, options=sample_options(name, request))


@pytest.mark.parametrize("name", list(METHODS))
def test_every_registered_method_conforms(name):
    check_method(name)


@pytest.mark.parametrize("name", variant_names())
def test_every_registered_variant_conforms(name):
    check_variant(name)


def test_the_resume_check_catches_state_that_is_not_saved():
    """The check can fail: a world whose state is left out of its save resumes differently."""
    from tests.ext_world.scenario import UrnScenario

    class Forgetful(UrnScenario):
        def state_dict(self):
            return {"red": [30] * 3, "blue": [30] * 3}   # always the start: what was drawn is lost

    scenarios.register("urns", "tests.ext_world.spec")
    try:
        config = SessionConfig(scenario="urns", seed=2, selector="ts", approval="auto")
        with pytest.raises(ConformanceError, match=r"saved at episode \d+ and resumed, its '\w+' differs"):
            check_resume("urns", config, lambda name, seed, options: Forgetful(seed, **options))
    finally:
        scenarios.unregister("urns")


def test_the_time_travel_check_catches_a_rewind_that_is_not_the_run():
    """The check can fail: a session whose rewind loses its generator's state goes on to another run."""
    import numpy as np

    from engine.conformance import check_time_travel

    class Drifting(Session):
        def rewind_to(self, n: int) -> None:
            super().rewind_to(n)
            self.rng = np.random.default_rng(12345)  # what a rewind that forgot the generator would do

    config = SessionConfig(scenario="synthetic", seed=2, selector="ts", approval="auto")
    session = Drifting(config, scenarios.make_scenario("synthetic", 2, {}))
    session.run(until=120)
    with pytest.raises(ConformanceError, match=r"rewound to episode 60 and run on to 120, its '\w+' differs"):
        check_time_travel("drifting", session, 60, scenarios.make_scenario)
