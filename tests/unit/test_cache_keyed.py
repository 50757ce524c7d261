"""A cache on disk changes no result, even when its editor rewrites the checksums beside it:
the support table is trusted only with a MAC under a key kept outside the cache folder."""

from __future__ import annotations

import hashlib
import io
import json
import os
import stat
import warnings

import numpy as np
import pytest

from engine.store import cache_mac
from scenarios.support import table_cache
from scenarios.support.table import prediction_table

SEED = 11


@pytest.fixture
def cache(monkeypatch, tmp_path):
    folder, key = tmp_path / "cache", tmp_path / "state" / "ael-lab" / "cache.key"
    monkeypatch.setenv("AEL_LAB_CACHE_DIR", str(folder))
    monkeypatch.setenv("AEL_LAB_CACHE_KEY", str(key))
    prediction_table.cache_clear()
    yield folder, key
    prediction_table.cache_clear()


def _forge(folder):
    """What an editor of the cache folder can do without the key: a table that routes every
    ticket to route 0, and its sidecar with every checksum of the old bytes recomputed for the
    new ones (sha256, sha256 of the format and key, ...)."""
    (table,) = folder.glob("*.npy")
    sidecar = table.with_name(table.name + table_cache.SIDECAR)
    old = table.read_bytes()
    routes = np.zeros_like(np.load(io.BytesIO(old)))
    buffer = io.BytesIO()
    np.save(buffer, routes, allow_pickle=False)
    new = buffer.getvalue()
    table.write_bytes(new)
    doc = json.loads(sidecar.read_bytes())
    for name, value in doc.items():
        if value == hashlib.sha256(old).hexdigest():
            doc[name] = hashlib.sha256(new).hexdigest()
        elif name not in ("format", "key"):  # a MAC: the best guess without the key is a plain hash
            doc[name] = hashlib.sha256(new).hexdigest()
    sidecar.write_bytes(json.dumps(doc, sort_keys=True).encode())
    return table, routes


def test_a_table_rewritten_with_its_sidecar_changes_nothing(cache):
    folder, _ = cache
    first = prediction_table(SEED).routes.copy()
    table, forged = _forge(folder)
    assert not np.array_equal(forged, first)
    prediction_table.cache_clear()
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        again = prediction_table(SEED).routes
    assert np.array_equal(again, first)
    assert np.array_equal(np.load(table), first)  # recomputed and written again, signed
    notes = [str(w.message) for w in seen if issubclass(w.category, cache_mac.CacheWarning)]
    assert len(notes) == 1 and str(table) in notes[0] and "\n" not in notes[0], notes


def test_the_key_is_private_outside_the_cache_and_another_key_trusts_nothing(cache, monkeypatch, tmp_path):
    folder, key = cache
    first = prediction_table(SEED).routes.copy()
    assert key.is_file() and len(key.read_bytes()) == cache_mac.KEY_BYTES
    assert stat.S_IMODE(key.stat().st_mode) == 0o600 and stat.S_IMODE(key.parent.stat().st_mode) == 0o700
    assert not key.resolve().is_relative_to(folder.resolve())
    signed = table_cache.load(table_cache.table_key([], []), first.shape, 8)
    assert signed is None  # a key no table was stored under
    # a table signed under one key is not trusted under another
    monkeypatch.setenv("AEL_LAB_CACHE_KEY", str(tmp_path / "other.key"))
    key_of_seed = next(folder.glob("*.npy")).stem
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert table_cache.load(key_of_seed, first.shape, 8) is None
    monkeypatch.setenv("AEL_LAB_CACHE_KEY", str(key))
    assert np.array_equal(table_cache.load(key_of_seed, first.shape, 8), first)


def test_without_a_key_nothing_is_cached_and_the_table_is_computed(cache, monkeypatch, tmp_path):
    folder, _ = cache
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    monkeypatch.setenv("AEL_LAB_CACHE_KEY", str(blocker / "cache.key"))  # cannot be made
    assert cache_mac.mac(b"x") is None
    routes = prediction_table(SEED).routes
    assert routes.shape[0] > 0 and not list(folder.glob("*.npy"))


def test_a_key_file_that_is_not_32_bytes_or_a_symlink_is_no_key(tmp_path, monkeypatch):
    short = tmp_path / "short.key"
    short.write_bytes(b"0" * 8)
    monkeypatch.setenv("AEL_LAB_CACHE_KEY", str(short))
    assert cache_mac.mac(b"x") is None
    real = tmp_path / "real.key"
    real.write_bytes(os.urandom(32))
    link = tmp_path / "link.key"
    link.symlink_to(real)
    monkeypatch.setenv("AEL_LAB_CACHE_KEY", str(link))
    assert cache_mac.mac(b"x") is None
    monkeypatch.setenv("AEL_LAB_CACHE_KEY", str(real))
    assert cache_mac.mac(b"x") == cache_mac.mac(b"x") != cache_mac.mac(b"y")
    assert cache_mac.mac(b"ab", b"c") != cache_mac.mac(b"a", b"bc")
