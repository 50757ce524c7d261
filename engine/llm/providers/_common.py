"""Helpers the network providers share: the HTTP library and error wording."""

from __future__ import annotations

from types import ModuleType
from typing import Any

from ...secrets import clip, scrub
from ..request import ProviderError
from ..retry import is_retryable_status, retry_after_seconds


def http_module() -> ModuleType:
    """httpx2 (what the SDKs here bring) or httpx: the same API, two names."""
    try:
        import httpx2
        return httpx2
    except ImportError:  # pragma: no cover - depends on the installed SDKs
        import httpx
        return httpx


def _http_exceptions(attr: str) -> tuple[type[BaseException], ...]:
    """`attr` (an exception class) of whichever of httpx2 / httpx is installed."""
    found: list[type[BaseException]] = []
    for name in ("httpx2", "httpx"):
        try:
            module = __import__(name)
        except ImportError:
            continue
        found.append(getattr(module, attr))
    return tuple(found)


def timeout_classes() -> tuple[type[BaseException], ...]:
    """Timeout exceptions of whichever of httpx2 / httpx is installed."""
    return _http_exceptions("TimeoutException")


def transport_classes() -> tuple[type[BaseException], ...]:
    """Connection-level exceptions (refused, reset, DNS) of httpx2 / httpx."""
    return _http_exceptions("TransportError")


def one_line(text: Any, limit: int = 200) -> str:
    return clip(text, limit)


def status_error(provider: str, status: int, headers: Any, detail: Any = "", secret: str = "") -> ProviderError:
    """The ProviderError for an HTTP error status, with advice for the common ones.

    `detail` is the server's own message; some servers quote the key they
    refused, so `secret` is cut out of it here, before anything records it."""
    advice = {
        401: "the API key was refused; check it",
        403: "the API key may not use this model or endpoint",
        404: "unknown model or URL; check the model name and base URL",
        429: "rate limited",
    }.get(status, "server error" if status >= 500 else "request refused")
    text = f"{provider}: HTTP {status} ({advice})"
    if detail:
        text += f": {one_line(scrub(one_line(detail, 4000), extra=[secret]))}"
    return ProviderError(text, retryable=is_retryable_status(status),
                         retry_after=retry_after_seconds(headers), status=status)


def timeout_error(provider: str, timeout_s: float) -> ProviderError:
    return ProviderError(f"{provider}: no answer within {timeout_s:g} s (timeout)", retryable=True)


def connect_error(provider: str, url: str) -> ProviderError:
    return ProviderError(f"{provider}: could not connect to {url}", retryable=True)


def missing_key(provider: str, names: str) -> ProviderError:
    return ProviderError(f"{provider}: no API key; set {names}", retryable=False)
