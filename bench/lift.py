"""The lift of one selector over another, seed by seed, from `ael-lab run --json` (not a
timing: the README's "what is real beyond five seeds" sentence quotes it).

    .venv/bin/ael-lab run synthetic --seeds 1..4000 --selector ts,ts+reflection --json lift.json
    .venv/bin/python -m bench.lift lift.json [BASE TREATED]

prints, per regime and overall, the mean of the per-seed difference (treated − base, in
points: hundredths of the mean reward) and its standard error (sd of the differences /
√seeds): the expectation the seeds estimate and how far their sampling leaves it. Both
selectors ran on the same seeds and streams, so the difference is paired.
"""

from __future__ import annotations

import json
import math
import statistics
import sys
from typing import Any


def lift(document: dict[str, Any], base: str = "ts", treated: str = "ts+reflection") -> dict[str, tuple[float, float, int]]:
    """name -> (mean difference in points, its standard error, seeds), for each regime and overall."""
    by_seed: dict[int, dict[str, dict]] = {}
    for run in document["runs"]:
        by_seed.setdefault(run["seed"], {})[run["selector"]] = run
    pairs = [(s[base], s[treated]) for s in by_seed.values() if base in s and treated in s]
    if len(pairs) < 2:
        raise SystemExit(f"bench.lift: fewer than two seeds ran both {base} and {treated}")
    names = [*pairs[0][0].get("regimes", {}), "overall"]
    out = {}
    for name in names:
        diffs = [100 * (_value(t, name) - _value(b, name)) for b, t in pairs]
        out[name] = (statistics.fmean(diffs), statistics.stdev(diffs) / math.sqrt(len(diffs)), len(diffs))
    return out


def _value(run: dict[str, Any], name: str) -> float:
    return float(run["overall"] if name == "overall" else run["regimes"][name])


def main(argv: list[str]) -> int:
    if len(argv) not in (2, 4):
        print("usage: python -m bench.lift RUN.json [BASE TREATED]  (default ts ts+reflection)", file=sys.stderr)
        return 2
    with open(argv[1]) as f:
        document = json.load(f)
    base, treated = (argv[2], argv[3]) if len(argv) == 4 else ("ts", "ts+reflection")
    for name, (mean, se, n) in lift(document, base, treated).items():
        print(f"{name:<8} {treated} − {base}: {mean:+.1f} ± {se:.1f} points (mean ± standard error, {n} seeds)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
