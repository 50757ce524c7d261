"""Lab (interface) benchmarks, measured with Textual's pilot (`App.run_test`, headless, 160×48).

"Updated panels", honestly: the clock starts when the pilot presses the key
and stops at the first frame the screen composes (`compat.on_each_frame`: every frame the
headless driver receives but does not print) after the status line shows the
new episode number, the posterior table the played arm's new pull count, the
episode log the new row and the memory panel the new episodic count. The
"plots too" row ("step p95 with every panel live") stops at the
frame in which the Beta densities, the progress chart and the memory table show
that episode as well, none of them waiting for its throttle (each redraws at
most every 0.25 s; the presses come 0.3 s apart, so each step is drawn whole).

- step latency: a support session run to episode 1,100 (route_aware approved)
  whose memory is topped up to 1,500 entries (1,100 episodic, the rest
  semantic and procedural notes that no query prefers); 50 presses of space,
  each 0.3 s after the previous step has been drawn (a person's pace, so the
  plots are due at every step); p95 and median.
- run to the next reflection: support at episode 440, delay 0; e runs the 40
  episodes to the reflection after episode 479: key to the frame showing
  episode 480 with every panel redrawn (a run's end redraws everything).
- pause: a run going (g, 0.05 s between episodes); p to the moment the engine
  thread has returned (the run is over), median of 10, in the lab and in the
  compare view (three selectors in lockstep).
- start-up to the first frame: a new Python process (interpreter start not
  counted; imports counted) that builds `ael-lab lab support --seed 42` as the
  CLI does and runs the app under the pilot until the lab's status line,
  posterior table and footer keys are filled and a frame is composed (Textual
  composes the footer's keys after its first frame; a lab without its keys is
  not one a person can use yet). The median of 3.
- the first step of that new session: space pressed as soon as the first frame
  is out, to the frame whose status line shows episode 1. The support table is
  built off the UI thread from the first frame on; a step that finds it being
  built computes its own row. Measured with the user's table cache, and with an
  empty one for each process (a fresh machine).
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from ael_tui.app import AelLab
from ael_tui.compat import on_each_frame
from ael_tui.config import LabSettings
from ael_tui.widgets.opening import NewSession, build_session
from ael_tui.widgets.readouts import chosen_arm, posterior_rows
from ael_tui.lab.episode_log import EpisodeLog
from ael_tui.memory.memory_panel import MemoryPanel, MemoryTable
from ael_tui.lab.posteriors import DensityPlot, PosteriorTable, density_chart
from ael_tui.lab.progress_chart import ProgressChart
from ael_tui.widgets.status_bar import StatusBar

SIZE = (160, 48)
STEPS = 50
MEMORY = 1500


def _app(session, saves: Path) -> AelLab:
    return AelLab(session, settings=LabSettings(delay=0.0, saves_dir=saves, tends_heap=True), cursor_blink=False, show_times=False)


def support_with_memory(t: int = 1100, total: int = MEMORY):
    s = build_session(NewSession("support", 42, "ts+reflection", "auto"))
    s.run(until=t)
    m = s.memory
    i = 0
    while sum(m.counts().values()) < total:
        tier = "semantic" if i % 3 else "procedural"
        m.write(tier, f"bench note {i}: a general remark about ticket routing", {"note": i}, 0.5, episode=t - 1)
        i += 1
    return s


def _updated(app, t: int) -> bool:
    screen = app.screen
    s = screen.host.session
    status = str(screen.query_one(StatusBar).render())
    if f"episode {t}/" not in status:
        return False
    if screen.query_one(EpisodeLog).row_count != t:
        return False
    arm = chosen_arm(s)
    table = screen.query_one(PosteriorTable)
    pulls = next(a.pulls for a in s.selector.arms if a.name == arm)
    if table.cell(arm, "pulls") != str(pulls):
        return False
    episodic = s.memory.counts()["episodic"]
    return f"episodic {episodic} " in str(screen.query_one(MemoryPanel).border_subtitle)


def _slow_drawn(app, t: int) -> bool:
    """The plots and the memory table have been given this episode, none waits for its
    throttle (so they render in this frame)."""
    screen = app.screen
    s = screen.host.session
    chart, density = screen.query_one(ProgressChart), screen.query_one(DensityPlot)
    series = chart.chart.series if chart.chart is not None else []
    if not series or len(series[0].x) != t or chart.throttle.waiting:
        return False
    if density.throttle.waiting or not density_chart(posterior_rows(s), s.frozen, density.content_size.width) \
            .same_as(density.chart):
        return False
    table = screen.query_one(MemoryTable)
    newest = s.memory.tiers[screen.query_one(MemoryPanel).tier].entries[-1].id
    return not screen._memory.waiting and bool(table.rows) and table.rows[0].id == newest


class Frames:
    """The first composed frame at which each of some conditions holds. Watches every
    frame the screen composes (`compat.on_each_frame`); the conditions are checked as each frame goes out, so a time is that of
    the frame that shows it, however late the benchmark's own coroutine wakes up."""

    def __init__(self, app) -> None:
        self.conditions: dict[str, object] = {}
        self.hits: dict[str, float] = {}

        def seen() -> None:
            now = time.perf_counter()
            for name, condition in self.conditions.items():
                if name not in self.hits and condition():
                    self.hits[name] = now

        on_each_frame(app, seen)

    def arm(self, **conditions) -> None:
        """Watch for these conditions from now on (before the key is pressed)."""
        self.conditions, self.hits = conditions, {}

    async def wait(self, since: float, timeout: float = 10.0) -> dict[str, float]:
        """Seconds from `since` to the first frame composed while each condition held."""
        deadline = time.perf_counter() + timeout
        while len(self.hits) < len(self.conditions):
            if time.perf_counter() > deadline:
                raise TimeoutError(f"no frame showed {sorted(set(self.conditions) - set(self.hits))}")
            await asyncio.sleep(0.0005)
        self.conditions = {}
        return {name: hit - since for name, hit in self.hits.items()}


