"""The guard between a provider and everything that reads its replies."""

from __future__ import annotations

import threading
from dataclasses import replace
from typing import Callable

from ..errors import AELError
from .request import LLMRequest, Provider, ProviderError, Reply


class CheckedProvider:
    """A provider whose replies are readable or a retryable `ProviderError`.

    Replies come from outside: an empty text, one over `max_bytes`, or
    anything the SDK itself choked on (a 200 with an empty, non-JSON or
    wrongly shaped body raises whatever the SDK raises) is a failure like a
    5xx, never a traceback. Reply text is scrubbed of secrets here, before a
    cassette or the client sees it. `AELError` (a replay that lacks the
    request) passes through: it is the user's to fix, not the server's.

    HTTP timeouts bound each read, not the whole reply, so a server that
    trickles a byte now and then would hold a call forever: a live call is
    made in a daemon thread and given up after `deadline_s` (the thread ends
    when the connection does; nothing waits for it).
    """

    def __init__(self, inner: Provider, max_bytes: int, scrub_text: Callable[[str], str],
                 deadline_s: float | None = None) -> None:
        self.inner = inner
        self.name = inner.name
        self.live = inner.live
        self._max_bytes = max_bytes
        self._scrub = scrub_text
        self._deadline_s = deadline_s

    def context_tokens(self) -> int | None:
        # a provider written before the method existed (a test's stub) reports nothing
        ask = getattr(self.inner, "context_tokens", None)
        try:
            tokens = ask() if ask is not None else None
        except Exception:  # noqa: BLE001 - never fail a call over what is only a hint
            return None
        return tokens if isinstance(tokens, int) and not isinstance(tokens, bool) and tokens > 0 else None

    def send(self, request: LLMRequest) -> Reply:
        try:
            reply = self._within_deadline(request)
        except (ProviderError, AELError):
            raise
        except Exception as exc:  # noqa: BLE001 - the SDKs raise anything on a malformed body
            raise ProviderError(f"{self.name}: unreadable response ({type(exc).__name__})",
                                retryable=True) from None
        if not isinstance(reply, Reply) or not isinstance(reply.text, str):
            raise ProviderError(f"{self.name}: unreadable response (no reply text)", retryable=True)
        size = len(reply.text.encode("utf-8", "replace"))
        if size > self._max_bytes:
            raise ProviderError(f"{self.name}: reply of {size:,} bytes is over the {self._max_bytes:,}-byte "
                                "cap; not read", retryable=True)
        if not reply.text.strip():
            raise ProviderError(f"{self.name}: empty reply", retryable=True)
        return replace(reply, text=self._scrub(reply.text))

    def _within_deadline(self, request: LLMRequest) -> Reply:
        if not self.live or self._deadline_s is None:
            return self.inner.send(request)
        outcome: dict[str, object] = {}

        def call() -> None:
            try:
                outcome["reply"] = self.inner.send(request)
            except BaseException as exc:  # noqa: BLE001 - handed to the caller's thread as is
                outcome["error"] = exc

        worker = threading.Thread(target=call, name=f"llm-{self.name}", daemon=True)
        worker.start()
        worker.join(self._deadline_s)
        if worker.is_alive():
            raise ProviderError(f"{self.name}: no complete answer within {self._deadline_s:g} s "
                                "(the reply was still trickling in); gave up", retryable=True)
        if "error" in outcome:
            raise outcome["error"]  # type: ignore[misc]
        return outcome["reply"]  # type: ignore[return-value]
