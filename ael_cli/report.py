"""The results table of `ael-lab run`, in the paper's layout, with the paper's
numbers beside ours where the scenario knows them (so a reader sees at once
what reproduces and what does not)."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table

from ael_lab.worlds import ScenarioSpec

from ael_cli.prior_report import confound_notes, model_caption, paper_label, row_label
from ael_cli.table_text import cell as text_cell  # (_print_test_table has a `cell` of its own)


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


REFERENCE = "ts+reflection"  # the paper's "p vs AEL" compares every row with this selector


def _p_values(document: dict[str, Any]) -> dict[str, float | None]:
    """Welch's two-sample t-test of each selector's per-seed overall against REFERENCE's
    (None: fewer than two seeds on a side, or both constant)."""
    overall: dict[str, list[float]] = {}
    for run in document["runs"]:
        overall.setdefault(run["selector"], []).append(float(run["overall"]))
    ref = overall.get(REFERENCE, [])
    out: dict[str, float | None] = {}
    for selector, values in overall.items():
        out[selector] = None
        if selector != REFERENCE and len(values) > 1 and len(ref) > 1:
            from scipy.stats import ttest_ind

            p = float(ttest_ind(values, ref, equal_var=False).pvalue)
            out[selector] = p if p == p else None  # NaN when both sides are constant
    return out


def _p(value: float | None) -> str:
    if value is None:
        return "–"
    return f"{value:.2f}" if value >= 0.1 else f"{value:.3f}" if value >= 0.001 else "<0.001"


def _plugins_named(document: dict[str, Any]) -> str:
    """" · plugins: NAME VERSION, ..." when plugins ran in the engine: numbers beside the
    paper's say what else could have changed them."""
    names = ", ".join(f"{p['distribution']} {p['version']}" for p in document.get("plugins") or ())
    return f" · plugins: {names}" if names else ""


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
        _print_test_table(summary, spec.paper_test_table if comparable else {}, document, dict(spec.paper_models))
        return
    # a run may also say its data is not the paper's (the news world on another corpus)
    if not all(r.get("paper_comparable", True) for r in document["runs"]):
        paper = {}
    title = f"{document['scenario']}: {len(document['seeds'])} seed(s)" + _plugins_named(document)
    table = Table(title=text_cell(title), caption="dim rows: the paper's published values" if paper else None)
    table.add_column("selector")
    for g in regimes:  # a stream's regimes are named by its file: text from data
        table.add_column(text_cell(g), justify="right")
    table.add_column("overall ± sd", justify="right")
    show_sharpe = "sharpe" in spec.columns
    p_values = _p_values(document) if "p" in spec.columns else None
    if show_sharpe:
        table.add_column("Sharpe", justify="right")
    if p_values is not None:
        table.add_column(f"p vs {REFERENCE}", justify="right")
    table.add_column("injected at", justify="right")
    for row in summary:
        sd = row["overall_std"]
        injected = _injected(row["injection_episodes"])
        extra = [f"{row['sharpe_mean']:.2f}"] if show_sharpe else []
        if p_values is not None:
            extra.append("---" if row["selector"] == REFERENCE else _p(p_values.get(row["selector"])))
        table.add_row(
            text_cell(row_label(row["selector"], document)), *[_num(row["regimes"].get(g)) for g in regimes],
            f"{row['overall_mean']:.3f}" + (f"±{sd:.3f}" if sd is not None else ""), *extra, injected,
        )
        ref = paper.get(row["selector"])
        if ref:
            overall = f"{ref['overall']:.3f}" + (f"±{ref['overall_sd']:.3f}" if "overall_sd" in ref else "")
            extra = [f"{ref['sharpe']:.2f}" if "sharpe" in ref else ""] if show_sharpe else []
            if p_values is not None:
                extra.append(_p(ref["p"]) if "p" in ref else "---" if row["selector"] == REFERENCE else "")
            table.add_row(
                text_cell(paper_label(row["selector"], dict(spec.paper_models))), *[_num(ref.get(g)) if g in ref else "" for g in regimes], overall,
                *extra, str(ref.get("injected", "")), style="dim",
            )
    _console().print(table)
    for line in confound_notes(summary, paper):  # the paper's TS only where its rows apply
        _console().print(text_cell(f"note: {line}"))


TEST_COLUMNS = {"sharpe": "Sharpe", "sortino": "Sortino", "calmar": "Calmar", "max_drawdown_pct": "MaxDD %",
                "total_return_pct": "total return %", "win_rate": "win rate"}


def _print_test_table(summary: list[dict[str, Any]], paper: dict[str, dict[str, float]],
                      document: dict[str, Any], models: dict[str, str] | None = None) -> None:
    """The test phase; the paper's rows only where comparable (its own data, D-full)."""
    keys = list(TEST_COLUMNS)
    shown = [row["selector"] for row in summary if row["selector"] in paper]
    table = Table(title="test phase (mean ± sample sd over seeds)" + _plugins_named(document),
                  caption=("dim rows: the paper's published values (± population sd)"
                           + model_caption(document, models or {}, shown)) if paper else None)
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
        table.add_row(text_cell(row_label(row["selector"], document)), *[cell(m.get(k), s.get(k)) for k in keys],
                      _injected(row["injection_episodes"]))
        ref = paper.get(row["selector"])
        if ref:
            table.add_row(text_cell(paper_label(row["selector"], models)),
                          *[cell(ref.get(k), ref.get(f"{k}_sd")) if k in ref else "" for k in keys], "",
                          style="dim")
    _console().print(table)
