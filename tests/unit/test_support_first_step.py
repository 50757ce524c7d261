"""The lab's first step never waits for the support prediction table (issue 13): while
another thread builds it, a step computes its own row, and every number is the same."""

from __future__ import annotations

import threading

import numpy as np

from ael_tui.widgets.opening import NewSession, build_session
from scenarios.support import table
from scenarios.support.table import prediction_table, prediction_table_now, predictions_at


def test_a_row_computed_alone_is_the_tables_row():
    full = prediction_table(42).routes
    for t in (0, 1, 2, 39, 40, 517, 919, 1199):
        assert np.array_equal(predictions_at(42, t), full[t]), t


class Builder(threading.Thread):
    """Holds the table's build lock, as a thread building the table does, until released."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.holding, self.release = threading.Event(), threading.Event()

    def run(self) -> None:
        with table._BUILDING:
            self.holding.set()
            self.release.wait(30)


def _history(selector: str, building: bool) -> list[dict]:
    session = build_session(NewSession("support", 42, selector, "auto"))
    builder = Builder()
    if building:
        builder.start()
        assert builder.holding.wait(5)
        assert prediction_table_now(42) is None  # a step now computes its own row
    session.run(until=30)  # before the first reflection, which needs the whole table
    builder.release.set()
    session.run(until=90)
    return session.history


def test_steps_while_the_table_is_being_built_give_the_same_run():
    for selector in ("ts+reflection", "oracle"):
        assert _history(selector, building=True) == _history(selector, building=False), selector


def test_the_gentle_background_build_gives_the_same_table(monkeypatch, tmp_path):
    """`build_gently` (the lab's warm-up: blocks of rows with pauses) equals the table built
    at once, from an empty cache, and leaves it cached on disk like the other path."""
    monkeypatch.setenv("AEL_LAB_CACHE_DIR", str(tmp_path))
    reference = prediction_table(7).routes.copy()
    prediction_table.cache_clear()
    for f in tmp_path.glob("*.npy"):
        f.unlink()
    built = table.build_gently(7, block=100, pause=0.0)
    assert np.array_equal(built.routes, reference)
    assert prediction_table(7) is built and list(tmp_path.glob("*.npy"))
    prediction_table.cache_clear()
