"""skills: distilled from successful episodes, gated, pruned, and used by the agent."""

import pytest

from engine.store.persistence import load_session, read_document, save_session
from engine.scenario import AgentContext
from engine.variants.skills import Skills
from engine.variants import AgentView
from scenarios import make_scenario
from tests.conftest import new_session

# module fixtures of whole runs: seconds before the first test (`make quick` leaves it out)
pytestmark = pytest.mark.heavy


@pytest.fixture(scope="module")
def pair():
    plain = new_session("portfolio", seed=42, selector="ts+reflection")
    plain.run()
    skilled = new_session("portfolio", seed=42, selector="ts+reflection", variants=["skills"])
    skilled.run()
    return plain, skilled


def test_skills_are_distilled_used_and_change_what_the_agent_does(pair):
    plain, skilled = pair
    v = skilled.variants.get("skills")
    kinds = {s["kind"] for s in v.skills} | {p["key"].split(":")[0] for p in v.pruned}
    assert "playbook" in kinds and any(s["kind"] == "tool" for s in v.skills)
    assert sum(s["uses"] for s in v.skills) > 0
    used = [r for r in skilled.history if r.get("variant", {}).get("notes")]
    assert used  # the agent was shown skills on these bars ...
    first = used[0]["episode"]
    assert plain.history[:first] == skilled.history[:first]       # ... and nothing differed before
    assert skilled.history[first]["action"] != plain.history[first]["action"]  # the first use changed it


class _Q:
    def __init__(self, episode, regime):
        self.episode, self.metadata = episode, {"regime": regime}


class _S:
    slow_window, warmup, frozen = 4, 0, False


def _ctx():
    return AgentContext(policy=None, hits=[], rules=[], insight=None, memory=None, rng=None, view=AgentView())


def test_a_playbook_applies_on_its_label_only_and_the_gate_and_pruning_hold():
    v = Skills()
    v.skills = [{"kind": "playbook", "key": "playbook:bearish", "label": "bearish", "trust": ["a"], "shrink": ["b"],
                 "text": "When regime=bearish, trust a; shrink b.", "created_at": 0, "refreshed_at": 0,
                 "uses": 0, "successes": 0}]
    ctx = _ctx()
    v.agent_context(_S(), _Q(1, "bullish"), ctx)
    assert ctx.view.tool_prior == {} and v.applied == []
    ctx = _ctx()
    v.agent_context(_S(), _Q(1, "bearish"), ctx)
    assert ctx.view.tool_prior == {"a": (6.0, 0.0), "b": (0.0, 6.0)} and ctx.view.notes
    skill = v.skills[0]
    skill.update(uses=10, successes=4)          # 0.40 <= 0.45: closed by the gate
    ctx = _ctx()
    v.agent_context(_S(), _Q(1, "bearish"), ctx)
    assert ctx.view.tool_prior == {}
    skill.update(uses=10, successes=5)          # 0.50 > 0.45: open again
    v._prune(5)
    assert v.skills                             # fewer than 20 uses: never pruned
    skill.update(uses=20, successes=11)         # 0.55 < 0.6 at 20 uses: pruned
    v._prune(6)
    assert v.skills == [] and v.pruned[0]["key"] == "playbook:bearish"


def test_skills_save_and_resume_exactly(tmp_path, pair):
    _, whole = pair
    half = new_session("portfolio", seed=42, selector="ts+reflection", variants=["skills"])
    half.run(until=97)
    save_session(half, tmp_path / "s.json")
    assert read_document(tmp_path / "s.json")["session"]["variants"]["skills"]["skills"]
    resumed = load_session(tmp_path / "s.json", make_scenario)
    resumed.run()
    assert resumed.history == whole.history
    assert resumed.variants.get("skills").state_dict() == whole.variants.get("skills").state_dict()


def test_a_saved_skill_with_more_successes_than_uses_is_refused(tmp_path):
    import json

    from engine.errors import AELError

    s = new_session("portfolio", seed=42, selector="ts+reflection", variants=["skills"])
    s.run(until=60)
    save_session(s, tmp_path / "s.json")
    doc = json.loads((tmp_path / "s.json").read_text())
    skill = doc["session"]["variants"]["skills"]["skills"][0]
    skill["successes"] = skill["uses"] + 1
    (tmp_path / "s.json").write_text(json.dumps(doc))
    with pytest.raises(AELError, match="variants.skills"):
        load_session(tmp_path / "s.json", make_scenario)
