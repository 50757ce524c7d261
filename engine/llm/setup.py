"""Which model (if any) plays the agent and which the reflector, for one session.

`LLMConfig` is plain data saved with the session (never a key); `LLMRuntime`
is what it builds: one usage ledger and at most one cassette shared by both
clients, so a run's calls, tokens, cost and fallbacks are in one place and a
recording holds every call of the run. `offline` builds no client at all:
nothing in the default path can open a socket.
"""

from __future__ import annotations

from collections import deque
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any, Callable

from ..errors import AELError
from . import local_model
from .ledger import UsageLedger
from .settings import DEFAULT_MODELS, ERROR_POLICIES, PROVIDERS, LLMSettings

if TYPE_CHECKING:  # imported where used: an offline session builds neither (and they need pydantic)
    from .cassette import Cassette
    from .client import LLMClient


LOCAL_TIMEOUT_S = 120.0  # per local call unless --llm-timeout says otherwise (a busy 2-core machine)


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
    context_tokens: int | None = None  # the model's context window (--llm-context); None: asked or default

    def __post_init__(self) -> None:
        for role in ("agent", "reflector"):
            if getattr(self, role) not in PROVIDERS:
                raise AELError(f"--{role}: {getattr(self, role)!r} is not one of {', '.join(PROVIDERS)}")
        if self.error_policy not in ERROR_POLICIES:
            raise AELError(f"--error-policy: {self.error_policy!r} is not one of {', '.join(ERROR_POLICIES)}")
        if self.record and self.replay:
            raise AELError("--record and --replay: choose one")

    def check_local(self) -> None:
        """Refuse, in one line naming the flag, a `local` role this machine cannot run
        (no llama-cpp-python, no such GGUF file). A replay needs no model."""
        if self.replay:
            return
        for role in ("agent", "reflector"):
            if getattr(self, role) == "local":
                why = local_model.why_unusable(getattr(self, f"{role}_model"))
                if why:
                    raise AELError(f"--{role} local: {why}")

    @property
    def uses_llm(self) -> bool:
        return self.agent != "offline" or self.reflector != "offline"

    def settings(self, role: str) -> LLMSettings:
        provider = getattr(self, role)
        return LLMSettings(
            # the local model decodes greedily: the same prompt, the same answer, on any machine
            provider=provider, model=getattr(self, f"{role}_model"),
            temperature=0.0 if provider == "local" else self.temperature,
            # a local call is CPU-bound, not a network wait: the default 30 s is a network's
            timeout_s=LOCAL_TIMEOUT_S if provider == "local" and self.timeout_s == 30.0 else self.timeout_s,
            max_retries=self.max_retries, error_policy=self.error_policy,
            base_url=self.base_url, context_tokens=self.context_tokens,
        )

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any] | None) -> "LLMConfig":
        return cls(**(d or {}))


def shared_cassette(config: LLMConfig, *, append: bool = False) -> Cassette | None:
    """One cassette for all the sessions of a command (they record to, or replay
    from, one file). `append`: a resumed session adds to the calls recorded so far."""
    if not config.uses_llm:
        return None
    from .cassette import Cassette

    if config.replay:
        return Cassette.replay(config.replay)
    if config.record:
        return Cassette.record(config.record, save_every_s=1.0, append=append)
    return None


