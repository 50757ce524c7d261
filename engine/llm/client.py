"""The one interface the engine uses to ask a model for structured JSON."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from typing import Any, Callable, Mapping

from ..errors import AELError
from ..secrets import clip, remember, scrub, userinfo_secrets
from .breaker import CircuitBreaker
from .cassette import Cassette
from .checked import CheckedProvider
from .context import (CHARS_PER_TOKEN, DEFAULT_CONTEXT, MESSAGE_OVERHEAD, UNKNOWN_LOCAL_CONTEXT, answer_room,
                      describe_cut, estimate_tokens, prompt_budget, schema_tokens)
from .context import fit as fit_prompt
from .ledger import UsageLedger, UsageRecord
from .prompt import check_messages, correction, parse_json, with_schema
from .providers import LazyProvider, make_provider
from .request import Fallback, LLMRequest, Provider, ProviderError, Reply
from .result import LLMResult
from .retry import backoff_delay
from .schema import SchemaError, check_schema, validate
from .settings import LLMSettings

KEY_VARIABLES = ("ANTHROPIC_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY", "OPENAI_API_KEY")
ANNOUNCE_WAIT_S = 2.0  # a Retry-After wait at least this long is announced through `notify`


@dataclass
class _Spent:
    """What one call has used so far, across its attempts."""

    attempts: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    model: str = ""
    repaired: bool = False
    trimmed: str = ""


class LLMClient:
    """Asks a model for one JSON object that matches a schema.

    Every call: the schema goes into the system prompt; a 429, 5xx, timeout,
    connection error or unreadable reply (empty, not the API's envelope, over
    `settings.max_reply_bytes`, anything the SDK cannot parse) is retried with
    backoff (honouring Retry-After up to `backoff_max_s`, announced) up to
    `settings.max_retries` times; a reply that is not JSON or breaks the
    schema is retried once with the error quoted back; what is left is a
    failure, which the error policy turns into an `AELError` (`raise`) or the
    caller's offline answer (`fallback`). A circuit breaker (`breaker.py`)
    stops calling after `breaker_failures` failed calls in a row. Each call
    lands in `ledger`. Reply text is scrubbed of secrets before anything reads
    it, so a key quoted back by a server never reaches a session, a prompt or
    a file; error text is scrubbed and clipped to one short line.

    `sleep` and `clock` are injectable so tests run without waiting; `env` is
    where keys and URLs are read (default `os.environ`); `cassette` records
    or replays every request; `provider` replaces the one the settings name;
    `notify(text)` hears what a person should know while it happens (a long
    Retry-After wait, the breaker opening or closing); `name` labels them;
    `breaker` is shared by clients that call the same endpoint.
    """

    def __init__(
        self,
        settings: LLMSettings | None = None,
        *,
        ledger: UsageLedger | None = None,
        cassette: Cassette | None = None,
        provider: Provider | None = None,
        env: Mapping[str, str] | None = None,
        sleep: Callable[[float], None] | None = None,
        clock: Callable[[], float] = time.monotonic,
        notify: Callable[[str], None] | None = None,
        name: str = "",
        breaker: CircuitBreaker | None = None,
    ) -> None:
        self.settings = settings or LLMSettings()
        self.ledger = ledger if ledger is not None else UsageLedger()
        self._env: Mapping[str, str] = os.environ if env is None else env
        self._sleep = sleep if sleep is not None else _sleep
        self._clock = clock
        self._notify = notify or (lambda text: None)
        self.model = self.settings.resolved_model(self._env)
        self._context: int | None = None
        s, e = self.settings, self._env
        remember(s.api_key, *(e.get(n, "") for n in KEY_VARIABLES), *userinfo_secrets(s.base_url))
        self.name = f"{name or 'llm'} ({s.provider}/{self.model})"
        self.breaker = breaker or CircuitBreaker(s.breaker_failures, s.breaker_cooldown_calls,
                                                 s.breaker_cooldown_s, count_calls=s.error_policy == "fallback",
                                                 clock=clock)
        base = provider or LazyProvider(s.provider, s.provider != "offline", lambda: make_provider(s, e))
        # checked before a cassette records it: an unreadable reply is recorded as the error it is
        base = CheckedProvider(base, s.max_reply_bytes, self.redact, deadline_s=2 * s.timeout_s + 1)
        self.provider: Provider = cassette.wrap(base) if cassette is not None else base
        if cassette is not None and cassette.mode == "replay":  # a cassette is a file: as untrusted as a server
            self.provider = CheckedProvider(self.provider, s.max_reply_bytes, self.redact)

    def complete_json(
        self,
        messages: list[dict[str, str]],
        schema: dict[str, Any],
        *,
        purpose: str,
        fallback: Fallback | None = None,
        trimmed: str = "",
        rejected: Callable[[str], Any] | None = None,
    ) -> LLMResult:
        """One JSON object matching `schema`, or the failure per the error policy.

        `messages` are {"role": system|user|assistant, "content": str};
        `purpose` labels the call in the ledger and in errors ("reflect",
        "agent"); `fallback(messages, schema)` is the caller's offline answer:
        it answers every call of the offline provider, and failed calls under
        the `fallback` policy; `trimmed` is `fit`'s note on how the prompt was
        cut, kept in the ledger. `rejected(problem)` is the caller's own answer
        for a model that did answer, twice, but not within the schema (an agent
        that names a label it was not offered): under either policy it is
        returned as the data, unvalidated, with `reason` saying why (a wrong
        answer, not a failed call: the breaker counts the endpoint as answering).
        Raises `AELError` for a failure under `raise` (one line, never a key),
        and for a request a replay cassette lacks.
        """
        if not isinstance(purpose, str) or not purpose:
            raise ValueError("purpose: a short non-empty label is required")
        check_schema(schema)
        original = check_messages(messages)
        bound = (lambda: fallback([dict(m) for m in original], schema)) if fallback else None
        start = self._clock()
        spent = _Spent(model=self.model, trimmed=trimmed)
        if not self.breaker.allow():
            b = self.breaker
            reason = (f"circuit open: {b.failures} calls in a row failed, not calling for {b.remaining()} "
                      f"(last: {b.last_reason})")
            return self._fail(reason, purpose, original, schema, fallback, spent, start, "", counts=False)
        sent = with_schema(original, schema)
        first_hash = ""
        problem = ""
        context = self.context_tokens()
        max_tokens = answer_room(context, self.settings.max_tokens)
        for round_ in range(2):  # the answer, then at most one repair round
            request = LLMRequest(self.provider.name, self.model, tuple(sent), schema,
                                 self.settings.temperature, max_tokens, purpose, bound)
            first_hash = first_hash or request.hash()
            try:
                reply = self._send(request, spent)
            except ProviderError as exc:
                return self._fail(exc.message, purpose, original, schema, fallback, spent, start, first_hash)
            try:
                data = parse_json(reply.text)
                validate(data, schema)
            except ValueError as exc:  # SchemaError is a ValueError too
                problem = clip(str(exc))
                if reply.truncated:
                    problem += f" (the reply was cut off at max_tokens={max_tokens})"
                sent = self._repair(sent, reply.text, problem, context)
                continue
            spent.repaired = round_ == 1
            if self.breaker.succeeded():
                self._notify(f"{self.name}: answering again; the circuit breaker is closed")
            return self._finish(LLMResult(data, self.provider.name, spent.model, spent.input_tokens,
                                          spent.output_tokens, spent.cost_usd, self._clock() - start,
                                          spent.attempts, False, "", purpose, first_hash, spent.repaired,
                                          spent.trimmed))
        reason = f"the reply was rejected twice, last: {problem}"
        if rejected is not None:
            if self.breaker.succeeded():  # the endpoint answered: a bad answer is the model's, not an outage
                self._notify(f"{self.name}: answering again; the circuit breaker is closed")
            return self._finish(LLMResult(rejected(problem), self.provider.name, spent.model, spent.input_tokens,
                                          spent.output_tokens, spent.cost_usd, self._clock() - start,
                                          spent.attempts, False, clip(self.redact(reason)), purpose, first_hash,
                                          False, spent.trimmed))
        return self._fail(reason, purpose, original, schema, fallback, spent, start, first_hash)

    def context_tokens(self) -> int:
        """The model's context window: `settings.context_tokens` (`--llm-context`), else
        what the server reports (asked once), else the provider's documented window,
        else a small one for an unknown local server."""
        if self._context is None:
            s = self.settings
            reported = None if s.context_tokens or s.provider == "offline" else self.provider.context_tokens()
            self._context = s.context_tokens or reported or DEFAULT_CONTEXT.get(s.provider, UNKNOWN_LOCAL_CONTEXT)
        return self._context

    def fit(self, build: Callable[[dict[str, int]], list[dict[str, str]]], sizes: dict[str, int],
            schema: dict[str, Any]) -> tuple[list[dict[str, str]], str]:
        """(the messages `build(limits)` makes that fit the context with room for the
        answer, the note for `complete_json(trimmed=…)`). `sizes` are the full lengths
        of the lists `build` takes prefixes of, each ordered most informative first."""
        extra = schema_tokens(schema)
        budget = prompt_budget(self.context_tokens(), self.settings.max_tokens)
        messages, cut = fit_prompt(build, sizes, budget, extra)
        if not cut:
            return messages, ""
        before = estimate_tokens(build(sizes)) + extra
        return messages, describe_cut(cut, before, estimate_tokens(messages) + extra)

    def _repair(self, sent: list[dict[str, str]], reply: str, problem: str, context: int) -> list[dict[str, str]]:
        """The repair round's messages: the reply shown back as the model's turn and the
        error quoted. The reply is cut to what the context leaves room for."""
        ask = {"role": "user", "content": correction(problem)}
        room = prompt_budget(context, self.settings.max_tokens) - estimate_tokens([*sent, ask]) - MESSAGE_OVERHEAD
        shown = reply if len(reply) <= room * CHARS_PER_TOKEN else reply[: max(0, int(room * CHARS_PER_TOKEN))] + "…"
        return [*sent, {"role": "assistant", "content": shown}, ask]

    def _send(self, request: LLMRequest, spent: _Spent) -> Reply:
        """One reply, retrying what is worth retrying; raises the last ProviderError."""
        s = self.settings
        # an endpoint that just failed a whole call gets one attempt per call until it answers
        retries = 0 if self.breaker.degraded() else s.max_retries
        for retry in range(retries + 1):
            spent.attempts += 1
            try:
                reply = self.provider.send(request)
            except ProviderError as exc:
                if not exc.retryable or retry == retries:
                    raise
                if self.provider.live:  # a replay repeats the outcome, not the wait
                    wait = backoff_delay(retry, s.backoff_base_s, s.backoff_max_s, exc.retry_after)
                    if exc.retry_after is not None and exc.retry_after >= ANNOUNCE_WAIT_S:
                        capped = f" (it asked for {exc.retry_after:g} s; the cap is {s.backoff_max_s:g} s)" \
                            if exc.retry_after > wait else ""
                        self._notify(f"{self.name}: waiting {wait:g} s before retrying, as the server "
                                     f"asked (Retry-After){capped}")
                    self._sleep(wait)
                continue
            spent.model = reply.model or spent.model
            spent.input_tokens += reply.input_tokens
            spent.output_tokens += reply.output_tokens
            spent.cost_usd += s.cost_usd(spent.model, reply.input_tokens, reply.output_tokens)
            return reply
        raise AssertionError("unreachable: the loop returns or raises")  # pragma: no cover

    def _fail(self, reason: str, purpose: str, original: list[dict[str, str]], schema: dict[str, Any],
              fallback: Fallback | None, spent: _Spent, start: float, request_hash: str,
              counts: bool = True) -> LLMResult:
        reason = clip(self.redact(reason))
        if counts and self.breaker.failed(reason):
            b, policy = self.breaker, self.settings.error_policy
            doing = "answering offline" if policy == "fallback" else "refusing each call"
            self._notify(f"{self.name}: {b.failures} calls in a row failed (last: {reason}); circuit breaker "
                         f"open: not calling for {b.cooldown()}, {doing}, then one probe call")
        if self.settings.error_policy == "fallback" and fallback is not None:
            data = fallback([dict(m) for m in original], schema)
            try:
                validate(data, schema)
            except SchemaError as exc:
                raise ValueError(f"the offline fallback for {purpose!r} broke its own schema: {exc}") from None
            return self._finish(LLMResult(data, self.provider.name, spent.model, spent.input_tokens,
                                          spent.output_tokens, spent.cost_usd, self._clock() - start,
                                          spent.attempts, True, reason, purpose, request_hash, False,
                                          spent.trimmed))
        failed = LLMResult(None, self.provider.name, spent.model, spent.input_tokens, spent.output_tokens,
                           spent.cost_usd, self._clock() - start, spent.attempts, False, reason, purpose,
                           request_hash, False, spent.trimmed)
        self.ledger.add(UsageRecord.from_result(failed))
        hint = " (and this call has no offline fallback)" if self.settings.error_policy == "fallback" else ""
        raise AELError(f"LLM call {purpose!r} failed ({self.provider.name}/{spent.model}, "
                       f"{spent.attempts} attempt{'s' if spent.attempts != 1 else ''}): {reason}{hint}")

    def _finish(self, result: LLMResult) -> LLMResult:
        self.ledger.add(UsageRecord.from_result(result))
        return result

    def redact(self, text: str) -> str:
        """`text` with every secret this client could know replaced by [redacted]
        (`engine.secrets`: keys of 8+ characters, URL userinfo, bearer tokens)."""
        return scrub(text, self._env, [self.settings.api_key or ""])


def _sleep(seconds: float) -> None:
    # looked up at call time, so a test can replace it for every client a command builds
    time.sleep(seconds)
