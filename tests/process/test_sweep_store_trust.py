"""A sweep store that lost a run or cannot be written says so: a run deleted from the store
is named by `--export` (which refuses to write an incomplete export), and a read-only
store is called read-only, never "not a sweep store"."""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
from contextlib import contextmanager

import pytest

from ael_cli.main import main
from ael_lab import sweep_store as store_module
from ael_lab.sweep_store import STORE_NAME, Store

GRID = ["synthetic", "--seeds", "1..3", "--selector", "ts"]


def sweep(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["sweep", *argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def swept(tmp_path, capsys):
    folder = tmp_path / "sweep"
    assert sweep(capsys, *GRID, "--out", str(folder), "--quiet")[0] == 0
    return folder


def delete_run(folder, seed: int) -> None:
    db = sqlite3.connect(folder / STORE_NAME)
    with db:
        (run,) = db.execute("SELECT id FROM runs WHERE seed = ?", (seed,)).fetchone()
        for table, key in (("rewards", "run"), ("metrics", "run"), ("runs", "id")):
            db.execute(f"DELETE FROM {table} WHERE {key} = ?", (run,))
    db.close()


@pytest.mark.parametrize("fmt", ["csv", "json"])
def test_a_run_deleted_from_the_store_is_named_by_the_export_and_nothing_is_written(swept, capsys, fmt):
    delete_run(swept, 2)
    code, out, err = sweep(capsys, "--out", str(swept), "--export", fmt)
    assert code == 2 and out == "", out[:200]
    assert err.count("\n") == 1 and "Traceback" not in err
    assert "1 run(s) the sweep recorded are no longer in the store (deleted)" in err and "seed 2" in err, err
    # the same sweep runs it again; then the export is whole
    assert sweep(capsys, *GRID, "--out", str(swept), "--quiet")[0] == 0
    code, out, err = sweep(capsys, "--out", str(swept), "--export", "csv")
    assert code == 0 and len(out.strip().splitlines()) == 1 + 3, err


def test_a_store_from_before_the_ledger_gets_one_from_the_runs_it_holds(swept, capsys):
    db = sqlite3.connect(swept / STORE_NAME)
    with db:
        db.execute("DROP TABLE ledger")
        db.execute("UPDATE sweep SET value = '2' WHERE key = 'format'")
    db.close()
    with Store(swept, create=False) as store:
        assert len(store.runs(unverified="raise")) == 3 and store.missing == []
    delete_run(swept, 3)
    code, _, err = sweep(capsys, "--out", str(swept), "--export", "json")
    assert code == 2 and "seed 3" in err and "(deleted)" in err


def _read_only_connect(monkeypatch):
    """Open every store as SQLite opens a file it may not write (the tests run as root, for
    whom chmod takes nothing away): a real read-only connection, its writes refused."""
    connect = sqlite3.connect

    def read_only(path, *args, uri=False, **kwargs):
        return connect(str(path) if uri else f"file:{path}?mode=ro", *args, uri=True, **kwargs)

    monkeypatch.setattr(store_module.sqlite3, "connect", read_only)


def test_a_read_only_store_file_is_named_read_only_and_still_exports(swept, capsys, monkeypatch):
    _read_only_connect(monkeypatch)
    code, out, err = sweep(capsys, "synthetic", "--seeds", "1..4", "--selector", "ts", "--out", str(swept), "--quiet")
    assert code == 2 and err.count("\n") == 1, err
    assert "the sweep store is read-only (the file cannot be written" in err and "not a sweep store" not in err, err
    code, out, err = sweep(capsys, "--out", str(swept), "--export", "csv")
    assert code == 0 and len(out.strip().splitlines()) == 1 + 3, err


@pytest.mark.parametrize("what", ["file", "folder"])
def test_a_store_made_read_only_by_chmod_is_read_only_to_root_too(swept, capsys, what):
    """chmod a-w takes nothing away from root, who would have written the store all the same:
    a sweep refuses it in one line whoever runs it; the export still reads it."""
    target = swept / STORE_NAME if what == "file" else swept
    mode = target.stat().st_mode
    target.chmod(mode & ~0o222)
    try:
        code, out, err = sweep(capsys, *GRID[:2], "1..4", *GRID[3:], "--out", str(swept), "--quiet")
        which = "the file" if what == "file" else "its folder"
        assert code == 2 and err.count("\n") == 1 and f"the sweep store is read-only ({which} cannot" in err, err
        code, out, err = sweep(capsys, "--out", str(swept), "--export", "csv")
        assert code == 0 and len(out.strip().splitlines()) == 1 + 3, err
    finally:
        target.chmod(mode)
    with Store(swept, create=False) as store:
        assert len(store.runs()) == 3  # the refused sweep added nothing


class _FolderReadOnly:
    """A connection to a store in WAL mode whose folder may not be written: SQLite refuses
    even a read then, with this error (as measured by a user without root on a chmod 555
    folder, SQLite 3.40)."""

    def __init__(self, *args, **kwargs):
        pass

    def execute(self, *args, **kwargs):
        err = sqlite3.OperationalError("attempt to write a readonly database")
        err.sqlite_errorname = "SQLITE_READONLY_DIRECTORY"
        raise err

    def close(self):
        pass


def test_a_store_in_a_read_only_folder_is_named_read_only(swept, capsys, monkeypatch):
    monkeypatch.setattr(store_module.sqlite3, "connect", _FolderReadOnly)
    for argv in (["--export", "csv"], GRID):
        code, out, err = sweep(capsys, *argv, "--out", str(swept))
        assert code == 2 and out == "" and err.count("\n") == 1, err
        assert "the sweep store is read-only (its folder cannot be written" in err, err
        assert "not a sweep store" not in err


@contextmanager
def immutable(path):
    """`path` made immutable (chattr +i): refused to root too, as a read-only mount is."""
    if shutil.which("chattr") is None or subprocess.run(["chattr", "+i", str(path)], capture_output=True).returncode:
        pytest.skip("chattr +i is not possible here")
    try:
        yield
    finally:
        subprocess.run(["chattr", "-i", str(path)], check=True)


@pytest.mark.parametrize("what", ["folder", "file"])
def test_a_store_that_cannot_be_written_is_named_read_only_and_exports(swept, capsys, what):
    """Really read-only, not simulated: the finding's folder gave "not a sweep store"."""
    for leftover in swept.glob(f"{STORE_NAME}-*"):
        leftover.unlink()  # closed cleanly: no journal beside it
    with immutable(swept if what == "folder" else swept / STORE_NAME):
        code, out, err = sweep(capsys, *GRID[:1], "--seeds", "1..4", "--selector", "ts", "--out", str(swept),
                               "--quiet")
        assert code == 2 and err.count("\n") == 1, err
        assert "the sweep store is read-only" in err and "not a sweep store" not in err, err
        assert ("its folder" if what == "folder" else "the file") in err
        code, out, err = sweep(capsys, "--out", str(swept), "--export", "csv")
        assert code == 0 and len(out.strip().splitlines()) == 1 + 3, err
