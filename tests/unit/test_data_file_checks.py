"""A data file is a regular file within its size cap before it is hashed or read (issue: trust
round four, finding 3): a stream save whose data path names /dev/zero, /dev/urandom or a FIFO
made `run --resume`, `explain`, `branch` and `open` hash it for ever. Each is one line now
(exit 2), and nothing opens the file before the check (a FIFO's open alone would block)."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path

import pytest

from ael_cli.main import main
from engine.data_files import open_data, read_data
from engine.errors import AELError
from scenarios.news import corpus as news_corpus
from scenarios.stream import table as tables
from scenarios.stream.demo import write_demo

COMMANDS = {
    "run --resume": lambda save: ["run", "stream", "--resume", save, "--quiet"],
    "explain": lambda save: ["explain", save, "--episode", "3"],
    "branch": lambda save: ["branch", save, "--at", "3", "--save", str(Path(save).with_name("b.json"))],
    "open": lambda save: ["open", save],
}


@pytest.fixture(autouse=True)
def watchdog():
    """SIGALRM after 60 s raises here: a hash of /dev/zero or an open of a FIFO fails the
    test instead of hanging the suite."""
    class Blocked(Exception):  # not an OSError, which the code under test may catch
        pass

    def expired(*_):
        raise Blocked("blocked for 60 s (hashing a device, or opening a FIFO?)")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.alarm(60)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, previous)


@pytest.fixture(scope="module")
def saved(tmp_path_factory) -> dict:
    """A small stream save (the document), made once."""
    folder = tmp_path_factory.mktemp("stream-save")
    data = write_demo(folder / "demo.csv", 1, 60)
    save = folder / "s.json"
    assert main(["run", "stream", "--data", str(data), "--text", "text", "--label", "label", "--selector", "ts",
                 "--seeds", "1", "--until", "10", "--save", str(save), "--quiet"]) == 0
    return json.loads(save.read_text())


def naming(doc: dict, data: str, tmp_path: Path) -> str:
    doc = json.loads(json.dumps(doc))
    doc["session"]["config"]["scenario_options"]["data"] = data
    save = tmp_path / "hostile.json"
    save.write_text(json.dumps(doc))
    return str(save)


@pytest.mark.heavy
@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("target", ["/dev/zero", "/dev/urandom", "fifo"])
def test_a_save_naming_a_device_or_a_fifo_is_refused_in_one_line(saved, tmp_path, capsys, monkeypatch,
                                                                 command, target):
    from ael_tui.app import AelLab

    monkeypatch.setattr(AelLab, "run", lambda self, *a, **k: pytest.fail("the lab opened a save it should refuse"))
    if target == "fifo":
        target = str(tmp_path / "rows.csv")
        os.mkfifo(target)
    save = naming(saved, target, tmp_path)
    capsys.readouterr()
    assert main(COMMANDS[command](save)) == 2
    out, err = capsys.readouterr()
    assert err.count("\n") == 1 and "not a regular file" in err and target in err, err
    assert not (tmp_path / "b.json").exists()


def test_the_check_comes_before_the_open(tmp_path, monkeypatch):
    """A FIFO, a device, a folder and a file over the cap are refused by what they are and
    their size, never by reading them."""
    os.mkfifo(tmp_path / "pipe.csv")
    big = tmp_path / "big.csv"
    big.write_bytes(b"x" * 100)
    opened = []
    real_open = os.open
    monkeypatch.setattr(os, "open", lambda path, *a, **k: opened.append(str(path)) or real_open(path, *a, **k))
    for path, words in ((tmp_path / "pipe.csv", "a FIFO, not a regular file"), ("/dev/zero", "a device"),
                        (tmp_path, "a folder"), (big, "100 bytes is more than the 99 bytes"),
                        (tmp_path / "none.csv", "no such file")):
        with pytest.raises(AELError, match=words) as err:
            read_data(path, f"--data {path}", 99)
        assert "\n" not in str(err.value)
    assert opened == []
    assert read_data(big, "--data big.csv", 100) == b"x" * 100
    with open_data(big, "--data big.csv", 100) as f:
        assert f.read() == b"x" * 100


def test_the_stream_hash_and_read_check_the_file_first(tmp_path, monkeypatch):
    os.mkfifo(tmp_path / "pipe.csv")
    for call in (tables.file_sha256, tables.read_frame, tables.preview):
        with pytest.raises(AELError, match="a FIFO, not a regular file"):
            call(str(tmp_path / "pipe.csv"))
    monkeypatch.setattr(tables, "MAX_BYTES", 40)
    (tmp_path / "big.csv").write_text("text,label\n" + "a b,x\n" * 20)
    with pytest.raises(AELError, match="bytes is more than the 40 bytes"):
        tables.file_sha256(str(tmp_path / "big.csv"))


def test_the_news_archive_is_checked_before_it_is_opened(tmp_path):
    os.mkfifo(tmp_path / "20news-bydate.tar.gz")
    with pytest.raises(AELError, match="a FIFO, not a regular file"):
        news_corpus.read_archive(str(tmp_path / "20news-bydate.tar.gz"))
    with pytest.raises(AELError, match="no such folder or archive"):  # as `--data` reads it: one line
        news_corpus.read_local("/dev/zero")
