"""The flags of `ael-lab sweep` (apart from the command so `--help` loads nothing heavy)."""

from __future__ import annotations

from ael_cli.flags import values as types
from ael_cli.flags.values import parse_seeds
from ael_cli.flags.llm_flags import add_llm_flags


def add_parser(sub, scenario_names: str, method_help: str, specs=()) -> None:
    p = sub.add_parser("sweep", help="run a grid of runs on every core or a Dask cluster into a results store "
                                     "that a killed sweep resumes from; --export writes the store out")
    p.add_argument("scenario", nargs="*", help=f"one or more (or a comma list): {scenario_names}")
    p.add_argument("--out", metavar="DIR", help="the sweep's folder: its store is DIR/sweep.sqlite (runs already "
                                                "there are skipped, so the same command resumes)")
    p.add_argument("--export", metavar="FORMAT", help="write the store in DIR to stdout: csv, parquet or json "
                                                      "(json: `run --json`'s shape) and run nothing")
    p.add_argument("--config", metavar="FILE", help="the grid as a TOML file (flags replace its values)")
    p.add_argument("--seeds", type=parse_seeds, help="comma list and/or ranges: 42,123 or 1..300 (default 42)")
    p.add_argument("--selector", help=f"{method_help}; a comma list, or all (default ts+reflection)")
    p.add_argument("--reflect-every", action="append", help="slow-window lengths, an axis: 7,13,25")
    p.add_argument("--reflect-threshold", action="append", help="reflection gate thresholds, an axis: 0.38,0.42")
    p.add_argument("--reflect-window", action="append", help="reflection gate windows, an axis: 25,50")
    p.add_argument("--trigger", action="append", help="reflection triggers, an axis: diagnose,paper")
    p.add_argument("--prior", action="append", help="a Beta prior alpha,beta; repeat for an axis: "
                                                    "--prior 1,1 --prior 0.5,0.5")
    p.add_argument("--variant", action="append", metavar="NAME[,NAME...]",
                   help="a set of variants as `run --variant` takes it; repeat for an axis: --variant planners "
                        "--variant skills,credit=fcc")
    p.add_argument("--option", action="append", metavar="NAME=VALUE",
                   help="a scenario option; repeat one name for an axis: --option cost_bps=0 --option cost_bps=5")
    p.add_argument("--episodes", type=types.episodes, help="stop every stream after N episodes")
    p.add_argument("--warmup", type=types.warmup, help="warm-up episodes (default: the scenario's)")
    p.add_argument("--approve", "--approval", dest="approve", choices=["auto", "reject"],
                   help="what happens to proposals (default auto)")
    p.add_argument("--until", type=types.until, help="stop every run at this episode (exclusive)")
    p.add_argument("--workers", type=int, help="worker processes for offline runs (default: every core; results "
                                               "are the same for any count)")
    p.add_argument("--llm-concurrency", type=int, help="LLM-backed runs in flight at once (default 4 per core: "
                                                       "they mostly wait on the network; 1 with --record)")
    p.add_argument("--scheduler", metavar="ADDRESS", help="run on this Dask scheduler (tcp://host:8786) instead of "
                                                          "local processes (pip install 'ael-lab[cluster]')")
    p.add_argument("--quiet", action="store_true", help="no progress display, no results table and no closing line")
    add_llm_flags(p)
    from ael_cli.flags.scenario_flags import add_scenario_flags

    add_scenario_flags(p, list(specs))  # --data FILE --text T --label L, as `run` takes them