async def _step_latencies(saves: Path) -> tuple[list[float], list[float], int]:
    s = support_with_memory()
    entries = sum(s.memory.counts().values())
    app = _app(s, saves)
    panels, everything = [], []
    async with app.run_test(size=SIZE) as pilot:
        frames = Frames(app)
        await pilot.pause()
        await pilot.pause(0.3)
        for _ in range(STEPS):
            t = s.t + 1
            frames.arm(panels=lambda: _updated(app, t), everything=lambda: _updated(app, t) and _slow_drawn(app, t))
            t0 = time.perf_counter()
            await pilot.press("space")
            took = await frames.wait(t0)
            panels.append(took["panels"])
            everything.append(took["everything"])
            await app.workers.wait_for_complete()
            await pilot.pause(0.3)
    return panels, everything, entries


async def _run_to_reflection(saves: Path) -> tuple[float, int]:
    s = build_session(NewSession("support", 42, "ts+reflection", "auto"))
    s.run(until=440)
    app = _app(s, saves)
    async with app.run_test(size=SIZE) as pilot:
        frames = Frames(app)
        await pilot.pause()
        await pilot.pause(0.3)
        frames.arm(done=lambda: app.screen.host.running is None and _updated(app, 480) and _slow_drawn(app, 480))
        t0 = time.perf_counter()
        await pilot.press("e")  # to the next reflection (r runs on to the next one that proposes)
        took = (await frames.wait(t0))["done"]
        steps = s.t - 440
    return took, steps


async def _pause_latency(saves: Path, compare: bool, repeats: int = 10) -> float:
    from ael_tui.compare.lockstep import CompareHost, build_compare
    from ael_tui.compare.compare_screen import CompareScreen

    s = build_session(NewSession("synthetic", 42, "ts+reflection", "auto"))
    app = _app(s, saves)
    app.settings.delay = 0.05  # slow enough that ten runs of 0.1 s stay inside the 208-episode stream
    out = []
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        if compare:
            host = CompareHost(build_compare(s.config, ["ts", "ts+reflection", "oracle"]), app.settings)
            app.push_screen(CompareScreen(host))
            await pilot.pause()
        else:
            host = app.lab.host
        ended: list[float] = []
        run = host.run
        host.run = lambda *a, **k: (run(*a, **k), ended.append(time.perf_counter()))[0]
        for _ in range(repeats):
            await pilot.press("g")
            await pilot.pause(0.1)
            t0 = time.perf_counter()
            await pilot.press("p")
            await app.workers.wait_for_complete()
            if len(ended) != len(out) + 1 or ended[-1] < t0:  # the run was over before p: no pause measured
                raise RuntimeError("pause benchmark: the run ended before p was pressed (the stream ran out)")
            out.append(ended[-1] - t0)
            await pilot.pause()
    return statistics.median(out)


