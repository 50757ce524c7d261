"""Whether a sensitivity table's pattern is reproduced, not only its rows (issue 42).

A sensitivity table (cadence, threshold, window, prior) is about how the result
moves with the setting, and its rows' tolerances are often wider than the
effects: every row can be "reproduced" while the curve runs the other way. For
each family of settings (declared on the table, in the setting's order) and each
metric the paper gives for all of them, the report prints one line:

- the sign of each step, the paper's and ours, a step marked `*` when its test
  resolves it (ours: a paired t-test over the seeds, which both settings share;
  the paper's: Welch's test on its two means ± sd over 5 seeds), `=` when the two
  settings give exactly the same numbers;
- how many steps agree in sign;
- the rank agreement of the settings, Kendall's τ between the paper's values and
  ours, with its p (exact without ties; with fewer than four settings there is no
  test, and four allow no p below 0.083);
- the verdict: **reproduced** when every step agrees in sign, **partly** when some
  do, **not reproduced** when none does.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from typing import Sequence

from .evaluate import PAPER_N, Outcome
from .model import PaperTable
from .stats import welch_from_summary

ALPHA = 0.05


@dataclass(frozen=True)
class Step:
    paper: int       # -1, 0, +1
    ours: int
    paper_resolved: bool
    ours_resolved: bool
    ours_identical: bool  # the two settings gave exactly the same per-seed values


def _sign(x: float, eps: float = 1e-12) -> int:
    return 0 if abs(x) <= eps else (1 if x > 0 else -1)


def _paired_p(a: Sequence[float], b: Sequence[float]) -> float | None:
    """Two-sided p of the paired t-test of b − a (None when undefined: fewer than two seeds, or
    no difference at all)."""
    if len(a) != len(b) or len(a) < 2:
        return None
    d = [y - x for x, y in zip(a, b)]
    if statistics.pstdev(d) == 0:  # every seed moved by the same amount: resolved unless it is no move
        return None if d[0] == 0 else 0.0
    from scipy.stats import ttest_rel

    p = float(ttest_rel(b, a).pvalue)
    return p if math.isfinite(p) else None


def steps(paper: Sequence[float], paper_sd: Sequence[float | None], ours: Sequence[Sequence[float]]) -> list[Step]:
    out = []
    for i in range(len(paper) - 1):
        a, b = ours[i], ours[i + 1]
        pp = (welch_from_summary(paper[i], paper_sd[i], PAPER_N, paper[i + 1], paper_sd[i + 1], PAPER_N)
              if paper_sd[i] is not None and paper_sd[i + 1] is not None else None)
        op = _paired_p(a, b)
        out.append(Step(_sign(paper[i + 1] - paper[i]), _sign(statistics.fmean(b) - statistics.fmean(a)),
                        pp is not None and pp < ALPHA, op is not None and op < ALPHA, list(a) == list(b)))
    return out


def kendall(paper: Sequence[float], ours: Sequence[float]) -> tuple[float | None, float | None]:
    """Kendall's τ (tau-b) between the paper's values and ours, and its two-sided p (None
    with fewer than four settings, or when either side is constant)."""
    if len(paper) < 2 or len(set(paper)) < 2 or len(set(ours)) < 2:
        return None, None
    from scipy.stats import kendalltau

    result = kendalltau(paper, ours)
    tau = float(result.statistic) if math.isfinite(result.statistic) else None
    p = float(result.pvalue) if len(paper) >= 4 and math.isfinite(result.pvalue) else None
    return tau, p


ARROW = {1: "↑", -1: "↓", 0: "→"}


def _arrow(sign: int, resolved: bool, identical: bool = False) -> str:
    return "=" if identical else ARROW[sign] + ("*" if resolved else "")


def verdict(agree: int, total: int) -> str:
    if total and agree == total:
        return "reproduced"
    return "partly reproduced" if agree else "not reproduced"


def pattern_lines(table: PaperTable, outcomes: list[Outcome]) -> list[str]:
    """The table's pattern lines (none for a table that declares no families)."""
    by_label = {o.row.label: o for o in outcomes}
    lines = []
    for family, members in table.patterns:
        shown, labels = [m[0] for m in members], [m[1] for m in members]
        rows = [by_label.get(label) for label in labels]
        if any(o is None or not o.values for o in rows):
            continue
        for metric in table.metrics:
            paper = [o.row.paper.get(metric) for o in rows]
            ours = [o.values.get(metric) or [] for o in rows]
            if any(v is None for v in paper) or any(len(v) != len(ours[0]) or not v for v in ours):
                continue
            line = _line(family, shown, metric, paper, [o.row.paper_sd.get(metric) for o in rows], ours)
            lines.append(line)
    if not lines:
        return []
    return ["**Patterns** (does the result move with the setting as the paper's does? each step's sign, paper "
            "then ours, `*` where its test resolves it (ours: paired t over the seeds; the paper's: Welch on its "
            "means ± sd), `=` where ours are exactly the same numbers; Kendall's τ of the settings' ranks with its "
            "p; reproduced when every step agrees in sign):", "", *lines, ""]


def _line(family: str, labels: Sequence[str], metric: str, paper: list[float], paper_sd: list[float | None],
          ours: list[list[float]]) -> str:
    found = steps(paper, paper_sd, ours)
    agree = sum(s.paper == s.ours for s in found)
    means = [statistics.fmean(v) for v in ours]
    tau, p = kendall(paper, means)
    if tau is None:
        rank = "Kendall's τ undefined (a side is constant)" if len(paper) >= 2 else ""
    elif p is None:
        rank = f"Kendall's τ = {tau:+.2f} (no test with {len(paper)} settings)"
    else:
        rank = f"Kendall's τ = {tau:+.2f} (p = {p:.3f}, {len(paper)} settings)"
    paper_steps = " ".join(_arrow(s.paper, s.paper_resolved) for s in found)
    our_steps = " ".join(_arrow(s.ours, s.ours_resolved, s.ours_identical) for s in found)
    resolved = (f"steps resolved: the paper's {sum(s.paper_resolved for s in found)}, "
                f"ours {sum(s.ours_resolved for s in found)}")
    return (f"- {family} ({' → '.join(labels)}), {metric}: paper {paper_steps}, ours {our_steps}; "
            f"{agree} of {len(found)} steps agree ({resolved}); {rank}: **{verdict(agree, len(found))}**")
