"""The paper's portfolio rows printed beside ours say which model made them (issue 42):
AEL, +Memory and Stateless were Claude Haiku 4.5's runs, ours beside them offline ones;
the rule baselines stay plain `paper`. Printed from a results document made here: no run."""

from __future__ import annotations

import io

from rich.console import Console

from ael_cli import report
from scenarios import spec_of

TEST = {"sharpe": 1.0, "sortino": 1.0, "calmar": 1.0, "max_drawdown_pct": 1.0, "total_return_pct": 1.0,
        "win_rate": 0.5}


def printed(monkeypatch, runs_llm: bool) -> str:
    selectors = ("ts+reflection", "ts", "fixed:none", "baseline:mom")
    document = {
        "summary": [{"selector": s, "regimes": {}, "test_mean": TEST, "test_std": {}, "injection_episodes": [None]}
                    for s in selectors],
        "runs": [{"selector": s, "paper_comparable": True, **({"llm": {"agent": "anthropic"}} if runs_llm else {})}
                 for s in selectors]}
    out = io.StringIO()
    monkeypatch.setattr(report, "_console", lambda: Console(file=out, width=160))
    report.print_table(document, spec_of("portfolio"))
    return out.getvalue()


def test_offline_runs_beside_the_papers_llm_rows_say_so(monkeypatch):
    text = printed(monkeypatch, runs_llm=False)
    names = [line.split("│")[1].strip() for line in text.splitlines() if line.startswith("│   paper")]
    assert names == ["paper (LLM)"] * 3 + ["paper"]  # baseline:mom's row is a rule's
    flat = " ".join(text.split())
    assert "paper (LLM): runs of the paper's LLM agent (Claude Haiku 4.5)" in flat
    assert "ours beside them (ts+reflection, ts, fixed:none) are the offline heuristic agent's" in flat


def test_runs_of_a_model_need_no_offline_caveat(monkeypatch):
    text = printed(monkeypatch, runs_llm=True)
    assert sum(line.startswith("│   paper (LLM)") for line in text.splitlines()) == 3
    assert "offline heuristic" not in text
