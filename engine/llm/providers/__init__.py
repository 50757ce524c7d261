"""Providers: one small class per way of reaching a model.

SDKs are imported inside the provider classes, so importing the engine (or
running offline) never loads them.
"""

from __future__ import annotations

import importlib
from dataclasses import replace
from typing import Any, Callable, Iterable, Mapping

from ...secrets import REDACTED

from ..request import LLMRequest, Provider, ProviderError, Reply
from ..settings import LLMSettings
from .offline import OfflineProvider


def make_provider(settings: LLMSettings, env: Mapping[str, str]) -> Provider:
    """Build the provider the settings name; raises `ProviderError` (not
    retryable) when it cannot be used, e.g. for want of a key.

    A URL's userinfo is never saved (`engine.secrets` turns it into
    "[redacted]@"): a resumed session reaches the same host without it, and
    the key comes from the environment as usual."""
    if settings.base_url and f"{REDACTED}@" in settings.base_url:
        settings = replace(settings, base_url=settings.base_url.replace(f"{REDACTED}@", ""))
    if settings.provider == "anthropic":
        from .anthropic_sdk import AnthropicProvider
        return AnthropicProvider(settings, env)
    if settings.provider == "gemini":
        from .gemini_sdk import GeminiProvider
        return GeminiProvider(settings, env)
    if settings.provider == "local":
        from .local_llama import LocalProvider
        return LocalProvider(settings, env)
    if settings.provider == "openai-compatible":
        from .openai_http import OpenAICompatibleProvider
        return OpenAICompatibleProvider(settings, env)
    return OfflineProvider()


# the SDK each provider imports at its first call (anthropic's pydantic models: about 2 s of CPU)
SDK_MODULES = {"anthropic": "anthropic", "gemini": "google.genai"}


def import_sdks(llm_configs: Iterable[Mapping[str, Any]]) -> list[str]:
    """Import now the installed SDKs of the providers these configs (`SessionConfig.llm`
    dicts) name for the agent or the reflector; returns the modules imported. A sweep's
    parent calls it before it forks its workers (engine/executor.py), which then start with
    the SDK instead of each importing it again. One that is not installed is left to the
    run's first call, which says what to install."""
    wanted = {SDK_MODULES.get(str(c.get(role, ""))) for c in llm_configs for role in ("agent", "reflector")}
    imported = []
    for module in sorted(m for m in wanted if m):
        try:
            importlib.import_module(module)
        except ImportError:
            continue
        imported.append(module)
    return imported


class LazyProvider:
    """Builds the real provider at its first use, so a client can exist (and
    replay, or fall back) without SDKs, keys or network. A provider that cannot
    be built (no key) fails each call with the same `ProviderError`."""

    def __init__(self, name: str, live: bool, factory: Callable[[], Provider]) -> None:
        self.name = name
        self.live = live
        self._factory = factory
        self._provider: Provider | None = None

    def send(self, request: LLMRequest) -> Reply:
        if self._provider is None:
            self._provider = self._factory()
        return self._provider.send(request)

    def context_tokens(self) -> int | None:
        try:
            if self._provider is None:
                self._provider = self._factory()
        except ProviderError:  # no key: the first call will say so
            return None
        return self._provider.context_tokens()


__all__ = ["LazyProvider", "OfflineProvider", "import_sdks", "make_provider"]
