"""Google Gemini through the official google-genai SDK (imported lazily)."""

from __future__ import annotations

from typing import Any, Mapping

from ..prompt import split_system
from ..request import LLMRequest, ProviderError, Reply
from ..settings import LLMSettings
from ._common import (connect_error, missing_key, status_error, timeout_classes, timeout_error,
                      transport_classes)

DEFAULT_URL = "https://generativelanguage.googleapis.com/"


class GeminiProvider:
    """generateContent with `response_mime_type="application/json"` and the reply's
    JSON schema as `response_json_schema` (structured output: the API shapes
    the reply; the client still validates it). The SDK
    does not retry unless given retry options, and we give none: the client
    retries, so waits and attempts are counted in one place."""

    name = "gemini"
    live = True

    def __init__(self, settings: LLMSettings, env: Mapping[str, str]) -> None:
        key = settings.api_key or env.get("GEMINI_API_KEY", "") or env.get("GOOGLE_API_KEY", "")
        if not key:
            raise missing_key(self.name, "GEMINI_API_KEY or GOOGLE_API_KEY")
        from google import genai  # lazily: the engine must import without the SDK's cost
        from google.genai import errors, types

        self._errors = errors
        self._types = types
        self._timeout_s = settings.timeout_s
        self._temperature = settings.temperature
        self._key = key
        self._url = settings.base_url or env.get("GOOGLE_GEMINI_BASE_URL") or DEFAULT_URL
        options = types.HttpOptions(base_url=self._url, timeout=max(1, int(settings.timeout_s * 1000)))
        # vertexai=False: never let GOOGLE_GENAI_USE_VERTEXAI in the environment
        # switch us to a different API and its credential lookup.
        self._client = genai.Client(api_key=key, vertexai=False, http_options=options)

    def context_tokens(self) -> int | None:
        return None  # the API does not report it; the provider's documented window is the default

    def send(self, request: LLMRequest) -> Reply:
        types = self._types
        system, messages = split_system(request.messages)
        contents = [
            types.Content(role="model" if m["role"] == "assistant" else "user",
                          parts=[types.Part(text=m["content"])])
            for m in messages
        ]
        config = types.GenerateContentConfig(
            system_instruction=system or None,
            temperature=request.temperature,
            max_output_tokens=request.max_tokens,
            response_mime_type="application/json",
            response_json_schema=request.schema,
        )
        try:
            response = self._client.models.generate_content(model=request.model, contents=contents, config=config)
        except self._errors.APIError as exc:
            headers = getattr(getattr(exc, "response", None), "headers", None)
            raise status_error(self.name, int(exc.code or 0), headers, exc.message or exc.status or "",
                               self._key) from None
        except timeout_classes():
            raise timeout_error(self.name, self._timeout_s) from None
        except transport_classes():
            raise connect_error(self.name, self._url) from None
        except ValueError as exc:  # e.g. a body the SDK could not parse
            raise ProviderError(f"{self.name}: unreadable response ({type(exc).__name__})",
                                retryable=True) from None
        usage = response.usage_metadata
        return Reply(_text(response), _count(usage, "prompt_token_count"),
                     _count(usage, "candidates_token_count") + _count(usage, "thoughts_token_count"),
                     str(getattr(response, "model_version", None) or request.model),
                     truncated=_finish_reason(response) == "MAX_TOKENS")


def _text(response: Any) -> str:
    # response.text warns on non-text parts; read the text parts ourselves.
    parts = []
    for candidate in response.candidates or []:
        for part in getattr(candidate.content, "parts", None) or []:
            if getattr(part, "text", None) and not getattr(part, "thought", False):
                parts.append(part.text)
        break  # the first candidate only
    return "".join(parts)


def _finish_reason(response: Any) -> str:
    candidates = response.candidates or []
    reason = getattr(candidates[0], "finish_reason", None) if candidates else None
    return str(getattr(reason, "value", reason) or "")


def _count(usage: Any, name: str) -> int:
    return int(getattr(usage, name, None) or 0) if usage is not None else 0
