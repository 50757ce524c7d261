import pytest

from engine.session import Session, SessionConfig
from scenarios import make_scenario


def new_session(scenario: str = "synthetic", seed: int = 7, selector: str = "ts+reflection", **kw) -> Session:
    options = kw.pop("scenario_options", {})
    return Session(SessionConfig(scenario, seed, selector, **kw), make_scenario(scenario, seed, options))


@pytest.fixture
def session_factory():
    return new_session


@pytest.fixture(autouse=True, scope="session")
def _private_cache_dir(tmp_path_factory):
    """Caches that persist between processes (the support table) go to a folder of
    this test run, not the user's ~/.cache."""
    import os

    os.environ["AEL_LAB_CACHE_DIR"] = str(tmp_path_factory.mktemp("cache"))