class LLMRuntime:
    """The clients of one session, built from its `LLMConfig`."""

    def __init__(self, config: LLMConfig, cassette: Cassette | None = None):
        self.config = config
        self.ledger = UsageLedger()
        self.notices: deque[str] = deque(maxlen=100)  # the latest; a flapping server must not grow it forever
        self._listeners: list[Callable[[str], None]] = []
        # shared by every session of one command when given, else this session's own
        self.cassette = cassette if cassette is not None else shared_cassette(config)
        self.agent = self._client("agent")
        self.reflector = self._client("reflector", self.agent.breaker if self._same_endpoint() else None)
        # the model each role resolved to is pinned in the config (which the session saves),
        # so resuming never depends on AEL_OPENAI_MODEL or a changed default
        for role in ("agent", "reflector"):
            client = getattr(self, role)
            if client is not None and not getattr(config, f"{role}_model"):
                setattr(config, f"{role}_model", client.model)

    def _client(self, role: str, breaker=None) -> LLMClient | None:
        if getattr(self.config, role) == "offline":
            return None
        from .client import LLMClient

        return LLMClient(self.config.settings(role), ledger=self.ledger, cassette=self.cassette,
                         notify=self._notice, name=role, breaker=breaker)

    def _same_endpoint(self) -> bool:
        # agent and reflector on one provider reach one endpoint (one base URL for both):
        # one breaker, so a dead server costs one round of retries, not one per role
        return self.config.agent != "offline" and self.config.agent == self.config.reflector

    def on_notice(self, listener: Callable[[str], None]) -> None:
        """Hear what a person should know as it happens: a long Retry-After wait, a
        circuit breaker opening or closing (the CLI prints them as warnings)."""
        self._listeners.append(listener)

    def _notice(self, text: str) -> None:
        self.notices.append(text)
        for listener in self._listeners:
            listener(text)

    def breakers_open(self) -> list[str]:
        """The roles whose circuit breaker is open now."""
        clients = {"agent": self.agent, "reflector": self.reflector}
        return [role for role, c in clients.items() if c is not None and c.breaker.opened]

    def describe(self) -> str:
        """For the status line: 'offline', or who plays which role."""
        if not self.config.uses_llm:
            return "offline"
        parts = []
        for role in ("agent", "reflector"):
            provider = getattr(self.config, role)
            model = getattr(self.config, f"{role}_model")
            shown = model and model != DEFAULT_MODELS.get(provider)  # the pinned default goes without saying
            parts.append(f"{role} {provider}{'/' + model if shown else ''}")
        mode = " (replay)" if self.config.replay else " (recording)" if self.config.record else ""
        if local_model.DEFAULT_LOCAL_MODEL in (self.config.agent_model, self.config.reflector_model):
            mode += " (135M demo model: real output, weak advice)"
        tripped = "".join(f" ⚠ {role} circuit open" for role in self.breakers_open())
        return ", ".join(parts) + mode + tripped

    def fallback_line(self) -> str:
        """One line on the calls answered offline after failing ("" when none):
        how many, and for which purposes."""
        return fallback_line([self])

    def flush(self) -> None:
        if self.cassette is not None:
            self.cassette.flush()

    def close(self) -> None:
        """Flush, and let other processes record to the cassette (idempotent)."""
        if self.cassette is not None:
            self.cassette.close()

    def summary(self) -> dict[str, Any]:
        """Calls (answered first try, after the repair round, offline after failing, or not
        at all: failed under `raise` or rejected as a wrong answer),
        prompts trimmed to fit the context, tokens and estimated cost, in total and per
        purpose (latency is left out: it differs run to run and results must not)."""
        def block(t) -> dict[str, Any]:
            first_try = t.calls - t.fallbacks - t.repaired - t.unanswered
            # shares of calls whose reply parsed and fitted the schema at once / after the repair round
            share = (lambda n: round(n / t.calls, 4) if t.calls else None)
            return {"calls": t.calls, "fallbacks": t.fallbacks, "repaired": t.repaired, "unanswered": t.unanswered,
                    "first_try": first_try, "first_try_ok_share": share(first_try),
                    "after_repair_ok_share": share(first_try + t.repaired), "trimmed": t.trimmed,
                    "attempts": t.attempts, "input_tokens": t.input_tokens, "output_tokens": t.output_tokens,
                    "cost_usd": round(t.cost_usd, 6)}

        return {**block(self.ledger.totals()),
                "by_purpose": {k: block(v) for k, v in sorted(self.ledger.by_purpose().items())}}


def fallback_line(runtimes: list["LLMRuntime"]) -> str:
    """"N of M LLM calls were answered offline after failing (agent.route 120, ...)"
    over the runtimes of one command; "" when no call fell back."""
    calls, by_purpose = 0, {}
    for runtime in runtimes:
        for record in runtime.ledger.records:
            calls += 1
            if record.fallback:
                by_purpose[record.purpose] = by_purpose.get(record.purpose, 0) + 1
    if not by_purpose:
        return ""
    parts = ", ".join(f"{purpose} {n}" for purpose, n in sorted(by_purpose.items()))
    return (f"{sum(by_purpose.values())} of {calls} LLM calls were answered offline after failing ({parts}); "
            "the results JSON has them under llm.fallbacks")
