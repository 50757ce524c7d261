"""A seal on scikit-learn's copy of the 20 Newsgroups data: its articles as the lab first read them.

scikit-learn's cache (`20news-bydate_py3.pkz` in its data home) is its file, written
without a checksum, and whoever can write the data home can change the corpus, and so
every news result, without the lab noticing (`read_pickle_cache` keeps it from running
code, not from saying other things). So the lab keeps a keyed MAC of the corpus it read
(groups and article texts, not the file's bytes: a new download of the same articles
compresses differently) under the cache key of engine/store/cache_mac.py, in the key's
own folder, one seal per data home: the data home can neither forge nor remove it.

The first read of a data home seals what it finds (trust on first use: a copy fetched
before this version); a download by the lab seals what it downloaded; every later read
must match its seal, or it is one line saying the copy changed and how to get a clean
one. Without a key (a home that cannot hold one) nothing is sealed or checked.
"""

from __future__ import annotations

import hashlib
import hmac
import os
from pathlib import Path

from engine.errors import AELError
from engine.store.cache_files import read_regular, write_atomic
from engine.store.cache_mac import key_path, mac

FORMAT = b"news-corpus-seal-1"


def seal_path(home: str) -> Path:
    """Where the seal of the data home `home` lives: beside the key, named by the home's path."""
    name = hashlib.sha256(os.path.realpath(home).encode("utf-8", "surrogatepass")).hexdigest()[:32]
    return key_path().parent / "news-seals" / name


def _corpus_mac(groups: list[str], raws: list[str]) -> str | None:
    return mac(FORMAT, *(text.encode("utf-8", "surrogatepass") for pair in zip(groups, raws) for text in pair))


def check(home: str, cached: str, groups: list[str], raws: list[str], downloaded: bool) -> None:
    """AELError (one line) when the corpus read from `cached` is not the one sealed for `home`;
    seals it when there is no seal yet or when the lab has just downloaded it."""
    tag = _corpus_mac(groups, raws)
    if tag is None:
        return
    path = seal_path(home)
    sealed = read_regular(path, 256)
    if sealed is not None and not downloaded and not hmac.compare_digest(sealed, tag.encode()):
        raise AELError(f"news: {cached} holds other articles than when this lab first read it (edited or "
                       "replaced since); delete it to download the corpus again, or pass --data with the archive "
                       "or a folder")
    if sealed != tag.encode():
        try:
            path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            write_atomic(path, tag.encode())
        except OSError:
            pass  # a seal that cannot be written checks nothing next time; it never stops a run
