"""A child process that loads the local model's native runtime (llama-cpp-python): the
probe (`local_model`) and the repack (`local_repack`) both start one, since a library
built for another CPU dies with SIGILL and must take only the child with it."""

from __future__ import annotations

import os
import subprocess

from .providers.local_child import FLASH_ATTENTION


def one_token_code(path_arg: str) -> str:
    """Python lines (after `import llama_cpp`) that load the GGUF file named by the expression
    `path_arg` as the answering child loads it (flash attention: local_child.FLASH_ATTENTION)
    and ask for one token: what a library built for another CPU, or a file it cannot load,
    fails at, in the child and not in the caller."""
    return (f"m = llama_cpp.Llama(model_path={path_arg}, n_ctx=64, n_threads=1, n_threads_batch=1, "
            f"verbose=False, flash_attn={FLASH_ATTENTION!r})\n"
            "m.create_completion('Hello', max_tokens=1, temperature=0.0)\n"
            "m.close()\n")


def run(argv: list[str], timeout_s: float) -> subprocess.CompletedProcess:
    """`argv` run to its end, output captured, no stdin; OpenMP's idle threads sleep instead
    of spinning (the child shares the cores with the command that started it). Raises
    subprocess.TimeoutExpired and OSError as subprocess.run does."""
    env = {**os.environ, "OMP_WAIT_POLICY": "PASSIVE"}
    return subprocess.run(argv, capture_output=True, text=True, timeout=timeout_s, env=env,
                          stdin=subprocess.DEVNULL, check=False)


def last_error(done: subprocess.CompletedProcess) -> str:
    """The child's last line on stderr (its error), else its exit code, at most 200 characters."""
    lines = [line.strip() for line in (done.stderr or "").splitlines() if line.strip()]
    return (lines[-1] if lines else f"exit code {done.returncode}")[:200]
