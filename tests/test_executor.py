"""Independent runs in worker processes give exactly what one process gives."""

import json

import pytest

from ael_tui.cli import main
from engine.errors import AELError
from engine.executor import run_all


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


def test_groups_keep_their_items_together_until_every_group_is_under_way():
    from engine.executor import _Queue

    items = [(g, j) for j in range(3) for g in "abcd"]  # interleaved, as selectors × seeds are
    q = _Queue(items, group=lambda item: item[0])
    assert (q.next(None), q.next(None)) == (0, 1)  # two workers start on groups a and b
    handed, last = [], 0
    while (last := q.next(last)) is not None:  # the first worker keeps finishing
        handed.append(last)
    # a to its end, then the untouched c and d, then it helps b, where the other worker is
    assert [items[i] for i in handed] == [("a", 1), ("a", 2), ("c", 0), ("c", 1), ("c", 2),
                                          ("d", 0), ("d", 1), ("d", 2), ("b", 1), ("b", 2)]


def test_grouped_runs_still_return_every_result_in_item_order():
    items = list(range(17))
    assert run_all(square_or_refuse, items, workers=2, group=lambda x: x % 3) == [x * x for x in items]
