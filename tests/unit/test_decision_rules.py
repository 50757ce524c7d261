"""Decision rules are the engine's: an unchanged edit is an approval, and a standing
rule is set by the decision that asks for it, once that decision went through."""

from tests.conftest import new_session


def _pending(s):
    s.run()
    return s.queue.pending[0]


def test_an_edit_that_changes_nothing_is_recorded_as_an_approval():
    s = new_session(approval="manual")
    p = _pending(s)
    s.decide(p.id, "edit", edited=dict(p.payload), reason="fine as it is")
    entry = s.queue.audit[-1]
    assert (entry.decision, p.status, entry.reason) == ("approve", "approved", "fine as it is")


def test_a_standing_approval_sets_the_rule_and_approves_with_a_reason():
    s = new_session(approval="manual")
    p = _pending(s)
    s.decide(p.id, "approve", standing=True)
    assert s.queue.standing == {p.kind: "approve"}
    assert "always approve" in s.queue.audit[-1].reason and "a10" in s.pool
