"""The local model runs where it is installed (issue 27, finding 1): the build
is portable whatever CPU compiles it, and a runtime that cannot run on this CPU
is found by a child process, said in one line, and never loaded in ours."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from engine.llm import local_build, local_model
from engine.llm.providers import local_llama
from engine.llm.request import ProviderError
from engine.llm.settings import LLMSettings

BIG_SERVER = frozenset("fpu sse2 avx avx2 fma f16c avx512f avx512bw avx512_vnni amx_int8 amx_tile bmi2".split())
OLD_LAPTOP = frozenset("fpu sse2 sse4_2 avx".split())
DIES_OF_SIGILL = "import os, signal, sys; os.kill(os.getpid(), signal.SIGILL)"
ANSWERS = "import sys; sys.exit(0)"
CANNOT_LOAD = "import sys; print('gguf_init_from_file: invalid magic', file=sys.stderr); sys.exit(1)"


def test_a_big_server_builds_for_the_baseline_not_for_itself():
    args = local_build.cmake_args("x86_64", BIG_SERVER)
    assert "-DGGML_NATIVE=OFF" in args and "-DGGML_NATIVE=ON" not in args
    for wide in ("AVX512", "AVX512_VNNI", "AMX_INT8", "AMX_TILE", "BMI2"):
        assert f"-DGGML_{wide}=OFF" in args
    assert {"-DGGML_AVX2=ON", "-DGGML_FMA=ON", "-DGGML_F16C=ON"} <= set(args)


def test_a_builder_without_avx2_builds_without_it():
    args = local_build.cmake_args("x86_64", OLD_LAPTOP)
    assert "-DGGML_AVX2=OFF" in args and "-DGGML_FMA=OFF" in args and "-DGGML_NATIVE=OFF" in args


def test_other_architectures_keep_the_portable_defaults():
    assert local_build.cmake_args("aarch64", frozenset({"neon"})) == ["-DGGML_NATIVE=OFF"]


def test_pip_compiles_from_source_and_never_takes_a_cached_wheel():
    cmd = local_build.pip_command("python", "test,local", "constraints.txt")
    assert "--no-cache-dir" in cmd and cmd[cmd.index("--no-binary") + 1] == "llama-cpp-python"


def test_a_library_built_another_way_is_not_up_to_date(tmp_path, monkeypatch):
    monkeypatch.setattr(local_build, "installed_version", lambda: "0.3.36")
    args = local_build.cmake_args("x86_64", BIG_SERVER)
    assert not local_build.up_to_date(args, tmp_path)  # no stamp: a plain pip install, a native build
    local_build.stamp_path(tmp_path).write_text(json.dumps({"version": "0.3.36", "cmake_args": ["-DGGML_NATIVE=ON"]}))
    assert not local_build.up_to_date(args, tmp_path)
    local_build.stamp_path(tmp_path).write_text(json.dumps({"version": "0.3.36", "cmake_args": args}))
    assert local_build.up_to_date(args, tmp_path)
    local_build.stamp_path(tmp_path).write_text("{not json")
    assert not local_build.up_to_date(args, tmp_path)


@pytest.fixture
def a_model(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(local_model, "_verdicts", {})
    path = tmp_path / "tiny.gguf"
    path.write_bytes(b"GGUF" + bytes(60))
    return path


def test_an_illegal_instruction_in_the_child_is_one_line_saying_what_to_do(a_model):
    why = local_model.probe(a_model, code=DIES_OF_SIGILL)
    assert "illegal instruction" in why and "make local" in why and "\n" not in why


def test_a_model_that_cannot_load_says_why(a_model):
    why = local_model.probe(a_model, code=CANNOT_LOAD)
    assert why.startswith("the local model could not load tiny.gguf") and "invalid magic" in why


def test_a_verdict_is_kept_per_library_model_and_cpu_and_a_changed_model_is_probed_again(a_model, monkeypatch):
    assert local_model.probe(a_model, code=ANSWERS) == ""
    calls = []
    real = local_model._run_probe
    monkeypatch.setattr(local_model, "_run_probe", lambda *a: calls.append(a) or real(*a))
    local_model._verdicts.clear()  # a new process: the verdict comes from the disk
    assert local_model.probe(a_model, code=ANSWERS) == "" and calls == []
    a_model.write_bytes(b"GGUF" + bytes(61))  # another model file: another key
    local_model.probe(a_model, code=ANSWERS)
    assert len(calls) == 1


def test_a_changed_verdict_file_is_not_trusted(a_model, monkeypatch):
    assert "illegal" in local_model.probe(a_model, code=DIES_OF_SIGILL)
    folder = local_model._verdict_dir()
    (cached,) = folder.glob("*.json")
    doc = json.loads(cached.read_text())
    cached.write_text(json.dumps({**doc, "why": "", "key": "somebody-else"}))
    local_model._verdicts.clear()
    assert "illegal" in local_model.probe(a_model, code=DIES_OF_SIGILL)


def test_a_timeout_is_said_and_not_remembered(a_model):
    slow = "import time; time.sleep(30)"
    why = local_model.probe(a_model, code=slow, timeout_s=0.5)
    assert "did not answer" in why and "try again" in why
    assert local_model.probe(a_model, code=ANSWERS) == ""


def test_the_provider_refuses_a_runtime_the_probe_found_broken_without_loading_it(a_model, monkeypatch):
    monkeypatch.setattr(local_model, "probe", lambda path, **kw: local_model._run_probe(path, sys.executable,
                                                                                       DIES_OF_SIGILL, 30)[0])
    monkeypatch.setattr(local_llama, "model_path", lambda model: a_model)
    monkeypatch.setattr(local_llama, "_models", {})
    monkeypatch.setitem(sys.modules, "llama_cpp", None)  # importing it here would fail the test
    with pytest.raises(ProviderError, match="illegal instruction"):
        local_llama.LocalProvider(LLMSettings(provider="local"), {})


def test_why_unusable_reports_the_probe(a_model, monkeypatch):
    monkeypatch.setattr(local_model, "runtime_installed", lambda: True)
    monkeypatch.setattr(local_model, "probe", lambda path, refresh=False: "illegal instruction; make local")
    assert local_model.why_unusable(str(a_model)) == "illegal instruction; make local"


def test_the_installed_runtime_was_built_for_the_baseline():
    """What `make local` built here reports no instruction set beyond x86-64-v3 (run in
    a child: a library built for a wider CPU is what kills a process)."""
    from engine.llm.local_model import runtime_installed

    if not runtime_installed():
        if os.environ.get("AEL_REQUIRE_LOCAL"):
            pytest.fail("AEL_REQUIRE_LOCAL is set but llama-cpp-python is not installed")
        pytest.skip("the local extra is not installed (make local)")
    code = "import llama_cpp; print(llama_cpp.llama_print_system_info().decode())"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-500:]
    features = {part.split("=")[0].strip() for part in done.stdout.split("|") if part.strip().endswith("= 1")}
    assert not {f for f in features if "AVX512" in f or "AMX" in f or f == "AVX_VNNI"}, done.stdout
    stamp = local_build.read_stamp()
    assert stamp and "-DGGML_NATIVE=OFF" in stamp["cmake_args"], "not built by make local (engine/llm/local_build.py)"
