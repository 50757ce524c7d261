"""A reflection that proposes the insight already in use says it renews it (issue 41 item 6).

Seen on support seed 42 with manual approvals (the insight approved after episode 919 and
its arm rejected: the reflector proposes the same insight again after 1079). Here a
reflector that says the same thing twice stands for it: the second proposal is a renewal,
and the dialog, the batch list and `ael-lab run --resume` call it so, not a new insight."""

from __future__ import annotations

import scenarios
from ael_tui.decisions.approval import proposal_line
from engine.approvals import RENEWS
from engine.reflection import Reflection
from engine.session import Session, SessionConfig


class SaysItAgain:
    name, trigger = "again", "test"

    def should_reflect(self, ctx) -> bool:
        return True

    def reflect(self, ctx) -> Reflection:
        return Reflection(ctx.episode, "test", "the same finding", insight="Pull a3.", regime_label="R1",
                          confidence=0.6)

    def rejected(self, kind: str, t: int) -> None:
        pass

    def state_dict(self) -> dict:
        return {}

    def load_state_dict(self, state) -> None:
        pass


def test_the_same_insight_again_is_a_renewal():
    s = Session(SessionConfig(scenario="synthetic", seed=42, approval="manual"),
                scenarios.make_scenario("synthetic", 42, {}))
    s.reflector = SaysItAgain()
    while not s.queue.pending:
        s.step()
    first = s.queue.pending[0]
    s.decide(first.id, "approve")
    while not s.queue.pending:
        s.step()
    again = s.queue.pending[0]
    assert RENEWS not in first.evidence and first.kind_name == "an insight"
    assert f"the insight in use since episode {first.episode + 1}" in again.evidence[RENEWS]
    assert again.kind_name == "a renewal of the insight in use"
    assert proposal_line(again).startswith(f"#{again.id} a renewal of the insight in use after episode")
    s.decide(again.id, "reject")
    while not s.queue.pending:
        s.step()
    assert RENEWS in s.queue.pending[0].evidence  # still in use: the rejected renewal changed nothing
