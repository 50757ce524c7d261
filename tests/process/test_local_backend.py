"""The `local` backend where the model may not be installed: what it says when it
cannot run, that the start screen offers it only when it can, and that nothing
offline ever loads llama_cpp. (The real model runs in test_local_model.py.)"""

from __future__ import annotations

import subprocess
import sys

import pytest

from ael_cli.main import main
from ael_tui.widgets.opening import usable_backends
from engine.errors import AELError
from engine.llm import LLMSettings, local_model, provider_status
from engine.llm.providers import make_provider
from engine.llm.request import ProviderError


@pytest.fixture
def not_installed(monkeypatch):
    monkeypatch.setattr(local_model, "_find", lambda name: None)


def test_without_the_extra_the_local_backend_says_how_to_get_it(not_installed):
    why = local_model.why_unusable()
    assert "llama-cpp-python is not installed" in why and "make local" in why and "cmake" in why
    status = {s.provider: s for s in provider_status({})}["local"]
    assert not status.usable and status.why == why and status.model == "SmolLM2-135M-Instruct"
    assert "local" not in [value for value, _ in usable_backends("agent", {})]
    with pytest.raises(ProviderError, match="make local"):
        make_provider(LLMSettings(provider="local"), {})


@pytest.mark.parametrize("role", ["agent", "reflector"])
def test_the_cli_refuses_a_local_role_it_cannot_run_in_one_line(role, not_installed, capsys, tmp_path):
    code = main(["run", "support", "--episodes", "3", "--quiet", f"--{role}", "local",
                 "--json", str(tmp_path / "out.json")])
    err = capsys.readouterr().err.strip()
    assert code == 2 and "\n" not in err
    assert err.startswith(f"ael-lab: --{role} local: llama-cpp-python is not installed") and "make local" in err
    assert not (tmp_path / "out.json").exists()


def test_a_model_that_is_not_a_gguf_file_is_refused_in_one_line(monkeypatch, capsys, tmp_path):
    monkeypatch.setattr(local_model, "runtime_installed", lambda: True)
    (tmp_path / "notes.txt").write_text("not a model")
    for model in (str(tmp_path / "missing.gguf"), str(tmp_path / "notes.txt")):
        code = main(["run", "support", "--episodes", "3", "--quiet", "--reflector", "local",
                     "--reflector-model", model])
        err = capsys.readouterr().err.strip()
        assert code == 2 and "\n" not in err and "is not a GGUF file here" in err
    with pytest.raises(AELError, match="not a GGUF file"):
        local_model.model_path(str(tmp_path / "missing.gguf"))


def test_the_start_screen_offers_local_when_it_can_run(monkeypatch):
    monkeypatch.setattr(local_model, "why_unusable", lambda model=None: "")
    offered = dict(usable_backends("reflector", {}))
    assert "local" in offered and "not insight" in offered["local"]  # labelled for what it is


def test_nothing_offline_loads_llama_cpp():
    code = (
        "import sys\n"
        "from engine.llm import provider_status\n"
        "from ael_tui.widgets.opening import usable_backends\n"
        "from ael_cli.main import main\n"
        "provider_status({}); usable_backends('agent', {})\n"
        "assert main(['run', 'support', '--episodes', '5', '--quiet']) == 0\n"
        "assert 'llama_cpp' not in sys.modules, 'llama_cpp was imported'\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
