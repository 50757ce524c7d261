"""`fixed:POLICY+reflection`: the paper's single fixed policy with reflection (digest §7, §10):
the bandit is bypassed, the reflection's insights are applied, no arm is ever injected."""

import pytest

from engine.methods import parse_method
from tests.conftest import new_session


def _run(selector: str, episodes: int = 120):
    s = new_session("portfolio", seed=42, selector=selector, episodes=episodes)
    s.run()
    return s


def test_it_parses_and_prints_back():
    m = parse_method("fixed:compressed+reflection")
    assert m.reflection and m.arg == "compressed" and not m.injects_arms
    assert m.text == "fixed:compressed+reflection"


@pytest.mark.heavy
def test_one_policy_every_episode_with_insights_and_no_new_arm():
    plain, refl = _run("fixed:compressed"), _run("fixed:compressed+reflection")
    # (warm-up plays `none` with no retrieval for every selector, as the reference does)
    assert {r["policy"] for r in refl.history if r["phase"] != "warmup"} == {"compressed"}
    assert list(refl.pool) == list(plain.pool)          # nothing injected
    assert refl.injections == [] and refl.reflections   # it did reflect
    seen = [r["episode"] for r in refl.history if r["info"]["insight_seen"]]
    assert seen, "an insight reached the agent"
    # and it changed what the agent did: the allocation differs on some bar where it saw one
    assert any(refl.history[t]["action"] != plain.history[t]["action"] for t in seen)
    assert not any(r["info"]["insight_seen"] for r in plain.history)


def test_a_proposed_arm_is_dropped_and_audited_not_injected():
    s = new_session("support", seed=42, selector="fixed:compressed+reflection", episodes=1000)
    s.run()
    assert "route_aware" not in s.pool and s.injections == []
    dropped = [a for a in s.queue.audit if a.decision == "drop"]
    assert dropped and "no arm is injected" in dropped[0].reason
    assert {r["policy"] for r in s.history if r["phase"] != "warmup"} == {"compressed"}
