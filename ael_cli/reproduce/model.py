"""What a paper table is, declared: its rows (the paper's numbers and how to run ours) and
how close counts as reproduced. The entries themselves are in `tables.py`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

PAPER_SEEDS = (42, 123, 456, 789, 1024)  # the five seeds this project reproduces every table on


@dataclass(frozen=True)
class Row:
    """One row of a paper table.

    label:     as the paper names it.
    selector:  the method that runs it here, as typed (`ts+reflection`, `baseline:mom`); a
               method this build does not register makes the row "not run in this build".
    paper:     metric -> the paper's value; `paper_sd` the ± beside it (a sample sd over seeds).
    setting:   what the row changes: reflect_every, reflect_threshold, reflect_window, trigger,
               prior (a pair), warmup, until (stop at that episode), and scenario options under "options".
    llm:       the paper's row is an LLM agent's: offline, ours is shown but not compared.
    stats:     the paper's test of this row against the table's reference row: "t", "p"
               (Welch) and "f_p" (the F-test of variances), where it publishes them.
    note:      why the row differs or cannot run, with a pointer (shown in its status).
    """

    label: str
    selector: str | None
    paper: Mapping[str, float] = field(default_factory=dict)
    paper_sd: Mapping[str, float] = field(default_factory=dict)
    setting: Mapping[str, Any] = field(default_factory=dict)
    llm: bool = False
    stats: Mapping[str, float] = field(default_factory=dict)
    note: str = ""


@dataclass(frozen=True)
class PaperTable:
    """One table of the paper.

    key:        its name on the command line (`ael-lab reproduce synthetic`).
    label:      the paper's LaTeX label, e.g. tab:synth_crossdomain.
    scenario:   the world its rows run in; None for a table nothing here can run.
    metrics:    the columns, as names `metric_of` reads from a run's result ("overall", "R3",
                "test.sharpe"); the first is the headline (plotted, bootstrapped).
    tolerance:  metric -> the largest |ours - paper| still "reproduced"; a metric without one
                is shown, never judged.
    reference:  the label of the row the statistical columns compare every row with.
    evidence:   where the known differences are explained (a README section, a spec).
    reason:     set when nothing of the table can be reproduced here: why.
    options:    scenario options every row takes (the data a table needs).
    needs_model: its rows are a model agent's runs on their own protocol: the table runs only
                with `--agent` (else the report says it needs a model backend), and every row
                runs with the model; `llm_settings` are the paper's settings for it (temperature).
    patterns:   families of settings whose pattern the report judges (`patterns.py`): each a name
                and its (shown value, row label) pairs in the setting's order, the default's row
                included where it belongs ("cadence", (("7", "cadence 7"), ("13", "cadence 13 (default)"), ...)).
    cheap:      its runs take seconds: `reproduce --seeds N` runs it on N seeds (the paper's
                five first), so a reader can resolve what five seeds cannot.
    """

    key: str
    label: str
    title: str
    scenario: str | None = None
    metrics: tuple[str, ...] = ()
    rows: tuple[Row, ...] = ()
    tolerance: Mapping[str, float] = field(default_factory=dict)
    reference: str | None = None
    evidence: str = ""
    reason: str = ""
    options: Mapping[str, Any] = field(default_factory=dict)
    seeds: tuple[int, ...] = PAPER_SEEDS
    needs_model: bool = False
    llm_settings: Mapping[str, Any] = field(default_factory=dict)
    cheap: bool = False
    patterns: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = ()

    def unavailable(self, agent: str) -> str:
        """Why nothing of the table runs with this agent ("" when it runs)."""
        if self.reason:
            return self.reason
        if self.needs_model and agent == "offline":
            return (f"{NEEDS_MODEL}: its rows are an LLM agent's on their own protocol; pass --agent "
                    "(anthropic or gemini with a key, openai-compatible with --llm-url, or local)")
        return ""


NEEDS_MODEL = "needs a model backend"


def rows_from_spec(paper_table: Mapping[str, Mapping[str, Any]], metrics: tuple[str, ...],
                   labels: Mapping[str, str] | None = None, **row_fields: Any) -> tuple[Row, ...]:
    """Rows from a scenario spec's `paper_table` / `paper_test_table` (selector -> numbers):
    each metric's value, and its sd from `<metric>_sd` (or `overall_sd`)."""
    labels = labels or {}
    rows = []
    for selector, numbers in paper_table.items():
        paper, sd = {}, {}
        for m in metrics:
            key = m.split(".")[-1]
            if key in numbers:
                paper[m] = float(numbers[key])
            if f"{key}_sd" in numbers:
                sd[m] = float(numbers[f"{key}_sd"])
        stats = {"p": float(numbers["p"])} if "p" in numbers else {}
        rows.append(Row(labels.get(selector, selector), selector, paper, sd, stats=stats, **row_fields))
    return tuple(rows)


def metric_of(result: Mapping[str, Any], name: str) -> float | None:
    """A metric of one run's result: a top-level number ("overall", "sharpe"), a regime's mean
    ("R3"), "injected" (the first injection's episode), or a dotted path under the phases
    ("test.sharpe", "test.cost_adjusted_sharpe.5"), or "memory.<tier>" (the tier's entries when the
    run stopped: with `until`, at that episode). None when the run has no such value."""
    if name == "injected":
        injections = result.get("injections") or []
        return float(injections[0]["episode"]) if injections else None
    if name in result and isinstance(result[name], (int, float)):
        return float(result[name])
    if name.startswith("memory."):  # a tier's entry count when the run stopped ("memory.procedural")
        count = (result.get("memory") or {}).get(name.split(".", 1)[1])
        return float(count) if isinstance(count, int) and not isinstance(count, bool) else None
    if name in (result.get("regimes") or {}):
        return float(result["regimes"][name])
    value: Any = result.get("phases") or {}
    for part in name.split("."):
        if not isinstance(value, dict) or part not in value:
            return None
        value = value[part]
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None
