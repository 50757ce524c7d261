"""The results store of one sweep: one SQLite file, `DIR/sweep.sqlite`.

Tables (query them with `sqlite3` or `pandas.read_sql`):

  runs     one row per run: its configuration (JSON) and hash, scenario, selector,
           seed, status ("ok" or "failed") and error, the headline metrics as
           columns, the whole result as `run --json` has it (JSON), timings and
           LLM usage.
  metrics  every numeric value of a result, one row each, by dotted name
           ("overall", "regimes.R3", "phases.test.sharpe"); `run` is runs.id.
  rewards  the per-episode rewards of every run (run = runs.id, episode, reward, regime,
           phase, policy).
  sweep    what the sweep was (key/value: format version, the grid).

Written only by the process that drives the sweep, in WAL mode, whole runs at a
time: the runs that finish within COMMIT_EVERY_S share one transaction (a
commit per run would cost more than a synthetic run). A sweep killed at any
instant leaves every committed run whole and no half-written one (SQLite's
journal guarantees it), so the next sweep over the same folder resumes where it
stopped, losing at most the last COMMIT_EVERY_S of results. A finished run is found by its
configuration hash; a failed run is tried again by the next sweep.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import time
from dataclasses import fields
from pathlib import Path
from typing import Any, Iterable, Iterator

from engine.errors import AELError
from engine.secrets import scrub

from ael_tui.batch import RunTask

STORE_NAME = "sweep.sqlite"
FORMAT = 1
COMMIT_EVERY_S = 0.5

SCHEMA = """
CREATE TABLE IF NOT EXISTS sweep (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY, hash TEXT NOT NULL UNIQUE, position INTEGER NOT NULL, scenario TEXT NOT NULL, selector TEXT NOT NULL,
    seed INTEGER NOT NULL, config TEXT NOT NULL, until INTEGER,
    status TEXT NOT NULL CHECK (status IN ('ok', 'failed')), error TEXT, traceback TEXT,
    overall REAL, sharpe REAL, episodes INTEGER, reflections INTEGER, first_injection INTEGER,
    result TEXT,
    started REAL, finished REAL, wall_s REAL, cpu_s REAL, worker TEXT,
    llm_calls INTEGER, llm_input_tokens INTEGER, llm_output_tokens INTEGER, llm_cost_usd REAL
);
CREATE TABLE IF NOT EXISTS metrics (
    run INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE, name TEXT NOT NULL, value REAL,
    PRIMARY KEY (run, name)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS rewards (
    run INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE, episode INTEGER NOT NULL, reward REAL,
    regime INTEGER, phase TEXT, policy TEXT,
    PRIMARY KEY (run, episode)
) WITHOUT ROWID;
"""


def config_json(task: RunTask) -> str:
    """The run's configuration as canonical JSON: the text of `SessionConfig.to_dict()`
    (json writes its tuples as lists), without `asdict`'s deep copy, which cost more than
    the rest of a record."""
    c = task.config
    return json.dumps({f.name: getattr(c, f.name) for f in fields(c)}, sort_keys=True, separators=(",", ":"))


def config_hash(task: RunTask) -> str:
    """What identifies a run: its whole configuration and where it stops (a run is a
    pure function of these), hashed."""
    text = f'{{"config":{config_json(task)},"until":{json.dumps(task.until)}}}'
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def numeric_leaves(value: Any, prefix: str = "") -> Iterator[tuple[str, float]]:
    """('regimes.R0', 0.41), ... for every number in a result (booleans are not numbers here)."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield from numeric_leaves(item, f"{prefix}{key}.")
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        yield prefix[:-1], float(value)


class Store:
    """One sweep's SQLite file, opened for reading and writing."""

    def __init__(self, folder: str | Path, create: bool = True):
        self.folder = Path(folder)
        self.path = self.folder / STORE_NAME
        if not create and not self.path.is_file():
            raise AELError(f"{self.folder}: no sweep store here (expected {self.path}); run a sweep with --out first")
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            self.db = sqlite3.connect(self.path, timeout=30)
            self.db.execute("PRAGMA journal_mode=WAL")
            # NORMAL in WAL mode: a killed process loses nothing committed; only a power
            # cut may lose the last commits (never corrupt the file), and those runs rerun
            self.db.execute("PRAGMA synchronous=NORMAL")
            # foreign keys are declared but not enforced here: this process writes a run's
            # rows itself, all or none, and deletes a replaced run's rows itself (checking
            # every reward row's run cost a tenth of the store's time)
            self.db.executescript(SCHEMA)
            found = self.db.execute("SELECT value FROM sweep WHERE key = 'format'").fetchone()
        except sqlite3.DatabaseError as err:
            raise AELError(f"{self.path}: not a sweep store this version can read ({err})") from None
        except OSError as err:
            raise AELError(f"cannot create {self.folder}: {err.strerror or err}") from None
        if found is None:
            with self.db:
                self.db.execute("INSERT INTO sweep VALUES ('format', ?)", (str(FORMAT),))
        elif found[0] != str(FORMAT):
            raise AELError(f"{self.path}: sweep store format {found[0]}, this version reads format {FORMAT}")
        self._committed = time.monotonic()

    def commit(self) -> None:
        self.db.commit()
        self._committed = time.monotonic()

    def close(self) -> None:
        self.commit()  # the runs recorded since the last commit
        self.db.close()

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def finished(self) -> set[str]:
        """Hashes of the runs that finished (failed runs are not: the next sweep tries them again)."""
        return {h for (h,) in self.db.execute("SELECT hash FROM runs WHERE status = 'ok'")}

    def set_info(self, key: str, value: Any) -> None:
        with self.db:
            self.db.execute("INSERT OR REPLACE INTO sweep VALUES (?, ?)", (key, json.dumps(value)))

    def record(self, position: int, task: RunTask, out: dict[str, Any], h: str | None = None) -> None:
        """One run's outcome (`h`: its config hash, when known), committed with the runs
        around it: all of its rows or none."""
        h = h or config_hash(task)
        c = task.config
        result = out.get("result")
        llm = (result or {}).get("llm", {})
        injections = (result or {}).get("injections") or []
        row = {
            "hash": h, "position": position, "scenario": c.scenario, "selector": c.selector, "seed": c.seed,
            # an LLM endpoint's URL may carry credentials (scrub reads the environment: only then)
            "config": scrub(config_json(task)) if c.llm else config_json(task), "until": task.until,
            "status": "failed" if "error" in out else "ok", "error": out.get("error"),
            "traceback": out.get("traceback"),
            "overall": (result or {}).get("overall"), "sharpe": (result or {}).get("sharpe"),
            "episodes": (result or {}).get("episodes"), "reflections": (result or {}).get("reflections"),
            "first_injection": injections[0]["episode"] if injections else None,
            "result": None if result is None else json.dumps(result),
            "started": out.get("started"), "finished": out.get("finished"),
            "wall_s": (out["finished"] - out["started"]) if "started" in out else None,
            "cpu_s": out.get("cpu_s"), "worker": out.get("worker"),
            "llm_calls": llm.get("calls"), "llm_input_tokens": llm.get("input_tokens"),
            "llm_output_tokens": llm.get("output_tokens"), "llm_cost_usd": llm.get("cost_usd"),
        }
        try:  # inside the open transaction: a kill before its commit leaves none of these rows
            for (old,) in self.db.execute("SELECT id FROM runs WHERE hash = ?", (h,)).fetchall():
                for table, key in (("rewards", "run"), ("metrics", "run"), ("runs", "id")):
                    self.db.execute(f"DELETE FROM {table} WHERE {key} = ?", (old,))  # a failed try, replaced
            run = self.db.execute(f"INSERT INTO runs ({', '.join(row)}) VALUES ({', '.join('?' * len(row))})",
                                  tuple(row.values())).lastrowid
            if result is not None:
                self.db.executemany("INSERT INTO metrics VALUES (?, ?, ?)",
                                    [(run, name, value) for name, value in numeric_leaves(result)
                                     if not name.startswith("llm.")])
            self.db.executemany("INSERT INTO rewards VALUES (?, ?, ?, ?, ?, ?)",
                                [(run, *r) for r in out.get("rewards", ())])
        except BaseException:
            self.db.rollback()  # this run's rows and the uncommitted ones before it: all run again
            raise
        if time.monotonic() - self._committed >= COMMIT_EVERY_S:
            self.commit()

    def runs(self, hashes: Iterable[str] | None = None) -> list[dict[str, Any]]:
        """Every run (or those of `hashes`), in grid order, as dicts of the runs table
        with `config` and `result` decoded."""
        rows = self.db.execute("SELECT * FROM runs ORDER BY position, rowid")
        names = [d[0] for d in rows.description]
        wanted = None if hashes is None else set(hashes)
        out = []
        for values in rows:
            row = dict(zip(names, values))
            if wanted is not None and row["hash"] not in wanted:
                continue
            row["config"] = json.loads(row["config"])
            row["result"] = None if row["result"] is None else json.loads(row["result"])
            out.append(row)
        return out
