"""Atomic writes under hostile conditions: killed writers, signals, two writers at once.

The child processes here import only `engine.store.atomic` (cheap to start) and
stop themselves at chosen points of a write, so where a write is interrupted
is decided by a seeded generator, never by timing.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from engine.store.atomic import lock_path, temp_file_pattern, write_text_atomic, writer_lock
from engine.errors import AELError
from engine.store.persistence import read_document, save_session
from tests.conftest import new_session

ROOT = Path(__file__).resolve().parents[2]

# A child that writes NEW to TARGET and is SIGKILLed at stage STAGE (after AT bytes when mid-write).
KILLED_WRITER = textwrap.dedent("""
    import os, signal, sys
    import engine.store.atomic as atomic

    target, new_path, stage, at = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    text = open(new_path, encoding="utf-8").read()
    die = lambda: os.kill(os.getpid(), signal.SIGKILL)
    real_fdopen, real_fsync, real_replace = os.fdopen, os.fsync, os.replace

    class Torn:
        def __init__(self, f): self.f = f
        def __enter__(self): return self
        def __exit__(self, *a): return self.f.__exit__(*a)
        def write(self, s):
            self.f.write(s[:at]); self.f.flush(); die()
        def __getattr__(self, name): return getattr(self.f, name)

    if stage == "mid-write":
        atomic.os.fdopen = lambda *a, **k: Torn(real_fdopen(*a, **k))
    elif stage == "before-fsync":
        atomic.os.fsync = lambda fd: die()
    elif stage == "before-rename":
        atomic.os.replace = lambda a, b: die()
    elif stage == "after-rename":
        def replace_then_die(a, b):
            real_replace(a, b); die()
        atomic.os.replace = replace_then_die
    elif stage == "holding-the-lock":
        atomic.sweep_temp_files = lambda path: die()
    atomic.write_text_atomic(target, text)
""")

STAGES = ("holding-the-lock", "mid-write", "before-fsync", "before-rename", "after-rename")


def child(script: str, *args: str, **kw) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", script, *args], cwd=ROOT, **kw)


def leftovers(folder: Path, target: Path) -> list[str]:
    pattern = temp_file_pattern(target)
    return sorted(p.name for p in folder.iterdir() if pattern.fullmatch(p.name))


def test_a_save_killed_at_random_moments_leaves_the_previous_save_whole(tmp_path):
    """30 SIGKILLs at seeded points of a save: the target is always the previous save
    or the complete new one, and the next save leaves no temp file behind."""
    session = new_session()
    session.run(until=10)
    target = tmp_path / "s.json"
    save_session(session, target)
    session.run(until=60)
    new = tmp_path / "new.txt"
    new.write_text(json.dumps({"format": "ael-lab-session", "schema_version": 1, "saved_at": "",
                               "session": session.to_dict()}, separators=(",", ":")))
    rng = random.Random(11)
    outcomes = set()
    for _ in range(30):
        previous = target.read_bytes()
        stage = rng.choice(STAGES)
        at = rng.randrange(len(new.read_text()))
        proc = child(KILLED_WRITER, str(target), str(new), stage, str(at))
        assert proc.wait() == -signal.SIGKILL
        now = target.read_bytes()
        assert now in (previous, new.read_bytes()), stage
        assert now == previous or stage == "after-rename"
        read_document(target)  # a whole, valid session either way
        outcomes.add((stage, now == previous))
        save_session(session if rng.random() < 0.5 else new_session(), target)  # the next save sweeps
        assert leftovers(tmp_path, target) == [] and not lock_path(target).exists()
    assert {s for s, _ in outcomes} == set(STAGES)


def test_a_stale_temp_file_is_swept_by_the_next_save_of_its_target_only(tmp_path):
    target = tmp_path / "s.json"
    stale = tmp_path / ".s.json.ab12cd34.tmp"
    other = tmp_path / ".t.json.ab12cd34.tmp"
    stale.write_text("half a sa")
    other.write_text("another target's")
    write_text_atomic(target, "{}")
    assert not stale.exists() and other.exists()


# A child that writes TARGET and blocks inside the write (in fsync) until signalled.
BLOCKED_WRITER = textwrap.dedent("""
    import os, signal, sys, time
    import engine.store.atomic as atomic

    if sys.argv[2] == "handler":
        atomic.remove_temp_files_on_signals()
    else:  # Python's own Ctrl-C, whatever this process inherited (a parent that ignored
        # SIGINT passes that on, and a run of the suite once hung here for two minutes)
        signal.signal(signal.SIGINT, signal.default_int_handler)

    def blocked_fsync(fd):
        print("writing", flush=True)
        sys.stdin.read()  # returns only at EOF: the parent signals first

    atomic.os.fsync = blocked_fsync
    atomic.write_text_atomic(sys.argv[1], "new contents")
""")


@pytest.mark.parametrize("sig, handler", [(signal.SIGTERM, "handler"), (signal.SIGHUP, "handler"),
                                          (signal.SIGINT, "none")])
def test_a_signal_during_a_save_removes_its_temp_file(tmp_path, sig, handler):
    target = tmp_path / "s.json"
    target.write_text("old contents")
    proc = child(BLOCKED_WRITER, str(target), handler, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                 stderr=subprocess.DEVNULL, text=True)
    assert proc.stdout.readline() == "writing\n"
    assert len(leftovers(tmp_path, target)) == 1  # the write is under way
    proc.send_signal(sig)
    proc.wait(timeout=120)  # a guard against a hang, not a timed assertion
    proc.stdin.close()
    proc.stdout.close()
    assert target.read_text() == "old contents"
    assert leftovers(tmp_path, target) == []


HOLDER = textwrap.dedent("""
    import sys
    from engine.store.atomic import writer_lock

    with writer_lock(sys.argv[1]):
        print("locked", flush=True)
        sys.stdin.read()
""")


def test_a_second_writer_is_told_which_process_holds_the_lock(tmp_path):
    target = tmp_path / "s.json"
    target.write_text("first")
    proc = child(HOLDER, str(target), stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline() == "locked\n"
        with pytest.raises(AELError, match=f"process {proc.pid} is writing it now"):
            write_text_atomic(target, "second")
        assert target.read_text() == "first"
    finally:
        proc.stdin.close()
        proc.wait()
        proc.stdout.close()
    write_text_atomic(target, "second")  # released: the next writer goes ahead
    assert target.read_text() == "second" and not lock_path(target).exists()


def test_writers_in_one_process_exclude_each_other_too(tmp_path):
    target = tmp_path / "s.json"
    with writer_lock(target):
        with pytest.raises(AELError, match=f"process {os.getpid()}"):
            write_text_atomic(target, "x")
    write_text_atomic(target, "x")
    assert target.read_text() == "x"


def test_a_lock_file_left_by_a_killed_writer_does_not_block(tmp_path):
    target = tmp_path / "s.json"
    lock_path(target).write_text("999999")  # no process holds it
    write_text_atomic(target, "x")
    assert target.read_text() == "x" and not lock_path(target).exists()


def test_a_symlink_target_is_refused_and_left_alone(tmp_path):
    real = tmp_path / "real.json"
    real.write_text("mine")
    link = tmp_path / "link.json"
    link.symlink_to(real)
    with pytest.raises(AELError, match="symbolic link"):
        write_text_atomic(link, "x")
    assert link.is_symlink() and real.read_text() == "mine"
