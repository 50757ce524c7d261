"""The prior methods' critic as an LLM call: the same client, parsing and fallback as AEL's reflector.

The world writes the prompt (the facts of the episode the deterministic critic
read, and what the method asks: Reflexion's one-sentence critique, ExpeL's
reusable lesson, Meta-Reflexion's observation) and the JSON schema of the
answer. `LLMClient.complete_json` retries, repairs once and, when the model
cannot answer, returns the deterministic record as the fallback answer, so a
dead endpoint degrades to the offline method, as AEL's reflector does. The
answer is untrusted: the world keeps only names it knows (`from_answer`).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # only a type: offline runs never load the LLM client
    from ..llm import LLMClient


def critic_messages(method: str, beside: str, rule: str, ask: str, what: str,
                    facts: dict[str, Any]) -> list[dict[str, str]]:
    """The critic's prompt: who it is (`method`, `beside` which agent), the one rule on names
    (`rule`), what it is asked (`ask`) and the facts of `what` just happened."""
    system = (f"You are the self-critique step of {method}, a prior method beside {beside}. {rule} "
              "Answer with one JSON object.")
    return [{"role": "system", "content": system},
            {"role": "user", "content": f"{ask}\nFacts of {what}:\n{json.dumps(facts)}"}]


def llm_record(client: "LLMClient", world, record: dict[str, Any], purpose: str, method: str) -> dict[str, Any]:
    """`record` rewritten by the model (or the record itself, marked, when the fallback answered)."""
    messages = world.critic_messages(record, method)
    result = client.complete_json(messages, world.critic_schema, purpose=purpose,
                                  fallback=lambda _m, _s: world.critic_answer(record))
    if result.fallback:
        return {**record, "source": "fallback"}
    return {**world.from_answer(record, result.data), "source": "llm"}
