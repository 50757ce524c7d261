"""The engine's LLM layer: structured JSON out of any model, accounted for.

    client = LLMClient(LLMSettings(provider="anthropic", error_policy="fallback"))
    result = client.complete_json(messages, schema, purpose="reflect", fallback=offline_answer)

Providers (anthropic, gemini, openai-compatible, offline) load their SDKs
lazily; `Cassette.record(path)` / `Cassette.replay(path)` passed as
`cassette=` record or replay every call; `UsageLedger` keeps the tokens and
estimated cost of every call.
"""

from .availability import ProviderStatus, provider_status
from .cassette import Cassette
from .client import LLMClient
from .ledger import Totals, UsageLedger, UsageRecord
from .request import Fallback, LLMRequest, Provider, ProviderError, Reply
from .result import LLMResult
from .schema import SchemaError, check_schema, example_for, validate
from .settings import DEFAULT_MODELS, DEFAULT_PRICES, ERROR_POLICIES, PROVIDERS, LLMSettings

__all__ = [
    "Cassette", "DEFAULT_MODELS", "DEFAULT_PRICES", "ERROR_POLICIES", "Fallback", "LLMClient",
    "LLMRequest", "LLMResult", "LLMSettings", "PROVIDERS", "Provider", "ProviderError", "ProviderStatus", "Reply",
    "SchemaError", "Totals", "UsageLedger", "UsageRecord", "check_schema", "example_for",
    "provider_status", "validate",
]
