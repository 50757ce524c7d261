"""The LLM layer against a dead endpoint: how long a fallback run takes, and how
many requests it still sends, with the default retries, backoff and breaker."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import tempfile
import time

BACKENDS = {  # what each backend reads its key and URL from; the key is a made-up one
    "anthropic": ({"ANTHROPIC_API_KEY": "sk-ant-bench-0123456789"}, "ANTHROPIC_BASE_URL", []),
    "gemini": ({"GEMINI_API_KEY": "gm-bench-0123456789"}, "GOOGLE_GEMINI_BASE_URL", []),
    "openai-compatible": ({}, None, ["--agent-model", "m", "--reflector-model", "m"]),
}


def dead_url() -> str:
    """A port on 127.0.0.1 that nothing listens on (bound, then let go)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}"


def dead_endpoint_run(backend: str) -> tuple[float, int, int]:
    """(wall seconds, calls, requests sent) of `ael-lab run support --episodes 120` with
    agent and reflector on `backend`, `--error-policy fallback`, nothing listening."""
    env_extra, url_var, flags = BACKENDS[backend]
    url = dead_url()
    env = {**os.environ, **env_extra}
    if url_var:
        env[url_var] = url
    else:
        flags = [*flags, "--llm-url", url]
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "o.json")
        cmd = [os.path.join(os.path.dirname(sys.executable), "ael-lab"), "run", "support", "--seeds", "42",
               "--episodes", "120", "--agent", backend, "--reflector", backend, "--error-policy", "fallback",
               "--quiet", "--json", out, *flags]
        t0 = time.perf_counter()
        subprocess.run(cmd, check=True, env=env, stderr=subprocess.DEVNULL)
        wall = time.perf_counter() - t0
        llm = json.loads(open(out).read())["runs"][0]["llm"]
    return wall, llm["calls"], llm["attempts"]


def run() -> list[dict]:
    rows = []
    for backend in BACKENDS:
        wall, calls, attempts = dead_endpoint_run(backend)
        rows.append({"name": f"llm: 120-episode support run, dead endpoint, fallback, {backend} (wall)",
                     "value": wall, "unit": "s", "target": 20})
        rows.append({"name": f"llm:   requests sent for its {calls} calls", "value": attempts, "unit": "n",
                     "target": None})
    return rows
