"""The parent's side of the local model's process (`local_child.py`): started on
the first call, reused, started again after it died.

A crash of the native runtime (SIGILL from a library built for another CPU,
SIGSEGV) or a reply that never comes is a `ProviderError` here, in one line,
never the end of the lab's or the CLI's process: the client then falls back
or raises (`--error-policy`), and a run that stops is saved where it stopped.
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Sequence

from ...secrets import secret_values
from ..local_model import PROBE_TIMEOUT_S, REBUILD_HINT
from ..request import ProviderError
from ._common import timeout_error

CHILD = Path(__file__).with_name("local_child.py")
MAX_REPLY_BYTES = 4 * 2**20  # a reply is at most a few thousand tokens of text


class LocalModelProcess:
    """One loaded model in a child process. Not thread-safe: the provider's lock takes turns."""

    def __init__(self, path: Path, n_ctx: int, threads: int, *, argv: Sequence[str] | None = None,
                 prefix_states: int | None = None) -> None:
        """`prefix_states`: how many prompt prefixes' states the child keeps (its own default
        when None; 0 evaluates every prompt from an empty context)."""
        settings: dict[str, Any] = {"model_path": str(path), "n_ctx": n_ctx, "threads": threads}
        if prefix_states is not None:
            settings["prefix_states"] = prefix_states
        config = json.dumps(settings)
        self._argv = list(argv) if argv is not None else [sys.executable, "-P", str(CHILD)]
        self._argv.append(config)
        self._name = path.name
        self._proc: subprocess.Popen | None = None
        self._buffer = b""
        self.starts = 0  # processes started so far (tests, and a crash's restart)

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None else None

    def ask(self, request: dict[str, Any], wait_s: float) -> dict[str, Any]:
        """The child's reply to one request (`local_child`'s protocol); `ProviderError` when it
        crashed, did not answer within `wait_s`, or could not do it."""
        if self._proc is None or self._proc.poll() is not None:
            self.start()
        line = (json.dumps(request) + "\n").encode()
        try:
            self._proc.stdin.write(line)
            self._proc.stdin.flush()
        except (BrokenPipeError, OSError):
            raise self._died() from None
        reply = self._read(time.monotonic() + wait_s, wait_s)
        if not isinstance(reply, dict) or not isinstance(reply.get("ok"), bool):
            self.close()
            raise ProviderError("local: the model's process broke its protocol", retryable=False)
        if not reply["ok"]:
            raise ProviderError(f"local: the model could not answer ({_one_line(reply.get('error'))})",
                                retryable=False)
        return reply

    def close(self) -> None:
        proc, self._proc = self._proc, None
        if proc is None:
            return
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # its own session: llama.cpp's helpers go with it
        except (ProcessLookupError, PermissionError):
            pass
        for stream in (proc.stdin, proc.stdout):
            try:
                stream.close()
            except OSError:
                pass
        proc.wait()

    # ------------------------------------------------------------------ process
    def start(self) -> None:
        """Start the child and wait until it has loaded the model (`ProviderError` if it cannot)."""
        self.close()
        env = _child_env()
        try:
            self._proc = subprocess.Popen(self._argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                          stderr=subprocess.DEVNULL, env=env, start_new_session=True)
        except OSError as exc:
            raise ProviderError(f"local: could not start the model's process ({exc.strerror or exc})",
                                retryable=False) from None
        self.starts += 1
        self._buffer = b""
        ready = self._read(time.monotonic() + PROBE_TIMEOUT_S, PROBE_TIMEOUT_S)
        if not isinstance(ready, dict) or ready.get("ready") is not True:
            self.close()
            why = _one_line(ready.get("error")) if isinstance(ready, dict) else "it broke its protocol"
            raise ProviderError(f"local: could not load {self._name} ({why})", retryable=False)

    def _read(self, end: float, wait_s: float) -> Any:
        fd = self._proc.stdout.fileno()
        while b"\n" not in self._buffer:
            left = end - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                self.close()  # still working on it: the next call starts afresh rather than wait
                raise timeout_error("local", wait_s)
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                raise self._died()
            self._buffer += chunk
            if len(self._buffer) > MAX_REPLY_BYTES:
                self.close()
                raise ProviderError(f"local: the model's process answered more than "
                                    f"{MAX_REPLY_BYTES // 2**20} MB", retryable=False)
        line, _, self._buffer = self._buffer.partition(b"\n")
        try:
            return json.loads(line)
        except ValueError:
            return None

    def _died(self) -> ProviderError:
        """The error for a child that is gone, which is reaped (and the next call starts a new one)."""
        proc = self._proc
        try:
            code = proc.wait(timeout=5)
        except subprocess.TimeoutExpired:  # closed its pipe but runs on: done for all the same
            code = None
        self.close()
        if code is not None and -code == signal.SIGILL:
            return ProviderError("local: the model's runtime stopped with an illegal instruction (SIGILL): "
                                 f"it was built for another CPU; {REBUILD_HINT}", retryable=False)
        if code is not None and code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = f"signal {-code}"
            return ProviderError(f"local: the model's runtime crashed ({name}) running {self._name}",
                                 retryable=False)
        ended = f"ended (exit code {code})" if code is not None else "closed its output"
        return ProviderError(f"local: the model's process {ended} running {self._name}", retryable=False)


def _child_env() -> dict[str, str]:
    """Our environment without its secrets (the model needs no key), with llama.cpp's
    waiting threads passive: spinning waiters starve other processes."""
    secrets = set(secret_values())
    env = {k: v for k, v in os.environ.items() if v not in secrets}
    env.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    return env


def _one_line(text: Any) -> str:
    return "".join(c if c.isprintable() else " " for c in str(text or "it failed"))[:300]
