"""shuffled-reflection: each window's insight swapped for another window's, gate and timing unchanged."""

import json

import numpy as np
import pytest

from engine.errors import AELError
from engine.store.persistence import load_session, read_document, save_session
from engine.variants.shuffled import derangement
from scenarios import make_scenario
from tests.conftest import new_session

# module fixtures of whole runs: seconds before the first test (`make quick` leaves it out)
pytestmark = pytest.mark.heavy


def _run(variants=(), until=None, selector="ts+reflection"):
    s = new_session("portfolio", seed=42, selector=selector, variants=list(variants))
    s.run(until=until)
    return s


@pytest.fixture(scope="module")
def pair():
    return _run(), _run(["shuffled-reflection"])


def test_a_derangement_moves_every_item_and_is_seeded():
    for n in (2, 3, 10):
        order = derangement(n, np.random.default_rng(n))
        assert sorted(order) == list(range(n)) and all(i != j for i, j in enumerate(order))
    assert derangement(8, np.random.default_rng(1)) == derangement(8, np.random.default_rng(1))


def test_same_windows_other_content_and_the_agent_acts_differently(pair):
    plain, shuffled = pair
    v = shuffled.variants.get("shuffled-reflection")
    own = [(r.episode, r.insight) for r in plain.reflections if r.insight]
    # pass 1 is the plain run: the same insights at the same windows
    assert [(p["episode"], p["insight"]) for p in v.payloads] == own
    swapped = [r for r in shuffled.reflections if r.insight]
    assert [r.episode for r in swapped] == [e for e, _ in own]     # timing and gate unchanged
    assert v.swapped == len(swapped) >= 2
    for r in swapped:
        assert r.evidence["shuffled_from"] != r.episode              # never its own window's
    first = swapped[0].episode
    assert plain.history[:first + 1] == shuffled.history[:first + 1]  # identical until the first swap
    assert any(a["action"] != b["action"] for a, b in zip(plain.history, shuffled.history))


def test_it_saves_and_resumes_exactly(tmp_path, pair):
    _, whole = pair
    half = _run(["shuffled-reflection"], until=70)
    save_session(half, tmp_path / "s.json")
    assert "shuffled-reflection" in read_document(tmp_path / "s.json")["session"]["variants"]
    resumed = load_session(tmp_path / "s.json", make_scenario)
    resumed.run()
    assert resumed.history == whole.history


def test_a_saved_order_that_is_not_a_derangement_is_refused(tmp_path):
    s = _run(["shuffled-reflection"], until=5)
    save_session(s, tmp_path / "s.json")
    doc = json.loads((tmp_path / "s.json").read_text())
    order = doc["session"]["variants"]["shuffled-reflection"]["order"]
    doc["session"]["variants"]["shuffled-reflection"]["order"] = list(range(len(order)))
    (tmp_path / "s.json").write_text(json.dumps(doc))
    with pytest.raises(AELError, match="derangement"):
        load_session(tmp_path / "s.json", make_scenario)


def test_it_needs_reflection_and_is_refused_where_insights_do_nothing():
    with pytest.raises(AELError, match="needs a selector with \\+reflection"):
        new_session("portfolio", selector="ts", variants=["shuffled-reflection"])  # refused when built
    with pytest.raises(AELError, match="no meaning for the support"):
        new_session("support", variants=["shuffled-reflection"])


def test_a_model_agent_or_reflector_is_refused_in_one_line(capsys, monkeypatch):
    from ael_cli.main import main

    monkeypatch.setenv("GEMINI_API_KEY", "gm-test-key")
    for role in ("--agent", "--reflector"):
        assert main(["run", "portfolio", "--episodes", "5", "--quiet", "--variant", "shuffled-reflection",
                     role, "gemini"]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "offline only" in err
