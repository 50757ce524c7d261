"""The answer to one `complete_json` call."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any


@dataclass(frozen=True)
class LLMResult:
    """A validated JSON object and what it took to get it.

    - `data`: the parsed object; it matches the call's schema.
    - `provider`, `model`: who answered (the configured ones, also when
      replayed from a cassette).
    - `input_tokens`, `output_tokens`, `cost_usd`: summed over every attempt
      of the call, failed ones included; the cost is an estimate from the
      settings' price table.
    - `latency_s`: wall time of the whole call, retries and waits included.
    - `attempts`: requests sent to the provider (0 when the fallback answered
      without any).
    - `fallback`: True when the caller's offline fallback answered because
      the model could not; `reason` then says why in one line.
    - `repaired`: True when the first reply was unusable (not JSON, or not
      the schema's shape) and the one repair round, which quotes the error
      back to the model, produced the answer.
    - `trimmed`: how the prompt was cut to fit the model's context ("" when
      it was not), e.g. "window_episodes 60→15 (~2700→~1400 tokens)".
    """

    data: Any
    provider: str
    model: str
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    latency_s: float = 0.0
    attempts: int = 0
    fallback: bool = False
    reason: str = ""
    purpose: str = ""
    request_hash: str = ""
    repaired: bool = False
    trimmed: str = ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)
