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
  ledger   every run the store has recorded (hash, scenario, selector, seed), kept
           when its row goes: a run deleted from `runs` is named, not silently absent.

Written only by the process that drives the sweep, in WAL mode, whole runs at a
time: the runs that finish within COMMIT_EVERY_S share one transaction (a
commit per run would cost more than a synthetic run). A sweep killed at any
instant leaves every committed run whole and no half-written one (SQLite's
journal guarantees it), so the next sweep over the same folder resumes where it
stopped, losing at most the last COMMIT_EVERY_S of results. A finished run is found by its
configuration hash; a failed run is tried again by the next sweep.

Verified when read back. Each run keeps `digest`, a sha256 over its row of `runs`
(every column but id and digest), its `metrics` rows and its `rewards` rows, as
the store holds them. A run whose content no longer gives its digest (a row
edited or damaged after the sweep wrote it) is never taken as a result: a sweep
runs it again instead of skipping it (replacing it whole), `--export` refuses the
store in one line naming the file and the runs (exit 2) and writes nothing, and
`reproduce` leaves it out (its grid runs it again first). Opening a store runs
`PRAGMA quick_check`: a damaged page is one line naming the file (exit 2). Every
SQLite error (a full disk, a malformed page met later) is one line naming the
file (AELError), never a traceback. The digest finds damage and edits of the
store, not an editor who also recomputes the digest: nothing here is secret.

Deleted runs are reported. `ledger` keeps the hash of every run recorded, written in
the run's transaction; a run of the ledger that `runs` no longer holds was deleted
(by hand, by a tool): `--export` refuses the store in one line naming it (exit 2,
nothing written), as for a changed run, and the same sweep run again runs it again.
To drop runs on purpose, delete them from `ledger` too. A store of format 2 gets
its ledger when opened, from the runs it holds then.

A read-only store (its file or its folder: SQLite writes its journal beside the
file even to read a store in WAL mode) is one line saying so to a sweep, never
"not a sweep store" or a bare SQLite error; `--export` reads it as it stands
(read-only, or immutable when its folder is read-only too and no journal lies
beside it).

