"""Shared setup for the lab's interface tests (tests/test_tui_*.py).

What makes a screen flaky is frozen here: the wall clock the engine stamps on
decisions and saves, the cursor blink, the user's own keymap file, and the
delay between episodes (0 unless a test asks for one).
"""

from __future__ import annotations

from pathlib import Path

import pytest

import engine.approvals
import engine.store.persistence
from ael_tui.app import AelLab
from ael_tui.config import LabSettings
from ael_tui.files.opening import NewSession, build_session

FROZEN_NOW = "2026-01-02T03:04:05+00:00"


@pytest.fixture(autouse=True)
def frozen_lab(monkeypatch, tmp_path):
    """Freeze time, ignore the user's keymap, and work in a temporary folder with an empty saves/."""
    monkeypatch.setattr(engine.approvals, "now_iso", lambda: FROZEN_NOW)
    monkeypatch.setattr(engine.store.persistence, "now_iso", lambda: FROZEN_NOW)
    monkeypatch.setenv("AEL_LAB_KEYS", str(tmp_path / "no-keys.json"))
    monkeypatch.chdir(tmp_path)
    (tmp_path / "saves").mkdir()
    yield tmp_path


def synthetic(approval: str = "manual", seed: int = 42):
    return build_session(NewSession("synthetic", seed, "ts+reflection", approval))


def make_app(session=None, delay: float = 0.0, autosave_every: int = 0, **kw) -> AelLab:
    settings = LabSettings(delay=delay, autosave_every=autosave_every, saves_dir=Path("saves"))
    return AelLab(session, settings=settings, cursor_blink=False, show_times=False, **kw)


async def settle(pilot, rounds: int = 2) -> None:
    """Let workers finish and the messages they posted be handled."""
    for _ in range(rounds):
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()


def notifications(app) -> list[str]:
    return [n.message for n in app._notifications]


async def method_memory(app, pilot):
    """The memory panel's method tab (a prior method's own memory), opened and drawn: the
    `MethodMemoryView` once it shows tables (the panel redraws on a throttle)."""
    from textual.widgets import Tabs

    from ael_tui.memory.method_memory import MethodMemoryView

    tabs = app.screen.query_one("#memory-tabs", Tabs)
    for _ in range(50):
        if tabs.query("#tier-method"):
            break
        await pilot.pause(0.1)
    tabs.active = "tier-method"
    await settle(pilot)
    view = app.screen.query_one(MethodMemoryView)
    for _ in range(50):
        if view.display and view.tables:
            break
        await pilot.pause(0.1)
    return view


def count_rebuilds(app):
    """The screen's footer, and a list that grows by one each time it rebuilds its keys."""
    from ael_tui.steady_footer import SteadyFooter

    footer = app.screen.query_one(SteadyFooter)
    rebuilt: list[int] = []
    original = footer.recompose

    async def recompose():
        rebuilt.append(1)
        await original()

    footer.recompose = recompose
    return footer, rebuilt
