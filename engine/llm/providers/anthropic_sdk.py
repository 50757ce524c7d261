"""Anthropic through its official SDK (imported only when this provider is used)."""

from __future__ import annotations

import json
from typing import Any, Mapping

from ..prompt import split_system
from ..request import LLMRequest, ProviderError, Reply
from ..settings import LLMSettings
from ._common import connect_error, missing_key, status_error, timeout_error

DEFAULT_URL = "https://api.anthropic.com"
TOOL = "answer"


class AnthropicProvider:
    """Messages API. The SDK's own retries are off (`max_retries=0`): the
    client retries, so waits and attempts are counted in one place.

    Temperature is not sent: SDK 2.x speaks API version 2026-10-21, which
    rejects sampling parameters.

    Structured output is tool use: the reply's schema is the input schema of
    one tool (`answer`) the model is made to call, so the API shapes the reply;
    its input is the answer. A text reply (a proxy that ignores tools) is read
    as before. The client still validates either."""

    name = "anthropic"
    live = True

    def __init__(self, settings: LLMSettings, env: Mapping[str, str]) -> None:
        key = settings.api_key or env.get("ANTHROPIC_API_KEY", "")
        if not key:
            raise missing_key(self.name, "ANTHROPIC_API_KEY")
        import anthropic  # lazily: the engine must import without the SDK's cost

        self._sdk = anthropic
        self._timeout_s = settings.timeout_s
        self._key = key
        self._url = settings.base_url or env.get("ANTHROPIC_BASE_URL") or DEFAULT_URL
        self._client = anthropic.Anthropic(
            api_key=key, base_url=self._url, timeout=settings.timeout_s, max_retries=0,
        )

    def context_tokens(self) -> int | None:
        return None  # the API does not report it; the provider's documented window is the default

    def send(self, request: LLMRequest) -> Reply:
        sdk = self._sdk
        system, messages = split_system(request.messages)
        kwargs: dict[str, Any] = {}
        if system:
            kwargs["system"] = system
        if request.schema.get("type", "object") == "object":  # a tool's input is always an object
            kwargs["tools"] = [{"name": TOOL, "description": "Give your answer.", "input_schema": request.schema}]
            kwargs["tool_choice"] = {"type": "tool", "name": TOOL}
        try:
            message = self._client.messages.create(
                model=request.model, max_tokens=request.max_tokens, messages=messages, **kwargs,
            )
        except sdk.APITimeoutError:
            raise timeout_error(self.name, self._timeout_s) from None
        except sdk.APIConnectionError:
            raise connect_error(self.name, self._url) from None
        except sdk.APIStatusError as exc:
            raise status_error(self.name, exc.status_code, exc.response.headers,
                               getattr(exc, "api_message", "") or "", self._key) from None
        except sdk.APIError as exc:  # e.g. a response the SDK could not read
            raise ProviderError(f"{self.name}: unreadable response ({type(exc).__name__})",
                                retryable=True) from None
        text = _answer_text(message.content)
        usage = message.usage
        return Reply(text, int(usage.input_tokens or 0), int(usage.output_tokens or 0), str(message.model),
                     truncated=message.stop_reason == "max_tokens")


def _answer_text(content: Any) -> str:
    """The `answer` tool's input as JSON text, else the text blocks joined."""
    for block in content or []:
        if getattr(block, "type", "") == "tool_use" and getattr(block, "name", "") == TOOL:
            return json.dumps(block.input)
    return "".join(block.text for block in content or [] if getattr(block, "type", "") == "text")
