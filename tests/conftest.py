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


@pytest.fixture
def gemini(monkeypatch):
    """A fake Gemini on 127.0.0.1 (tests/fake_llm_server.py, "echo" mode) with a test key, and
    no other provider's credentials in the environment: `--reflector gemini` talks to it."""
    from tests.fake_llm_server import FakeLLMServer

    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "GOOGLE_API_KEY", "GOOGLE_GENAI_USE_VERTEXAI"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("GEMINI_API_KEY", "gm-test-key")
    with FakeLLMServer("echo") as server:
        monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", server.url)
        yield server
