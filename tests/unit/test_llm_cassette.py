"""Record every call to a cassette, replay it without a network or a key."""

from __future__ import annotations

import json
import os
import re
import socket

import pytest

from engine.errors import AELError
from engine.llm import Cassette, LLMClient, LLMSettings, UsageLedger

from tests.fake_llm_server import FakeLLMServer, error, ok, rate_limited, schema_invalid, server_error

KEY = "sk-ant-cassette-KEY-24680"
SCHEMA = {"type": "object", "properties": {"insight": {"type": "string"},
                                           "k": {"type": "integer", "minimum": 1, "maximum": 20}},
          "required": ["insight", "k"]}


def ask(n: int) -> list[dict[str, str]]:
    return [{"role": "user", "content": f"Window {n}: propose a k."}]


def offline_answer(messages, schema):
    return {"insight": "offline", "k": 5}


@pytest.fixture
def server():
    with FakeLLMServer() as s:
        yield s


@pytest.fixture
def no_network(monkeypatch):
    """Any attempt to connect anywhere fails the test."""
    def refuse(self, address):
        raise AssertionError(f"a socket tried to connect to {address!r}")
    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch):
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL", "GEMINI_API_KEY",
                 "GOOGLE_API_KEY", "GOOGLE_GEMINI_BASE_URL", "OPENAI_API_KEY", "AEL_OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)


def record_session(server: FakeLLMServer, path) -> tuple[list, UsageLedger]:
    """Three calls as a session would make them: a retried one, a clean one, a fallback."""
    server.script(rate_limited(1), ok({"insight": "storm ahead", "k": 3}),
                  ok({"insight": "calm", "k": 8}),
                  schema_invalid(), schema_invalid())
    with Cassette.record(path) as cassette:  # closing it writes the rest and drops the writer's lock
        client = LLMClient(LLMSettings(provider="anthropic", error_policy="fallback"),
                           cassette=cassette, sleep=lambda s: None,
                           env={"ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": server.url})
        results = [client.complete_json(ask(n), SCHEMA, purpose="reflect", fallback=offline_answer)
                   for n in range(3)]
    return results, client.ledger


def replay_session(path) -> tuple[list, UsageLedger]:
    sleeps: list[float] = []
    client = LLMClient(LLMSettings(provider="anthropic", error_policy="fallback"),
                       cassette=Cassette.replay(path), env={}, sleep=sleeps.append)
    results = [client.complete_json(ask(n), SCHEMA, purpose="reflect", fallback=offline_answer) for n in range(3)]
    assert sleeps == []  # a replay repeats the recorded 429, not the wait
    return results, client.ledger


def same(result) -> tuple:
    """Everything but wall-clock latency."""
    d = result.to_dict()
    d.pop("latency_s")
    return tuple(sorted(d.items(), key=lambda kv: kv[0]))


@pytest.mark.heavy
def test_a_replay_gives_the_recorded_results_without_network_or_key(server, tmp_path, request):
    path = tmp_path / "calls.json"
    recorded, _ = record_session(server, path)
    assert [r.fallback for r in recorded] == [False, False, True]
    assert recorded[0].attempts == 2
    request.getfixturevalue("no_network")  # from here on, no socket may connect
    replayed, ledger = replay_session(path)
    assert [same(r) for r in replayed] == [same(r) for r in recorded]
    assert ledger.totals().cost_usd == pytest.approx(sum(r.cost_usd for r in recorded))


@pytest.mark.heavy
def test_the_cassette_holds_requests_and_replies_but_no_key(server, tmp_path):
    path = tmp_path / "calls.json"
    record_session(server, path)
    text = path.read_text()
    assert KEY not in text
    assert "authorization" not in text.lower() and "x-api-key" not in text.lower()
    data = json.loads(text)
    assert data["kind"] == "ael-llm-cassette"
    entry = next(iter(data["entries"].values()))
    assert set(entry["request"]) == {"provider", "model", "messages", "schema", "temperature", "max_tokens"}
    assert entry["purpose"] == "reflect"
    assert [list(o) for o in entry["outcomes"]] == [["error"], ["reply"]]  # the 429, then the answer


@pytest.mark.heavy
def test_a_server_that_quotes_the_key_does_not_get_it_into_the_cassette(server, tmp_path):
    path = tmp_path / "calls.json"
    server.script(error(401, f"key {KEY} is not valid"))
    client = LLMClient(LLMSettings(provider="anthropic", error_policy="fallback"), cassette=Cassette.record(path),
                       env={"ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": server.url})
    result = client.complete_json(ask(1), SCHEMA, purpose="reflect", fallback=offline_answer)
    assert result.fallback and "HTTP 401" in result.reason
    assert KEY not in path.read_text() and KEY not in result.reason


def test_recording_leaves_no_temp_files_behind(server, tmp_path):
    record_session(server, tmp_path / "calls.json")
    assert sorted(os.listdir(tmp_path)) == ["calls.json"]


def test_a_record_cassette_writes_nothing_before_the_first_call(tmp_path):
    path = tmp_path / "calls.json"
    Cassette.record(path)
    assert not path.exists()


def test_a_request_the_cassette_lacks_fails_naming_purpose_and_hash(tmp_path, no_network):
    path = tmp_path / "calls.json"
    path.write_text(json.dumps({"kind": "ael-llm-cassette", "version": 1, "entries": {}}))
    client = LLMClient(LLMSettings(provider="gemini"), cassette=Cassette.replay(path), env={})
    with pytest.raises(AELError) as caught:
        client.complete_json(ask(9), SCHEMA, purpose="agent")
    message = str(caught.value)
    assert "'agent'" in message and re.search(r"request [0-9a-f]{16}", message)
    assert "--record" in message


