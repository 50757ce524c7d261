"""The circuit breaker, announced waits, the cassette's writer lock and append on resume,
pinned models, and flags that exist: the LLM layer's behaviour over a whole run."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap

import pytest

import engine.llm.client as llm_client
from ael_cli.main import build_parser, main
from engine.errors import AELError
from engine.llm import LLMClient, LLMSettings
from engine.llm.breaker import CircuitBreaker
from engine.llm.request import ProviderError
from tests.fake_llm_server import FakeLLMServer, rate_limited

SCHEMA = {"type": "object", "required": ["a"], "properties": {"a": {"type": "string"}}}
MESSAGES = [{"role": "user", "content": "hi"}]
KEY = "sk-ant-resilience-0123456789"


class Down:
    """A provider that is always down, counting what reaches it."""

    name, live = "anthropic", True

    def __init__(self) -> None:
        self.sent = 0
        self.up = False

    def send(self, request):
        self.sent += 1
        if self.up:
            from engine.llm import Reply
            return Reply('{"a": "fine"}', 1, 1, request.model)
        raise ProviderError("anthropic: could not connect to http://127.0.0.1:9", retryable=True)


def offline(messages, schema):
    return {"a": "offline"}


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch):
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "GEMINI_API_KEY", "GOOGLE_API_KEY",
                 "GOOGLE_GEMINI_BASE_URL", "OPENAI_API_KEY", "AEL_OPENAI_BASE_URL", "AEL_OPENAI_MODEL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(llm_client, "_sleep", lambda s: None)


# ------------------------------------------------------------- the breaker
def test_after_five_failed_calls_the_breaker_answers_offline_without_calling_then_probes():
    provider, notices = Down(), []
    client = LLMClient(LLMSettings(provider="anthropic", error_policy="fallback", max_retries=3,
                                   breaker_cooldown_calls=3), provider=provider, notify=notices.append, name="agent")
    for _ in range(5):
        assert client.complete_json(MESSAGES, SCHEMA, purpose="p", fallback=offline).fallback
    assert provider.sent == 4 + 4  # the first call retries; after it, one attempt per call
    assert len(notices) == 1 and "agent (anthropic/claude-haiku-4-5): 5 calls in a row failed" in notices[0]
    for _ in range(3):  # the cool-down: answered offline, nothing sent
        result = client.complete_json(MESSAGES, SCHEMA, purpose="p", fallback=offline)
        assert result.fallback and result.attempts == 0 and result.reason.startswith("circuit open")
    assert provider.sent == 8
    client.complete_json(MESSAGES, SCHEMA, purpose="p", fallback=offline)  # the probe fails: open again, quietly
    assert provider.sent == 9 and len(notices) == 1 and client.breaker.opened
    for _ in range(3):
        client.complete_json(MESSAGES, SCHEMA, purpose="p", fallback=offline)
    provider.up = True
    result = client.complete_json(MESSAGES, SCHEMA, purpose="p", fallback=offline)  # the next probe works
    assert result.data == {"a": "fine"} and not client.breaker.opened
    assert "answering again" in notices[-1]


def test_under_raise_an_open_breaker_refuses_calls_for_a_time_then_probes():
    now = [0.0]
    provider = Down()
    client = LLMClient(LLMSettings(provider="anthropic", max_retries=0, breaker_cooldown_s=30.0),
                       provider=provider, clock=lambda: now[0])
    for _ in range(5):
        with pytest.raises(AELError, match="could not connect"):
            client.complete_json(MESSAGES, SCHEMA, purpose="p")
    with pytest.raises(AELError, match=r"circuit open: 5 calls in a row failed, not calling for 30 s"):
        client.complete_json(MESSAGES, SCHEMA, purpose="p")
    assert provider.sent == 5
    now[0] = 31.0
    provider.up = True
    assert client.complete_json(MESSAGES, SCHEMA, purpose="p").data == {"a": "fine"}


def test_the_breaker_counts_only_failures_in_a_row():
    b = CircuitBreaker(threshold=3)
    b.failed("x"), b.failed("x"), b.succeeded(), b.failed("x"), b.failed("x")
    assert not b.opened and b.degraded()
    assert b.failed("x") and b.opened and b.state == "open"


def test_an_open_breaker_shows_in_the_sessions_backend_text(tmp_path):
    from engine.session import Session, SessionConfig
    from scenarios import make_scenario

    with FakeLLMServer() as gone:
        url = gone.url
    config = SessionConfig("support", 42, episodes=8, llm={"agent": "openai-compatible", "agent_model": "m",
                                                           "base_url": url, "error_policy": "fallback",
                                                           "max_retries": 0})
    session = Session(config, make_scenario("support", 42, {}))
    session.run()
    assert "⚠ agent circuit open" in session.backend  # the lab's status line shows this text


# ------------------------------------------------------- announced waits
def test_a_long_retry_after_is_capped_and_announced():
    waits, notices = [], []
    with FakeLLMServer() as server:
        server.script(rate_limited(3600))
        client = LLMClient(LLMSettings(provider="anthropic"), sleep=waits.append, notify=notices.append,
                           env={"ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": server.url})
        client.complete_json(MESSAGES, SCHEMA, purpose="p")
    assert waits == [30.0]
    assert notices == ["llm (anthropic/claude-haiku-4-5): waiting 30 s before retrying, as the server asked "
                       "(Retry-After) (it asked for 3600 s; the cap is 30 s)"]


# ---------------------------------------------------------- cassettes
def support_run(*argv):
    return main(["run", "support", "--seeds", "42", "--quiet", "--reflect-every", "5", *argv])


def resume(save, *extra):
    return main(["run", "support", "--quiet", "--resume", str(save), "--save", str(save), *extra])


def calls_in(tape) -> int:
    entries = json.loads(tape.read_text())["entries"].values()
    return sum(len(e["outcomes"]) for e in entries)


def test_record_on_a_resumed_session_appends_to_the_cassette(tmp_path, monkeypatch):
    tape, save = tmp_path / "tape.json", tmp_path / "s.json"
    with FakeLLMServer() as server:
        monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
        assert support_run("--episodes", "12", "--until", "6", "--agent", "anthropic", "--reflector", "anthropic",
                           "--record", str(tape), "--save", str(save)) == 0
        first = calls_in(tape)
        assert resume(save) == 0
        sent = len(server.requests)
    assert first == 6 + 2 and calls_in(tape) == sent == 12 + 4  # nothing of the first part was lost
    assert not (tmp_path / "tape.json.lock").exists()  # the writer's lock went with the command


def test_a_cassette_another_process_is_recording_is_refused_with_one_line(tmp_path, capsys, monkeypatch):
    tape = tmp_path / "tape.json"
    tape.write_text('{"kind": "ael-llm-cassette", "version": 1, "entries": {}}')
    holder = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(f"""
            import sys
            from engine.llm import Cassette
            c = Cassette.record({str(tape)!r}, append=True)
            print("locked", flush=True)
            sys.stdin.readline()
        """)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=str(tmp_path.cwd()))
    try:
        assert holder.stdout.readline().strip() == "locked"
        monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
        assert support_run("--episodes", "3", "--agent", "anthropic", "--record", str(tape)) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "is being recorded by another session" in err
        assert json.loads(tape.read_text())["entries"] == {}  # untouched
    finally:
        holder.communicate("\n", timeout=10)


# ------------------------------------------- models, URLs and flags
def test_the_openai_compatible_model_is_saved_and_resume_needs_no_environment(tmp_path, monkeypatch):
    save = tmp_path / "s.json"
    with FakeLLMServer() as server:
        monkeypatch.setenv("AEL_OPENAI_MODEL", "first-model")
        url = server.url.replace("http://", "http://me:pa55word-secret@")
        assert support_run("--episodes", "8", "--until", "4", "--agent", "openai-compatible", "--llm-url", url,
                           "--save", str(save)) == 0
        monkeypatch.setenv("AEL_OPENAI_MODEL", "another-model")  # must not switch the saved session's model
        assert resume(save, "--llm-url", server.url) == 0  # the person confirms the endpoint the file names
        models = {r.body["model"] for r in server.requests}
        auth = [r.headers.get("Authorization", "") for r in server.requests]
    text = save.read_text()
    assert models == {"first-model"}
    assert "pa55word-secret" not in text and "http://[redacted]@127.0.0.1" in text
    assert all(a.startswith("Basic ") for a in auth[:4])  # the userinfo was used while it was known
    assert auth[4:] == [""] * 4  # after resume the scrubbed userinfo is dropped, not sent as a password


def test_an_openai_compatible_agent_without_a_model_names_real_flags(capsys, monkeypatch):
    monkeypatch.setenv("AEL_OPENAI_BASE_URL", "http://127.0.0.1:9")
    assert support_run("--episodes", "3", "--agent", "openai-compatible") == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--agent-model" in err
    flags = {s for a in build_parser()._subparsers._group_actions[0].choices["run"]._actions
             for s in a.option_strings}
    assert set(re.findall(r"--[a-z-]+", err)) <= flags


def test_agent_on_a_scenario_without_an_agent_is_refused_with_one_line(capsys):
    assert main(["run", "synthetic", "--seeds", "1", "--agent", "anthropic", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--agent: the synthetic scenario has no agent" in err


def test_the_labs_start_screen_refuses_a_model_agent_on_a_scenario_without_an_agent():
    from ael_tui.widgets.opening import NewSession, build_session

    with pytest.raises(AELError, match="the synthetic scenario has no agent a model could play"):
        build_session(NewSession("synthetic", agent="anthropic"))
    assert NewSession("synthetic", reflector="anthropic").llm_settings() == {"agent": "offline", "reflector": "anthropic"}
