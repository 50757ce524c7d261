"""The local model runs in a child process: when its native runtime dies mid-run
(SIGILL from a library built for another CPU, SIGSEGV) after the one-token probe
passed, the call fails in one line and the run is saved, instead of the CLI's
process dying with it (exit 132). No real model: a stand-in child speaks the
protocol (engine/llm/providers/local_child.py) and kills itself on cue."""

from __future__ import annotations

import json
import os
import signal

import pytest

from ael_cli.main import main
from engine.llm import LLMSettings, local_model
from engine.llm.providers import local_llama, local_process
from engine.llm.request import LLMRequest, ProviderError

# answers `healthy` requests, then dies of `signal` on the next one
STAND_IN = """import json, os, signal, sys
healthy, sig = {healthy}, {signal}
print(json.dumps({{"ready": True}}), flush=True)
for n, line in enumerate(sys.stdin):
    if n >= healthy:
        os.kill(os.getpid(), sig)
    print(json.dumps({{"ok": True, "content": "{{}}", "finish_reason": "stop", "prompt_tokens": 3,
                      "completion_tokens": 1}}), flush=True)
"""


@pytest.fixture
def stand_in(tmp_path, monkeypatch):
    """A GGUF path and a function that makes the model's process a stand-in dying of a signal."""
    model = tmp_path / "tiny.gguf"
    model.write_bytes(b"GGUF")
    monkeypatch.setattr(local_model, "runtime_installed", lambda: True)
    monkeypatch.setattr(local_model, "why_unusable", lambda model=None, refresh=False: "")
    monkeypatch.setattr(local_model, "probe", lambda path, **kw: "")  # the probe passed: the crash comes later
    monkeypatch.setattr(local_llama, "_models", {})

    def dies_of(sig: int, healthy: int = 0) -> None:
        script = tmp_path / "stand_in.py"
        script.write_text(STAND_IN.format(healthy=healthy, signal=int(sig)))
        monkeypatch.setattr(local_process, "CHILD", script)

    yield model, dies_of
    local_llama._close_all()


def _ask(provider) -> str:
    request = LLMRequest(provider="local", model="tiny", messages=({"role": "user", "content": "hello"},),
                         schema={"type": "object"}, temperature=0.0, max_tokens=8)
    return provider.send(request).text


@pytest.mark.parametrize("sig, said", [(signal.SIGILL, "illegal instruction (SIGILL)"),
                                       (signal.SIGSEGV, "crashed (SIGSEGV)")])
def test_a_crash_of_the_model_s_process_is_a_failed_call_and_the_next_call_starts_it_again(stand_in, sig, said):
    model, dies_of = stand_in
    dies_of(sig, healthy=1)
    provider = local_llama.LocalProvider(LLMSettings(provider="local", model=str(model)), {})
    assert _ask(provider) == "{}"
    with pytest.raises(ProviderError, match=said.replace("(", r"\(").replace(")", r"\)")) as failed:
        _ask(provider)
    assert "\n" not in str(failed.value) and not failed.value.retryable
    assert _ask(provider) == "{}"  # a fresh process, which answers again
    [(process, _)] = local_llama._models.values()
    assert process.starts == 2


def test_a_run_whose_local_model_dies_mid_run_says_so_in_one_line_and_is_saved(stand_in, tmp_path, capsys):
    model, dies_of = stand_in
    dies_of(signal.SIGILL)
    save = tmp_path / "stopped.json"
    code = main(["run", "support", "--episodes", "40", "--quiet", "--agent", "local", "--agent-model", str(model),
                 "--error-policy", "raise", "--save", str(save)])
    err = capsys.readouterr().err.strip()
    assert code == 2 and "\n" not in err
    assert "illegal instruction (SIGILL)" in err and f"session saved at episode 0 to {save}" in err
    assert json.loads(save.read_text())["session"]


def test_the_model_s_process_gets_no_keys(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-0123456789abcdef")
    monkeypatch.setenv("HOME", os.environ.get("HOME", "/root"))
    env = local_process._child_env()
    assert "sk-test-0123456789abcdef" not in env.values() and env["OMP_WAIT_POLICY"]
