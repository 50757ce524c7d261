"""scikit-learn's cache of the 20 Newsgroups data (`20news-bydate_py3.pkz` in its data home) is
a pickle that scikit-learn writes and, left to itself, loads with `pickle.loads`: a file planted
there would run code in the lab's process. We read it ourselves, allowing only the classes
scikit-learn puts in it."""

from __future__ import annotations

import codecs
import os
import pickle

import numpy as np
import pytest

from engine.errors import AELError
from scenarios.news import corpus

PLANTED = "planted-ran"


def _write(home, obj) -> str:
    os.makedirs(home, exist_ok=True)
    path = os.path.join(home, corpus.PICKLE_CACHE)
    with open(path, "wb") as f:
        f.write(codecs.encode(pickle.dumps(obj), "zlib_codec"))  # as scikit-learn writes it
    return path


def _bunch():
    from sklearn.utils import Bunch

    return Bunch(data=["Subject: one\n\nfirst body", "Subject: two\n\nsecond body"], target=np.array([1, 0]),
                 target_names=["alt.atheism", "comp.graphics"], filenames=np.array(["/a/1", "/a/2"]), DESCR=None)


class _Planted:
    def __reduce__(self):
        return (os.mkdir, (PLANTED,))


def test_the_cache_scikit_learn_writes_is_read(tmp_path, monkeypatch):
    monkeypatch.setenv("SCIKIT_LEARN_DATA", str(tmp_path / "home"))
    _write(tmp_path / "home", {"train": _bunch(), "test": _bunch()})
    got = corpus.fetch()
    assert got.groups[:2] == ("comp.graphics", "alt.atheism") and got.subjects[:2] == ("one", "two")


@pytest.mark.parametrize("content", [
    {"train": _Planted(), "test": _Planted()},       # a class outside the allowed few: never built
    {"train": {"data": ["x"], "target": np.array([5]), "target_names": ["a"]}, "test": {}},  # a label past the names
    "not a cache at all",
])
def test_a_planted_or_foreign_cache_is_one_line_and_runs_nothing(tmp_path, monkeypatch, content):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SCIKIT_LEARN_DATA", str(tmp_path / "home"))
    path = _write(tmp_path / "home", content)
    with pytest.raises(AELError, match=f"news: {path} is not scikit-learn's 20 Newsgroups cache"):
        corpus.fetch()
    assert not (tmp_path / PLANTED).exists()


def test_garbage_bytes_in_the_cache_are_one_line(tmp_path, monkeypatch):
    monkeypatch.setenv("SCIKIT_LEARN_DATA", str(tmp_path))
    (tmp_path / corpus.PICKLE_CACHE).write_bytes(os.urandom(4096))
    with pytest.raises(AELError, match="is not scikit-learn's 20 Newsgroups cache"):
        corpus.fetch()


def test_the_cache_rewritten_after_the_lab_read_it_is_one_line_not_other_results(tmp_path, monkeypatch):
    """Whoever can write the data home could change every news result: the lab seals the
    articles it read (a keyed MAC kept beside its cache key, not in the data home)."""
    monkeypatch.setenv("SCIKIT_LEARN_DATA", str(tmp_path / "home"))
    _write(tmp_path / "home", {"train": _bunch(), "test": _bunch()})
    first = corpus.fetch()
    assert corpus.fetch() == first  # read again, unchanged: the same corpus
    edited = _bunch()
    edited.data[0] = "Subject: one\n\nsomething else entirely"
    path = _write(tmp_path / "home", {"train": edited, "test": _bunch()})
    with pytest.raises(AELError, match=f"news: {path} holds other articles than when this lab first read it"):
        corpus.fetch()
    assert not any(p.name.startswith(("seal", "news")) for p in (tmp_path / "home").iterdir())  # not in the data home
