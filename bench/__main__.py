"""`make bench`: every benchmark, one table, targets beside the measurements.

Timings are medians or totals of wall-clock `perf_counter` on this machine;
"engine time" counts only `Session.run` / store calls, not process start-up
or imports. Targets live here, never as timed assertions in tests.
"""

from __future__ import annotations

import importlib
import json
import platform
import sys
import time
from pathlib import Path

SUITES = ["bench.engine", "bench.retrieval", "bench.codepolicy", "bench.support", "bench.news", "bench.stream",
          "bench.stream_index", "bench.new_labels", "bench.batch", "bench.sweep", "bench.portfolio", "bench.prior",
          "bench.variants", "bench.tui", "bench.llm", "bench.serve", "bench.local", "bench.rewind"]


def main(argv: list[str]) -> int:
    if "--vs" in argv:  # `python -m bench stream --vs river`: the stream world beside its peers (bench/stream_peers.py)
        return _versus(argv[1:])
    only = argv[1:] or None
    rows = []
    for name in SUITES:
        if only and not any(o in name for o in only):
            continue
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as err:
            if err.name and err.name.startswith(name):
                continue  # that suite does not exist yet
            raise
        for row in module.run():
            rows.append(row)
            target = row.get("target")
            higher = row.get("higher", False)  # a speed-up: the target is a minimum
            met = target is not None and (row["value"] >= target if higher else row["value"] <= target)
            ok = "   " if target is None else ("ok " if met else "MISS")
            goal = "(for comparison)" if target is None else f"(target {'>' if higher else '<'} {target} {row['unit']})"
            print(f"{ok} {row['name']:<62} {row['value']:>10.3f} {row['unit']:<4} {goal}", flush=True)
    out = Path(__file__).with_name("results.json")
    out.write_text(json.dumps({"machine": f"{platform.machine()} {platform.python_version()}",
                               "when": time.strftime("%Y-%m-%d"), "rows": rows}, indent=1) + "\n")
    print(f"wrote {out}")
    return 0


def _versus(args: list[str]) -> int:
    at = args.index("--vs")
    peer = args[at + 1] if at + 1 < len(args) else ""
    if args[:at] != ["stream"] or peer != "river":
        from bench.stream_peers import USAGE

        print(USAGE, file=sys.stderr)
        return 2
    from bench.stream_peers import main as versus

    return versus(args[at + 2:])


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
