"""The one interface the engine uses to ask a model for structured JSON."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from typing import Any, Callable, Mapping

from ..errors import AELError
from .cassette import Cassette
from .ledger import UsageLedger, UsageRecord
from .prompt import check_messages, correction, parse_json, with_schema
from .providers import LazyProvider, make_provider
from .request import Fallback, LLMRequest, Provider, ProviderError, Reply
from .result import LLMResult
from .retry import backoff_delay
from .schema import SchemaError, check_schema, validate
from .settings import LLMSettings

KEY_VARIABLES = ("ANTHROPIC_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY", "OPENAI_API_KEY")


@dataclass
class _Spent:
    """What one call has used so far, across its attempts."""

    attempts: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    model: str = ""


class LLMClient:
    """Asks a model for one JSON object that matches a schema.

    Every call: the schema goes into the system prompt; a 429, 5xx, timeout
    or connection error is retried with backoff (honouring Retry-After) up to
    `settings.max_retries` times; a reply that is not JSON or breaks the
    schema is retried once with the error quoted back; what is left is a
    failure, which the error policy turns into an `AELError` (`raise`) or the
    caller's offline answer (`fallback`). Each call lands in `ledger`.

    `sleep` and `clock` are injectable so tests run without waiting; `env` is
    where keys and URLs are read (default `os.environ`); `cassette` records
    or replays every request; `provider` replaces the one the settings name.
    """

    def __init__(
        self,
        settings: LLMSettings | None = None,
        *,
        ledger: UsageLedger | None = None,
        cassette: Cassette | None = None,
        provider: Provider | None = None,
        env: Mapping[str, str] | None = None,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.settings = settings or LLMSettings()
        self.ledger = ledger if ledger is not None else UsageLedger()
        self._env: Mapping[str, str] = os.environ if env is None else env
        self._sleep = sleep
        self._clock = clock
        self.model = self.settings.resolved_model(self._env)
        s, e = self.settings, self._env
        base = provider or LazyProvider(s.provider, s.provider != "offline", lambda: make_provider(s, e))
        self.provider: Provider = cassette.wrap(base) if cassette is not None else base

    def complete_json(
        self,
        messages: list[dict[str, str]],
        schema: dict[str, Any],
        *,
        purpose: str,
        fallback: Fallback | None = None,
    ) -> LLMResult:
        """One JSON object matching `schema`, or the failure per the error policy.

        `messages` are {"role": system|user|assistant, "content": str};
        `purpose` labels the call in the ledger and in errors ("reflect",
        "agent"); `fallback(messages, schema)` is the caller's offline answer:
        it answers every call of the offline provider, and failed calls under
        the `fallback` policy. Raises `AELError` for a failure under `raise`
        (one line, never a key), and for a request a replay cassette lacks.
        """
        if not isinstance(purpose, str) or not purpose:
            raise ValueError("purpose: a short non-empty label is required")
        check_schema(schema)
        original = check_messages(messages)
        bound = (lambda: fallback([dict(m) for m in original], schema)) if fallback else None
        start = self._clock()
        spent = _Spent(model=self.model)
        sent = with_schema(original, schema)
        first_hash = ""
        problem = ""
        for _round in range(2):  # the answer, then at most one correction
            request = LLMRequest(self.provider.name, self.model, tuple(sent), schema,
                                 self.settings.temperature, self.settings.max_tokens, purpose, bound)
            first_hash = first_hash or request.hash()
            try:
                reply = self._send(request, spent)
            except ProviderError as exc:
                return self._fail(exc.message, purpose, original, schema, fallback, spent, start, first_hash)
            try:
                data = parse_json(reply.text)
                validate(data, schema)
            except ValueError as exc:  # SchemaError is a ValueError too
                problem = str(exc)
                if reply.truncated:
                    problem += f" (the reply was cut off at max_tokens={self.settings.max_tokens})"
                sent = [*sent, {"role": "assistant", "content": reply.text},
                        {"role": "user", "content": correction(problem)}]
                continue
            return self._finish(LLMResult(data, self.provider.name, spent.model, spent.input_tokens,
                                          spent.output_tokens, spent.cost_usd, self._clock() - start,
                                          spent.attempts, False, "", purpose, first_hash))
        reason = f"the reply was rejected twice, last: {problem}"
        return self._fail(reason, purpose, original, schema, fallback, spent, start, first_hash)

    def _send(self, request: LLMRequest, spent: _Spent) -> Reply:
        """One reply, retrying what is worth retrying; raises the last ProviderError."""
        s = self.settings
        for retry in range(s.max_retries + 1):
            spent.attempts += 1
            try:
                reply = self.provider.send(request)
            except ProviderError as exc:
                if not exc.retryable or retry == s.max_retries:
                    raise
                if self.provider.live:  # a replay repeats the outcome, not the wait
                    self._sleep(backoff_delay(retry, s.backoff_base_s, s.backoff_max_s, exc.retry_after))
                continue
            spent.model = reply.model or spent.model
            spent.input_tokens += reply.input_tokens
            spent.output_tokens += reply.output_tokens
            spent.cost_usd += s.cost_usd(spent.model, reply.input_tokens, reply.output_tokens)
            return reply
        raise AssertionError("unreachable: the loop returns or raises")  # pragma: no cover

    def _fail(self, reason: str, purpose: str, original: list[dict[str, str]], schema: dict[str, Any],
              fallback: Fallback | None, spent: _Spent, start: float, request_hash: str) -> LLMResult:
        reason = self.redact(reason)
        if self.settings.error_policy == "fallback" and fallback is not None:
            data = fallback([dict(m) for m in original], schema)
            try:
                validate(data, schema)
            except SchemaError as exc:
                raise ValueError(f"the offline fallback for {purpose!r} broke its own schema: {exc}") from None
            return self._finish(LLMResult(data, self.provider.name, spent.model, spent.input_tokens,
                                          spent.output_tokens, spent.cost_usd, self._clock() - start,
                                          spent.attempts, True, reason, purpose, request_hash))
        failed = LLMResult(None, self.provider.name, spent.model, spent.input_tokens, spent.output_tokens,
                           spent.cost_usd, self._clock() - start, spent.attempts, False, reason, purpose,
                           request_hash)
        self.ledger.add(UsageRecord.from_result(failed))
        hint = " (and this call has no offline fallback)" if self.settings.error_policy == "fallback" else ""
        raise AELError(f"LLM call {purpose!r} failed ({self.provider.name}/{spent.model}, "
                       f"{spent.attempts} attempt{'s' if spent.attempts != 1 else ''}): {reason}{hint}")

    def _finish(self, result: LLMResult) -> LLMResult:
        self.ledger.add(UsageRecord.from_result(result))
        return result

    def redact(self, text: str) -> str:
        """`text` with every API key this client could know replaced by [redacted]."""
        secrets = {self.settings.api_key or ""} | {self._env.get(name, "") for name in KEY_VARIABLES}
        for secret in sorted(secrets, key=len, reverse=True):
            if len(secret) >= 6:  # a 1-letter "key" would redact half the message
                text = text.replace(secret, "[redacted]")
        return text
