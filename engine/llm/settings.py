"""What an LLM client is configured with, and what its calls are estimated to cost.

Settings are plain data so a session can save them; an API key is never part
of the saved form (`to_dict` leaves it out) and is normally read from the
environment when the provider is first used.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, Mapping

from ..errors import AELError

PROVIDERS = ("anthropic", "gemini", "openai-compatible", "local", "offline")
ERROR_POLICIES = ("raise", "fallback")
DEFAULT_MODELS = {
    "anthropic": "claude-haiku-4-5",
    "gemini": "gemini-2.5-flash-lite",
    "local": "SmolLM2-135M-Instruct",   # bundled with the local extra (engine/llm/local_model.py)
    "offline": "offline",
}

# USD per million tokens (input, output). These are ESTIMATES copied from the
# providers' public price pages when this table was written; prices change and
# discounts (batch, caching) are ignored, so `cost_usd` is a guide, not a bill.
# A model is priced by the longest key that prefixes its name, so a dated
# snapshot ("claude-haiku-4-5-20251001") is priced as its family.
DEFAULT_PRICES: dict[str, tuple[float, float]] = {
    "claude-haiku-4-5": (1.00, 5.00),
    "claude-sonnet-4-5": (3.00, 15.00),
    "claude-opus-4-1": (15.00, 75.00),
    "gemini-2.5-flash-lite": (0.10, 0.40),
    "gemini-2.5-flash": (0.30, 2.50),
    "gemini-2.0-flash-lite": (0.075, 0.30),
    "gpt-4o-mini": (0.15, 0.60),
    "SmolLM2": (0.0, 0.0),
    "offline": (0.0, 0.0),
}


@dataclass(frozen=True)
class LLMSettings:
    """How to call a model.

    - `provider`: anthropic, gemini, openai-compatible, local (a GGUF model run
      by llama-cpp-python in a child process) or offline.
    - `model`: None means the provider's default (`DEFAULT_MODELS`; for
      openai-compatible, `AEL_OPENAI_MODEL`).
    - `temperature`: sent to Gemini and OpenAI-compatible servers. Not sent to
      Anthropic: its SDK 2.x / API version 2026-10-21 rejects sampling
      parameters. It is still part of the recorded request.
    - `max_retries`: extra attempts after a 429, 5xx, timeout, connection
      error or unreadable reply; the wait doubles from `backoff_base_s`, or is
      the server's Retry-After, and never exceeds `backoff_max_s` (a longer
      Retry-After is announced and cut to it).
    - `max_reply_bytes`: a reply longer than this is unreadable, like a 5xx.
    - `context_tokens`: the model's context window (`--llm-context`); None:
      what the server reports, else the provider's window, else 2,048
      (`context.py`). Prompts are trimmed to fit it with room for the answer.
    - `breaker_failures`, `breaker_cooldown_calls`, `breaker_cooldown_s`: the
      circuit breaker (`breaker.py`): after that many failed calls in a row,
      stop calling for that many calls (fallback) or seconds (raise), then probe.
    - `error_policy`: `raise` turns a failed call into an `AELError`;
      `fallback` answers it with the caller's offline fallback instead.
    - `base_url`: overrides the provider's URL (else ANTHROPIC_BASE_URL,
      GOOGLE_GEMINI_BASE_URL, AEL_OPENAI_BASE_URL).
    - `api_key`: normally None (read from the environment); never saved.
    - `prices`: USD per Mtok (input, output) by model prefix; an estimate.
    """

    provider: str = "offline"
    model: str | None = None
    temperature: float = 0.3
    max_tokens: int = 1024
    timeout_s: float = 30.0
    max_retries: int = 3
    backoff_base_s: float = 1.0
    backoff_max_s: float = 30.0
    max_reply_bytes: int = 256 * 1024
    context_tokens: int | None = None
    breaker_failures: int = 5
    breaker_cooldown_calls: int = 20
    breaker_cooldown_s: float = 30.0
    error_policy: str = "raise"
    base_url: str | None = None
    api_key: str | None = field(default=None, repr=False, compare=False)
    prices: Mapping[str, tuple[float, float]] = field(default_factory=lambda: dict(DEFAULT_PRICES))

    def __post_init__(self) -> None:
        if self.provider not in PROVIDERS:
            raise AELError(f"llm provider {self.provider!r}: not one of {', '.join(PROVIDERS)}")
        if self.error_policy not in ERROR_POLICIES:
            raise AELError(f"llm error_policy {self.error_policy!r}: not one of {', '.join(ERROR_POLICIES)}")
        _check_range("temperature", self.temperature, 0.0, 2.0)
        _check_range("max_tokens", self.max_tokens, 1, 200_000)
        _check_range("timeout_s", self.timeout_s, 0.01, 3600.0)
        _check_range("max_retries", self.max_retries, 0, 10)
        _check_range("backoff_base_s", self.backoff_base_s, 0.0, 600.0)
        _check_range("backoff_max_s", self.backoff_max_s, 0.0, 3600.0)
        _check_range("max_reply_bytes", self.max_reply_bytes, 1, 64 * 1024 * 1024)
        if self.context_tokens is not None:
            _check_range("context_tokens", self.context_tokens, 256, 100_000_000)
        _check_range("breaker_failures", self.breaker_failures, 1, 1000)
        _check_range("breaker_cooldown_calls", self.breaker_cooldown_calls, 0, 1_000_000)
        _check_range("breaker_cooldown_s", self.breaker_cooldown_s, 0.0, 86400.0)

    def resolved_model(self, env: Mapping[str, str]) -> str:
        """The model a request will name; raises `AELError` if none is known."""
        if self.model:
            return self.model
        if self.provider == "openai-compatible":
            model = env.get("AEL_OPENAI_MODEL", "")
            if not model:
                raise AELError("llm provider openai-compatible: no model; give --agent-model / --reflector-model "
                               "or set AEL_OPENAI_MODEL")
            return model
        return DEFAULT_MODELS[self.provider]

    def cost_usd(self, model: str, input_tokens: int, output_tokens: int) -> float:
        """Estimated cost of a call; 0.0 for a model the price table lacks."""
        price = self.price_of(model)
        if price is None:
            return 0.0
        return (input_tokens * price[0] + output_tokens * price[1]) / 1_000_000

    def price_of(self, model: str) -> tuple[float, float] | None:
        keys = [k for k in self.prices if model.startswith(k)]
        return tuple(self.prices[max(keys, key=len)]) if keys else None  # type: ignore[return-value]

    def to_dict(self) -> dict[str, Any]:
        """The saveable form: everything but the API key."""
        d = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "api_key"}
        d["prices"] = {k: list(v) for k, v in self.prices.items()}
        return d

    @classmethod
    def from_dict(cls, raw: Any) -> "LLMSettings":
        """Rebuild settings saved by `to_dict`; raises `AELError` naming a bad field."""
        if not isinstance(raw, dict):
            raise AELError("llm settings: expected a JSON object")
        known = {f.name for f in fields(cls)} - {"api_key"}
        unknown = sorted(set(raw) - known)
        if unknown:
            raise AELError(f"llm settings field {unknown[0]!r}: unknown field")
        d = dict(raw)
        if "prices" in d:
            d["prices"] = _prices(d["prices"])
        try:
            return cls(**d)
        except TypeError as exc:  # a wrongly typed value reached a comparison
            raise AELError(f"llm settings: {exc}") from None


def _check_range(name: str, value: Any, lo: float, hi: float) -> None:
    ok_type = isinstance(value, (int, float)) and not isinstance(value, bool)
    if isinstance(lo, int) and isinstance(hi, int):
        ok_type = isinstance(value, int) and not isinstance(value, bool)
    if not ok_type or not lo <= value <= hi:
        raise AELError(f"llm settings field {name!r}: {value!r} is not a number in {lo}..{hi}")


def _prices(raw: Any) -> dict[str, tuple[float, float]]:
    if not isinstance(raw, dict):
        raise AELError("llm settings field 'prices': expected {model: [usd_per_mtok_in, usd_per_mtok_out]}")
    out = {}
    for model, pair in raw.items():
        if (not isinstance(pair, (list, tuple)) or len(pair) != 2
                or not all(isinstance(p, (int, float)) and not isinstance(p, bool) and p >= 0 for p in pair)):
            raise AELError(f"llm settings field 'prices': {model!r} needs two non-negative numbers")
        out[str(model)] = (float(pair[0]), float(pair[1]))
    return out
