"""The stream world's reflection in `run --json` and through a model (issue 39): what was tried
when nothing was proposed, once; an LLM reflector's policy for this world validated as every
other proposal, a hostile one refused in one line (the fake server on 127.0.0.1, no network)."""

from __future__ import annotations

import json

import pytest

from ael_cli.main import main
from engine.llm import client as llm_client
from scenarios.stream.demo import write_demo
from tests.fake_llm_server import FakeLLMServer, ok

DIAGNOSIS = {"diagnosis": "The vote is split between labels.", "insight": "", "regime_label": "split",
             "confidence": 0.5}


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    return write_demo(tmp_path_factory.mktemp("stream") / "demo.csv", 1)


@pytest.fixture(autouse=True)
def local_server_env(monkeypatch):
    for name in ("ANTHROPIC_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY", "AEL_OPENAI_BASE_URL", "AEL_OPENAI_MODEL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", "x")  # a local server accepts any key
    monkeypatch.setattr(llm_client, "_sleep", lambda s: None)


def run(demo, out, *extra):
    # 25 rows under a bar of 0.99: the gate opens once, after row 24
    return main(["run", "stream", "--data", str(demo), "--text", "text", "--label", "label", "--seeds", "1",
                 "--selector", "ts+reflection", "--until", "25", "--reflect-threshold", "0.99", "--quiet",
                 "--json", str(out), *extra])


def test_run_json_says_what_was_tried_when_nothing_was_proposed(demo, tmp_path):
    assert run(demo, tmp_path / "o.json") == 0
    said = json.loads((tmp_path / "o.json").read_text())["runs"][0]["nothing_proposed"]
    assert [x["episode"] for x in said] == [24]
    assert "neighbours disagree" in said[0]["triggers"] and said[0]["tried"] == {}
    assert said[0]["held_by_pool"] == ["prototypes", "prototypes_knn"]
    assert said[0]["why"] == ("there is no --meta column left to try, and what the triggers ask for is in the pool "
                              "already (prototypes, prototypes_knn)")


def llm_run(demo, tmp_path, *replies):
    out, save = tmp_path / "o.json", tmp_path / "s.json"
    with FakeLLMServer() as server:
        server.script(ok(DIAGNOSIS), *[ok(r) for r in replies])
        code = run(demo, out, "--reflector", "openai-compatible", "--reflector-model", "m", "--llm-url",
                   server.url + "/v1", "--approve", "auto", "--save", str(save))
        prompts = [json.dumps(r.body) for r in server.requests if r.method == "POST"]
    return code, json.loads(save.read_text())["session"], prompts


def test_a_models_policy_for_this_world_is_proposed_and_approved(demo, tmp_path):
    policy = {"name": "recent_150", "tiers": ["episodic"], "k": 10, "order": "similarity", "window": 150}
    code, session, prompts = llm_run(demo, tmp_path, {"propose": True, "policy": policy, "rationale": "recent rows"})
    assert code == 0
    assert any(i["arm"] == "recent_150" for i in session["injections"])
    assert '\\"memory_keys\\": [\\"label\\"]' in prompts[0]  # the model is told what a policy may filter by


@pytest.mark.parametrize("policy, reason", [
    ({"name": "by_customer", "tiers": ["episodic"], "k": 10, "order": "similarity", "filters": [{"key": "customer"}]},
     "filter key 'customer' is not in memory"),
    ({"name": "peek", "tiers": ["episodic"], "k": 10, "order": "similarity", "filters": [{"key": "label"}]},
     "the query has none to filter by"),
    ({"name": "fallback_to_nowhere", "tiers": ["episodic"], "k": 10, "order": "similarity", "fallback": "ghost"},
     "ghost"),
])
def test_a_hostile_policy_is_sent_back_once_then_refused_in_one_line(demo, tmp_path, policy, reason):
    reply = {"propose": True, "policy": policy, "rationale": "trust me"}
    code, session, prompts = llm_run(demo, tmp_path, reply, reply)  # the repair round gets the same again
    assert code == 0 and not session["injections"]
    assert reason in prompts[-1]  # the repair round told the model why
    dropped = [a for a in session["queue"]["audit"] if a["decision"] == "drop"]
    assert len(dropped) == 1 and reason in dropped[0]["reason"] and "\n" not in dropped[0]["reason"]


def test_a_recorded_stream_reflection_replays_to_the_same_results_offline(demo, tmp_path, monkeypatch):
    import socket

    tape, first, second = tmp_path / "tape.json", tmp_path / "a.json", tmp_path / "b.json"
    flags = ["--reflector", "openai-compatible", "--reflector-model", "m", "--approve", "auto"]
    with FakeLLMServer() as server:  # echo: a valid answer from each request's schema
        assert run(demo, first, *flags, "--llm-url", server.url + "/v1", "--record", str(tape)) == 0
        url = server.url
    monkeypatch.setattr(socket.socket, "connect", lambda *a: (_ for _ in ()).throw(OSError("no network")))
    assert run(demo, second, *flags, "--llm-url", url + "/v1", "--replay", str(tape)) == 0
    assert second.read_bytes() == first.read_bytes()
    assert json.loads(first.read_text())["runs"][0]["llm"]["by_purpose"]["reflect.diagnose"]["calls"] == 1
