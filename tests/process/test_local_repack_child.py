"""`make local`'s repack runs the native library in a child process and gives the
final name only to a whole file that loaded (`engine/llm/local_repack.py`): a child
that fails, dies or hangs leaves nothing in the models folder. The children here
stand in for the library (a few lines of Python each), so each test is quick."""

from __future__ import annotations

import signal
import sys

import pytest

from engine.llm import local_repack

# argv: source, output, ftype, as REPACK_CODE gets them
WRITES = "import sys; open(sys.argv[2], 'wb').write(b'GGUF' + b'q8' * 100)"
HALF_THEN_FAILS = "import sys; open(sys.argv[2], 'wb').write(b'GGUF' + b'q8' * 10); sys.exit('out of memory')"
HALF_THEN_DIES = ("import os, signal, sys; open(sys.argv[2], 'wb').write(b'GGUF'); "
                  f"os.kill(os.getpid(), {int(signal.SIGILL)})")
NOT_GGUF = "import sys; open(sys.argv[2], 'wb').write(b'<html>')"
HANGS = "import sys, time; open(sys.argv[2], 'wb').write(b'GGUF'); time.sleep(30)"


@pytest.fixture
def source(tmp_path):
    path = tmp_path / "SmolLM2-135M-Instruct.Q4_1.gguf"
    path.write_bytes(b"GGUF" + b"q4" * 50)
    return path


def repack(source, folder, code, timeout_s=30.0):
    return local_repack.repack(source, folder, python=sys.executable, code=code, timeout_s=timeout_s)


def test_a_repack_writes_the_file_and_its_stamp(source, tmp_path):
    folder = tmp_path / "models"
    assert repack(source, folder, WRITES) == ""
    output = local_repack.repacked_path(source, folder)
    assert sorted(p.name for p in folder.iterdir()) == [output.name, local_repack.stamp_path(output).name]
    assert local_repack.usable_repack(source, folder) == output and local_repack.is_current(source, folder)


@pytest.mark.parametrize("code, said", [(HALF_THEN_FAILS, "out of memory"), (HALF_THEN_DIES, "signal"),
                                        (NOT_GGUF, "not a GGUF file")], ids=["fails", "dies", "not-gguf"])
def test_a_failed_repack_leaves_no_file(source, tmp_path, code, said):
    folder = tmp_path / "models"
    why = repack(source, folder, code)
    assert said in why and "\n" not in why
    assert list(folder.iterdir()) == []
    assert local_repack.usable_repack(source, folder) is None


def test_a_hung_repack_is_stopped_and_leaves_no_file(source, tmp_path):
    folder = tmp_path / "models"
    assert "did not finish" in repack(source, folder, HANGS, timeout_s=0.5)
    assert list(folder.iterdir()) == []


def test_a_failed_repack_over_an_old_one_keeps_the_old_one_whole(source, tmp_path):
    """The old pair goes only once the new file is whole; a failure keeps it, never half of a new one."""
    folder = tmp_path / "models"
    assert repack(source, folder, WRITES) == ""
    output = local_repack.repacked_path(source, folder)
    before = output.read_bytes()
    assert "out of memory" in repack(source, folder, HALF_THEN_FAILS)
    assert output.read_bytes() == before and local_repack.usable_repack(source, folder) == output


def test_a_temporary_file_left_by_a_killed_repack_is_removed_by_the_next(source, tmp_path):
    folder = tmp_path / "models"
    folder.mkdir()
    stray = folder / f".{local_repack.repacked_path(source, folder).name}.abc123.tmp"
    stray.write_bytes(b"GGUF half")
    assert repack(source, folder, WRITES) == ""
    assert not stray.exists()