STARTUP = r"""
import asyncio, time
t0 = time.perf_counter()
from pathlib import Path
from ael_cli.main import build_parser
from ael_cli.flags.llm_flags import llm_config
from ael_tui.app import AelLab
from ael_tui.compat import on_each_frame
from ael_tui.config import LabSettings
from ael_tui.widgets.opening import NewSession, build_session
from ael_tui.widgets.status_bar import StatusBar
from ael_tui.lab.posteriors import PosteriorTable
from textual.widgets import Footer

async def main():
    args = build_parser().parse_args(["lab", "support", "--seed", "42"])
    session = build_session(NewSession(args.scenario, args.seed, args.selector, args.approve, llm=llm_config(args)))
    app = AelLab(session, settings=LabSettings(saves_dir=Path(SAVES), tends_heap=True), cursor_blink=False)
    shown, pressed, stepped = [], [], []

    def seen():  # the first composed frame with the lab filled in, then with episode 1
        if shown and pressed and not stepped:
            try:
                if "episode 1/1200" in str(app.screen.query_one(StatusBar).render()):
                    stepped.append(time.perf_counter())
            except Exception:
                pass
        if not shown:
            try:
                lab = app.screen
                if "episode 0/1200" in str(lab.query_one(StatusBar).render()) and \
                        lab.query_one(PosteriorTable).row_count and lab.query_one(Footer).children:
                    shown.append(time.perf_counter())
            except Exception:
                pass

    on_each_frame(app, seen)
    async with app.run_test(size=(160, 48)) as pilot:
        while not shown:
            await asyncio.sleep(0.001)
        first_frame = shown[0] - t0
        # the first step of the new session, pressed at once: key to the frame showing episode 1
        # (timed at that frame: pilot.press returns only once the process is idle, which a
        # table built in the background delays)
        pressed.append(True)
        t1 = time.perf_counter()
        await pilot.press("space")
        while not stepped:
            await asyncio.sleep(0.001)
        print(first_frame, stepped[0] - t1)

asyncio.run(main())
"""


def startup(saves: Path, repeats: int = 3, empty_cache: bool = False) -> tuple[float, float]:
    """(first frame, first step) of a new process, medians of `repeats`; `empty_cache`: each
    process with an empty support table cache (as on a fresh machine), else the user's."""
    frames, steps = [], []
    for _ in range(repeats):
        code = STARTUP.replace("SAVES", repr(str(saves)))
        env = dict(os.environ)
        if empty_cache:
            env["AEL_LAB_CACHE_DIR"] = tempfile.mkdtemp(dir=saves)
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60,
                             env=env)
        frame, step = (float(x) for x in out.stdout.strip().splitlines()[-1].split())
        frames.append(frame)
        steps.append(step)
    return statistics.median(frames), statistics.median(steps)


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def run() -> list[dict]:
    with tempfile.TemporaryDirectory() as d:
        saves = Path(d)
        steps, everything, entries = asyncio.run(_step_latencies(saves))
        reflect, n = asyncio.run(_run_to_reflection(saves))
        pause_lab = asyncio.run(_pause_latency(saves, compare=False))
        pause_compare = asyncio.run(_pause_latency(saves, compare=True))
        start, first_step = startup(saves)
        _, first_step_empty = startup(saves, empty_cache=True)
    return [
        {"name": f"lab: step key to updated panels, {entries} memory entries (p95 of {len(steps)})",
         "value": p95(steps) * 1e3, "unit": "ms", "target": 50},
        {"name": "  same, median", "value": statistics.median(steps) * 1e3, "unit": "ms", "target": None},
        {"name": "lab: step key to every panel redrawn, plots and memory table too (p95)",
         "value": p95(everything) * 1e3, "unit": "ms", "target": 50},
        {"name": f"lab: run to the reflection, {n} episodes, key to every panel redrawn",
         "value": reflect * 1e3, "unit": "ms", "target": 300},
        {"name": "lab: pause key to the engine thread stopped (median of 10)", "value": pause_lab * 1e3,
         "unit": "ms", "target": 100},
        {"name": "compare: same, three selectors in lockstep (median of 10)", "value": pause_compare * 1e3,
         "unit": "ms", "target": 100},
        {"name": "lab: start-up to the first frame (new process, imports included, median of 3)",
         "value": start, "unit": "s", "target": 1.0},
        {"name": "lab: first step of a new support session, space right after the first frame",
         "value": first_step * 1e3, "unit": "ms", "target": 150},
        {"name": "  same, the support table cache empty (a fresh machine)", "value": first_step_empty * 1e3,
         "unit": "ms", "target": 150},
    ]


if __name__ == "__main__":
    print(json.dumps(run(), indent=1))
