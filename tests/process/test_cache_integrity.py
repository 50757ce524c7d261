"""The support table's disk cache is verified when read back (issue 27, finding 2): a
poisoned, edited or truncated table, a FIFO, a device or a symlink out of the folder in its
place each give the numbers of an untouched run, and the cache is written again whole.
Each run is a child process with a timeout, so a read that blocks fails the test instead of
hanging the suite."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

AEL_LAB = [sys.executable, "-m", "ael_cli.main"]
SEED_42_OVERALL = 0.7325  # seed 42's support run, as the issue measured it on an untouched cache


def run_support(cache: Path, out: Path) -> float:
    done = subprocess.run([*AEL_LAB, "run", "support", "--seeds", "42", "--quiet", "--json", str(out)],
                          env={**os.environ, "AEL_LAB_CACHE_DIR": str(cache)},
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    notes = done.stderr.splitlines()  # a table refused is said in one line; nothing else is
    assert len(notes) <= 1 and all(n.startswith("ael-lab: note: ") and "signature" in n for n in notes), done.stderr
    return json.loads(out.read_text())["runs"][0]["overall"]


@pytest.fixture(scope="module")
def clean(tmp_path_factory) -> Path:
    """A cache folder an untouched seed-42 run wrote."""
    cache = tmp_path_factory.mktemp("clean") / "cache"
    assert run_support(cache, cache.parent / "out.json") == SEED_42_OVERALL
    return cache


@pytest.fixture
def cache(clean, tmp_path) -> Path:
    copy = tmp_path / "cache"
    shutil.copytree(clean, copy)
    return copy


def table_of(folder: Path) -> Path:
    (path,) = folder.glob("*.npy")
    return path


def check_recomputed(cache: Path, clean: Path, out: Path) -> None:
    assert run_support(cache, out) == SEED_42_OVERALL
    table = table_of(cache)
    assert stat.S_ISREG(os.lstat(table).st_mode)
    assert table.read_bytes() == table_of(clean).read_bytes()  # written again, whole


def test_the_cache_holds_a_table_and_its_keyed_mac(clean):
    table = table_of(clean)
    side = json.loads(Path(f"{table}.sha256").read_text())
    assert "sha256" not in side and len(side["mac"]) == 64  # a MAC, not a checksum anyone can recompute
    assert side["mac"] != hashlib.sha256(table.read_bytes()).hexdigest()
    assert side["key"] == table.stem


def test_a_table_with_values_shifted_by_one_is_recomputed(cache, clean, tmp_path):
    table = table_of(cache)
    routes = np.load(table)
    np.save(table, ((routes + 1) % 8).astype(np.int8), allow_pickle=False)  # same shape, still valid routes
    check_recomputed(cache, clean, tmp_path / "out.json")


def test_a_table_with_twenty_rows_edited_is_recomputed(cache, clean, tmp_path):
    table = table_of(cache)
    routes = np.load(table)
    routes[100:120] = (routes[100:120] + 3) % 8
    np.save(table, routes, allow_pickle=False)
    check_recomputed(cache, clean, tmp_path / "out.json")


def test_a_truncated_table_is_recomputed(cache, clean, tmp_path):
    table = table_of(cache)
    table.write_bytes(table.read_bytes()[:3000])
    check_recomputed(cache, clean, tmp_path / "out.json")


def test_a_table_from_before_checksums_is_recomputed_and_gets_one(cache, clean, tmp_path):
    table = table_of(cache)
    Path(f"{table}.sha256").unlink()
    check_recomputed(cache, clean, tmp_path / "out.json")
    assert Path(f"{table}.sha256").read_bytes() == Path(f"{table_of(clean)}.sha256").read_bytes()


def test_a_fifo_in_the_tables_place_neither_hangs_nor_changes_the_result(cache, clean, tmp_path):
    table = table_of(cache)
    table.unlink()
    os.mkfifo(table)
    check_recomputed(cache, clean, tmp_path / "out.json")  # a blocking read would time out here


def test_a_symlink_out_of_the_folder_is_not_followed_even_with_a_matching_checksum(cache, clean, tmp_path):
    table = table_of(cache)
    routes = np.load(table)
    outside = tmp_path / "elsewhere.npy"
    np.save(outside, ((routes + 1) % 8).astype(np.int8), allow_pickle=False)
    poisoned = outside.read_bytes()
    side = json.loads(Path(f"{table}.sha256").read_text())
    Path(f"{table}.sha256").write_text(json.dumps({**side, "sha256": hashlib.sha256(poisoned).hexdigest()},
                                                  sort_keys=True))  # only the symlink rule stands in the way
    table.unlink()
    table.symlink_to(outside)
    check_recomputed(cache, clean, tmp_path / "out.json")
    assert outside.read_bytes() == poisoned  # replaced, not written through


def test_a_device_in_the_tables_place_is_refused(cache, clean, tmp_path):
    table = table_of(cache)
    table.unlink()
    try:
        os.mknod(table, stat.S_IFCHR | 0o600, os.makedev(1, 5))  # /dev/zero's numbers
    except OSError:
        pytest.skip("cannot make a device node here")
    check_recomputed(cache, clean, tmp_path / "out.json")


def test_read_regular_refuses_what_is_not_a_regular_file_and_what_is_too_big(tmp_path):
    from engine.store.cache_files import read_regular

    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    # in a child with a timeout: an open that waited for a writer would fail here, not hang the suite
    child = subprocess.run([sys.executable, "-c", "import sys; from engine.store.cache_files import read_regular; "
                            "print(read_regular(sys.argv[1], 100))", str(fifo)],
                           capture_output=True, text=True, timeout=60)
    assert child.stdout == "None\n", child.stderr
    big = tmp_path / "big"
    big.write_bytes(b"x" * 101)
    assert read_regular(big, 100) is None and read_regular(big, 101) == b"x" * 101
    link = tmp_path / "link"
    link.symlink_to(big)
    assert read_regular(link, 1000) is None
    assert read_regular(tmp_path, 1000) is None  # a folder
    assert read_regular(tmp_path / "missing", 1000) is None


# ------------------------------------------------------------------ the Yahoo download cache
@pytest.fixture
def yahoo(monkeypatch):
    """load_yahoo with a fake yfinance.download (no network); the list of downloads made."""
    yfinance = pytest.importorskip("yfinance")
    from tests.process.test_portfolio_yahoo import fake_frame

    log = []

    def download(tickers, **kw):
        log.append(list(tickers))
        return fake_frame(tickers)

    monkeypatch.setattr(yfinance, "download", download)
    return log


def load(folder: Path, tickers=("AAPL", "XOM")):
    import datetime as dt

    from scenarios.portfolio.yahoo import load_yahoo

    return load_yahoo(list(tickers), "2025-03-03", "2025-03-05", folder, today=dt.date(2025, 6, 1))


def window(folder: Path) -> Path:
    return folder / "2025-03-03_2025-03-05"


@pytest.fixture
def watchdog():
    """SIGALRM after 60 s raises here: a read that blocked (a FIFO) fails the test, not the suite."""
    import signal

    class Blocked(Exception):  # not an OSError, which the code under test may catch
        pass

    def expired(*_):
        raise Blocked("blocked for 60 s (a read that waits on a FIFO?)")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.alarm(60)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, previous)


def test_a_yahoo_cache_file_edited_truncated_or_replaced_is_downloaded_again(tmp_path, yahoo, watchdog):
    first = load(tmp_path)
    aapl = window(tmp_path) / "prices_1h" / "AAPL.csv"
    clean = aapl.read_bytes()
    attacks = [
        lambda: aapl.write_bytes(clean.replace(b"100.0,", b"1000.0,")),   # a price edited
        lambda: aapl.write_bytes(clean[: len(clean) // 2]),                # truncated
        lambda: (aapl.unlink(), os.mkfifo(aapl)),                          # a FIFO: must not block
        lambda: (aapl.unlink(), aapl.symlink_to(tmp_path / "elsewhere.csv")),
    ]
    (tmp_path / "elsewhere.csv").write_bytes(clean.replace(b"100.0,", b"1000.0,"))
    for attack in attacks:
        attack()
        again = load(tmp_path)
        assert np.array_equal(again.close, first.close) and again.sectors == first.sectors
        assert aapl.read_bytes() == clean and stat.S_ISREG(os.lstat(aapl).st_mode)
    assert yahoo == [["AAPL", "XOM"]] + [["AAPL"]] * len(attacks)  # only the changed file, each time
    assert b"1000.0" in (tmp_path / "elsewhere.csv").read_bytes()  # replaced, not written through


def test_an_edited_sectors_file_is_written_again_without_a_download(tmp_path, yahoo):
    first = load(tmp_path)
    meta = window(tmp_path) / "metadata" / "tickers.json"
    meta.write_text(json.dumps({"AAPL": {"sector": "Energy"}, "XOM": {"sector": "Energy"}}))
    assert load(tmp_path).sectors == first.sectors == {"AAPL": "Technology", "XOM": "Energy"}
    assert len(yahoo) == 1


def test_a_changed_cache_file_that_cannot_be_downloaded_again_is_one_line_naming_it(tmp_path, yahoo, monkeypatch):
    import yfinance

    from engine.errors import AELError

    load(tmp_path)
    aapl = window(tmp_path) / "prices_1h" / "AAPL.csv"
    aapl.write_bytes(aapl.read_bytes().replace(b"100.0,", b"1000.0,"))

    def offline(*a, **kw):
        raise ConnectionError("no network")

    monkeypatch.setattr(yfinance, "download", offline)
    with pytest.raises(AELError) as err:
        load(tmp_path)
    assert str(aapl) in str(err.value) and "--data" in str(err.value) and "\n" not in str(err.value)


# ------------------------------------------------------------------ scikit-learn's news cache
@pytest.mark.parametrize("kind", ["fifo", "symlink"])
def test_a_fifo_or_symlink_where_scikit_learn_keeps_the_news_corpus_is_one_line(tmp_path, monkeypatch, kind):
    from engine.errors import AELError
    from scenarios.news import corpus

    pytest.importorskip("sklearn")
    from sklearn.datasets import _base, _twenty_newsgroups

    cached = tmp_path / corpus.PICKLE_CACHE
    assert _base._pkl_filepath(str(tmp_path), _twenty_newsgroups.CACHE_NAME) == str(cached)  # its name, this version
    if kind == "fifo":
        os.mkfifo(cached)  # scikit-learn's open() of it would wait for ever
    else:
        (tmp_path / "elsewhere").write_bytes(b"")
        cached.symlink_to(tmp_path / "elsewhere")
    monkeypatch.setattr(corpus, "data_home", lambda: str(tmp_path))

    def no_fetch(*a, **kw):
        raise AssertionError("scikit-learn was asked to read it")

    import sklearn.datasets
    monkeypatch.setattr(sklearn.datasets, "fetch_20newsgroups", no_fetch)
    with pytest.raises(AELError, match="is not a regular file") as err:
        corpus.fetch()
    assert str(cached) in str(err.value)
