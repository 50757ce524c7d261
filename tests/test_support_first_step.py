"""The lab's first step never waits for the support prediction table (issue 13): while
another thread builds it, a step computes its own row, and every number is the same."""

from __future__ import annotations

import threading

import numpy as np

from ael_tui.files.opening import NewSession, build_session
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