A store of format 1 (before digests) is migrated when opened: the column is
added and its runs are left without a digest, which is "unverified": nobody can
tell now whether they were changed, so they are treated as changed (a sweep runs
them again; an export refuses them until it has). Trusting them once would seal
in any edit made before the upgrade.
"""

from __future__ import annotations

import errno
import functools
import hashlib
import itertools
import json
import os
import sqlite3
import sys
import tempfile
import time
import urllib.parse
from array import array
from operator import itemgetter
from dataclasses import fields
from pathlib import Path
from typing import Any, Iterable, Iterator

from engine.errors import AELError
from engine.secrets import scrub

from ael_lab.batch import RunTask

__all__ = ["Store", "config_hash"]  # public for the front ends (provisional: docs/api.md)

STORE_NAME = "sweep.sqlite"
FORMAT = 3              # 2: runs.digest, the content hash of each run; 3: the ledger of runs recorded
COMMIT_EVERY_S = 0.5
ROWS_PER_INSERT = 256   # rows of one multi-row INSERT (Store._insert), within SQLite's bound on variables

SCHEMA = """
CREATE TABLE IF NOT EXISTS sweep (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY, hash TEXT NOT NULL UNIQUE, position INTEGER NOT NULL, scenario TEXT NOT NULL, selector TEXT NOT NULL,
    seed INTEGER NOT NULL, config TEXT NOT NULL, until INTEGER,
    status TEXT NOT NULL CHECK (status IN ('ok', 'failed')), error TEXT, traceback TEXT,
    overall REAL, sharpe REAL, episodes INTEGER, reflections INTEGER, first_injection INTEGER,
    result TEXT,
    started REAL, finished REAL, wall_s REAL, cpu_s REAL, worker TEXT,
    llm_calls INTEGER, llm_input_tokens INTEGER, llm_output_tokens INTEGER, llm_cost_usd REAL,
    digest TEXT
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
CREATE TABLE IF NOT EXISTS ledger (
    hash TEXT PRIMARY KEY, scenario TEXT NOT NULL, selector TEXT NOT NULL, seed INTEGER NOT NULL
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


# the runs table's columns a run's digest covers (all but id and digest itself)
DIGESTED = ("hash", "position", "scenario", "selector", "seed", "config", "until", "status", "error", "traceback",
            "overall", "sharpe", "episodes", "reflections", "first_injection", "result", "started", "finished",
            "wall_s", "cpu_s", "worker", "llm_calls", "llm_input_tokens", "llm_output_tokens", "llm_cost_usd")
# the tables a digest covers beside the runs row: (table, columns, their SQLite kinds, order within a run)
DIGEST_PARTS = (("metrics", "name, value", "tr", "name"),
                ("rewards", "episode, reward, regime, phase, policy", "iritt", "episode"))


NEGATIVE_ZERO = array("d", [-0.0]).tobytes()


def _column_bytes(kind: str, column: tuple) -> bytes:
    """One column of a run's metrics or rewards rows as exact bytes, the same for the values
    a run hands the store and for what SQLite gives back for them: a REAL column keeps an
    int as a float, NaN as NULL and -0.0 as 0.0. A column of one type packs at C speed
    (repr of every float cost more than the rest of a record); anything else is its repr."""
    try:
        if kind == "i":
            ints = array("q", column)
            if sys.byteorder != "little":
                ints.byteswap()
            return b"I" + ints.tobytes()
        if kind == "r":
            values = array("d", column)
            if values == values:  # no NaN
                if NEGATIVE_ZERO in values.tobytes():  # maybe a -0.0 (or two numbers' bytes that look like one)
                    values = array("d", [x + 0.0 for x in values])
                if sys.byteorder != "little":
                    values.byteswap()
                return b"R" + values.tobytes()
        if kind == "t":
            sizes = array("q", map(len, column))
            if sys.byteorder != "little":
                sizes.byteswap()
            return b"T" + sizes.tobytes() + "".join(column).encode("utf-8", "surrogatepass")
    except (TypeError, OverflowError, ValueError):
        pass
    if kind == "r":
        column = tuple(None if isinstance(v, float) and v != v else float(v) + 0.0
                       if isinstance(v, (int, float)) else v for v in column)
    elif kind == "i":
        column = tuple(int(v) if isinstance(v, bool) or isinstance(v, float) and v.is_integer() and abs(v) < 2 ** 63
                       else v for v in column)
    return b"G" + repr(column).encode("utf-8", "surrogatepass")


def _rows_bytes(kinds: str, rows: list[tuple], skip: int = 0) -> bytes:
    """`rows` (their first `skip` columns left out) as bytes, column by column."""
    if rows and not min(map(len, rows)) == max(map(len, rows)) == len(kinds) + skip:
        return b"?" + repr(rows).encode("utf-8", "surrogatepass")  # never what the store wrote
    columns = tuple(zip(*rows))[skip:] if rows else ((),) * len(kinds)
    return len(rows).to_bytes(8, "little") + b"".join(_column_bytes(k, c) for k, c in zip(kinds, columns))


def run_digest(row: tuple, metrics: list[tuple], rewards: list[tuple], skip: int = 0) -> str:
    """The digest of a run: its runs row (the DIGESTED columns, as SQLite gives them back),
    its metrics (name, value) by name and its rewards (episode, reward, regime, phase,
    policy) by episode, each row after its first `skip` columns."""
    h = hashlib.sha256(b"ael-sweep-run-1\0" + repr(tuple(row)).encode("utf-8", "surrogatepass"))
    for (table, _, kinds, _), rows in zip(DIGEST_PARTS, (metrics, rewards)):
        h.update(table.encode() + _rows_bytes(kinds, rows, skip))
    return h.hexdigest()


def _read_only(err: BaseException) -> bool:
    """Whether SQLite refused to write because the store's file or its folder is read-only."""
    return str(getattr(err, "sqlite_errorname", "")).startswith("SQLITE_READONLY") or "readonly database" in str(err)


def _one_line(method):
    """The method's SQLite errors as one AELError line naming the store."""
    @functools.wraps(method)
    def guarded(self: "Store", *args, **kwargs):
        try:
            return method(self, *args, **kwargs)
        except sqlite3.Error as err:
            raise self.error(err) from None
    return guarded


class Store:
    """One sweep's SQLite file, opened for reading and writing."""

    def __init__(self, folder: str | Path, create: bool = True):
        self.folder = Path(folder)
        self.path = self.folder / STORE_NAME
        self.rejected: list[dict[str, Any]] = []  # runs the last finished()/runs() found unverifiable
        self.missing: list[dict[str, Any]] = []   # runs of the ledger the last runs() found deleted
        if not create and not self.path.is_file():
            raise AELError(f"{self.folder}: no sweep store here (expected {self.path}); run a sweep with --out first")
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            raise AELError(f"cannot create {self.folder}: {err.strerror or err}") from None
        protected = self._write_protected() if create else None
        if protected:  # root may write it, but whoever made it so meant it kept as it is
            raise self.read_only(None, protected)
        try:
            self._connect(self.path)
        except AELError as err:
            if create or "read-only" not in str(err):
                raise
            self._read_as_it_stands(err)
        self._committed = time.monotonic()

    def _read_as_it_stands(self, refused: AELError) -> None:
        """An export only reads: a store it may not write is opened read-only; in a folder
        it may not write either (no room for SQLite's shared-memory file), as immutable,
        which is safe only while no journal of runs not yet merged lies beside it."""
        uri = f"file:{urllib.parse.quote(str(self.path.resolve()))}"
        wal = Path(f"{self.path}-wal")
        tries = [f"{uri}?mode=ro"] + ([] if wal.exists() and wal.stat().st_size else [f"{uri}?immutable=1"])
        for where in tries:
            try:
                return self._connect(where, writable=False)
            except AELError:
                pass
        raise refused

    def _connect(self, where: str | Path, writable: bool = True) -> None:
        try:
            self.db = sqlite3.connect(where, timeout=30, uri=not writable)
        except sqlite3.DatabaseError as err:
            raise self.open_error(err) from None
        try:
            self._open(writable)
        except BaseException:
            self.db.close()
            raise

    def _open(self, writable: bool = True) -> None:
        try:
            if writable:
                self.db.execute("PRAGMA journal_mode=WAL")
                # NORMAL in WAL mode: a killed process loses nothing committed; only a power
                # cut may lose the last commits (never corrupt the file), and those runs rerun
                self.db.execute("PRAGMA synchronous=NORMAL")
            problems = [" ".join(str(p).split()) for (p,) in self.db.execute("PRAGMA quick_check(3)")]
        except sqlite3.DatabaseError as err:
            raise self.open_error(err) from None
        if problems != ["ok"]:
            raise AELError(f"{self.path}: the sweep store is damaged (PRAGMA quick_check: {problems[0][:200]}); "
                           "none of its runs can be trusted: move it away (or restore a copy) and run the sweep again")
        try:
            # foreign keys are declared but not enforced here: this process writes a run's
            # rows itself, all or none, and deletes a replaced run's rows itself (checking
            # every reward row's run cost a tenth of the store's time)
            self.db.executescript(SCHEMA)
            found = self.db.execute("SELECT value FROM sweep WHERE key = 'format'").fetchone()
            if found is not None and found[0] not in {str(f) for f in range(1, FORMAT + 1)}:
                raise AELError(f"{self.path}: sweep store format {found[0]}, this version reads format {FORMAT}")
            columns = {c for (_, c, *_) in self.db.execute("PRAGMA table_info(runs)")}
            with self.db:
                if "digest" not in columns:  # format 1: its runs stay without a digest, unverified
                    self.db.execute("ALTER TABLE runs ADD COLUMN digest TEXT")
                if found is None or found[0] != str(FORMAT):
                    # format 2 and before: the ledger starts from the runs the store holds now
                    self.db.execute("INSERT OR IGNORE INTO ledger SELECT hash, scenario, selector, seed FROM runs")
                    self.db.execute("INSERT OR REPLACE INTO sweep VALUES ('format', ?)", (str(FORMAT),))
        except sqlite3.Error as err:
            raise self.error(err) from None

    def error(self, err: sqlite3.Error) -> AELError:
        """One line for a SQLite error met while using the store."""
        text = " ".join(str(err).split()) or type(err).__name__
        if _read_only(err):
            return self.read_only(err)
        if "full" in text:
            return AELError(f"{self.path}: cannot write the sweep store ({text}); the runs committed before are "
                            "kept, and the same sweep resumes from them once there is room")
        if "malformed" in text or "not a database" in text:
            return AELError(f"{self.path}: the sweep store is damaged ({text}); none of its runs can be trusted: "
                            "move it away (or restore a copy) and run the sweep again")
        return AELError(f"{self.path}: the sweep store failed ({type(err).__name__}: {text})")

    def open_error(self, err: sqlite3.DatabaseError) -> AELError:
        """One line for a store SQLite could not open: damaged, read-only, or not a store."""
        if "malformed" in str(err) or _read_only(err):
            return self.error(err)
        which = self._unwritable()  # SQLite says only "unable to open database file"
        if which:
            return self.read_only(err, which)
        return AELError(f"{self.path}: not a sweep store this version can read ({err})")

    def _unwritable(self) -> str | None:
        """Which of the store's file and folder cannot be written ("the file", "its folder"),
        found by trying: os.access answers yes to root, whom an immutable file or a read-only
        mount refuses all the same."""
        refused = (errno.EACCES, errno.EPERM, errno.EROFS)
        try:
            os.close(os.open(self.path, os.O_RDWR | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0)))
        except OSError as err:
            if err.errno in refused:
                return "the file"
        try:
            with tempfile.TemporaryFile(dir=self.folder):
                pass
        except OSError as err:
            if err.errno in refused:
                return "its folder"
        return None

    def _write_protected(self) -> str | None:
        """Which of the store's file and folder has no write permission bit ("the file", "its
        folder"), as `chmod a-w` leaves it: refused to root too (who would otherwise write it,
        permission bits being no obstacle to root) so a store made read-only stays so."""
        for which, path in (("the file", self.path), ("its folder", self.folder)):
            try:
                if not os.stat(path).st_mode & 0o222:
                    return which
            except OSError:
                pass
        return None

    def read_only(self, err: sqlite3.Error | None, which: str | None = None) -> AELError:
        """The one line for a store SQLite may not write (a read-only file, folder or disk)."""
        which = which or ("its folder" if getattr(err, "sqlite_errorname", "") == "SQLITE_READONLY_DIRECTORY"
                          else "the file")
        return AELError(f"{self.path}: the sweep store is read-only ({which} cannot be written: a sweep records its "
                        "runs in it, and SQLite writes its journal beside it even to read it); make "
                        f"{self.folder} and the store writable, or copy the folder and give the copy to --out")

    @_one_line
    def commit(self) -> None:
        self.db.commit()
        self._committed = time.monotonic()

    def close(self) -> None:
        try:
            self.commit()  # the runs recorded since the last commit
        finally:
            self.db.close()

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, kind, *exc) -> None:
        if kind is None:
            self.close()
            return
        try:  # an interrupted sweep keeps the runs it recorded (a failing commit would only hide the first error)
            self.close()
        except AELError:
            pass

    def _digests(self, run: int | None = None) -> dict[int, str]:
        """runs.id -> the digest of that run's content as the store holds it now (of every
        run, or of `run`)."""
        where, params = ("WHERE id = ?", (run,)) if run is not None else ("", ())
        rows = {i: tuple(values) for i, *values in
                self.db.execute(f"SELECT id, {', '.join(DIGESTED)} FROM runs {where}", params)}
        parts: list[dict[int, list[tuple]]] = []
        where = "WHERE run = ?" if run is not None else ""
        for table, columns, _, order in DIGEST_PARTS:
            grouped: dict[int, list[tuple]] = {}
            query = f"SELECT run, {columns} FROM {table} {where} ORDER BY run, {order}"
            for i, group in itertools.groupby(self.db.execute(query, params), key=itemgetter(0)):
                if i in rows:
                    grouped[i] = list(group)
            parts.append(grouped)
        return {i: run_digest(row, parts[0].get(i, []), parts[1].get(i, []), skip=1) for i, row in rows.items()}

    @_one_line
    def finished(self) -> set[str]:
        """Hashes of the runs that finished and still hold what the sweep wrote (failed runs
        are not: the next sweep tries them again; nor are runs whose content no longer gives
        their digest, listed in `rejected`: the next sweep runs them again)."""
        actual = self._digests()
        done, self.rejected = set(), []
        for i, h, status, scenario, selector, seed, digest in self.db.execute(
                "SELECT id, hash, status, scenario, selector, seed, digest FROM runs ORDER BY position, rowid"):
            if digest is None or digest != actual.get(i):
                self.rejected.append({"hash": h, "scenario": scenario, "selector": selector, "seed": seed,
                                      "digest": digest})
            elif status == "ok":
                done.add(h)
        return done

    def rejected_line(self, rows: list[dict[str, Any]] | None = None) -> str:
        """What `rows` (default: `rejected`) are, in one line naming the store."""
        rows = self.rejected if rows is None else rows
        changed = sum(1 for r in rows if r["digest"] is not None)
        parts = ([f"{changed} run(s) no longer match their content hash (changed after the sweep wrote them)"]
                 if changed else []) + \
                ([f"{len(rows) - changed} run(s) were stored before content hashes and cannot be verified"]
                 if len(rows) > changed else [])
        first = rows[0]
        return (f"{self.path}: {' and '.join(parts)}, the first {first['scenario']} {first['selector']} "
                f"seed {first['seed']}")

    @_one_line
    def set_info(self, key: str, value: Any) -> None:
        with self.db:
            self.db.execute("INSERT OR REPLACE INTO sweep VALUES (?, ?)", (key, json.dumps(value)))

    @_one_line
    def record(self, position: int, task: RunTask, out: dict[str, Any], h: str | None = None) -> None:
        """One run's outcome (`h`: its config hash, when known), committed with the runs
        around it: all of its rows or none, and its digest over them as stored."""
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
            self.db.execute("INSERT OR IGNORE INTO ledger VALUES (?, ?, ?, ?)", (h, c.scenario, c.selector, c.seed))
            metrics = [] if result is None else [(name, value) for name, value in numeric_leaves(result)
                                                 if not name.startswith("llm.")]
            rewards = [tuple(r) for r in out.get("rewards", ())]
            self._insert("metrics", run, metrics, 2)
            self._insert("rewards", run, rewards, 5)
            # the runs row as SQLite gives it back; the metrics and rewards as given (reading
            # them back cost more than writing them; run_digest encodes both alike)
            stored = self.db.execute(f"SELECT {', '.join(DIGESTED)} FROM runs WHERE id = ?", (run,)).fetchone()
            digest = run_digest(stored, sorted(metrics), sorted(rewards, key=itemgetter(0)))
            self.db.execute("UPDATE runs SET digest = ? WHERE id = ?", (digest, run))
        except BaseException:
            self.db.rollback()  # this run's rows and the uncommitted ones before it: all run again
            raise
        if time.monotonic() - self._committed >= COMMIT_EVERY_S:
            self.commit()

    def _insert(self, table: str, run: int, rows: list[tuple], width: int) -> None:
        """`rows` (each `width` values) into `table` as run `run`'s: a few statements of many
        rows each (INSERT ... SELECT ?1, ... FROM (VALUES ...)), the run bound once per
        statement. executemany binds and steps each row from Python: for a sweep's 125,000
        reward rows it cost twice this, in the one process that also feeds the workers.
        The values reach the table as executemany would put them (the same bindings, the
        same column affinities); rows of another width go to executemany, which refuses them."""
        if not rows:
            return
        if set(map(len, rows)) != {width}:
            self.db.executemany(f"INSERT INTO {table} VALUES ({', '.join('?' * (width + 1))})",
                                [(run, *r) for r in rows])
            return
        # the variables one statement may bind: 32,766 in SQLite since 3.32, 999 before
        step = max(1, min(ROWS_PER_INSERT, (self.db.getlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER) - 1) // width))
        columns = ", ".join(f"column{k}" for k in range(1, width + 1))
        one = f"({', '.join('?' * width)})"
        for start in range(0, len(rows), step):
            part = rows[start:start + step]
            self.db.execute(f"INSERT INTO {table} SELECT ?1, {columns} FROM (VALUES {', '.join([one] * len(part))})",
                            (run, *itertools.chain.from_iterable(part)))

    @_one_line
    def runs(self, hashes: Iterable[str] | None = None, unverified: str = "omit") -> list[dict[str, Any]]:
        """Every run (or those of `hashes`), in grid order, as dicts of the runs table
        with `config` and `result` decoded. A run whose content does not give its digest
        is never returned: it is left out and listed in `rejected` (what `reproduce` reads
        after its grid ran such runs again), or with unverified="raise" (exports) it is an
        AELError naming the store."""
        actual = self._digests()
        rows = self.db.execute("SELECT * FROM runs ORDER BY position, rowid")
        names = [d[0] for d in rows.description]
        wanted = None if hashes is None else set(hashes)
        out, self.rejected = [], []
        for values in rows:
            row = dict(zip(names, values))
            if wanted is not None and row["hash"] not in wanted:
                continue
            digest = row.pop("digest")
            if digest is None or digest != actual.get(row["id"]):
                self.rejected.append({**row, "digest": digest})
                continue
            for cell in ("config", "result"):
                try:
                    row[cell] = None if row[cell] is None else json.loads(row[cell])
                except (TypeError, ValueError) as err:
                    raise AELError(f"{self.path}: the {cell} of run {row['id']} ({row['scenario']} {row['selector']} "
                                   f"seed {row['seed']}) is not JSON ({err})") from None
            out.append(row)
        held = {h for (h,) in self.db.execute("SELECT hash FROM runs")}
        self.missing = [{"hash": h, "scenario": scenario, "selector": selector, "seed": seed}
                        for h, scenario, selector, seed in self.db.execute(
                            "SELECT hash, scenario, selector, seed FROM ledger ORDER BY scenario, selector, seed")
                        if h not in held and (wanted is None or h in wanted)]
        if self.rejected and unverified == "raise":
            raise AELError(f"{self.rejected_line()}; none of them is read as a result: run the same sweep "
                           "again (it runs them again), then export")
        if self.missing and unverified == "raise":
            first = self.missing[0]
            raise AELError(f"{self.path}: {len(self.missing)} run(s) the sweep recorded are no longer in the store "
                           f"(deleted), the first {first['scenario']} {first['selector']} seed {first['seed']}; "
                           "an export without them would be incomplete: run the same sweep again (it runs them "
                           "again), then export")
        return out

    @_one_line
    def metrics(self, hashes: Iterable[str]) -> list[tuple[str, str, float | None]]:
        """(run hash, metric name, value) of the runs of `hashes` (verified by `runs` first)."""
        wanted = set(hashes)
        return [row for row in self.db.execute(
            "SELECT r.hash, m.name, m.value FROM metrics m JOIN runs r ON r.id = m.run ORDER BY m.run, m.name")
            if row[0] in wanted]
