"""The support prediction table from indices equals the table through the real
retrieval path (a `MemoryStore` filled ticket by ticket, `retrieve`, the router)."""

import dataclasses

import numpy as np
import pytest

from scenarios.support.indexed import indexed_predictions
from scenarios.support.policies import ALL_POLICIES, COMPRESSED, ROUTE_AWARE
from scenarios.support.table import compute_predictions, prediction_table


@pytest.mark.heavy
@pytest.mark.parametrize("seed", [42, 3])
def test_indexed_table_equals_the_real_retrieval_path_everywhere(seed):
    real = compute_predictions(seed)
    assert np.array_equal(indexed_predictions(seed, ALL_POLICIES, len(real)), real)
    # a prefix too: the first episodes have fewer earlier tickets than voters
    assert np.array_equal(indexed_predictions(seed, ALL_POLICIES, 37), real[:37])
    assert np.array_equal(prediction_table(seed).routes, real)


def test_every_policy_answers_more_than_the_default_route():
    """Equality above would be hollow if the columns were constant."""
    real = prediction_table(42).routes
    assert all(len(set(real[:, j].tolist())) > 3 for j in range(1, len(ALL_POLICIES)))


def test_a_shape_it_does_not_index_is_left_to_the_real_path():
    odd = dataclasses.replace(COMPRESSED, name="odd", format="sliding_window")
    assert indexed_predictions(42, (odd,), 50) is None
    orphan = dataclasses.replace(ROUTE_AWARE, name="orphan")  # its fallback is not in the set
    assert indexed_predictions(42, (orphan,), 50) is None


def test_the_table_cached_on_disk_is_the_computed_one_and_damage_is_recomputed(monkeypatch, tmp_path):
    from engine.store.cache_mac import CacheWarning
    from scenarios.support import table_cache

    monkeypatch.setenv("AEL_LAB_CACHE_DIR", str(tmp_path))
    prediction_table.cache_clear()
    first = prediction_table(11).routes
    files = list(tmp_path.glob("*.npy"))
    assert len(files) == 1 and np.array_equal(np.load(files[0]), first)
    files[0].write_bytes(b"not a table")
    prediction_table.cache_clear()
    with pytest.warns(CacheWarning, match="not used, computed again"):  # one line, then the table computed
        assert np.array_equal(prediction_table(11).routes, first)
    assert np.array_equal(np.load(files[0]), first)  # rewritten
    assert table_cache.load("0" * 24, first.shape, 8) is None
