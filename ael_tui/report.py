"""The results table of `ael-lab run`, in the paper's layout, with the paper's
numbers beside ours where the scenario knows them (so a reader sees at once
what reproduces and what does not)."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table

from engine.scenario_spec import ScenarioSpec


def _num(value: float | None) -> str:
    return "–" if value is None else f"{value:.3f}"


def _console() -> Console:
    """The terminal's width, or a comfortable 120 columns when output is piped."""
    console = Console()
    return console if console.is_terminal else Console(width=120)


def _injected(episodes: list[int | None]) -> str:
    """All injection episodes for a few seeds; the commonest and the range for many."""
    hits = [e for e in episodes if e is not None]
    if not hits:
        return "–"
    distinct = sorted(set(hits))
    if len(distinct) <= 3:
        text = ", ".join(map(str, distinct))
    else:
        mode = max(distinct, key=hits.count)
        text = f"{mode} mostly, {distinct[0]}–{distinct[-1]}"
    missing = len(episodes) - len(hits)
    return text + (f" ({missing} none)" if missing else "")


def print_table(document: dict[str, Any], spec: ScenarioSpec) -> None:
    comparable = document.get("paper_comparable", True)
    paper = spec.paper_table if comparable else {}
    summary = document["summary"]
    if not summary:
        return
    regimes = list(summary[0]["regimes"])
    if any("test_mean" in row for row in summary):
        # where results have phases (the portfolio) the phase table is the result: a table of
        # the bandit's mean reward (about 0.50 in every row by construction of the z-scored
        # reward) read like a bug, so it is not printed
        comparable = comparable and all(r.get("paper_comparable", False) for r in document["runs"])
        _print_test_table(summary, spec.paper_test_table if comparable else {})
        return
    title = f"{document['scenario']}: {len(document['seeds'])} seed(s)"
    table = Table(title=title, caption="dim rows: the paper's published values" if paper else None)
    table.add_column("selector")
    for g in regimes:
        table.add_column(g, justify="right")
    table.add_column("overall ± sd", justify="right")
    table.add_column("Sharpe", justify="right")
    table.add_column("injected at", justify="right")
    for row in summary:
        sd = row["overall_std"]
        injected = _injected(row["injection_episodes"])
        sharpe = [f"{row['sharpe_mean']:.2f}"]
        table.add_row(
            row["selector"], *[_num(row["regimes"].get(g)) for g in regimes],
            f"{row['overall_mean']:.3f}" + (f"±{sd:.3f}" if sd is not None else ""), *sharpe, injected,
        )
        ref = paper.get(row["selector"])
        if ref:
            overall = f"{ref['overall']:.3f}" + (f"±{ref['overall_sd']:.3f}" if "overall_sd" in ref else "")
            table.add_row(
                "  paper", *[_num(ref.get(g)) if g in ref else "" for g in regimes], overall,
                f"{ref['sharpe']:.2f}" if "sharpe" in ref else "", str(ref.get("injected", "")), style="dim",
            )
    _console().print(table)


TEST_COLUMNS = {"sharpe": "Sharpe", "sortino": "Sortino", "calmar": "Calmar", "max_drawdown_pct": "MaxDD %",
                "total_return_pct": "total return %", "win_rate": "win rate"}


def _print_test_table(summary: list[dict[str, Any]], paper: dict[str, dict[str, float]]) -> None:
    """The test phase; the paper's rows only where comparable (its own data, D-full)."""
    keys = list(TEST_COLUMNS)
    table = Table(title="test phase (mean ± sample sd over seeds)",
                  caption="dim rows: the paper's published values (± population sd)" if paper else None)
    table.add_column("selector")
    for k in keys:
        table.add_column(TEST_COLUMNS[k], justify="right")
    table.add_column("injected at", justify="right")

    def cell(mean: float | None, sd: float | None) -> str:
        if mean is None:
            return "–"
        return f"{mean:.2f}" + (f" ± {sd:.2f}" if sd is not None else "")

    for row in summary:
        m, s = row.get("test_mean", {}), row.get("test_std", {})
        table.add_row(row["selector"], *[cell(m.get(k), s.get(k)) for k in keys],
                      _injected(row["injection_episodes"]))
        ref = paper.get(row["selector"])
        if ref:
            table.add_row("  paper", *[cell(ref.get(k), ref.get(f"{k}_sd")) if k in ref else "" for k in keys], "",
                          style="dim")
    _console().print(table)
