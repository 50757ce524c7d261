"""Episode numbers and memory ids are never cut in the lab's episode log and memory table,
nor the arms' counts in the posteriors, however long the stream: a cut number names another
row (a 100,000-row stream's episode 99999 in a 4-column "ep" read "999…")."""

import pytest
from rich.style import Style

from ael_tui.lab.episode_log import EpisodeLog
from ael_tui.lab.posteriors import PosteriorTable
from ael_tui.memory.memory_panel import MemoryTable, _count
from ael_tui.widgets.readouts import ArmRow, MemoryRows


def drawn(table, row) -> str:
    return "".join(s.text for s in table._line(table.cells(row), table._widths(), Style(), 200))


def record(episode: int) -> dict:
    return {"episode": episode, "phase": "train", "policy": "compressed", "action": "«a b» → x",
            "result": "true x ✓", "reward": 1.0, "correct": True}


@pytest.mark.parametrize("rows", [10, 100_000, 500_000])
def test_the_episode_log_shows_every_episode_number_whole(rows):
    log = EpisodeLog()
    log.rows = [record(0), record(rows // 2), record(rows - 1)]
    for r in log.rows:
        assert drawn(log, r).split()[0] == str(r["episode"])
    assert log._widths()[0] == max(4, len(str(rows - 1)))  # as narrow as the numbers allow


@pytest.mark.parametrize("entries", [10, 100_000, 500_000])
def test_the_memory_table_shows_every_id_and_age_whole(entries):
    table = MemoryTable()
    newest, oldest = (f"e{entries - 1}", "c", 1.0, entries - 1, 7, 0.5), ("e0", "c", 1.0, 0, 3, 0.1)
    table.rows = MemoryRows([newest, oldest], entries, set())
    for i, (id_, *_rest) in enumerate([newest, oldest]):
        cells = drawn(table, table.rows[i]).split()
        assert id_ in cells and str(table.rows[i].age) in cells


def test_a_retrieval_count_fits_its_column_as_a_true_rounded_number():
    assert [_count(n) for n in (9999, 12_345, 999_999, 12_345_678)] == ["9999", "12k", "999k", "12M"]


def test_the_posteriors_keep_the_counts_of_a_long_stream_whole():
    table = PosteriorTable()
    arm = ArmRow("compressed", 100_001.0, 2.0, 0.99, 0.98, 0.99, 100_001, 0.99, False, 450_000, False)
    table.rows = [arm]
    cells = drawn(table, arm).split()
    assert {"100001.0", "100001", "450000"} <= set(cells)
