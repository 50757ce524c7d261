"""Reflection on a stream where 20 labels new to memory appear halfway, no --meta (issue 39).

The stream is generated (scenarios/stream/new_labels.py: 2,000 rows, 20 labels, then 10 of
them renamed and 10 split at row 1,000). For seeds 1-5 of the generator (the bandit's seed
the same), `ts` and `ts+reflection` (approval auto) run on it; per seed the bench reports what
reflection proposed and when, and for each approval the accuracy of both over the rows after
it; where nothing cleared the bar, what the run said it tried (once). Run:

    .venv/bin/python -m bench.new_labels          # the table per seed, then the rows below
    .venv/bin/python -m bench new_labels          # the rows only, in the bench's table
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

SEEDS = (1, 2, 3, 4, 5)


def _session(path: Path, seed: int, selector: str):
    import scenarios
    from engine.session import Session, SessionConfig

    opts = {"data": str(path), "text": "text", "label": "label", "regime": "phase"}
    s = Session(SessionConfig("stream", seed, selector, approval="auto", scenario_options=dict(opts)),
                scenarios.make_scenario("stream", seed, opts))
    s.run()
    return s


def _after(session, episode: int) -> float:
    rewards = [h["reward"] for h in session.history if h["episode"] > episode]
    return sum(rewards) / len(rewards) if rewards else float("nan")


def one_seed(folder: Path, seed: int) -> dict[str, Any]:
    from engine.results import run_result
    from scenarios.stream.new_labels import write_new_labels

    path = write_new_labels(folder / f"new-labels-{seed}.csv", seed)
    ts, ael = _session(path, seed, "ts"), _session(path, seed, "ts+reflection")
    result = run_result(ael)
    return {
        "seed": seed, "ts": run_result(ts)["overall"], "ael": result["overall"],
        "ts_p1": run_result(ts)["regimes"]["P1"], "ael_p1": result["regimes"]["P1"],
        "approvals": [{"episode": i["episode"], "arm": i["arm"], "ael_after": _after(ael, i["episode"]),
                       "ts_after": _after(ts, i["episode"])} for i in ael.injections],
        "said": result["nothing_proposed"], "reflections": len(ael.reflections),
    }


def run_all() -> list[dict[str, Any]]:
    with tempfile.TemporaryDirectory() as d:
        return [one_seed(Path(d), seed) for seed in SEEDS]


def rows_of(seeds: list[dict[str, Any]]) -> list[dict[str, Any]]:
    n = len(seeds)
    gains = [a["ael_after"] - a["ts_after"] for s in seeds for a in s["approvals"]]
    return [
        {"name": "new labels: ts overall (5 seeds, mean)", "value": sum(s["ts"] for s in seeds) / n, "unit": "acc",
         "target": None},
        {"name": "new labels: ts+reflection overall (5 seeds, mean)", "value": sum(s["ael"] for s in seeds) / n,
         "unit": "acc", "target": None},
        {"name": "new labels: approvals (5 seeds)", "value": sum(len(s["approvals"]) for s in seeds), "unit": "",
         "target": None},
        {"name": "new labels: after an approval, ts+refl − ts (mean)",
         "value": sum(gains) / len(gains) if gains else 0.0, "unit": "acc", "target": None},
    ]


def run() -> list[dict[str, Any]]:
    return rows_of(run_all())


def _tried(said: dict[str, Any]) -> str:
    return ", ".join(f"{name} {fixes}" for name, fixes in said["tried"].items()) or "nothing"


def table(seeds: list[dict[str, Any]]) -> str:
    lines = ["| seed | ts overall (P1) | ts+reflection overall (P1) | reflections | proposed and approved "
             "(after it: ts+reflection vs ts) | said once when nothing cleared the bar |",
             "|---|---|---|---|---|---|"]
    for s in seeds:
        approved = "; ".join(f"`{a['arm']}` after {a['episode']} ({a['ael_after']:.3f} vs {a['ts_after']:.3f})"
                             for a in s["approvals"]) or "none"
        said = "; ".join(f"after {x['episode']}: tried {_tried(x)} — {x['why']}" for x in s["said"]) or "–"
        lines.append(f"| {s['seed']} | {s['ts']:.3f} ({s['ts_p1']:.3f}) | {s['ael']:.3f} ({s['ael_p1']:.3f}) | "
                     f"{s['reflections']} | {approved} | {said} |")
    return "\n".join(lines)


if __name__ == "__main__":
    results = run_all()
    print(table(results))
    for row in rows_of(results):
        print(f"{row['name']:<62} {row['value']:>10.3f} {row['unit']}")
