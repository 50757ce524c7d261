"""The results table of `ael-lab run`, in the paper's layout, with the paper's
numbers beside ours where the scenario knows them (so a reader sees at once
what reproduces and what does not)."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table


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


def print_table(document: dict[str, Any], scenario_cls) -> None:
    paper = getattr(scenario_cls, "paper_table", {})
    summary = document["summary"]
    if not summary:
        return
    regimes = list(summary[0]["regimes"])
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
        table.add_row(
            row["selector"], *[_num(row["regimes"].get(g)) for g in regimes],
            f"{row['overall_mean']:.3f}" + (f"±{sd:.3f}" if sd is not None else ""),
            f"{row['sharpe_mean']:.2f}",
            injected,
        )
        ref = paper.get(row["selector"])
        if ref:
            overall = f"{ref['overall']:.3f}" + (f"±{ref['overall_sd']:.3f}" if "overall_sd" in ref else "")
            table.add_row(
                "  paper", *[_num(ref.get(g)) if g in ref else "" for g in regimes], overall,
                f"{ref['sharpe']:.2f}" if "sharpe" in ref else "", str(ref.get("injected", "")), style="dim",
            )
    _console().print(table)
    if "test_mean" in summary[0]:
        _print_test_table(summary)


def _print_test_table(summary: list[dict[str, Any]]) -> None:
    keys = ["sharpe", "sortino", "calmar", "max_drawdown_pct", "total_return_pct", "win_rate"]
    table = Table(title="test phase (mean ± sample sd over seeds)")
    table.add_column("selector")
    for k in keys:
        table.add_column(k, justify="right")
    for row in summary:
        m, s = row.get("test_mean", {}), row.get("test_std", {})
        cells = []
        for k in keys:
            if k not in m:
                cells.append("–")
                continue
            sd = s.get(k)
            cells.append(f"{m[k]:.2f}" + (f" ± {sd:.2f}" if sd is not None else ""))
        table.add_row(row["selector"], *cells)
    _console().print(table)
