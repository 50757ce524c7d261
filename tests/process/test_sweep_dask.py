"""The same sweep on a two-worker Dask cluster (LocalCluster, 127.0.0.1 only) gives the
results of local worker processes. Skipped when Dask is not installed (make cluster),
except in CI, which sets AEL_REQUIRE_CLUSTER=1 so the skip becomes a failure."""

from __future__ import annotations

import json
import os

import pytest

from ael_cli.main import main

GRID = ["synthetic", "--seeds", "1..8", "--selector", "ts,ts+reflection"]


@pytest.fixture(scope="module")
def cluster():
    try:
        from dask.distributed import LocalCluster
    except ImportError:
        if os.environ.get("AEL_REQUIRE_CLUSTER"):
            pytest.fail("AEL_REQUIRE_CLUSTER is set but Dask is not installed (make cluster)")
        pytest.skip("Dask is not installed (make cluster)")
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                      dashboard_address=None) as c:
        yield c


def _export(capsys, folder) -> dict:
    assert main(["sweep", "--out", str(folder), "--export", "json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_a_sweep_on_a_two_worker_cluster_equals_the_local_sweep(cluster, tmp_path, capsys):
    assert main(["sweep", *GRID, "--workers", "2", "--out", str(tmp_path / "local")]) == 0
    assert main(["sweep", *GRID, "--scheduler", cluster.scheduler_address, "--out", str(tmp_path / "dask")]) == 0
    capsys.readouterr()
    assert _export(capsys, tmp_path / "dask") == _export(capsys, tmp_path / "local")


def test_the_cluster_ran_the_runs_on_both_workers(cluster, tmp_path, capsys):
    import sqlite3

    assert main(["sweep", *GRID, "--scheduler", cluster.scheduler_address, "--out", str(tmp_path)]) == 0
    workers = {w for (w,) in sqlite3.connect(tmp_path / "sweep.sqlite").execute("SELECT worker FROM runs")}
    assert len(workers) == 2


@pytest.mark.heavy
def test_a_scheduler_that_does_not_answer_is_one_line(tmp_path, capsys):
    pytest.importorskip("dask.distributed")
    code = main(["sweep", "synthetic", "--scheduler", "tcp://127.0.0.1:9", "--out", str(tmp_path)])
    err = capsys.readouterr().err
    assert code == 2 and "no Dask scheduler answered" in err and len(err.strip().splitlines()) == 1
