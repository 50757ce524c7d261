"""LLM-backed runs in a sweep: more in flight than cores (they wait on the network), their
usage in the store, and the results `ael-lab run` gives (against the fake server).

The commands run as new processes, as a user runs them: a worker process gets the
provider's key from the environment the command started with."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys

from tests.fake_llm_server import FakeLLMServer

GRID = ["support", "--seeds", "1..4", "--episodes", "30", "--selector", "ts", "--agent", "anthropic"]
CLEAN = ("ANTHROPIC_AUTH_TOKEN", "GEMINI_API_KEY", "GOOGLE_API_KEY", "OPENAI_API_KEY", "AEL_OPENAI_BASE_URL")


def _ael_lab(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ael_cli.main", *args], env=env, capture_output=True, text=True,
                          timeout=600)


def test_llm_runs_overlap_beyond_the_cores_and_their_usage_is_stored(tmp_path):
    with FakeLLMServer("echo") as server:
        env = {k: v for k, v in os.environ.items() if k not in CLEAN}
        env.update(ANTHROPIC_API_KEY="sk-ant-test-sweep", ANTHROPIC_BASE_URL=server.url)
        swept = _ael_lab(["sweep", *GRID, "--llm-concurrency", "4", "--workers", "1", "--out", str(tmp_path / "s")],
                         env)
        assert swept.returncode == 0, swept.stderr
        ran = _ael_lab(["run", *GRID, "--quiet", "--json", str(tmp_path / "run.json")], env)
        assert ran.returncode == 0, ran.stderr
    db = sqlite3.connect(tmp_path / "s" / "sweep.sqlite")
    rows = db.execute("SELECT started, finished, llm_calls, llm_cost_usd FROM runs").fetchall()
    assert len(rows) == 4 and all(calls == 30 and cost > 0 for _, _, calls, cost in rows)
    # the most runs in flight at once: all four slots, more than this machine's two cores and
    # than the one worker --workers allows offline runs
    in_flight = max(sum(s <= start < f for s, f, _, _ in rows) for start, _, _, _ in rows)
    assert in_flight >= 3, in_flight
    exported = _ael_lab(["sweep", "--out", str(tmp_path / "s"), "--export", "json"], env)
    assert json.loads(exported.stdout)["runs"] == json.loads((tmp_path / "run.json").read_text())["runs"]
