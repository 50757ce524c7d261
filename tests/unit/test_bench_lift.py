"""`python -m bench.lift`: the paired lift the README quotes (issue 42), mean ± standard error."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from bench.lift import lift, main


def run(seed: int, selector: str, r3: float) -> dict:
    return {"seed": seed, "selector": selector, "overall": r3 / 2, "regimes": {"R3": r3}}


def test_the_lift_is_the_mean_of_the_per_seed_differences_and_its_standard_error(tmp_path, capsys):
    runs = [run(s, "ts", 0.3) for s in (1, 2, 3)] + [run(1, "ts+reflection", 0.31), run(2, "ts+reflection", 0.33),
                                                      run(3, "ts+reflection", 0.35)]
    found = lift({"runs": runs})
    mean, se, n = found["R3"]
    assert (round(mean, 6), n) == (3.0, 3) and se == pytest.approx(2 / math.sqrt(3))
    path = tmp_path / "r.json"
    path.write_text(json.dumps({"runs": runs}))
    assert main(["lift", str(path)]) == 0
    assert "R3       ts+reflection − ts: +3.0 ± 1.2 points (mean ± standard error, 3 seeds)" in capsys.readouterr().out


def test_the_readme_quotes_the_expectation_not_one_sample():
    root = Path(__file__).resolve().parents[2]
    text = "\n".join(p.read_text() for p in (root / "README.md", *sorted((root / "docs").glob("*.md"))))
    assert "about 6 points" not in text
    assert "--seeds 1..4000 --selector ts,ts+reflection" in text and "+4.2 ± 0.2 points" in text
