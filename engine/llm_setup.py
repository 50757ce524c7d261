"""Which model (if any) plays the agent and which the reflector, for one session.

`LLMConfig` is plain data saved with the session (never a key); `LLMRuntime`
is what it builds: one usage ledger and at most one cassette shared by both
clients, so a run's calls, tokens, cost and fallbacks are in one place and a
recording holds every call of the run. `offline` builds no client at all:
nothing in the default path can open a socket.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from .errors import AELError
from .llm import Cassette, LLMClient, LLMSettings, UsageLedger
from .llm.settings import ERROR_POLICIES, PROVIDERS


@dataclass
class LLMConfig:
    agent: str = "offline"
    reflector: str = "offline"
    agent_model: str | None = None
    reflector_model: str | None = None
    error_policy: str = "raise"     # raise | fallback
    temperature: float = 0.3        # the paper's, for predictions and reflection
    timeout_s: float = 30.0
    max_retries: int = 3
    base_url: str | None = None     # overrides ANTHROPIC_BASE_URL / GOOGLE_GEMINI_BASE_URL / AEL_OPENAI_BASE_URL
    record: str | None = None       # cassette to write every request and response to
    replay: str | None = None       # cassette to answer from, with no network

    def __post_init__(self) -> None:
        for role in ("agent", "reflector"):
            if getattr(self, role) not in PROVIDERS:
                raise AELError(f"--{role}: {getattr(self, role)!r} is not one of {', '.join(PROVIDERS)}")
        if self.error_policy not in ERROR_POLICIES:
            raise AELError(f"--error-policy: {self.error_policy!r} is not one of {', '.join(ERROR_POLICIES)}")
        if self.record and self.replay:
            raise AELError("--record and --replay: choose one")

    @property
    def uses_llm(self) -> bool:
        return self.agent != "offline" or self.reflector != "offline"

    def settings(self, role: str) -> LLMSettings:
        return LLMSettings(
            provider=getattr(self, role), model=getattr(self, f"{role}_model"), temperature=self.temperature,
            timeout_s=self.timeout_s, max_retries=self.max_retries, error_policy=self.error_policy,
            base_url=self.base_url,
        )

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any] | None) -> "LLMConfig":
        return cls(**(d or {}))


def shared_cassette(config: LLMConfig) -> Cassette | None:
    """One cassette for all the sessions of a command (they record to, or replay
    from, one file)."""
    if not config.uses_llm:
        return None
    if config.replay:
        return Cassette.replay(config.replay)
    if config.record:
        return Cassette.record(config.record, save_every_s=1.0)
    return None


class LLMRuntime:
    """The clients of one session, built from its `LLMConfig`."""

    def __init__(self, config: LLMConfig, cassette: Cassette | None = None):
        self.config = config
        self.ledger = UsageLedger()
        # shared by every session of one command when given, else this session's own
        self.cassette = cassette if cassette is not None else shared_cassette(config)
        self.agent = self._client("agent")
        self.reflector = self._client("reflector")

    def _client(self, role: str) -> LLMClient | None:
        if getattr(self.config, role) == "offline":
            return None
        return LLMClient(self.config.settings(role), ledger=self.ledger, cassette=self.cassette)

    def describe(self) -> str:
        """For the status line: 'offline', or who plays which role."""
        if not self.config.uses_llm:
            return "offline"
        parts = []
        for role in ("agent", "reflector"):
            provider = getattr(self.config, role)
            model = getattr(self.config, f"{role}_model")
            parts.append(f"{role} {provider}{'/' + model if model else ''}")
        mode = " (replay)" if self.config.replay else " (recording)" if self.config.record else ""
        return ", ".join(parts) + mode

    def flush(self) -> None:
        if self.cassette is not None:
            self.cassette.flush()

    def summary(self) -> dict[str, Any]:
        """Calls, fallbacks, tokens and estimated cost, in total and per purpose
        (latency is left out: it differs run to run and results must not)."""
        def block(t) -> dict[str, Any]:
            return {"calls": t.calls, "fallbacks": t.fallbacks, "attempts": t.attempts,
                    "input_tokens": t.input_tokens, "output_tokens": t.output_tokens,
                    "cost_usd": round(t.cost_usd, 6)}

        return {**block(self.ledger.totals()),
                "by_purpose": {k: block(v) for k, v in sorted(self.ledger.by_purpose().items())}}
