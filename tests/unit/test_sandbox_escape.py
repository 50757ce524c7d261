"""A worker whose static gates have failed cannot outlive its kill (issue: trust, round four,
finding 10): not by moving into our process group, not through a grandchild that left its
group and session. The policies here are plain Python (`plain_python`), as if both gates let
them through; only the process walls stand."""

from __future__ import annotations

import os
import signal
import time

import pytest

from engine.sandbox.codepolicy import CodePolicyError, entry_rows
from engine.sandbox.codeworker import CodeWorker
from engine.sandbox.reaper import alive
from tests.process.test_code_sandbox import child_with

pytestmark = pytest.mark.skipif(not os.path.isdir("/proc"), reason="the process table is read from /proc")

# joins the group of the process that started the worker (ours), then spins past its deadline
JOINS_OUR_GROUP = ("import os\ndef retrieve(entries, query):\n"
                   "    try:\n        os.setpgid(0, os.getpgid(os.getppid()))\n    except OSError:\n        pass\n"
                   "    while True:\n        pass\n")
# forks a grandchild that leaves the worker's group and session, and says its id
LEAVES_A_GRANDCHILD = ("import os\ndef retrieve(entries, query):\n    pid = os.fork()\n    if pid == 0:\n"
                       "        os.setsid()\n        while True:\n            pass\n"
                       "    while os.getsid(pid) == os.getsid(0):\n        pass\n"
                       "    raise ValueError('grandchild %d' % pid)\n")


def _cleanup(*pids: int) -> None:
    """What the worker failed to kill, killed by the test (so a failing run leaves nothing behind)."""
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


def test_a_worker_that_moves_into_our_group_is_killed_and_the_next_call_does_not_stall():
    worker = CodeWorker(plain_python=True)
    rows = entry_rows([{"id": "a"}])
    escaped = None
    honest = "def retrieve(entries, query):\n    return entries\n"
    try:
        assert worker.call("ok", honest, rows, {}, 30.0) == rows  # started: only the kill is timed below
        started = time.monotonic()
        with pytest.raises(CodePolicyError, match="did not finish within 0.3 s"):
            worker.call("escape", JOINS_OUR_GROUP, rows, {}, 0.3)
        escaped = worker.last_pid
        # the deadline and the kill; the kill of a worker that had got away waited 5 s for it
        assert time.monotonic() - started < 3.0
        assert not alive(escaped)
        assert worker.call("ok", honest, rows, {}, 30.0) == rows and worker.starts == 2
    finally:
        worker.close()
        if escaped:
            _cleanup(escaped)
    assert os.getpgid(0) == os.getpgrp()  # and our own group is as it was


def test_a_grandchild_that_left_the_worker_s_group_and_session_dies_with_it(tmp_path, monkeypatch):
    # a wall down (no process limit), so the policy can fork
    child_with(tmp_path, monkeypatch,
               "real = child.resource.setrlimit\n"
               "child.resource.setrlimit = lambda which, v: None if which == child.resource.RLIMIT_NPROC "
               "else real(which, v)")
    worker = CodeWorker(plain_python=True)
    grandchild = None
    try:
        with pytest.raises(CodePolicyError, match="grandchild") as said:
            worker.call("fork", LEAVES_A_GRANDCHILD, entry_rows([{"id": "a"}]), {}, 5.0)
        grandchild = int(str(said.value).split("grandchild ")[1].split()[0].strip("'\""))
        assert alive(grandchild) and os.getsid(grandchild) != worker.pid  # it did get away
        worker.close()
        deadline = time.monotonic() + 5  # a kill takes effect when the kernel next runs it: a bound, not a wait
        while alive(grandchild) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert not alive(grandchild)
    finally:
        worker.close()
        if grandchild:
            _cleanup(grandchild)


def _named(comm: str) -> list[int]:
    """Live processes whose name is `comm` (what the escapee calls itself)."""
    found = []
    for name in os.listdir("/proc"):
        try:
            if name.isdigit() and open(f"/proc/{name}/comm").read().strip() == comm and alive(int(name)):
                found.append(int(name))
        except OSError:
            pass
    return found


def test_a_double_forked_daemon_is_killed_with_the_worker(tmp_path, monkeypatch):
    # the classic escape: fork, fork again, the middle one exits, so init would adopt the last
    child_with(tmp_path, monkeypatch,
               "real = child.resource.setrlimit\n"
               "child.resource.setrlimit = lambda which, v: None if which == child.resource.RLIMIT_NPROC "
               "else real(which, v)")
    comm = f"escapee{os.getpid() % 100000}"
    daemon = ("import os, ctypes\ndef retrieve(entries, query):\n    middle = os.fork()\n    if middle == 0:\n"
              "        if os.fork() == 0:\n            os.setsid()\n"
              f"            ctypes.CDLL(None).prctl(15, {comm.encode()!r}, 0, 0, 0)\n"
              "            while True:\n                pass\n        os._exit(0)\n"
              "    os.waitpid(middle, 0)\n    raise ValueError('forked')\n")
    worker = CodeWorker(plain_python=True)
    try:
        with pytest.raises(CodePolicyError, match="forked"):
            worker.call("daemon", daemon, entry_rows([{"id": "a"}]), {}, 5.0)
        deadline = time.monotonic() + 5  # bounds, not waits: until the kernel has run the daemon
        while not _named(comm) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert _named(comm)  # it is out there
        worker.close()
        deadline = time.monotonic() + 5
        while _named(comm) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert _named(comm) == []
    finally:
        worker.close()
        _cleanup(*_named(comm))


@pytest.mark.heavy
def test_a_worker_that_closes_its_output_and_runs_on_is_killed_not_waited_for():
    # the old parent waited for its exit, which only its CPU limit (60 s) would bring
    closes = "import os\ndef retrieve(entries, query):\n    os.close(1)\n    while True:\n        pass\n"
    worker = CodeWorker(plain_python=True)
    rows = entry_rows([{"id": "a"}])
    try:
        worker.call("ok", "def retrieve(entries, query):\n    return entries\n", rows, {}, 30.0)
        started = time.monotonic()
        with pytest.raises(CodePolicyError, match="the sandbox process died"):
            worker.call("closes", closes, rows, {}, 30.0)
        assert time.monotonic() - started < 10  # a bound: a second's grace, then the kill
        assert not alive(worker.last_pid)
    finally:
        worker.close()
        _cleanup(worker.last_pid)
