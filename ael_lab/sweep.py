"""`ael_lab.sweep.read(DIR)`: a sweep's store (`ael-lab sweep ... --out DIR`) as pandas DataFrames.

The store is opened and verified by the code every sweep, export and reproduction uses
(ael_lab/sweep_store.py): a damaged file, a run changed after the sweep wrote it or a run
deleted from it is an AELError naming the store, never a frame that silently holds it.
The frames are its tables (docs/api.md lists their columns):

  runs     one row per run, in grid order; `config` and `result` as dicts (`result` is the
           run's entry of `ael-lab run --json`)
  metrics  every numeric value of a result, one row each, by dotted name
  rewards  every run's reward per episode (with regime, phase and policy)
  sweep    what the sweep was (key, value decoded from JSON)
  ledger   every run the store has recorded (hash, scenario, selector, seed)
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from engine.errors import AELError

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["read", "SweepTables"]

RUNS = ("id", "hash", "position", "scenario", "selector", "seed", "config", "until", "status", "error",
        "traceback", "overall", "sharpe", "episodes", "reflections", "first_injection", "result", "started",
        "finished", "wall_s", "cpu_s", "worker", "llm_calls", "llm_input_tokens", "llm_output_tokens",
        "llm_cost_usd")


@dataclass(frozen=True)
class SweepTables:
    """The tables of one sweep store, each a DataFrame."""

    runs: "pd.DataFrame"
    metrics: "pd.DataFrame"
    rewards: "pd.DataFrame"
    sweep: "pd.DataFrame"
    ledger: "pd.DataFrame"

    def __repr__(self) -> str:
        return (f"<ael_lab.sweep.SweepTables: {len(self.runs)} runs, {len(self.metrics)} metrics, "
                f"{len(self.rewards)} rewards>")


def read(folder: str | os.PathLike) -> SweepTables:
    """The store of the sweep written to `folder` (`ael-lab sweep SCENARIO ... --out folder`)."""
    import pandas as pd

    from ael_lab.sweep_store import Store  # the store, below the CLI that writes it and this that reads it

    if not isinstance(folder, (str, os.PathLike)) or not str(folder):
        raise AELError(f"sweep.read: give the sweep's folder (its --out), not {folder!r}")
    path = Path(folder).expanduser()
    if not path.is_dir():
        raise AELError(f"sweep.read: {path} is not a folder; give the folder a sweep wrote (its --out)")
    with Store(path, create=False) as store:
        runs = store.runs(unverified="raise")  # verified, decoded; a changed or deleted run is an error
        ids = tuple(r["id"] for r in runs)
        try:
            metrics = pd.read_sql_query("SELECT run, name, value FROM metrics ORDER BY run, name", store.db)
            rewards = pd.read_sql_query("SELECT run, episode, reward, regime, phase, policy FROM rewards "
                                        "ORDER BY run, episode", store.db)
            info = store.db.execute("SELECT key, value FROM sweep ORDER BY key").fetchall()
            ledger = pd.read_sql_query("SELECT hash, scenario, selector, seed FROM ledger "
                                       "ORDER BY scenario, selector, seed", store.db)
        except Exception as err:  # sqlite3's or pandas' reading error: one line naming the store
            raise AELError(f"sweep.read: cannot read {store.path}: {' '.join(str(err).split())}") from None
    verified = metrics["run"].isin(ids), rewards["run"].isin(ids)
    sweep = pd.DataFrame([(k, _json(v)) for k, v in info], columns=["key", "value"])
    return SweepTables(runs=pd.DataFrame(runs, columns=list(RUNS)),
                       metrics=metrics[verified[0]].reset_index(drop=True),
                       rewards=rewards[verified[1]].reset_index(drop=True), sweep=sweep, ledger=ledger)


def _json(text: str):
    try:
        return json.loads(text)
    except (TypeError, ValueError):
        return text
