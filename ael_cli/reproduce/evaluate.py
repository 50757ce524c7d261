"""From a table's runs to its report rows: ours beside the paper's, the difference, the
statistics, and a status with its reason."""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from typing import Any

from .model import PaperTable, Row, metric_of
from .stats import (bootstrap_ci, diff_ci_from_summary, f_test, seeds_to_show_equivalence, tost_from_summary, welch,
                    welch_from_summary)

REPRODUCED = "reproduced within tolerance"
NOT_RESOLVED = "not resolved"  # shown as "not resolved at n = 5": the seeds cannot tell
DIFFERS = "differs"
NOT_HERE = "not reproducible here"
NOT_RUN = "not run in this build"
LLM_ROW = "the paper's row is an LLM agent's run; offline, ours (shown) is the heuristic agent's"
STATUSES = (REPRODUCED, NOT_RESOLVED, DIFFERS, NOT_HERE, NOT_RUN)
PAPER_N = 5  # the paper's seeds per row
ALPHA = 0.05


@dataclass
class Outcome:
    row: Row
    status: str
    why: str = ""
    values: dict[str, list[float]] = field(default_factory=dict)  # metric -> ours, per seed
    # metric -> whether TOST shows it equivalent, for the reproduced metrics the paper gives an sd for
    equivalence: dict[str, bool] = field(default_factory=dict)
    # metric -> the seeds that would show it (None: no count would), for those not shown
    seeds_needed: dict[str, int | None] = field(default_factory=dict)

    @property
    def shown_equivalent(self) -> bool:
        """Reproduced, and TOST shows every metric the paper gives an sd for equivalent: the
        first kind of "reproduced"; the other is within tolerance where equivalence is not shown."""
        return self.status == REPRODUCED and bool(self.equivalence) and all(self.equivalence.values())

    def mean(self, metric: str) -> float | None:
        v = self.values.get(metric) or []
        return statistics.fmean(v) if v else None

    def sd(self, metric: str) -> float | None:
        v = self.values.get(metric) or []
        return statistics.stdev(v) if len(v) > 1 else None

    @property
    def seeds(self) -> int:
        """How many of our seeds the row's values come from."""
        return max((len(v) for v in self.values.values()), default=0)

    def status_text(self) -> str:
        """The status as the report shows it ("not resolved at n = 5")."""
        return f"{NOT_RESOLVED} at n = {self.seeds}" if self.status == NOT_RESOLVED else self.status

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
    misses, unresolved, checks = [], [], []
    for metric, paper in row.paper.items():
        tol = table.tolerance.get(metric)
        ours = out.values.get(metric) or []
        if tol is None or not ours:
            continue
        verdict, text = judge(paper, row.paper_sd.get(metric), ours, tol)
        if verdict == REPRODUCED and text:
            out.equivalence[metric] = text.startswith("equivalent")
            if not out.equivalence[metric]:
                out.seeds_needed[metric] = seeds_to_show_equivalence(
                    paper, row.paper_sd[metric], PAPER_N, statistics.fmean(ours), statistics.stdev(ours), tol)
        if not text:
            continue
        text = f"{metric} {text}"
        (misses if verdict == DIFFERS else unresolved if verdict == NOT_RESOLVED else checks).append(text)
    if errors:
        misses.append(f"{len(errors)} of its runs failed: {errors[0].splitlines()[0]}")
    note = row.note[:1].upper() + row.note[1:]
    if misses or unresolved:
        out.status = DIFFERS if misses else NOT_RESOLVED
        out.why = "; ".join(misses + unresolved) + f". {note or 'See ' + table.evidence}"
    else:
        out.why = "; ".join(checks) + (f". {note}" if checks and note else note)  # e.g. where the paper gives a range
    return out


def judge(paper: float, paper_sd: float | None, ours: list[float], tol: float) -> tuple[str, str]:
    """One metric's verdict (REPRODUCED, NOT_RESOLVED or DIFFERS) and its reason.

    Reproduced only when |ours − paper| is within `tol`; where the paper gives an sd (over
    its 5 seeds) and we have two seeds or more, the reason says whether two one-sided tests
    (TOST) show the two equivalent within ±tol. Beyond `tol` the metric differs when
    Welch's test on the paper's mean ± sd and our seeds resolves the difference (p < 0.05),
    and is "not resolved" (with the 95% interval of the difference) when it does not: failing
    to reject a difference is not evidence that there is none. Without the paper's sd a
    difference beyond `tol` differs."""
    mean = statistics.fmean(ours)
    diff = mean - paper
    # the difference to 4 places where 3 would round it onto the tolerance (+0.0703 against ±0.07)
    shown = f"{diff:+.4f}" if f"{abs(diff):.3f}" == f"{tol:.3f}" else f"{diff:+.3f}"
    testable = paper_sd is not None and len(ours) >= 2
    sd = statistics.stdev(ours) if len(ours) >= 2 else 0.0
    if abs(diff) <= tol:
        if not testable:
            return REPRODUCED, ""  # the table's cell shows the difference
        p = tost_from_summary(paper, paper_sd, PAPER_N, mean, sd, len(ours), tol)
        if p is not None and p < ALPHA:
            return REPRODUCED, f"equivalent within ±{tol:g} (TOST p={_p(p)})"
        needed = seeds_to_show_equivalence(paper, paper_sd, PAPER_N, mean, sd, tol)
        would = (f"; at this mean and sd {needed} seeds would show it, `--seeds {needed}`" if needed else
                 "; no seed count would show it at this mean and sd (the paper's own 5 seeds' sd, or the "
                 "difference, is too wide)")
        return REPRODUCED, (f"{shown} within ±{tol:g}, equivalence not shown at n = {len(ours)} (TOST p={_p(p)}"
                            f"{would})")
    if not testable:
        return DIFFERS, f"{shown} (tolerance ±{tol:g})"
    p = welch_from_summary(paper, paper_sd, PAPER_N, mean, sd, len(ours))
    if p is None or p < ALPHA:  # None: no spread on either side, so nothing to resolve
        return DIFFERS, f"{shown} (tolerance ±{tol:g}; Welch p={_p(p)})"
    lo, hi = diff_ci_from_summary(paper, paper_sd, PAPER_N, mean, sd, len(ours))
    return NOT_RESOLVED, (f"{shown} (tolerance ±{tol:g}), 95% CI of the difference [{lo:+.3f}, {hi:+.3f}] "
                          f"(Welch p={_p(p)})")


def _p(v: float | None) -> str:
    return "–" if v is None else ("<0.001" if v < 0.001 else f"{v:.3f}")


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
