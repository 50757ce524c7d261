"""Settings, cost estimates, the usage ledger, and the retry arithmetic."""

from __future__ import annotations

import email.utils
import json

import pytest

from engine.errors import AELError
from engine.llm import LLMClient, LLMResult, LLMSettings, UsageLedger, UsageRecord
from engine.llm.retry import backoff_delay, retry_after_seconds


def record(purpose: str, provider: str, tokens_in: int, tokens_out: int, cost: float, fallback=False) -> UsageRecord:
    return UsageRecord.from_result(LLMResult({}, provider, "m", tokens_in, tokens_out, cost, 0.5, 1,
                                             fallback, "why" if fallback else "", purpose, "0" * 16))


def test_settings_save_without_the_key_and_load_back():
    settings = LLMSettings(provider="gemini", model="gemini-2.5-flash", api_key="secret-key-123456",
                           error_policy="fallback", prices={"gemini-2.5-flash": (0.3, 2.5)})
    saved = json.loads(json.dumps(settings.to_dict()))
    assert "api_key" not in saved and "secret-key-123456" not in json.dumps(saved)
    assert "secret-key-123456" not in repr(settings)
    assert LLMSettings.from_dict(saved) == settings


@pytest.mark.parametrize("raw, problem", [
    ({"provider": "openai"}, "llm provider 'openai'"),
    ({"error_policy": "ignore"}, "error_policy 'ignore'"),
    ({"temperature": 5}, "'temperature'"),
    ({"max_retries": 2.5}, "'max_retries'"),
    ({"max_tokens": True}, "'max_tokens'"),
    ({"api_key": "x"}, "'api_key': unknown field"),
    ({"prices": {"m": [1]}}, "'prices'"),
])
def test_bad_settings_are_refused_naming_the_field(raw, problem):
    with pytest.raises(AELError, match=problem):
        LLMSettings.from_dict(raw)


def test_cost_is_priced_by_the_longest_matching_model_prefix():
    settings = LLMSettings(prices={"claude": (10.0, 10.0), "claude-haiku-4-5": (1.0, 5.0)})
    assert settings.cost_usd("claude-haiku-4-5-20251001", 1_000_000, 200_000) == pytest.approx(2.0)
    assert settings.cost_usd("claude-other", 100_000, 0) == pytest.approx(1.0)
    assert settings.cost_usd("unknown-model", 10**6, 10**6) == 0.0


def test_default_models_are_priced():
    settings = LLMSettings()
    for provider in ("anthropic", "gemini"):
        model = LLMSettings(provider=provider).resolved_model({})
        assert settings.price_of(model) is not None, model


def test_the_ledger_totals_by_purpose_and_provider():
    ledger = UsageLedger()
    ledger.add(record("reflect", "anthropic", 100, 20, 0.002))
    ledger.add(record("reflect", "anthropic", 50, 10, 0.001, fallback=True))
    ledger.add(record("agent", "gemini", 10, 5, 0.0001))
    assert ledger.totals().calls == 3 and ledger.totals().input_tokens == 160
    assert ledger.by_purpose()["reflect"].fallbacks == 1
    assert ledger.by_provider()["gemini"].cost_usd == pytest.approx(0.0001)


def test_the_ledger_round_trips_through_json():
    ledger = UsageLedger()
    ledger.add(record("reflect", "anthropic", 100, 20, 0.002))
    ledger.add(record("agent", "offline", 0, 0, 0.0, fallback=True))
    loaded = UsageLedger.load(json.loads(json.dumps(ledger.to_dict())))
    assert loaded.records == ledger.records
    assert loaded.to_dict() == ledger.to_dict()


@pytest.mark.parametrize("data, problem", [
    ([], "expected an object"),
    ({"records": [{"purpose": "x"}]}, "record 0"),
    ({"records": [], "version": 9}, "version 9 is newer"),
])
def test_a_bad_ledger_is_refused(data, problem):
    with pytest.raises(AELError, match=problem):
        UsageLedger.load(data)


def test_clients_can_share_one_ledger():
    ledger = UsageLedger()
    for purpose in ("reflect", "agent"):
        LLMClient(LLMSettings(), ledger=ledger).complete_json(
            [{"role": "user", "content": "x"}], {"type": "object"}, purpose=purpose, fallback=lambda m, s: {})
    assert sorted(ledger.by_purpose()) == ["agent", "reflect"]


def test_retry_after_reads_seconds_milliseconds_and_dates():
    assert retry_after_seconds({"retry-after": "3"}) == 3.0
    assert retry_after_seconds({"Retry-After": "1.5"}) == 1.5
    assert retry_after_seconds({"retry-after-ms": "250", "retry-after": "9"}) == 0.25
    date = "Wed, 21 Oct 2026 07:28:00 GMT"
    then = email.utils.parsedate_to_datetime(date).timestamp()
    assert retry_after_seconds({"retry-after": date}, now=then - 30) == pytest.approx(30)
    assert retry_after_seconds({"retry-after": date}, now=then + 30) == 0.0  # already past
    assert retry_after_seconds({"retry-after": "soon"}) is None
    assert retry_after_seconds({}) is None


def test_backoff_doubles_prefers_retry_after_and_is_capped():
    assert [backoff_delay(i, 0.5, 60, None) for i in range(4)] == [0.5, 1.0, 2.0, 4.0]
    assert backoff_delay(0, 0.5, 60, 7.0) == 7.0
    assert backoff_delay(10, 1.0, 30, None) == 30
    assert backoff_delay(0, 1.0, 30, 3600) == 30
