"""A sweep killed halfway (SIGKILL: no handler runs) leaves a sound store, and the same
command then runs only the missing runs, ending with the uninterrupted sweep's results."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

AEL_LAB = [sys.executable, "-m", "ael_cli.main"]
COMMAND = ["sweep", "synthetic", "--seeds", "1..150", "--selector", "ts,ts+reflection", "--workers", "2"]


def _finished(store: Path) -> int:
    try:
        db = sqlite3.connect(f"file:{store}?mode=ro", uri=True, timeout=5)
        try:
            return db.execute("SELECT count(*) FROM runs WHERE status = 'ok'").fetchone()[0]
        finally:
            db.close()
    except sqlite3.OperationalError:
        return 0  # not created yet


def test_a_killed_sweep_resumes_with_only_the_missing_runs(tmp_path):
    out = tmp_path / "sweep"
    store = out / "sweep.sqlite"
    proc = subprocess.Popen([*AEL_LAB, *COMMAND, "--out", str(out)], start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 300
    while _finished(store) < 60 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert proc.poll() is None, "the sweep ended before it could be killed halfway"
    os.killpg(proc.pid, signal.SIGKILL)  # the command and its worker processes, mid-write
    proc.wait()

    db = sqlite3.connect(store)
    assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    kept = db.execute("SELECT count(*) FROM runs").fetchone()[0]
    # every stored run is whole: all of its episodes are in the rewards table
    short = db.execute("SELECT count(*) FROM runs r WHERE r.episodes != "
                       "(SELECT count(*) FROM rewards w WHERE w.run = r.id)").fetchone()[0]
    db.close()
    assert 0 < kept < 300 and short == 0

    again = subprocess.run([*AEL_LAB, *COMMAND, "--out", str(out)], capture_output=True, text=True, timeout=600)
    assert again.returncode == 0, again.stderr
    assert f"{300 - kept} run(s) done, {kept} already in the store" in again.stderr

    resumed = subprocess.run([*AEL_LAB, "sweep", "--out", str(out), "--export", "json"], capture_output=True,
                             text=True, check=True).stdout
    whole = subprocess.run([*AEL_LAB, "run", *COMMAND[1:], "--quiet", "--json", str(tmp_path / "run.json")],
                           capture_output=True, text=True)
    assert whole.returncode == 0, whole.stderr
    assert json.loads(resumed) == json.loads((tmp_path / "run.json").read_text())
