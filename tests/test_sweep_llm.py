"""LLM-backed runs in a sweep: more in flight than cores (they wait on the network), their
usage in the store, and the results `ael-lab run` gives (against the fake server)."""

from __future__ import annotations

import json
import sqlite3

from ael_tui.cli import main
from tests.fake_llm_server import FakeLLMServer

GRID = ["support", "--seeds", "1..4", "--episodes", "30", "--selector", "ts", "--agent", "anthropic"]


def test_llm_runs_overlap_beyond_the_cores_and_their_usage_is_stored(tmp_path, monkeypatch, capsys):
    for name in ("ANTHROPIC_AUTH_TOKEN", "GEMINI_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    with FakeLLMServer("echo") as server:
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-sweep")
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
        assert main(["sweep", *GRID, "--llm-concurrency", "4", "--workers", "1", "--out", str(tmp_path / "s")]) == 0
        assert main(["run", *GRID, "--quiet", "--json", str(tmp_path / "run.json")]) == 0
    db = sqlite3.connect(tmp_path / "s" / "sweep.sqlite")
    rows = db.execute("SELECT started, finished, llm_calls, llm_cost_usd FROM runs").fetchall()
    assert len(rows) == 4 and all(calls == 30 and cost > 0 for _, _, calls, cost in rows)
    # the most runs in flight at once: all four slots, more than this machine's two cores and
    # than the one worker --workers allows offline runs
    in_flight = max(sum(s <= start < f for s, f, _, _ in rows) for start, _, _, _ in rows)
    assert in_flight >= 3, in_flight
    capsys.readouterr()
    assert main(["sweep", "--out", str(tmp_path / "s"), "--export", "json"]) == 0
    swept = json.loads(capsys.readouterr().out)
    assert swept["runs"] == json.loads((tmp_path / "run.json").read_text())["runs"]
