"""The sweep store is verified when read back (issue 27, findings 3 and 4): a run changed
after the sweep wrote it is run again by the next sweep (never skipped as done) and never
exported or reproduced as a result; a damaged page is one line naming the file when the
store is opened; every store error (a full disk, a cell that is not JSON) is one line and
exit 2, never a traceback."""

from __future__ import annotations

import argparse
import dataclasses
import json
import random
import sqlite3
from pathlib import Path

import pytest

from ael_cli.main import main
from ael_lab.sweep_store import FORMAT, STORE_NAME, Store

GRID = ["synthetic", "--seeds", "1..3", "--selector", "ts", "--workers", "1"]


def sweep(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["sweep", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def one_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err
    return lines[0]


@pytest.fixture
def store(tmp_path, capsys) -> tuple[Path, str]:
    """A sweep's folder, and its json export as the sweep wrote it."""
    folder = tmp_path / "s"
    code, _, err = sweep(capsys, *GRID, "--out", str(folder))
    assert code == 0, err
    code, out, err = sweep(capsys, "--out", str(folder), "--export", "json")
    assert code == 0, err
    return folder, out


def edit(folder: Path, sql: str, *params) -> None:
    db = sqlite3.connect(folder / STORE_NAME)
    with db:
        assert db.execute(sql, params).rowcount >= 1
    db.close()


def refused(capsys, folder: Path, says: str) -> str:
    for fmt in ("json", "csv"):
        code, out, err = sweep(capsys, "--out", str(folder), "--export", fmt)
        line = one_line(err)
        assert code == 2 and out == "", err
        assert str(folder / STORE_NAME) in line and says in line
    return line


def test_a_run_tampered_after_the_sweep_is_not_exported_and_the_next_sweep_runs_it_again(store, capsys):
    folder, expected = store
    doc = json.loads(expected)
    forged = dict(doc["runs"][1], overall=0.999)
    edit(folder, "UPDATE runs SET overall = 0.999, result = ? WHERE seed = 2", json.dumps(forged))
    line = refused(capsys, folder, "1 run(s) no longer match their content hash")
    assert "synthetic ts seed 2" in line

    code, _, err = sweep(capsys, *GRID, "--out", str(folder))
    assert code == 0, err
    assert "no longer match their content hash" in err and "running them again" in err
    assert "1 run(s) done, 2 already in the store" in err
    code, out, err = sweep(capsys, "--out", str(folder), "--export", "json")
    assert code == 0 and out == expected


@pytest.mark.parametrize("sql", [
    "UPDATE rewards SET reward = reward + 1 WHERE episode = 5 AND run = (SELECT id FROM runs WHERE seed = 3)",
    "DELETE FROM metrics WHERE name = 'overall' AND run = (SELECT id FROM runs WHERE seed = 1)",
    "UPDATE metrics SET value = 0.999 WHERE name = 'overall' AND run = (SELECT id FROM runs WHERE seed = 1)",
    "UPDATE runs SET config = replace(config, '\"seed\":1', '\"seed\":9') WHERE instr(config, '\"seed\":1,')",
])
def test_rewards_metrics_and_configuration_are_under_the_hash_too(store, capsys, sql):
    folder, _ = store
    edit(folder, sql)
    refused(capsys, folder, "no longer match their content hash")


def test_a_cell_that_is_not_json_is_one_line_even_with_a_matching_hash(store, capsys):
    folder, _ = store
    edit(folder, "UPDATE runs SET result = '{\"overall\": 0.7' WHERE seed = 1")
    refused(capsys, folder, "no longer match their content hash")
    with Store(folder) as s:  # an editor who also writes the matching digest
        (run,), = s.db.execute("SELECT id FROM runs WHERE seed = 1")
        s.db.execute("UPDATE runs SET digest = ? WHERE id = ?", (s._digests(run)[run], run))
    line = refused(capsys, folder, "is not JSON")
    assert "synthetic ts seed 1" in line


def test_random_bytes_written_mid_file_are_one_line_naming_the_store(tmp_path, capsys):
    folder = tmp_path / "s"
    grid = ["synthetic", "--seeds", "1..12", "--selector", "ts", "--workers", "1"]
    code, _, err = sweep(capsys, *grid, "--out", str(folder))
    assert code == 0, err
    path = folder / STORE_NAME
    assert not (folder / f"{STORE_NAME}-wal").exists() or (folder / f"{STORE_NAME}-wal").stat().st_size == 0
    size = path.stat().st_size
    assert size >= 64 * 1024
    with open(path, "r+b") as f:
        f.seek(size // 2 // 4096 * 4096)
        f.write(random.Random(27).randbytes(8192))
    assert not intact(path)  # the damage is real
    for argv in (grid, ["--export", "json"], ["--export", "csv"]):
        code, out, err = sweep(capsys, *argv, "--out", str(folder))
        line = one_line(err)
        assert code == 2 and out == "", err
        assert str(path) in line and "damaged" in line


def intact(path: Path) -> bool:
    db = sqlite3.connect(path)
    try:
        return db.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    except sqlite3.DatabaseError:
        return False
    finally:
        db.close()


class SmallDisk(sqlite3.Connection):
    """A connection whose database may grow by only a few pages past its schema: SQLite's
    own 'database or disk is full', as a full disk gives it."""

    def executescript(self, script):
        cursor = super().executescript(script)
        pages = self.execute("PRAGMA page_count").fetchone()[0]
        self.execute(f"PRAGMA max_page_count = {pages + 12}")
        return cursor


@pytest.mark.heavy
def test_a_full_disk_is_one_line_and_the_same_sweep_resumes_after(tmp_path, capsys, monkeypatch):
    folder = tmp_path / "s"
    grid = ["synthetic", "--seeds", "1..40", "--selector", "ts", "--workers", "1"]
    monkeypatch.setattr("ael_lab.sweep_store.COMMIT_EVERY_S", 0)  # a commit per run: some are in before it fills
    connect = sqlite3.connect
    monkeypatch.setattr(sqlite3, "connect", lambda *a, **k: connect(*a, **k, factory=SmallDisk))
    code, out, err = sweep(capsys, *grid, "--out", str(folder))
    line = one_line(err)
    assert code == 2
    assert str(folder / STORE_NAME) in line and "database or disk is full" in line
    monkeypatch.setattr(sqlite3, "connect", connect)  # room again

    db = sqlite3.connect(folder / STORE_NAME)
    kept = db.execute("SELECT count(*) FROM runs").fetchone()[0]
    db.close()
    assert 0 < kept < 40
    code, _, err = sweep(capsys, *grid, "--out", str(folder))
    assert code == 0, err
    assert f"{40 - kept} run(s) done, {kept} already in the store" in err
    code, out, err = sweep(capsys, "--out", str(folder), "--export", "json")
    assert code == 0, err
    assert main(["run", *grid, "--quiet", "--json", str(tmp_path / "run.json")]) == 0
    assert json.loads(out) == json.loads((tmp_path / "run.json").read_text())


def test_a_store_from_before_hashes_opens_its_runs_are_unverified_and_run_again(store, capsys):
    folder, expected = store
    db = sqlite3.connect(folder / STORE_NAME)
    with db:  # what the previous version wrote: format 1, no digest column
        db.execute("ALTER TABLE runs DROP COLUMN digest")
        db.execute("UPDATE sweep SET value = '1' WHERE key = 'format'")
    db.close()
    refused(capsys, folder, "3 run(s) were stored before content hashes and cannot be verified")
    code, _, err = sweep(capsys, *GRID, "--out", str(folder))
    assert code == 0, err
    assert "3 run(s) done, 0 already in the store" in err
    code, out, _ = sweep(capsys, "--out", str(folder), "--export", "json")
    assert code == 0 and out == expected
    db = sqlite3.connect(folder / STORE_NAME)
    assert db.execute("SELECT value FROM sweep WHERE key = 'format'").fetchone() == (str(FORMAT),)  # migrated
    db.close()


def test_reproduce_runs_a_tampered_run_again_instead_of_reading_it(tmp_path, capsys):
    from ael_cli.reproduce.run import run_tables
    from ael_cli.reproduce.tables import TABLES

    (synthetic,) = [t for t in TABLES if t.key == "synthetic"]
    table = dataclasses.replace(synthetic, rows=synthetic.rows[:1], seeds=(42, 123))
    args = argparse.Namespace(out=str(tmp_path / "runs"), workers=1, llm_concurrency=None, quiet=True,
                              agent="offline", reflector="offline", dfull=None)
    first, _, ran, failed = run_tables([table], args)
    assert ran == 2 and failed == []
    (values,) = [o.values for o in first["synthetic"]]
    edit(tmp_path / "runs", "UPDATE runs SET overall = 0.999, result = json_set(result, '$.overall', 0.999) "
                            "WHERE seed = 42")
    again, _, ran, failed = run_tables([table], args)
    capsys.readouterr()
    assert ran == 1 and failed == []
    assert [o.values for o in again["synthetic"]] == [values]


@pytest.mark.heavy
def test_every_scenarios_runs_verify_as_written(tmp_path, capsys):
    """The digest a run is written with is the one its rows give back (no run of any
    scenario is taken for a changed one and run again for ever)."""
    folder = str(tmp_path / "s")
    grid = ["synthetic,support,portfolio", "--seeds", "1,2", "--selector", "ts,ts+reflection", "--episodes", "60"]
    code, _, err = sweep(capsys, *grid, "--out", folder)
    assert code == 0, err
    code, _, err = sweep(capsys, *grid, "--out", folder)
    assert code == 0 and "0 run(s) done, 12 already in the store" in err


def test_values_sqlite_stores_differently_give_the_same_digest(tmp_path):
    """An int reward reads back as a float, NaN as NULL, -0.0 as 0.0: the digest written
    from the values a run hands over is the one its stored rows give."""
    from ael_lab.batch import task_of
    from engine.session import SessionConfig

    task = task_of(SessionConfig(scenario="synthetic", seed=3, selector="ts", episodes=5), None)
    rewards = [(0, 1, 0, "train", "ts"), (1, float("nan"), None, None, None), (2, -0.0, 2, "test", "x"),
               (3, 0.25, True, "val", "é"), (4, None, 1, "", "ts")]
    out = {"result": {"overall": 0.5, "regimes": {"R0": 1, "R1": float("nan")}}, "rewards": rewards,
           "started": 0.0, "finished": 1.0}
    with Store(tmp_path) as store:
        store.record(0, task, out, "a" * 32)
        assert store.finished() == {"a" * 32} and store.rejected == []


def test_rows_written_many_to_a_statement_are_those_executemany_writes(tmp_path, monkeypatch):
    """Store._insert puts a run's rewards in a few multi-row statements (cut here at 3 rows
    to cross the cuts): every value and its SQLite type are those one row a statement
    gives; a row of the wrong width is one line naming the store, and its run is not kept."""
    import ael_lab.sweep_store as sweep_store
    from ael_lab.batch import task_of
    from engine.errors import AELError
    from engine.session import SessionConfig

    monkeypatch.setattr(sweep_store, "ROWS_PER_INSERT", 3)
    rewards = [(0, 1, 0, "train", "ts"), (1, float("nan"), None, None, None), (2, -0.0, 2, "test", "x"),
               (3, 0.25, True, "val", "é"), (4, None, 1, "", "ts"), (5, 2 ** 53 + 1, 2.0, "t", "p"), (6, 1e308, -1, "a", "b")]
    task = task_of(SessionConfig(scenario="synthetic", seed=3, selector="ts", episodes=7), None)
    out = {"result": {"overall": 0.5, "regimes": {"R0": 1, "R1": float("nan")}}, "rewards": rewards,
           "started": 0.0, "finished": 1.0}
    with Store(tmp_path / "a") as store:
        store.record(0, task, out, "a" * 32)
        read = "SELECT run, episode, reward, typeof(reward), regime, typeof(regime), phase, policy FROM rewards"
        got = store.db.execute(read).fetchall()
        metrics = store.db.execute("SELECT run, name, value, typeof(value) FROM metrics ORDER BY name").fetchall()
        run = store.db.execute("SELECT id FROM runs").fetchone()[0]
        with pytest.raises(AELError, match="sweep.sqlite"):
            store.record(1, task_of(SessionConfig(scenario="synthetic", seed=4, selector="ts"), None),
                         {**out, "rewards": [(0, 1.0, 0, "train", "ts"), (1, 1.0, 0, "train")]}, "b" * 32)
        assert store.db.execute("SELECT count(*) FROM runs WHERE hash = ?", ("b" * 32,)).fetchone() == (0,)
    plain = sqlite3.connect(":memory:")
    plain.executescript(sweep_store.SCHEMA)
    plain.executemany("INSERT INTO rewards VALUES (?, ?, ?, ?, ?, ?)", [(run, *r) for r in rewards])
    plain.executemany("INSERT INTO metrics VALUES (?, ?, ?)", [(run, "overall", 0.5), (run, "regimes.R0", 1),
                                                                (run, "regimes.R1", float("nan"))])
    assert got == plain.execute(read).fetchall()
    assert metrics == plain.execute("SELECT run, name, value, typeof(value) FROM metrics ORDER BY name").fetchall()
