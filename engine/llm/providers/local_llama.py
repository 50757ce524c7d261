"""A GGUF model run by llama-cpp-python (the `local` extra): a real model with
no key and no network. It runs in a child process of its own (`local_process`):
a crash of the native runtime mid-run is a failed call, not the end of ours."""

from __future__ import annotations

import atexit
import threading
from pathlib import Path
from typing import Any, Mapping

from ...errors import AELError
from .. import local_model
from ..local_model import INSTALL_HINT, model_path
from ..request import LLMRequest, ProviderError, Reply
from ..settings import LLMSettings
from .local_process import LocalModelProcess

# SmolLM2 was trained on 8,192 tokens; 2,048 keeps prompts (trimmed to fit) and so
# each call short: prompt evaluation on one thread is most of a call's time
DEFAULT_LOCAL_CONTEXT = 2048
THREADS_VARIABLE = "AEL_LOCAL_THREADS"

_models: dict[tuple[str, int, int], tuple[LocalModelProcess, threading.Lock]] = {}
_models_lock = threading.Lock()


class LocalProvider:
    """llama.cpp's chat completion with the reply's schema as a grammar
    (`response_format={"type": "json_object", "schema": …}`): the model can
    only produce JSON of the schema's shape; the client still validates it.

    Deterministic: each prompt is evaluated from an empty context, or from
    the kept state of its system prompt evaluated alone (`local_child`'s
    `PrefixStates`: the same numbers, a call's prompt mostly not evaluated
    again), and the sampler is seeded from the request's hash, so a request
    gets the same answer whatever ran before it; at temperature 0 (the local
    default) decoding is greedy anyway. One thread by default (`AEL_LOCAL_THREADS`):
    on a busy machine more threads wait on each other and a call can take a
    minute. Agent and reflector share one loaded model; calls take turns.
    """

    name = "local"
    live = True

    def __init__(self, settings: LLMSettings, env: Mapping[str, str]) -> None:
        try:
            self._path = model_path(settings.model)
        except AELError as exc:
            raise ProviderError(str(exc), retryable=False) from None
        threads = env.get(THREADS_VARIABLE, "1")
        if not threads.isdigit() or not 1 <= int(threads) <= 256:
            raise ProviderError(f"local: {THREADS_VARIABLE}={threads!r} is not a thread count (1..256)",
                                retryable=False)
        self._n_ctx = settings.context_tokens or DEFAULT_LOCAL_CONTEXT
        self._llama, self._lock = _load(self._path, self._n_ctx, int(threads))
        self._wait_s = 2 * settings.timeout_s + 1  # a call still running after its deadline holds the model

    def context_tokens(self) -> int | None:
        return self._n_ctx

    def send(self, request: LLMRequest) -> Reply:
        if not self._lock.acquire(timeout=self._wait_s):
            raise ProviderError("local: the model is still busy with an earlier call", retryable=True)
        try:
            out = self._llama.ask({
                "messages": [dict(m) for m in request.messages],
                "response_format": {"type": "json_object", "schema": grammar_schema(request.schema)},
                "temperature": request.temperature, "max_tokens": request.max_tokens,
                "seed": int(request.hash()[:8], 16),
            }, self._wait_s)
        finally:
            self._lock.release()
        return Reply(str(out.get("content") or ""), int(out.get("prompt_tokens") or 0),
                     int(out.get("completion_tokens") or 0), request.model,
                     truncated=out.get("finish_reason") == "length")


# a bounded number becomes this many steps between its bounds in the grammar
NUMBER_STEPS = 20
# an integer range up to this wide becomes a list of its values
INTEGER_SPAN = 256


def grammar_schema(schema: Any) -> Any:
    """The schema the model decodes under: the reply's schema with every bounded
    number narrowed to values inside its bounds. llama.cpp's schema-to-grammar
    converter ignores `minimum`/`maximum`, so a small model would otherwise write
    `"confidence": 3.33` for a field bounded to [0, 1] and have its reply refused;
    here it can only write one of 21 values from 0 to 1. The client still
    validates the reply against the original schema."""
    if isinstance(schema, list):
        return [grammar_schema(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out = {k: grammar_schema(v) for k, v in schema.items()}
    lo, hi, kind = schema.get("minimum"), schema.get("maximum"), schema.get("type")
    if "enum" in schema or lo is None or hi is None or hi < lo:
        return out
    if kind == "integer" and hi - lo <= INTEGER_SPAN:
        values: list[Any] = list(range(int(lo), int(hi) + 1))
    elif kind == "number":
        values = sorted({round(lo + (hi - lo) * i / NUMBER_STEPS, 6) for i in range(NUMBER_STEPS + 1)})
    else:
        return out
    for bound in ("minimum", "maximum", "type"):
        out.pop(bound)
    out["enum"] = values
    return out


def _load(path: Path, n_ctx: int, threads: int) -> tuple[LocalModelProcess, threading.Lock]:
    """The model's process (one per file, context size and thread count) and its lock."""
    key = (str(path), n_ctx, threads)
    with _models_lock:
        if key not in _models:
            # the probe's verdict (cached per machine and build) says why a broken runtime cannot run
            why = local_model.probe(path)
            if why:
                raise ProviderError(f"local: {why}", retryable=False)
            if not local_model.runtime_installed():
                raise ProviderError(f"local: llama-cpp-python is not installed; {INSTALL_HINT}", retryable=False)
            if not _models:
                atexit.register(_close_all)
            process = LocalModelProcess(path, n_ctx, threads)
            process.start()  # loaded now, as it always was: a model that cannot load says so here
            _models[key] = (process, threading.Lock())
        return _models[key]


def _close_all() -> None:
    """End the models' processes (each would end anyway when its input closes)."""
    with _models_lock:
        for process, _ in _models.values():
            process.close()
        _models.clear()
