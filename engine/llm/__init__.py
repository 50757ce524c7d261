"""The engine's LLM layer: structured JSON out of any model, accounted for.

    client = LLMClient(LLMSettings(provider="anthropic", error_policy="fallback"))
    result = client.complete_json(messages, schema, purpose="reflect", fallback=offline_answer)

Providers (anthropic, gemini, openai-compatible, offline) load their SDKs
lazily; `Cassette.record(path)` / `Cassette.replay(path)` passed as
`cassette=` record or replay every call; `UsageLedger` keeps the tokens and
estimated cost of every call.
"""

import importlib
from typing import Any

# name -> the submodule that defines it. Imported on first use (PEP 562): an
# offline run needs only the ledger and the settings, and the cassette's pydantic
# schema alone would put about 0.1 s on every `ael-lab run`.
_WHERE = {
    "ProviderStatus": "availability", "provider_status": "availability", "Cassette": "cassette",
    "LLMClient": "client", "Totals": "ledger", "UsageLedger": "ledger", "UsageRecord": "ledger",
    "Fallback": "request", "LLMRequest": "request", "Provider": "request", "ProviderError": "request",
    "Reply": "request", "LLMResult": "result", "SchemaError": "schema", "check_schema": "schema",
    "example_for": "schema", "validate": "schema", "DEFAULT_MODELS": "settings", "DEFAULT_PRICES": "settings",
    "ERROR_POLICIES": "settings", "PROVIDERS": "settings", "LLMSettings": "settings",
}


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{_WHERE[name]}", __name__), name)
    globals()[name] = value  # once: later reads are plain module attributes
    return value


__all__ = [  # what `from engine.llm import *` gives; each is imported on first use
    "Cassette", "DEFAULT_MODELS", "DEFAULT_PRICES", "ERROR_POLICIES", "Fallback", "LLMClient",
    "LLMRequest", "LLMResult", "LLMSettings", "PROVIDERS", "Provider", "ProviderError", "ProviderStatus", "Reply",
    "SchemaError", "Totals", "UsageLedger", "UsageRecord", "check_schema", "example_for",
    "provider_status", "validate",
]
