"""What travels between the client and a provider.

A provider turns an `LLMRequest` into a `Reply` (the raw text and token
counts) or raises `ProviderError`. Providers never parse or validate the
JSON: that is the client's job, the same for every provider.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any, Callable, Protocol

from ..secrets import clip

# The caller's offline answer for one call: (messages, schema) -> a JSON object,
# given the caller's own messages (without the schema instruction).
Fallback = Callable[[list[dict[str, Any]], dict[str, Any]], Any]


@dataclass(frozen=True)
class LLMRequest:
    """One call to a model, as sent (the schema instruction already added).

    `key()` is what identifies the request in a cassette: everything that
    shapes the answer, and nothing secret. `purpose` labels the call for
    accounting and error messages but does not change the answer, so it is
    not part of the key; `fallback` (the caller's offline answer, bound to its
    arguments) is code, not data.
    """

    provider: str
    model: str
    messages: tuple[dict[str, str], ...]
    schema: dict[str, Any]
    temperature: float
    max_tokens: int
    purpose: str = ""
    fallback: Callable[[], Any] | None = field(default=None, compare=False, repr=False)

    def key(self) -> dict[str, Any]:
        return {
            "provider": self.provider,
            "model": self.model,
            "messages": [dict(m) for m in self.messages],
            "schema": self.schema,
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
        }

    def hash(self) -> str:
        """A stable 16-hex-digit digest of `key()` (sorted keys, no spaces)."""
        canonical = json.dumps(self.key(), sort_keys=True, separators=(",", ":"), ensure_ascii=True)
        return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:16]


@dataclass(frozen=True)
class Reply:
    """A provider's answer before parsing; `truncated` when it hit max_tokens."""

    text: str
    input_tokens: int = 0
    output_tokens: int = 0
    model: str = ""
    truncated: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {"text": self.text, "input_tokens": self.input_tokens,
                "output_tokens": self.output_tokens, "model": self.model, "truncated": self.truncated}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "Reply":
        return cls(str(d["text"]), int(d.get("input_tokens", 0)), int(d.get("output_tokens", 0)),
                   str(d.get("model", "")), bool(d.get("truncated", False)))


class ProviderError(Exception):
    """A call that did not produce a reply.

    `retryable` marks what is worth another attempt (429, 408, 5xx, timeouts,
    connection errors); `retry_after` is the server's Retry-After in seconds.
    The message is one line and must never contain a credential.
    """

    def __init__(self, message: str, *, retryable: bool, retry_after: float | None = None,
                 status: int | None = None) -> None:
        message = clip(message)  # error text is kept (ledger, cassette): never a whole reply
        super().__init__(message)
        self.message = message
        self.retryable = retryable
        self.retry_after = retry_after
        self.status = status

    def to_dict(self) -> dict[str, Any]:
        return {"message": self.message, "retryable": self.retryable,
                "retry_after": self.retry_after, "status": self.status}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "ProviderError":
        return cls(str(d["message"]), retryable=bool(d["retryable"]),
                   retry_after=d.get("retry_after"), status=d.get("status"))


class Provider(Protocol):
    """Sends one request. `live` is False when no network is involved
    (offline, replay), so the client skips backoff sleeps. `context_tokens`
    never raises: a server that cannot say gives None."""

    name: str
    live: bool

    def send(self, request: LLMRequest) -> Reply: ...

    def context_tokens(self) -> int | None:
        """The model's context window as the server reports it, or None if it does not say."""
        ...