def test_a_changed_prompt_misses_the_cassette(server, tmp_path):
    path = tmp_path / "calls.json"
    record_session(server, path)
    client = LLMClient(LLMSettings(provider="anthropic", error_policy="fallback"),
                       cassette=Cassette.replay(path), env={})
    with pytest.raises(AELError, match="holds no answer for purpose 'reflect'"):
        client.complete_json([{"role": "user", "content": "something else"}], SCHEMA,
                             purpose="reflect", fallback=offline_answer)


def test_a_changed_setting_misses_the_cassette(server, tmp_path):
    path = tmp_path / "calls.json"
    record_session(server, path)
    client = LLMClient(LLMSettings(provider="anthropic", temperature=0.9), cassette=Cassette.replay(path), env={})
    with pytest.raises(AELError, match="holds no answer"):
        client.complete_json(ask(1), SCHEMA, purpose="reflect")


@pytest.mark.parametrize("content, problem", [
    (None, "no cassette at"),
    ("{not json", "cannot read"),
    ('{"kind": "something-else", "entries": {}}', "is not an LLM cassette"),
    ('{"kind": "ael-llm-cassette", "version": 99, "entries": {}}', "version 99"),
])
def test_a_bad_cassette_file_is_refused_clearly(tmp_path, content, problem):
    path = tmp_path / "calls.json"
    if content is not None:
        path.write_text(content)
    with pytest.raises(AELError, match=problem):
        Cassette.replay(path)


def test_a_failed_call_replays_as_the_same_failure(server, tmp_path):
    path = tmp_path / "calls.json"
    server.script(server_error(500), server_error(500))
    recorder = LLMClient(LLMSettings(provider="anthropic", max_retries=1), cassette=Cassette.record(path),
                         env={"ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": server.url}, sleep=lambda s: None)
    with pytest.raises(AELError) as recorded:
        recorder.complete_json(ask(1), SCHEMA, purpose="reflect")
    player = LLMClient(LLMSettings(provider="anthropic", max_retries=1), cassette=Cassette.replay(path), env={})
    with pytest.raises(AELError) as replayed:
        player.complete_json(ask(1), SCHEMA, purpose="reflect")
    assert str(replayed.value) == str(recorded.value)


def test_a_missing_key_is_recorded_and_replayed_as_a_fallback(tmp_path, no_network):
    path = tmp_path / "calls.json"
    settings = LLMSettings(provider="anthropic", error_policy="fallback")
    first = LLMClient(settings, cassette=Cassette.record(path), env={}).complete_json(
        ask(1), SCHEMA, purpose="reflect", fallback=offline_answer)
    again = LLMClient(settings, cassette=Cassette.replay(path), env={}).complete_json(
        ask(1), SCHEMA, purpose="reflect", fallback=offline_answer)
    assert first.fallback and again.fallback and "ANTHROPIC_API_KEY" in again.reason


def test_identical_requests_replay_their_outcomes_in_order(server, tmp_path):
    path = tmp_path / "calls.json"
    server.script(ok({"insight": "first", "k": 1}), ok({"insight": "second", "k": 2}))
    env = {"ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": server.url}
    recorder = LLMClient(LLMSettings(provider="anthropic"), cassette=Cassette.record(path), env=env)
    for _ in range(2):
        recorder.complete_json(ask(1), SCHEMA, purpose="reflect")
    player = LLMClient(LLMSettings(provider="anthropic"), cassette=Cassette.replay(path), env={})
    answers = [player.complete_json(ask(1), SCHEMA, purpose="reflect").data["insight"] for _ in range(3)]
    assert answers == ["first", "second", "second"]  # then the last one, once they run out


def test_a_throttled_cassette_writes_on_flush(tmp_path):
    path = tmp_path / "calls.json"
    with Cassette.record(path, save_every_s=3600) as cassette:
        client = LLMClient(LLMSettings(provider="offline"), cassette=cassette)
        for n in range(3):
            client.complete_json(ask(n), SCHEMA, purpose="agent", fallback=offline_answer)
        assert len(json.loads(path.read_text())["entries"]) == 1  # only the first call was written
    assert len(json.loads(path.read_text())["entries"]) == 3


def test_an_unwritable_cassette_is_a_clear_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(AELError, match="llm record: cannot write"):  # before any call is paid for
        Cassette.record(blocker / "calls.json")


def test_a_replayed_reply_over_the_size_cap_is_unreadable_like_a_live_one(tmp_path):
    tape = tmp_path / "tape.json"
    with Cassette.record(tape) as cassette:
        client = LLMClient(LLMSettings(provider="offline"), cassette=cassette)
        client.complete_json(ask(1), SCHEMA, purpose="agent", fallback=offline_answer)
    data = json.loads(tape.read_text())
    for entry in data["entries"].values():
        entry["outcomes"][0]["reply"]["text"] = json.dumps({"insight": "x" * 300_000, "k": 1})
    tape.write_text(json.dumps(data))
    client = LLMClient(LLMSettings(provider="offline", error_policy="fallback"), cassette=Cassette.replay(tape))
    result = client.complete_json(ask(1), SCHEMA, purpose="agent", fallback=offline_answer)
    assert result.fallback and "over the 262,144-byte cap" in result.reason
