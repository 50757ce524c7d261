"""task-procedural: rules injected only when task, regime label and held sector match."""

import numpy as np
import pytest

from engine.memory import MemoryEntry
from engine.store.persistence import load_session, save_session
from engine.variants.procedural import held_sectors, matches
from scenarios import make_scenario
from tests.conftest import new_session

# module fixtures of whole runs: seconds before the first test (`make quick` leaves it out)
pytestmark = pytest.mark.heavy


def _rule(regime="bearish", sector=None, task="portfolio_allocation"):
    return MemoryEntry(id=1, tier="procedural", content="RULE", episode=0, quality=1.0,
                       metadata={"task_type": task, "regime": regime, "sector": sector, "tool": "compute_momentum"})


def test_a_rule_matches_on_task_label_and_a_held_sector():
    held = {"Technology"}
    assert matches(_rule(), "portfolio_allocation", "bearish", held)                  # pooled: any sector
    assert not matches(_rule(), "portfolio_allocation", "bullish", held)              # other label
    assert not matches(_rule(task="support"), "portfolio_allocation", "bearish", held)
    assert matches(_rule(sector="Technology"), "portfolio_allocation", "bearish", held)
    assert not matches(_rule(sector="Energy"), "portfolio_allocation", "bearish", held)


def test_held_means_above_the_equal_share_of_what_is_invested():
    sectors = ("A", "A", "B", "C")
    assert held_sectors(np.array([0.3, 0.3, 0.1, 0.1]), sectors) == {"A"}
    assert held_sectors(np.array([0.2, 0.2, 0.2, 0.2]), sectors) == set()
    assert held_sectors(np.zeros(4), sectors) == set()


@pytest.fixture(scope="module")
def runs():
    out = {}
    for key, variants in (("plain", []), ("task", ["task-procedural"]), ("global", ["task-procedural=global"])):
        s = new_session("portfolio", seed=42, selector="ts+reflection", variants=variants)
        s.run()
        out[key] = s
    return out


@pytest.mark.parametrize("arm", ["task", "global"])
def test_each_arm_changes_what_the_agent_does(runs, arm):
    plain, other = runs["plain"], runs[arm]
    assert any(a["action"] != b["action"] for a, b in zip(plain.history, other.history))


def test_the_task_arm_withholds_rules_the_default_would_give_and_global_gives_all(runs):
    task = runs["task"].variants.get("task-procedural").last
    assert task["injected"] <= task["rules"]
    g = runs["global"].variants.get("task-procedural").last
    assert g["injected"] == g["rules"]


def test_it_resumes_exactly(tmp_path, runs):
    half = new_session("portfolio", seed=42, selector="ts+reflection", variants=["task-procedural"])
    half.run(until=120)
    save_session(half, tmp_path / "s.json")
    resumed = load_session(tmp_path / "s.json", make_scenario)
    resumed.run()
    assert resumed.history == runs["task"].history
