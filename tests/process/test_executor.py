"""Independent runs in worker processes give exactly what one process gives."""

import json
import os
import subprocess
import sys
import time

import pytest

from ael_cli.main import main
from engine.errors import AELError
from engine.executor import WorkerDied, run_all

PROJECT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/process/ -> the project


def square_or_refuse(x: int) -> int:
    if x < 0:
        raise AELError(f"refused {x}")
    return x * x


def test_results_come_back_in_item_order_whatever_the_worker_count():
    items = list(range(23))
    seen = []
    assert run_all(square_or_refuse, items, workers=3, on_done=lambda i, r: seen.append(i)) == [x * x for x in items]
    assert sorted(seen) == items
    assert run_all(square_or_refuse, items, workers=1) == [x * x for x in items]


def test_a_task_error_reaches_the_caller_as_itself():
    with pytest.raises(AELError, match="refused -1"):
        run_all(square_or_refuse, [1, 2, -1, 3], workers=2)


@pytest.mark.parametrize("scenario, extra", [
    ("synthetic", ["--seeds", "1..6", "--selector", "ts,ts+reflection,rr"]),
    ("support", ["--seeds", "42,7", "--selector", "ts+reflection,oracle,fixed:compressed", "--episodes", "300"]),
])
def test_one_worker_and_two_workers_write_the_same_results(tmp_path, scenario, extra):
    outputs = []
    for workers in ("1", "2"):
        out = tmp_path / f"w{workers}.json"
        assert main(["run", scenario, *extra, "--workers", workers, "--quiet", "--json", str(out)]) == 0
        outputs.append(out.read_text())
    assert outputs[0] == outputs[1]
    runs = json.loads(outputs[0])["runs"]
    assert len({json.dumps(r["regimes"]) for r in runs}) > 1  # distinct runs, not one result repeated


def test_workers_must_be_positive(capsys):
    assert main(["run", "synthetic", "--workers", "0", "--quiet"]) == 2
    assert "--workers" in capsys.readouterr().err


def test_each_worker_runs_whole_groups_and_steals_only_when_its_lane_is_done():
    from engine.executor import _Lanes

    items = [(g, j) for j in range(8) for g in "abcd"]  # interleaved, as selectors × seeds are
    lanes = _Lanes([g for g, _ in items], slots=2)
    first = [items[i] for i in lanes.next(0)]
    second = [items[i] for i in lanes.next(1)]
    assert {g for g, _ in first} == {"a"} and {g for g, _ in second} == {"c"}  # far apart
    slot0 = [items[i] for _ in range(3) for i in lanes.next(0)]
    assert {g for g, _ in slot0} == {"a"}  # slot 0 stays on its group
    handed = first + second + slot0
    while chunk := lanes.next(0):  # slot 0 runs on: b, then steals the back of slot 1's lane
        handed += [items[i] for i in chunk]
    while chunk := lanes.next(1):
        handed += [items[i] for i in chunk]
    assert sorted(handed) == sorted(items)  # every item exactly once
    assert handed[-1][0] == "c"  # slot 1 finished what was left of its own lane


def test_a_slot_with_work_queued_takes_only_from_its_own_lane():
    from engine.executor import _Lanes

    lanes = _Lanes(list(range(8)), slots=2)
    own = []
    while chunk := lanes.next(0, steal=False):
        own += chunk
    assert own == [0, 1, 2, 3]  # its lane, then nothing: slot 1's work is left to slot 1
    assert lanes.next(0)  # idle, it steals


def test_grouped_runs_still_return_every_result_in_item_order():
    items = list(range(17))
    assert run_all(square_or_refuse, items, workers=2, group=lambda x: x % 3) == [x * x for x in items]


class NeedsTwoArguments(Exception):
    def __init__(self, what: str, code: int):
        super().__init__(f"{what} ({code})")


def dies_or_refuses_oddly(x: int) -> int:
    if x == 3:
        os._exit(7)  # a worker killed under its run (out of memory, say)
    if x == 4:
        raise NeedsTwoArguments("refused four", 4)  # does not survive pickling as itself
    return x


def test_a_worker_that_dies_is_an_error_not_a_hang():
    with pytest.raises(WorkerDied, match="exit code 7"):
        run_all(dies_or_refuses_oddly, [1, 2, 3, 5, 6], workers=2)


def test_an_exception_that_cannot_cross_processes_still_says_what_it_was():
    with pytest.raises(RuntimeError, match="NeedsTwoArguments: refused four"):
        run_all(dies_or_refuses_oddly, [1, 2, 4, 5], workers=2)


def _orphans_when_the_parent_is_killed(marker: str, call: str) -> list[int]:
    """Run `run_all(<call>, on_done=...)` in a new process that stops at its first result,
    let the workers reach the state the test wants (0.5 s), SIGKILL that process alone,
    and return the workers still alive after 15 s (killed, so none outlives the test)."""
    script = ("import sys, time\n"
              "from engine.executor import run_all\n"
              f"_ = {marker!r}\n"
              f"run_all({call},\n"
              "        on_done=lambda i, r: (print(i, flush=True), time.sleep(3600)))\n")
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True,
                            cwd=PROJECT)
    assert proc.stdout.readline()  # the first result is in: the parent stops there
    time.sleep(0.5)
    proc.kill()
    proc.wait()
    deadline = time.monotonic() + 15
    while _processes_with(marker) and time.monotonic() < deadline:
        time.sleep(0.1)
    left = _processes_with(marker)
    for pid in left:
        os.kill(pid, 9)
    return left


def test_workers_leave_when_their_parent_is_killed():
    """A sweep killed with SIGKILL (no handler runs) leaves no worker behind, even one
    that is idle, waiting for a chunk that will never come (it has no pipe to break):
    each worker finishes what it has queued, answers, and waits on its inbox."""
    assert not _orphans_when_the_parent_is_killed(f"ael-orphan-test-{os.getpid()}",
                                                  "time.sleep, [0.05] * 60, workers=2")


def test_workers_blocked_sending_a_large_result_leave_when_their_parent_is_killed():
    """A worker whose reply fills its pipe waits for the parent to read it; when the parent
    is killed the send must fail, not wait for ever (each worker once held the others'
    pipe readers, so two orphans kept each other, and the sweep store's lock, alive)."""
    assert not _orphans_when_the_parent_is_killed(f"ael-orphan-send-{os.getpid()}",
                                                  "bytes, [200_000] * 40, workers=2")


def _processes_with(marker: str) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as f:
                    if marker.encode() in f.read():
                        found.append(int(entry))
            except OSError:
                pass
    return found


def collector_state(_: int) -> tuple[int, int]:
    import gc

    return gc.get_freeze_count(), gc.get_threshold()[2]


def test_a_worker_leaves_what_it_inherited_to_its_parent():
    """Issue 42: a forked worker freezes the heap it inherited (its full collections never
    walk, and so never copy, the parent's pages) and runs full collections a tenth as often;
    the parent's collector is left as it was."""
    import gc

    before = gc.get_threshold()
    gc.unfreeze()  # the test process itself freezes and slows its collector (tests/conftest.py): undo it here,
    gc.set_threshold(700, 10, 10)  # so that only the workers' own start can give them that state
    try:
        frozen, oldest = zip(*run_all(collector_state, [1, 2], workers=2))
        assert gc.get_freeze_count() == 0 and gc.get_threshold() == (700, 10, 10)  # the parent's, untouched
    finally:
        gc.freeze()
        gc.set_threshold(*before)
    assert all(n > 1000 for n in frozen) and set(oldest) == {100}
