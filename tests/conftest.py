import os
from pathlib import Path

import pytest

from engine.session import Session, SessionConfig
from scenarios import make_scenario
from tests.unit.test_kinds import KINDS, kind_of


def new_session(scenario: str = "synthetic", seed: int = 7, selector: str = "ts+reflection", **kw) -> Session:
    """A session as the lab and the CLI build it: its world's options are in its config too,
    so it saves and loads again."""
    options = dict(kw.pop("scenario_options", {}))
    return Session(SessionConfig(scenario, seed, selector, scenario_options=dict(options), **kw),
                   make_scenario(scenario, seed, options))


@pytest.fixture
def session_factory():
    return new_session


@pytest.fixture(autouse=True, scope="session")
def _private_cache_dir(tmp_path_factory):
    """Caches that persist between processes (the support table) go to a folder of
    this test run, not the user's ~/.cache; the key that signs them too, outside it."""
    import os

    os.environ["AEL_LAB_CACHE_DIR"] = str(tmp_path_factory.mktemp("cache"))
    os.environ["AEL_LAB_PLUGIN_CACHE"] = str(tmp_path_factory.mktemp("plugin-cache"))  # engine/verdict_cache.py
    os.environ["AEL_LAB_CACHE_KEY"] = str(tmp_path_factory.mktemp("cache-key") / "cache.key")


# Textual's animations (scrolling, notifications fading, a dialog's fade) draw frames no test
# looks at: a sixth of the lab tests' CPU (test_tui_lab.py: 104 s of user time against 85 s with
# them off, 2026-11-28). Set before any app starts, so the labs the tests start in tmux, in
# served sessions and in child processes inherit it; what a test reads is each screen's end state.
# A pytest plugin (textual's snapshots) has read the variable already: apps in this process read
# the constant when they start.
os.environ.setdefault("TEXTUAL_ANIMATIONS", "none")
import textual.constants  # noqa: E402

textual.constants.TEXTUAL_ANIMATIONS = os.environ["TEXTUAL_ANIMATIONS"]  # type: ignore[misc]


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


def pytest_collection_finish(session):
    """The garbage collector's full collections were a fifth of a lab test's time (a
    quarter of a second each, walking every object the process holds). What collection
    imported (Textual, pandas, scikit-learn, every test module) lives to the end of the
    run: out of the collector's sight. And a full collection comes after 100 collections
    of the middle generation instead of 10: the cycles a test leaves (an app, a session)
    wait a little longer to be freed. Behaviour is the same; only the test process's
    collector is tuned (a lab in its own process tends its heap itself: LabSettings.tends_heap)."""
    import gc

    gc.collect()
    gc.freeze()
    young, middle, _ = gc.get_threshold()
    gc.set_threshold(young, middle, 100)


# ------------------------------------------------------------------ make quick
TESTS = Path(__file__).parent
UNIT = TESTS / "unit"


def pytest_addoption(parser):
    parser.addoption("--quick", action="store_true",
                     help="the one-minute loop: tests/unit only, one case per parametrized test, "
                          "no `heavy` ones (tests/unit/test_kinds.py says what each folder holds)")


def pytest_configure(config):
    config.addinivalue_line("markers", "heavy: seconds on its own; `make quick` leaves it out, `make test` runs it")


def pytest_ignore_collect(collection_path, config):
    """Under --quick the other kinds' folders are not even entered (Textual, the server's
    clients and the rest cost seconds to import in every worker), nor a module not yet
    moved out of tests/ into its kind's folder (test_kinds fails on it until it is)."""
    if not config.getoption("--quick") or collection_path.parent != TESTS:
        return None
    other_kind = collection_path.is_dir() and collection_path.name in KINDS and collection_path != UNIT
    loose_module = collection_path.suffix == ".py" and collection_path.name.startswith("test_")
    return other_kind or loose_module or None


def module_kind(path: Path, marks: set[str]) -> str:
    """The kind a module's folder says; read from its source only for one still at tests/."""
    if path.parent.parent == TESTS and path.parent.name in KINDS:
        return path.parent.name
    return kind_of(path, marks)


# the order `make test` hands modules to its workers (--no-loadscope-reorder): the long ones
# first, so the run does not end with one worker on a long module while the others have
# nothing left. The served modules hold the longest after the model's (a class of forty
# visitors, a teacher's tour: 40-50 s each), the lab's are many but shorter
LONG_FIRST = {"model": 0, "served": 1, "lab": 2, "process": 3, "unit": 4}


def pytest_collection_modifyitems(config, items):
    if not config.getoption("--quick"):
        rank: dict[Path, int] = {}
        for item in items:
            path = Path(str(item.fspath))
            if path not in rank:
                rank[path] = LONG_FIRST[module_kind(path, {m.name for m in item.iter_markers()})]
        items.sort(key=lambda item: rank[Path(str(item.fspath))])  # stable: a module's order is kept
        return

    seen: set[tuple[str, str]] = set()
    keep, drop = [], []
    for item in items:
        path = Path(str(item.fspath))
        family = (str(path), getattr(item, "originalname", item.name))
        # a module outside tests/unit is here only when named on the command line
        if path.parent != UNIT or item.get_closest_marker("heavy") or family in seen:
            drop.append(item)
        else:
            seen.add(family)
            keep.append(item)
    items[:] = keep
    config.hook.pytest_deselected(items=drop)
