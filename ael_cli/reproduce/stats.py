"""The statistical columns of the report: Welch's t, the F-test of variances, and
bootstrap confidence intervals, all over per-seed values.

Conventions (the paper's tab:stats): t and the F ratio are reference over row
(positive t: the reference is higher); both p-values are two-sided; an F-test
or t-test of constant samples is undefined (None). The bootstrap is the
percentile interval of the mean, from a generator seeded by the values
themselves, so a report is the same every time it is written.
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np

BOOTSTRAP_RESAMPLES = 4000


def _finite(x: float) -> float | None:
    return float(x) if x is not None and math.isfinite(x) else None


def welch(reference: Sequence[float], row: Sequence[float]) -> tuple[float | None, float | None]:
    """(t, two-sided p) of Welch's test, reference minus row."""
    if len(reference) < 2 or len(row) < 2:
        return None, None
    a, b = np.asarray(reference, float), np.asarray(row, float)
    if np.ptp(a) == 0 and np.ptp(b) == 0:
        return None, None  # two constant samples: no variance to test against
    import warnings

    from scipy.stats import ttest_ind

    with warnings.catch_warnings():  # nearly constant samples: scipy warns, the p-value says it
        warnings.simplefilter("ignore", RuntimeWarning)
        result = ttest_ind(a, b, equal_var=False)
    return _finite(result.statistic), _finite(result.pvalue)


def welch_from_summary(mean_a: float, sd_a: float, n_a: int, mean_b: float, sd_b: float, n_b: int) -> float | None:
    """Two-sided p of Welch's test from means, sample sds and counts (the paper publishes no raw seeds)."""
    if n_a < 2 or n_b < 2 or (sd_a == 0 and sd_b == 0):
        return None
    from scipy.stats import ttest_ind_from_stats

    return _finite(ttest_ind_from_stats(mean_a, sd_a, n_a, mean_b, sd_b, n_b, equal_var=False).pvalue)


def f_test(reference: Sequence[float], row: Sequence[float]) -> float | None:
    """Two-sided p of the F-test that the two samples' variances are equal."""
    if len(reference) < 2 or len(row) < 2:
        return None
    var_ref, var_row = np.var(reference, ddof=1), np.var(row, ddof=1)
    if var_ref == 0 or var_row == 0:
        return None
    from scipy.stats import f

    ratio = var_ref / var_row
    dfn, dfd = len(reference) - 1, len(row) - 1
    return _finite(min(1.0, 2 * min(f.cdf(ratio, dfn, dfd), f.sf(ratio, dfn, dfd))))


def bootstrap_ci(values: Sequence[float], level: float = 0.95) -> tuple[float, float] | None:
    """Percentile bootstrap interval of the mean over seeds (None for fewer than two values)."""
    if len(values) < 2:
        return None
    data = np.asarray(values, float)
    seed = int.from_bytes(np.round(data, 12).tobytes()[:8].ljust(8, b"\0"), "little")
    rng = np.random.default_rng(seed)
    means = data[rng.integers(0, len(data), size=(BOOTSTRAP_RESAMPLES, len(data)))].mean(axis=1)
    tail = (1 - level) / 2
    return float(np.quantile(means, tail)), float(np.quantile(means, 1 - tail))


def _welch_se_df(sd_a: float, n_a: int, sd_b: float, n_b: int) -> tuple[float, float]:
    """Welch's standard error of a difference of two means, and its Welch–Satterthwaite df."""
    va, vb = sd_a ** 2 / n_a, sd_b ** 2 / n_b
    se = math.sqrt(va + vb)
    if se == 0:
        return 0.0, math.inf
    df = (va + vb) ** 2 / ((va ** 2 / (n_a - 1) if va else 0.0) + (vb ** 2 / (n_b - 1) if vb else 0.0))
    return se, df


def tost_from_summary(mean_a: float, sd_a: float, n_a: int, mean_b: float, sd_b: float, n_b: int,
                      tolerance: float) -> float | None:
    """p of the equivalence test (two one-sided Welch t-tests, TOST) that |mean_b − mean_a| <
    `tolerance`, from means, sample sds and counts: the larger of the two one-sided p-values.
    Small p: the two are shown equivalent within ±tolerance. None when a side has fewer than
    two values."""
    if n_a < 2 or n_b < 2:
        return None
    diff = mean_b - mean_a
    se, df = _welch_se_df(sd_a, n_a, sd_b, n_b)
    if se == 0:
        return 0.0 if abs(diff) < tolerance else 1.0
    from scipy.stats import t

    p_lower = t.sf((diff + tolerance) / se, df)   # H0: diff <= -tolerance
    p_upper = t.cdf((diff - tolerance) / se, df)  # H0: diff >= +tolerance
    return _finite(max(p_lower, p_upper))


def diff_ci_from_summary(mean_a: float, sd_a: float, n_a: int, mean_b: float, sd_b: float, n_b: int,
                         level: float = 0.95) -> tuple[float, float] | None:
    """Welch's confidence interval of mean_b − mean_a (None when a side has fewer than two values)."""
    if n_a < 2 or n_b < 2:
        return None
    diff = mean_b - mean_a
    se, df = _welch_se_df(sd_a, n_a, sd_b, n_b)
    if se == 0:
        return diff, diff
    from scipy.stats import t

    half = float(t.ppf(0.5 + level / 2, df)) * se
    return diff - half, diff + half


MAX_SEEDS = 100_000  # `--seeds`' own ceiling


def seeds_to_show_equivalence(paper: float, paper_sd: float, paper_n: int, mean: float, sd: float,
                              tolerance: float, alpha: float = 0.05) -> int | None:
    """The fewest seeds of ours at which TOST would show equivalence within ±tolerance, were
    our mean and sd to stay what they are (the paper's 5 seeds fixed); None when no count
    would: the paper's own sd over its seeds, or our difference, leaves p ≥ alpha."""
    def p_at(n: int) -> float:
        p = tost_from_summary(paper, paper_sd, paper_n, mean, sd, n, tolerance)
        return 1.0 if p is None else p

    if p_at(MAX_SEEDS) >= alpha:
        return None
    lo, hi = 2, MAX_SEEDS  # p falls as n grows (the standard error only shrinks): the first n below alpha
    while lo < hi:
        mid = (lo + hi) // 2
        if p_at(mid) < alpha:
            hi = mid
        else:
            lo = mid + 1
    return lo
