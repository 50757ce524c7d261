import pytest

from engine.session import Session, SessionConfig
from scenarios import make_scenario


def new_session(scenario: str = "synthetic", seed: int = 7, selector: str = "ts+reflection", **kw) -> Session:
    options = kw.pop("scenario_options", {})
    return Session(SessionConfig(scenario, seed, selector, **kw), make_scenario(scenario, seed, options))


@pytest.fixture
def session_factory():
    return new_session
