"""From a table's runs to its report rows: ours beside the paper's, the difference, the
statistics, and a status with its reason."""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from typing import Any

from .model import PaperTable, Row, metric_of
from .stats import bootstrap_ci, f_test, welch, welch_from_summary

REPRODUCED = "reproduced within tolerance"
DIFFERS = "differs"
NOT_HERE = "not reproducible here"
NOT_RUN = "not run in this build"
LLM_ROW = "the paper's row is an LLM agent's run; offline, ours (shown) is the heuristic agent's"


@dataclass
class Outcome:
    row: Row
    status: str
    why: str = ""
    values: dict[str, list[float]] = field(default_factory=dict)  # metric -> ours, per seed

    def mean(self, metric: str) -> float | None:
        v = self.values.get(metric) or []
        return statistics.fmean(v) if v else None

    def sd(self, metric: str) -> float | None:
        v = self.values.get(metric) or []
        return statistics.stdev(v) if len(v) > 1 else None

    def ci(self, metric: str) -> tuple[float, float] | None:
        return bootstrap_ci(self.values.get(metric) or [])


def outcome(table: PaperTable, row: Row, missing: str | None, results: list[dict[str, Any]],
            errors: list[str], llm_on: bool) -> Outcome:
    """The row's outcome: `missing` says what this build lacks to run it; `results` are its
    finished runs' results and `errors` its failed runs' errors."""
    if missing:
        return Outcome(row, NOT_RUN, missing)
    values = {m: [v for r in results if (v := metric_of(r, m)) is not None] for m in table.metrics}
    if errors and not results:
        return Outcome(row, NOT_HERE, errors[0].split("\n")[0], values)
    if row.llm and not llm_on:
        return Outcome(row, NOT_HERE, f"{row.note or LLM_ROW}; pass --agent/--reflector to run it with a model",
                       values)
    out = Outcome(row, REPRODUCED, "", values)
    misses = []
    for metric, paper in row.paper.items():
        tol = table.tolerance.get(metric)
        ours = out.mean(metric)
        if tol is None or ours is None:
            continue
        if abs(ours - paper) <= tol or _same_by_welch(row, metric, out):
            continue
        misses.append(f"{metric} {ours - paper:+.3f} (tolerance ±{tol:g})")
    if errors:
        misses.append(f"{len(errors)} of its runs failed: {errors[0].splitlines()[0]}")
    note = row.note[:1].upper() + row.note[1:]
    if misses:
        out.status = DIFFERS
        out.why = "; ".join(misses) + f". {note or 'See ' + table.evidence}"
    else:
        out.why = note  # e.g. where the paper gives a range
    return out


def _same_by_welch(row: Row, metric: str, out: Outcome) -> bool:
    """Not distinguishable from the paper's value: Welch's p >= 0.05 on the paper's
    mean ± sd (n = 5) and ours (only where the paper gives an sd)."""
    sd = row.paper_sd.get(metric)
    ours = out.values.get(metric) or []
    if sd is None or len(ours) < 2:
        return False
    p = welch_from_summary(row.paper[metric], sd, 5, statistics.fmean(ours), statistics.stdev(ours), len(ours))
    return p is not None and p >= 0.05


def comparisons(table: PaperTable, outcomes: list[Outcome]) -> dict[str, dict[str, float | None]]:
    """Our Welch t, its p and the F-test's p of every row against the table's reference row,
    on the headline metric (where both have at least two seeds)."""
    metric = table.metrics[0]
    ref = next((o for o in outcomes if o.row.label == table.reference), None)
    ref_values = (ref.values.get(metric) or []) if ref else []
    out = {}
    for o in outcomes:
        values = o.values.get(metric) or []
        if o is ref or not values:
            continue
        t, p = welch(ref_values, values)
        out[o.row.label] = {"t": t, "p": p, "f_p": f_test(ref_values, values)}
    return out
