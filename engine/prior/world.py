"""What a world supplies to the prior methods: the deterministic critic and the agent channel.

A scenario that offers prior methods returns one `PriorWorld` from
`Scenario.prior_world()` (a new one per session; it keeps no learning state).
The methods are world-independent: they store the critic's records, count,
distil and retrieve through the calls below, and hand what they show back to
the world, which the scenario's agent reads (`AgentContext.prior`).

Records are JSON-ready dicts. Every record has at least:
  episode, text (what a person and an LLM agent read), success (the method's
  label), label (the lagged regime label the agent may know), keys (what
  ExpeL-style retrieval matches: e.g. {"label": ..., "sector": ...}).
Directives are short tuples of strings a world defines (("trust", tool),
("endpoint", "/v1/x", "billing")); they are what rules are made of.
"""

from __future__ import annotations

from typing import Any, Protocol


class PriorWorld(Protocol):
    name: str

    def record(self, t: int, query, outcome, label: str) -> dict[str, Any]:
        """The deterministic critic's record of episode t, after its outcome (digest §9, §10);
        `label` says what success means (engine.prior.base.LABELS)."""

    def directives(self, record: dict[str, Any]) -> list[tuple]:
        """What a record says to do, as directives (for rules and the agent channel)."""

    def condition(self, directive: tuple) -> tuple:
        """What a directive is about (("tool", k) for trust and distrust of k): two directives
        with one condition contradict each other."""

    def similarity(self, keys: dict[str, Any], record: dict[str, Any]) -> float:
        """Text overlap of the episode about to be played (its `query_keys`) with a record, in [0, 1]."""

    def directive_text(self, directive: tuple) -> str:
        """A directive as a rule's text ("RULE: trust momentum")."""

    def fires(self, directive: tuple, query) -> bool:
        """Whether a rule with this directive bears on this query (its application)."""

    def query_keys(self, query) -> dict[str, Any]:
        """The keys of the episode about to be played, for retrieval (e.g. the lagged label)."""

    def record_line(self, record: dict[str, Any]) -> str:
        """A record as one prompt line (a lesson, a critique)."""

    # the LLM critic (engine/prior/llm_critic.py)
    critic_schema: dict[str, Any]

    def critic_messages(self, record: dict[str, Any], method: str) -> list[dict[str, str]]:
        """The prompt asking a model for this record's critique, with the facts it rests on."""

    def critic_answer(self, record: dict[str, Any]) -> dict[str, Any]:
        """The deterministic record as the schema's answer (the fallback)."""

    def from_answer(self, record: dict[str, Any], answer: dict[str, Any]) -> dict[str, Any]:
        """The record with a model's answer in it; names it does not know are dropped."""
