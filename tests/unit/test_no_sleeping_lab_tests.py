"""No lab test sleeps to wait for the interface (issue 30).

A test that outwaits a redraw throttle, the run keys' delay or the delay between
episodes with a fixed sleep is slow, and fails on a loaded machine when the sleep
falls short. The lab takes its time from `LabSettings.clock`: a test gives it a
`FakeClock` (tests/tui_helpers.py) and advances it, then waits on a condition
(`settle`, `until`, `FakeClock.until_waiting`). Read, never imported: the scan
covers every module `test_kinds` sorts as a lab or served test, and the helpers.
"""

from __future__ import annotations

import re
from pathlib import Path

from tests.unit.test_kinds import kind_of

HERE = Path(__file__).parent.parent  # tests/

# `pilot.pause(…)` with any argument (a bare `pause()` only lets pending messages run), or a sleep
SLEEP = re.compile(r"\.pause\(\s*[^)\s]|\bsleep\(")

# Modules that drive a real process, whose time no fake clock reaches; each waits on the
# process, polling within a deadline, never to outwait the lab's own clock.
REAL_PROCESSES = {
    "test_tui_tmux.py": "a real terminal (tmux): polls its screen, and waits a second to see no extra episode",
    "test_serve.py": "a real server: polls until a visitor's place frees up or a save lands, reaps its process group",
    "test_serve_browser.py": "a real browser page: polls its terminal buffer until the words appear",
}


def lab_test_modules() -> list[Path]:
    tests = [p for p in HERE.rglob("test_*.py") if kind_of(p) in ("lab", "served")]
    return sorted(tests) + sorted(HERE.rglob("tui_helpers.py"))


def test_no_lab_test_sleeps_to_wait_for_the_interface():
    found = [f"{path.relative_to(HERE)}:{n}: {line.strip()}"
             for path in lab_test_modules() if path.name not in REAL_PROCESSES
             for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if SLEEP.search(line)]
    assert not found, ("a lab test waits a fixed time: advance the lab's FakeClock and wait on a condition "
                       "(tests/tui_helpers.py: settle, until)\n" + "\n".join(found))


def test_the_scan_sees_every_way_to_sleep_and_the_allowed_modules_exist():
    for waits in ("await pilot.pause(0.3)", "await pilot.pause(RUN_KEYS_AFTER + 0.1)", "pilot.pause(delay=1)",
                  "await asyncio.sleep(0.2)", "time.sleep(1.0)", "sleep(0.1)"):
        assert SLEEP.search(waits), waits
    for fine in ("await pilot.pause()", "await settle(pilot)", "clock.advance(0.3)", "holding.wait(5)"):
        assert not SLEEP.search(fine), fine
    names = {path.name for path in lab_test_modules()}
    assert "tui_helpers.py" in names and "test_tui_lab.py" in names
    assert set(REAL_PROCESSES) <= names  # an entry for a module gone (or renamed) is stale: remove it
