"""Python-code retrieval policies in a session: only a person admits them, after both gates."""

import json

import pytest

from engine.errors import AELError
from engine.policies import PolicySpec
from engine.reflection import Reflection, ReflectorBase
from engine.session import Session
from scenarios import make_scenario
from tests.conftest import new_session

WINNERS = '''def retrieve(entries, query):
    same = [e for e in entries if e["metadata"].get("endpoint") == query.get("endpoint")]
    return same[-3:]
'''


class ProposesCode(ReflectorBase):
    """A reflector that proposes one code policy at its first chance."""

    name = "test-code"

    def __init__(self, code: str):
        self.code, self.done = code, False

    def should_reflect(self, ctx):
        return not self.done

    def reflect(self, ctx):
        self.done = True
        return Reflection(episode=ctx.episode, trigger="test", diagnosis="losing streak",
                          policy={"name": "winners", "tiers": ["episodic"], "k": 3, "code": self.code},
                          rationale="recall only what paid")

    # saved under a field the save schema knows for reflectors (when it proposed)
    def state_dict(self):
        return {"proposed_at": 0 if self.done else None}

    def load_state_dict(self, state):
        self.done = state.get("proposed_at") is not None


def session_with(code: str, **kw) -> Session:
    s = new_session("support", seed=42, selector="ts+reflection", episodes=120, **kw)
    s.reflector = ProposesCode(code)
    return s


def test_a_code_policy_waits_for_a_person_even_with_a_standing_rule():
    s = session_with(WINNERS, approval="manual")
    s.queue.set_standing("arm", "approve")
    s.run()
    [p] = s.queue.pending
    assert p.code and p.payload["code"] == WINNERS


def test_batch_mode_rejects_code_policies_unless_explicitly_allowed():
    s = session_with(WINNERS, approval="auto")
    s.run(until=41)
    assert s.queue.audit[0].who == "rule:code-needs-a-person" and "winners" not in s.pool
    allowed = session_with(WINNERS, approval="auto", allow_code_auto=True)
    allowed.run(until=41)
    assert "winners" in allowed.pool


def test_approved_code_runs_on_memory_and_survives_save_and_load(tmp_path):
    s = session_with(WINNERS, approval="manual")
    s.run()
    s.decide(s.queue.pending[0].id, "approve")
    spec = s.pool["winners"]
    hits = s.memory.retrieve(spec, {"endpoint": "/v1/batches"})
    assert 0 < len(hits) <= 3 and all(h.entry.metadata["endpoint"] == "/v1/batches" for h in hits)
    doc = json.loads(json.dumps(s.to_dict()))
    s.run()
    loaded = Session.from_dict(doc, make_scenario)
    loaded.reflector = ProposesCode(WINNERS)
    loaded.reflector.done = True
    assert loaded.run() == [] and "quarantined" in loaded.blocked_reason  # nothing runs before a person looks
    loaded.review_code_arm("winners", "admit")
    loaded.run()
    assert loaded.history == s.history


@pytest.mark.parametrize("code,reason", [
    ("import os\ndef retrieve(entries, query):\n    return entries\n", "import"),
    ("def retrieve(entries, query):\n    return ().__class__.__bases__\n", "_"),
    ("def retrieve(entries, query):\n    return eval('entries')\n", "eval"),
])
def test_an_edit_that_escapes_the_allow_list_is_refused_naming_the_field(code, reason):
    s = session_with(WINNERS, approval="manual")
    s.run()
    p = s.queue.pending[0]
    with pytest.raises(AELError, match="policy field 'code'") as err:
        s.decide(p.id, "edit", edited={**p.payload, "code": code})
    assert reason in str(err.value)
    assert p.status == "pending" and not s.queue.audit


def test_code_that_blows_up_is_stopped_by_the_smoke_test_and_stays_pending():
    bomb = "def retrieve(entries, query):\n    x = [[0] * 100000 for i in range(100000)]\n    return entries[:len(x) // 100000]\n"
    s = session_with(bomb, approval="manual")
    s.run()
    p = s.queue.pending[0]
    with pytest.raises(AELError):
        s.decide(p.id, "approve")
    assert p.status == "pending" and "winners" not in s.pool and not s.queue.audit


def test_policy_spec_checks_code_when_it_is_built():
    assert PolicySpec.from_dict({"name": "w", "tiers": ["episodic"], "code": WINNERS}).code == WINNERS
    with pytest.raises(AELError, match="'code'"):
        PolicySpec.from_dict({"name": "w", "code": "open('x')"})


def test_the_synthetic_world_refuses_an_arm_it_has_no_machine_for():
    s = new_session(approval="manual")
    s.run()
    p = s.queue.pending[0]
    with pytest.raises(AELError, match="no machine behind it"):
        s.decide(p.id, "edit", edited={"name": "a11"})
