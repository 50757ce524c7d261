"""Any server that speaks OpenAI's chat completions (OpenAI, vLLM, llama.cpp, Ollama…),
over plain HTTP with the httpx the SDKs already bring."""

from __future__ import annotations

from typing import Any, Mapping

from ..request import LLMRequest, ProviderError, Reply
from ..settings import LLMSettings
from ._common import connect_error, http_module, one_line, status_error, timeout_error


# How the reply's schema is sent, best first: OpenAI's own form (OpenAI, vLLM,
# Ollama, llama.cpp's C++ server), llama-cpp-python's (its server answers the
# first with a 500), and plain JSON mode for servers that know neither.
FORMATS = ("json_schema", "json_object+schema", "json_object")


def response_format(form: str, schema: dict[str, Any]) -> dict[str, Any]:
    if form == "json_schema":
        return {"type": "json_schema", "json_schema": {"name": "answer", "schema": schema}}
    if form == "json_object+schema":
        return {"type": "json_object", "schema": schema}
    return {"type": "json_object"}


class OpenAICompatibleProvider:
    """POST {base}/v1/chat/completions with the reply's schema in `response_format`.

    A server that refuses a form of `response_format` (a 400 or 422, or a 500
    that names it) is asked again at once with the next of `FORMATS`; the form
    that worked is kept for the next calls. The key is optional (local servers
    need none); the URL is not: from the settings or AEL_OPENAI_BASE_URL."""

    name = "openai-compatible"
    live = True

    def __init__(self, settings: LLMSettings, env: Mapping[str, str]) -> None:
        base = settings.base_url or env.get("AEL_OPENAI_BASE_URL", "")
        if not base:
            raise ProviderError(f"{self.name}: no server URL; give --llm-url or set AEL_OPENAI_BASE_URL",
                                retryable=False)
        base = base.rstrip("/")
        self._url = base + ("/chat/completions" if base.endswith("/v1") else "/v1/chat/completions")
        key = settings.api_key or env.get("OPENAI_API_KEY", "")
        self._key = key
        self._headers = {"Authorization": f"Bearer {key}"} if key else {}
        self._timeout_s = settings.timeout_s
        self._root = base[:-3] if base.endswith("/v1") else base
        self._http = http_module()
        self._client = self._http.Client(timeout=settings.timeout_s)
        self._form = 0  # index into FORMATS of the form this server takes

    def context_tokens(self) -> int | None:
        """What the server says its context is: llama.cpp's `/props`
        (`default_generation_settings.n_ctx`), vLLM's `/v1/models` (`max_model_len`)
        or llama.cpp's `/v1/models` (`meta.n_ctx_train`). None if neither says."""
        for path, read in (("/props", _llama_props), ("/v1/models", _models_context)):
            try:
                response = self._client.get(self._root + path, headers=self._headers,
                                            timeout=min(self._timeout_s, 5.0))
                n = read(response.json()) if response.status_code == 200 else None
            except Exception:  # noqa: BLE001 - any failure means "not reported"
                n = None
            if isinstance(n, int) and not isinstance(n, bool) and n > 0:
                return n
        return None

    def send(self, request: LLMRequest) -> Reply:
        body = {
            "model": request.model,
            "messages": [dict(m) for m in request.messages],
            "temperature": request.temperature,
            "max_tokens": request.max_tokens,
        }
        form = self._form
        while True:
            body["response_format"] = response_format(FORMATS[form], request.schema)
            response = self._post(body)
            if response.status_code == 200 or form == len(FORMATS) - 1 or not _refuses_format(response):
                break
            form += 1
        if response.status_code != 200:
            raise status_error(self.name, response.status_code, response.headers, _error_detail(response),
                               self._key)
        self._form = form
        try:
            data = response.json()
            choice = data["choices"][0]
            text = choice["message"]["content"] or ""
        except (ValueError, KeyError, IndexError, TypeError):
            raise ProviderError(f"{self.name}: unreadable response body (not a chat completion)",
                                retryable=True) from None
        usage = data.get("usage") or {}
        return Reply(str(text), int(usage.get("prompt_tokens") or 0), int(usage.get("completion_tokens") or 0),
                     str(data.get("model") or request.model), truncated=choice.get("finish_reason") == "length")

    def _post(self, body: dict[str, Any]) -> Any:
        http = self._http
        try:
            return self._client.post(self._url, json=body, headers=self._headers)
        except http.TimeoutException:
            raise timeout_error(self.name, self._timeout_s) from None
        except http.TransportError:
            raise connect_error(self.name, self._url) from None


def _refuses_format(response: Any) -> bool:
    """Whether an error answer is the server refusing our `response_format` (worth
    the next form) rather than the request as such (auth, context, rate, outage)."""
    status = response.status_code
    detail = _error_detail(response).lower()
    if status in (400, 422):
        return "context" not in detail and "token" not in detail
    return status == 500 and any(w in detail for w in ("response_format", "json_schema", "schema"))


def _llama_props(data: Any) -> Any:
    settings = data.get("default_generation_settings") if isinstance(data, dict) else None
    return settings.get("n_ctx") if isinstance(settings, dict) else None


def _models_context(data: Any) -> Any:
    models = data.get("data") if isinstance(data, dict) else None
    first = models[0] if isinstance(models, list) and models and isinstance(models[0], dict) else {}
    meta = first.get("meta")
    return first.get("max_model_len") or (meta.get("n_ctx_train") if isinstance(meta, dict) else None)


def _error_detail(response: Any) -> str:
    try:
        error = response.json().get("error", {})
        return one_line(error.get("message", "") if isinstance(error, dict) else error)
    except (ValueError, AttributeError):
        return one_line(response.text)
