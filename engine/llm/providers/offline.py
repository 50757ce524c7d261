"""The provider that needs no model: the caller's own fallback answers."""

from __future__ import annotations

import json

from ..request import LLMRequest, ProviderError, Reply


class OfflineProvider:
    """Answers with the caller's fallback (`request.fallback()`); no network, no tokens."""

    name = "offline"
    live = False

    def context_tokens(self) -> int | None:
        return None  # the API does not report it; the provider's documented window is the default

    def send(self, request: LLMRequest) -> Reply:
        if request.fallback is None:
            raise ProviderError(f"offline: no offline answer was given for {request.purpose!r}",
                                retryable=False)
        data = request.fallback()
        return Reply(json.dumps(data), 0, 0, request.model)
